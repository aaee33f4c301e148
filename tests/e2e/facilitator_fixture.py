"""TEST FIXTURE, NOT A FACILITATOR: a loopback stand-in for an x402 facilitator, used only by
the payability end-to-end tests. It never touches a real chain and holds a throwaway fee-payer
key generated at start.

    python facilitator_fixture.py --port N [--rpc http://127.0.0.1:RPCPORT] [--watch-stdin]
        [--fee-payer-seed-hex HEX]

Listens on 127.0.0.1 only; prints one line `ready <port>` on stdout once it accepts
connections (`--port 0` picks a free port).

x402 facilitator API:
- GET /supported -> {"kinds": [{x402Version:1, scheme:"exact", network:"solana", extra:{feePayer}},
  {x402Version:2, scheme:"exact", network:"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  extra:{feePayer}}], "extensions": [], "signers": {"solana:*": [feePayer]}}
- POST /verify and POST /settle with {x402Version, paymentPayload, paymentRequirements}.

/verify really verifies (see verify_payment): the base64 VersionedTransaction in
paymentPayload.payload.transaction is decoded; every required signature except the fee
payer's (slot 0) must be a valid ed25519 signature by its account over the message bytes;
account 0 must be this fixture's fee payer (= requirements.extra.feePayer) and the fee payer
may appear in no instruction; instructions are SetComputeUnitLimit, SetComputeUnitPrice
(<= 5 lamports/CU), exactly one SPL Token TransferChecked (mint = requirements.asset, amount
exactly requirements.amount (v2) / maxAmountRequired (v1), decimals 6, destination =
ATA(payTo, mint) and = requirements.extra.usdc_token_account when present, authority a signer
other than the fee payer), then only Memo or Lighthouse instructions. When
requirements.extra.memo is a non-empty string, exactly one Memo instruction whose data equals
it is required; without one a memo is optional (as in the official facilitator). A
transaction this fixture already settled (keyed by the buyer's signature) is refused
(`duplicate_settlement`). Answers: {isValid, invalidReason?, invalidMessage?, payer}.

/settle re-verifies, signs slot 0 with the fee payer key, (with --rpc) submits it with
sendTransaction to the RPC stub so getTransaction finds it, records it and answers
{success:true, transaction:<transaction id = first signature, base58>, network, payer}, or
{success:false, errorReason, transaction:"", network, payer}. Verify-and-record is atomic:
of two concurrent settles of one transaction exactly one succeeds.

Control (test-only) endpoints:
- POST /__fixture/mode with any of
    {"settle": "normal"|"forged_network"|"forged_payer"|"fail"|"down"|"settled_but_down"|"slow",
     "verify": "normal"|"invalid"|"down"|"forged_valid",
     "supported": "normal"|"down"|"no_fee_payer",
     "slow_seconds": s}
  forged_network: success:true naming another network (nothing settled); forged_payer:
  success:true naming another payer (nothing settled); fail: success:false
  (errorReason "transaction_failed"); down: HTTP 503; settled_but_down: settles and records,
  then answers 503 (a settlement whose answer was lost); slow: sleeps min(s, 30) seconds,
  then normal. verify invalid: isValid:false ("fixture_forced_invalid"); forged_valid:
  isValid:true without checking. supported no_fee_payer: no extra.feePayer in kinds and
  empty signers; down: 503. Answers the current modes.
- POST /__fixture/reset {"forget_settled": bool?}: modes normal, counters zero.
- GET /__fixture/calls -> {"supported", "verify", "verify_valid", "settle", "settled",
  "modes", "fee_payer", "settled_transactions": [...], "recent": [last 100 decoded calls]}.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from solders.keypair import Keypair  # noqa: E402
from solders.message import to_bytes_versioned  # noqa: E402
from solders.transaction import VersionedTransaction  # noqa: E402

import svm_payment as sp  # noqa: E402

MAX_BODY = 1 << 20

# Reasons: the official SDK's names where one exists (x402/mechanisms/svm/constants.py).
ERR_UNSUPPORTED_SCHEME = "unsupported_scheme"
ERR_NETWORK_MISMATCH = "network_mismatch"
ERR_INVALID_PAYLOAD = "invalid_exact_svm_payload"
ERR_DECODE = "invalid_exact_svm_payload_transaction_could_not_be_decoded"
ERR_IX_COUNT = "invalid_exact_svm_payload_transaction_instructions_length"
ERR_COMPUTE_LIMIT = "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction"
ERR_COMPUTE_PRICE = "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction"
ERR_COMPUTE_PRICE_HIGH = ERR_COMPUTE_PRICE + "_too_high"
ERR_NO_TRANSFER = "invalid_exact_svm_payload_no_transfer_instruction"
ERR_UNKNOWN_IX = "invalid_exact_svm_payload_unknown_instruction"
ERR_MINT = "invalid_exact_svm_payload_mint_mismatch"
ERR_RECIPIENT = "invalid_exact_svm_payload_recipient_mismatch"
ERR_AMOUNT_LOW = "invalid_exact_svm_payload_amount_insufficient"
ERR_AMOUNT = "invalid_exact_svm_payload_amount_mismatch"
ERR_DECIMALS = "invalid_exact_svm_payload_decimals_mismatch"
ERR_FEE_PAYER_MISSING = "invalid_exact_svm_payload_missing_fee_payer"
ERR_FEE_PAYER_NOT_MANAGED = "fee_payer_not_managed_by_facilitator"
ERR_FEE_PAYER_MISMATCH = "invalid_exact_svm_payload_fee_payer_mismatch"
ERR_FEE_PAYER_TRANSFERRING = "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds"
ERR_SIGNATURE = "invalid_exact_svm_payload_signature"
ERR_MEMO_MISMATCH = "invalid_exact_svm_payload_memo_mismatch"
ERR_MEMO_COUNT = "invalid_exact_svm_payload_memo_count"
ERR_DUPLICATE = "duplicate_settlement"
ERR_TRANSACTION_FAILED = "transaction_failed"
ERR_SIMULATION_FAILED = "transaction_simulation_failed"
ERR_FORCED_INVALID = "fixture_forced_invalid"

SETTLE_MODES = ("normal", "forged_network", "forged_payer", "fail", "down", "settled_but_down", "slow")
VERIFY_MODES = ("normal", "invalid", "down", "forged_valid")
SUPPORTED_MODES = ("normal", "down", "no_fee_payer")


class Invalid(Exception):
    def __init__(self, reason: str, message: str = "", payer: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.message = message or reason
        self.payer = payer


class Fixture:
    def __init__(self, rpc_url: str | None, fee_payer_seed_hex: str | None = None):
        self.fee_payer = sp.keypair_from_seed_hex(fee_payer_seed_hex)
        self.fee_payer_str = str(self.fee_payer.pubkey())
        self.rpc_url = rpc_url
        self.lock = threading.Lock()  # counters, modes, recent
        self.settle_lock = threading.Lock()  # verify-and-record atomicity
        self.settled: dict[str, dict] = {}  # buyer signature -> record
        self.counts = collections.Counter()
        self.recent: collections.deque = collections.deque(maxlen=100)
        self.modes = {"settle": "normal", "verify": "normal", "supported": "normal", "slow_seconds": 10.0}

    # -- RPC -----------------------------------------------------------------------------
    def rpc(self, method: str, params: list):
        req = urllib.request.Request(
            self.rpc_url, data=sp.json_bytes({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
            headers={"Content-Type": "application/json"}, method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            out = json.loads(resp.read(MAX_BODY))
        if "error" in out:
            raise RuntimeError(f"{method}: {out['error'].get('message')}")
        return out["result"]

    # -- verification --------------------------------------------------------------------
    def verify_payment(self, body) -> tuple[dict, VersionedTransaction, str, str]:
        """Raises Invalid; returns (summary, tx, payer, buyer_signature)."""
        if not isinstance(body, dict):
            raise Invalid(ERR_INVALID_PAYLOAD, "body is not an object")
        version = body.get("x402Version")
        payload = body.get("paymentPayload")
        req = body.get("paymentRequirements")
        if version not in (1, 2) or not isinstance(payload, dict) or not isinstance(req, dict):
            raise Invalid(ERR_INVALID_PAYLOAD, "x402Version, paymentPayload or paymentRequirements missing")
        if payload.get("x402Version") != version:
            raise Invalid(ERR_INVALID_PAYLOAD, "paymentPayload.x402Version differs from x402Version")
        if version == 1:
            p_scheme, p_network = payload.get("scheme"), payload.get("network")
            want_network = sp.NETWORK_V1
            amount_str = req.get("maxAmountRequired")
        else:
            accepted = payload.get("accepted")
            if not isinstance(accepted, dict):
                raise Invalid(ERR_INVALID_PAYLOAD, "paymentPayload.accepted missing")
            p_scheme, p_network = accepted.get("scheme"), accepted.get("network")
            want_network = sp.NETWORK_V2
            amount_str = req.get("amount")
        if p_scheme != "exact" or req.get("scheme") != "exact":
            raise Invalid(ERR_UNSUPPORTED_SCHEME)
        if p_network != req.get("network") or req.get("network") != want_network:
            raise Invalid(ERR_NETWORK_MISMATCH)
        extra = req.get("extra") if isinstance(req.get("extra"), dict) else {}
        fee_payer = extra.get("feePayer")
        if not isinstance(fee_payer, str) or not fee_payer:
            raise Invalid(ERR_FEE_PAYER_MISSING)
        if fee_payer != self.fee_payer_str:
            raise Invalid(ERR_FEE_PAYER_NOT_MANAGED)
        if not isinstance(amount_str, str) or not amount_str.isascii() or not amount_str.isdigit():
            raise Invalid(ERR_INVALID_PAYLOAD, "required amount is not a digit string")
        required_amount = int(amount_str)
        asset, pay_to = req.get("asset"), req.get("payTo")
        if not isinstance(asset, str) or not isinstance(pay_to, str):
            raise Invalid(ERR_INVALID_PAYLOAD, "asset or payTo missing")
        inner = payload.get("payload")
        if not isinstance(inner, dict):
            raise Invalid(ERR_INVALID_PAYLOAD, "payload.transaction missing")
        try:
            tx = sp.tx_from_b64(inner.get("transaction"))
            ixs = sp.decode_instructions(tx)
            summary = sp.describe_tx(tx)
        except ValueError as e:
            raise Invalid(ERR_DECODE, str(e))

        msg = tx.message
        keys = [str(k) for k in msg.account_keys]
        n_sig = msg.header.num_required_signatures
        if len(msg.address_table_lookups) != 0:
            raise Invalid(ERR_INVALID_PAYLOAD, "address lookup tables are not supported")
        if keys[0] != self.fee_payer_str:
            raise Invalid(ERR_FEE_PAYER_MISMATCH, "account 0 (fee payer) is not this facilitator's key")
        if len(tx.signatures) != n_sig or n_sig < 2:
            raise Invalid(ERR_SIGNATURE, "signature count differs from the required signers")
        valid = sp.signature_results(tx)
        if not all(valid[1:]):
            raise Invalid(ERR_SIGNATURE, "a required signature is missing or invalid")

        if not 3 <= len(ixs) <= 6:
            raise Invalid(ERR_IX_COUNT)
        if any(self.fee_payer_str in ix.accounts for ix in ixs):
            raise Invalid(ERR_FEE_PAYER_TRANSFERRING)
        lim, price, transfer = ixs[0], ixs[1], ixs[2]
        if lim.program != sp.COMPUTE_BUDGET_PROGRAM or len(lim.data) != 5 or lim.data[0] != 2:
            raise Invalid(ERR_COMPUTE_LIMIT)
        if price.program != sp.COMPUTE_BUDGET_PROGRAM or len(price.data) != 9 or price.data[0] != 3:
            raise Invalid(ERR_COMPUTE_PRICE)
        if int.from_bytes(price.data[1:9], "little") > sp.MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS:
            raise Invalid(ERR_COMPUTE_PRICE_HIGH)
        token_ixs = [ix for ix in ixs if ix.program in (sp.TOKEN_PROGRAM, sp.TOKEN_2022_PROGRAM)]
        if transfer.program != sp.TOKEN_PROGRAM or len(token_ixs) != 1:
            raise Invalid(ERR_NO_TRANSFER, "exactly one SPL Token instruction, third, is required")
        if len(transfer.data) != 10 or transfer.data[0] != sp.TRANSFER_CHECKED or len(transfer.accounts) != 4:
            raise Invalid(ERR_NO_TRANSFER, "the token instruction is not TransferChecked")
        memos = []
        for ix in ixs[3:]:
            if ix.program == sp.MEMO_PROGRAM:
                memos.append(ix.data)
            elif ix.program != sp.LIGHTHOUSE_PROGRAM:
                raise Invalid(ERR_UNKNOWN_IX)
        source, mint, dest, authority = transfer.accounts
        payer = authority
        if authority not in keys[1:n_sig]:
            raise Invalid(ERR_SIGNATURE, "the transfer authority is not a signer", payer)
        if mint != asset:
            raise Invalid(ERR_MINT, payer=payer)
        amount = int.from_bytes(transfer.data[1:9], "little")
        if amount < required_amount:
            raise Invalid(ERR_AMOUNT_LOW, payer=payer)
        if amount != required_amount:
            raise Invalid(ERR_AMOUNT, "amount differs from the required amount", payer)
        if transfer.data[9] != sp.USDC_DECIMALS:
            raise Invalid(ERR_DECIMALS, payer=payer)
        try:
            expected_dest = sp.derive_ata(pay_to, asset, sp.TOKEN_PROGRAM)
        except ValueError:
            raise Invalid(ERR_INVALID_PAYLOAD, "payTo or asset is not a public key", payer)
        if dest != expected_dest:
            raise Invalid(ERR_RECIPIENT, "destination is not ATA(payTo, asset)", payer)
        token_account = extra.get("usdc_token_account")
        if token_account is not None and dest != token_account:
            raise Invalid(ERR_RECIPIENT, "destination is not extra.usdc_token_account", payer)
        expected_memo = extra.get("memo")
        if isinstance(expected_memo, str) and expected_memo:
            if len(memos) != 1:
                raise Invalid(ERR_MEMO_COUNT, "exactly one memo instruction is required", payer)
            if memos[0] != expected_memo.encode("utf-8"):
                raise Invalid(ERR_MEMO_MISMATCH, payer=payer)
        buyer_sig = str(tx.signatures[keys.index(authority)])
        if buyer_sig in self.settled:
            raise Invalid(ERR_DUPLICATE, "this transaction was already settled", payer)
        if self.rpc_url:
            try:
                sim = self.rpc("simulateTransaction", [
                    sp.tx_to_b64(self.sign_as_fee_payer(tx)),
                    {"encoding": "base64", "sigVerify": True, "commitment": "confirmed"},
                ])
            except (OSError, RuntimeError, ValueError) as e:
                raise Invalid(ERR_SIMULATION_FAILED, str(e), payer)
            if sim["value"].get("err") is not None:
                raise Invalid(ERR_SIMULATION_FAILED, json.dumps(sim["value"]["err"]), payer)
        return summary, tx, payer, buyer_sig

    def sign_as_fee_payer(self, tx: VersionedTransaction) -> VersionedTransaction:
        sig = self.fee_payer.sign_message(to_bytes_versioned(tx.message))
        return VersionedTransaction.populate(tx.message, [sig, *list(tx.signatures)[1:]])

    def note(self, entry: dict) -> None:
        with self.lock:
            self.recent.append(entry)

    @staticmethod
    def _short(body) -> dict:
        req = body.get("paymentRequirements") if isinstance(body, dict) else None
        extra = req.get("extra") if isinstance(req, dict) and isinstance(req.get("extra"), dict) else {}
        return {
            "x402Version": body.get("x402Version") if isinstance(body, dict) else None,
            "network": req.get("network") if isinstance(req, dict) else None,
            "required_memo": extra.get("memo"),
        }

    # -- endpoints -----------------------------------------------------------------------
    def supported(self) -> tuple[int, dict]:
        with self.lock:
            self.counts["supported"] += 1
            mode = self.modes["supported"]
        if mode == "down":
            return 503, {"error": "fixture: facilitator down"}
        extra = {} if mode == "no_fee_payer" else {"feePayer": self.fee_payer_str}
        signers = {} if mode == "no_fee_payer" else {"solana:*": [self.fee_payer_str]}
        return 200, {
            "kinds": [
                {"x402Version": 1, "scheme": "exact", "network": sp.NETWORK_V1, "extra": extra},
                {"x402Version": 2, "scheme": "exact", "network": sp.NETWORK_V2, "extra": extra},
            ],
            "extensions": [],
            "signers": signers,
        }

    def verify(self, body) -> tuple[int, dict]:
        with self.lock:
            self.counts["verify"] += 1
            mode = self.modes["verify"]
        entry = {"endpoint": "verify", "at": time.time(), **self._short(body)}
        if mode == "down":
            entry["answer"] = "503"
            self.note(entry)
            return 503, {"error": "fixture: facilitator down"}
        if mode == "forged_valid":
            entry["answer"] = "forged_valid"
            self.note(entry)
            return 200, {"isValid": True, "payer": ""}
        try:
            summary, _tx, payer, _sig = self.verify_payment(body)
        except Invalid as e:
            entry.update(isValid=False, invalidReason=e.reason, invalidMessage=e.message)
            self.note(entry)
            return 200, {"isValid": False, "invalidReason": e.reason, "invalidMessage": e.message, "payer": e.payer}
        entry.update(summary=summary)
        if mode == "invalid":
            entry.update(isValid=False, invalidReason=ERR_FORCED_INVALID)
            self.note(entry)
            return 200, {"isValid": False, "invalidReason": ERR_FORCED_INVALID, "payer": payer}
        with self.lock:
            self.counts["verify_valid"] += 1
        entry.update(isValid=True, payer=payer)
        self.note(entry)
        return 200, {"isValid": True, "payer": payer}

    def settle(self, body) -> tuple[int, dict]:
        with self.lock:
            self.counts["settle"] += 1
            mode = self.modes["settle"]
            slow = min(float(self.modes["slow_seconds"]), 30.0)
        entry = {"endpoint": "settle", "at": time.time(), "mode": mode, **self._short(body)}
        network = (body.get("paymentRequirements") or {}).get("network", "") if isinstance(body, dict) else ""
        if not isinstance(network, str):
            network = ""
        if mode == "down":
            entry["answer"] = "503"
            self.note(entry)
            return 503, {"error": "fixture: facilitator down"}
        if mode == "slow":
            time.sleep(slow)
        if mode == "fail":
            entry.update(success=False, errorReason=ERR_TRANSACTION_FAILED)
            self.note(entry)
            return 200, {"success": False, "errorReason": ERR_TRANSACTION_FAILED,
                         "errorMessage": "fixture: forced settlement failure",
                         "transaction": "", "network": network, "payer": ""}
        with self.settle_lock:
            try:
                summary, tx, payer, buyer_sig = self.verify_payment(body)
            except Invalid as e:
                entry.update(success=False, errorReason=e.reason, errorMessage=e.message)
                self.note(entry)
                return 200, {"success": False, "errorReason": e.reason, "errorMessage": e.message,
                             "transaction": "", "network": network, "payer": e.payer}
            entry["summary"] = summary
            signed = self.sign_as_fee_payer(tx)
            tx_id = str(signed.signatures[0])
            if mode == "forged_network":
                forged = sp.NETWORK_V2_DEVNET if network == sp.NETWORK_V2 else "solana-devnet"
                entry.update(success=True, forged="network", network_answered=forged)
                self.note(entry)
                return 200, {"success": True, "transaction": tx_id, "network": forged, "payer": payer}
            if mode == "forged_payer":
                other = str(Keypair().pubkey())
                entry.update(success=True, forged="payer", payer_answered=other)
                self.note(entry)
                return 200, {"success": True, "transaction": tx_id, "network": network, "payer": other}
            if self.rpc_url:
                try:
                    sent = self.rpc("sendTransaction", [sp.tx_to_b64(signed), {
                        "encoding": "base64", "skipPreflight": True, "preflightCommitment": "confirmed"}])
                    statuses = self.rpc("getSignatureStatuses", [[sent], {"searchTransactionHistory": False}])
                    if sent != tx_id or statuses["value"][0] is None:
                        raise RuntimeError("not confirmed")
                except (OSError, RuntimeError, ValueError, KeyError, TypeError) as e:
                    entry.update(success=False, errorReason=ERR_TRANSACTION_FAILED, errorMessage=str(e))
                    self.note(entry)
                    return 200, {"success": False, "errorReason": ERR_TRANSACTION_FAILED,
                                 "errorMessage": str(e), "transaction": "", "network": network, "payer": payer}
            self.settled[buyer_sig] = {"transaction": tx_id, "network": network, "payer": payer, "at": time.time()}
            with self.lock:
                self.counts["settled"] += 1
        entry.update(success=True, transaction=tx_id, payer=payer)
        self.note(entry)
        if mode == "settled_but_down":
            return 503, {"error": "fixture: facilitator down after settling"}
        return 200, {"success": True, "transaction": tx_id, "network": network, "payer": payer}

    def set_modes(self, body) -> tuple[int, dict]:
        allowed = {"settle": SETTLE_MODES, "verify": VERIFY_MODES, "supported": SUPPORTED_MODES}
        if not isinstance(body, dict):
            return 400, {"error": "body must be an object"}
        for k, v in body.items():
            if k == "slow_seconds":
                if not isinstance(v, (int, float)) or v < 0:
                    return 400, {"error": "slow_seconds must be a non-negative number"}
            elif k not in allowed or v not in allowed[k]:
                return 400, {"error": f"unknown mode {k}={v}"}
        with self.lock:
            self.modes.update(body)
            return 200, {"modes": dict(self.modes)}

    def reset(self, body) -> tuple[int, dict]:
        with self.lock:
            self.modes = {"settle": "normal", "verify": "normal", "supported": "normal", "slow_seconds": 10.0}
            self.counts.clear()
            self.recent.clear()
        if isinstance(body, dict) and body.get("forget_settled"):
            with self.settle_lock:
                self.settled.clear()
        return 200, {"ok": True}

    def calls(self) -> tuple[int, dict]:
        with self.lock:
            out = {k: self.counts.get(k, 0) for k in ("supported", "verify", "verify_valid", "settle", "settled")}
            out.update(modes=dict(self.modes), fee_payer=self.fee_payer_str,
                       settled_transactions=[r["transaction"] for r in self.settled.values()],
                       recent=list(self.recent))
        return 200, out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server_version = "x402-facilitator-test-fixture/1"
    fixture: Fixture
    verbose = False

    def log_message(self, fmt, *args):
        if self.verbose:
            sys.stderr.write("facilitator_fixture: " + (fmt % args) + "\n")

    def _send(self, status: int, obj) -> None:
        body = sp.json_bytes(obj)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path == "/supported":
            self._send(*self.fixture.supported())
        elif path == "/__fixture/calls":
            self._send(*self.fixture.calls())
        elif path == "/health":
            self._send(200, {"ok": True})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            self._send(413, {"error": "body too large"})
            return
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._send(400, {"error": "invalid JSON"})
            return
        path = self.path.split("?", 1)[0]
        routes = {
            "/verify": self.fixture.verify,
            "/settle": self.fixture.settle,
            "/__fixture/mode": self.fixture.set_modes,
            "/__fixture/reset": self.fixture.reset,
        }
        handler = routes.get(path)
        if handler is None:
            self._send(404, {"error": "not found"})
            return
        try:
            self._send(*handler(body))
        except Exception as e:  # noqa: BLE001 - a fixture bug must show, not hang
            print(f"facilitator_fixture: {path} crashed: {e!r}", file=sys.stderr, flush=True)
            self._send(500, {"error": "fixture crashed"})


def main() -> None:
    ap = argparse.ArgumentParser(description="x402 facilitator TEST FIXTURE (loopback only)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--rpc", help="Solana RPC stub URL: simulate on verify, send on settle")
    ap.add_argument("--fee-payer-seed-hex", help="32-byte seed for the fee payer (default: fresh key)")
    ap.add_argument("--max-lifetime", type=float, default=900.0, help="exit after this many seconds")
    ap.add_argument("--watch-stdin", action="store_true", help="exit when stdin reaches EOF")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    if args.rpc and not args.rpc.startswith(("http://127.0.0.1", "http://localhost")):
        sys.exit("--rpc must be a loopback URL")
    Handler.fixture = Fixture(args.rpc, args.fee_payer_seed_hex)
    Handler.verbose = args.verbose
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    sp.Lifetime(args.max_lifetime, args.watch_stdin)
    print(f"ready {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
