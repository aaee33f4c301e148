"""Loopback Solana JSON-RPC stub for the x402 end-to-end tests (test code, never a real node).

    python solana_rpc_stub.py --port N [--fee-lamports 5000] [--watch-stdin]

Listens on 127.0.0.1 only and prints one line `ready <port>` on stdout once it accepts
connections (`--port 0` picks a free port). It answers what the official x402 SVM client, the
facilitator fixture and the service call:

- getAccountInfo: the USDC mint EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v as a real SPL
  Mint account (82 bytes, decimals 6, owner the Token program) in base64, base58 or
  jsonParsed; any other account is null.
- getLatestBlockhash (a fresh blockhash each call, remembered), isBlockhashValid (true for a
  blockhash this stub issued and the test has not expired, whatever the commitment).
- simulateTransaction: success (`err: null`, `unitsConsumed`) for a decodable transaction
  whose blockhash this stub issued (or with replaceRecentBlockhash); with sigVerify every
  signature must verify.
- sendTransaction: every signature must verify and the blockhash must be ours and not
  expired; the transaction is recorded and its first signature returned (the facilitator
  fixture sends what it settles here when started with --rpc). simulateTransaction answers
  BlockhashNotFound for an expired blockhash too.
- getSignaturesForAddress: the recorded transactions that list the address among their
  static account keys, newest first (from just after `before` when named), at most `limit`
  (default 1000, 1..=1000), as
  `[{signature, slot, err: null, memo: null, blockTime, confirmationStatus: "confirmed"}]`.
- getSignatureStatuses, and getTransaction: recorded transactions answer with `meta.fee`
  (5000 lamports unless --fee-lamports) in json, jsonParsed, base64 (`transaction:
  [<base64 wire bytes>, "base64"]`) or base58 encoding; like
  a real node it refuses a version-0 transaction unless the request carries
  `maxSupportedTransactionVersion` (error -32015). Unknown signatures answer `null`.
- getHealth, getVersion, getSlot, getBlockHeight, getGenesisHash, getFeeForMessage,
  getMinimumBalanceForRentExemption.

Unknown methods are logged to stderr and answered with JSON-RPC error -32601.

Control (test-only) endpoints:
- GET  /__stub/calls  -> {"counts": {method: n}, "unknown": [...], "last_params": {method: params},
                          "transactions": [sig, ...], "modes": {...}}
- POST /__stub/mode   {"getTransaction": "normal"|"null"|"error"|"slow", "slow_seconds": s}
  ("slow" sleeps min(s, 30) seconds before answering normally; "error" answers -32000.)
- POST /__stub/reset  -> counts cleared, modes normal (recorded transactions and expired
  blockhashes kept).
- POST /__stub/expire_blockhashes  -> {"expired": n}: every blockhash issued so far is no
  longer valid (isBlockhashValid answers false, sendTransaction and simulateTransaction refuse
  it); blockhashes issued afterwards are valid.
- POST /__stub/land  {"transaction": "<base64 wire tx>"}  -> {"signature": "<first signature
  base58>"}: records the transaction as landed, as sendTransaction would but without its
  signature and blockhash checks (so a test can put a payment on chain without a
  facilitator). 400 when the transaction does not deserialise. Transactions are recorded by
  first signature, once: a transaction whose fee-payer slot is still empty lands under the
  all-zero signature ("1" * 64), so fill slot 0 to land several.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from solders.hash import Hash  # noqa: E402
from solders.pubkey import Pubkey  # noqa: E402

import svm_payment as sp  # noqa: E402

MAX_BODY = 1 << 20
API_VERSION = "2.2.7"
B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def b58encode(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58_ALPHABET[r] + out
    pad = len(data) - len(data.lstrip(b"\0"))
    return "1" * pad + out


def mint_account_data() -> bytes:
    """SPL Token Mint layout: COption<Pubkey> mint_authority, u64 supply, u8 decimals,
    bool is_initialized, COption<Pubkey> freeze_authority (82 bytes)."""
    data = (
        (1).to_bytes(4, "little") + bytes(Pubkey.from_string(sp.USDC_MINT_AUTHORITY))
        + (9_000_000_000_000_000).to_bytes(8, "little")
        + bytes([sp.USDC_DECIMALS])
        + bytes([1])
        + (1).to_bytes(4, "little") + bytes(Pubkey.from_string(sp.USDC_FREEZE_AUTHORITY))
    )
    assert len(data) == 82 and data[44] == 6
    return data


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class State:
    def __init__(self, fee_lamports: int):
        self.lock = threading.Lock()
        self.fee_lamports = fee_lamports
        self.slot = 350_000_000
        self.block_height = 328_000_000
        self.blockhashes: collections.OrderedDict[str, int] = collections.OrderedDict()
        self.expired: set[str] = set()
        self.transactions: collections.OrderedDict[str, dict] = collections.OrderedDict()
        self.counts: collections.Counter = collections.Counter()
        self.unknown: list[str] = []
        self.last_params: dict[str, object] = {}
        self.modes = {"getTransaction": "normal", "slow_seconds": 5.0}

    def context(self) -> dict:
        return {"slot": self.slot, "apiVersion": API_VERSION}

    def new_blockhash(self) -> tuple[str, int]:
        with self.lock:
            self.slot += 1
            self.block_height += 1
            bh = str(Hash(os.urandom(32)))
            self.blockhashes[bh] = self.block_height + 150
            while len(self.blockhashes) > 4096:
                old, _ = self.blockhashes.popitem(last=False)
                self.expired.discard(old)
            return bh, self.block_height + 150

    def blockhash_valid(self, bh) -> bool:
        with self.lock:
            return isinstance(bh, str) and bh in self.blockhashes and bh not in self.expired

    def expire_blockhashes(self) -> int:
        with self.lock:
            fresh = [bh for bh in self.blockhashes if bh not in self.expired]
            self.expired.update(fresh)
            return len(fresh)

    def record(self, tx) -> str:
        """Records a transaction as landed (once); its first signature."""
        sig = str(tx.signatures[0])
        with self.lock:
            if sig not in self.transactions:
                self.slot += 1
                self.transactions[sig] = {"tx": tx, "slot": self.slot, "blockTime": int(time.time())}
                while len(self.transactions) > 10000:
                    self.transactions.popitem(last=False)
        return sig


def param(params, i, default=None):
    if isinstance(params, list) and len(params) > i:
        return params[i]
    return default


def config_of(params, i) -> dict:
    cfg = param(params, i, {})
    if isinstance(cfg, str):  # old positional encoding / commitment form
        return {"encoding": cfg}
    return cfg if isinstance(cfg, dict) else {}


def decode_wire_tx(params, state: State):
    raw_str = param(params, 0)
    cfg = config_of(params, 1)
    encoding = cfg.get("encoding", "base58")
    if not isinstance(raw_str, str):
        raise RpcError(-32602, "Invalid params: transaction must be a string")
    try:
        if encoding == "base64":
            raw = base64.b64decode(raw_str, validate=True)
        elif encoding == "base58":
            raw = b58decode(raw_str)
        else:
            raise RpcError(-32602, f"Invalid params: unsupported encoding: {encoding}")
        from solders.transaction import VersionedTransaction

        return VersionedTransaction.from_bytes(raw), cfg
    except RpcError:
        raise
    except Exception:  # noqa: BLE001
        raise RpcError(-32602, "failed to deserialize solana_transaction::versioned::VersionedTransaction")


def b58decode(s: str) -> bytes:
    n = 0
    for ch in s:
        n = n * 58 + B58_ALPHABET.index(ch)
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    pad = len(s) - len(s.lstrip("1"))
    return b"\0" * pad + body


def account_info(state: State, params) -> dict:
    key = param(params, 0)
    cfg = config_of(params, 1)
    encoding = cfg.get("encoding", "base58")
    if key != sp.USDC_MINT:
        return {"context": state.context(), "value": None}
    data = mint_account_data()
    ds = cfg.get("dataSlice")
    if isinstance(ds, dict):
        off, ln = int(ds.get("offset", 0)), int(ds.get("length", len(data)))
        data = data[off:off + ln]
    if encoding == "base64":
        enc = [base64.b64encode(data).decode(), "base64"]
    elif encoding == "base58":
        enc = [b58encode(data), "base58"]
    elif encoding == "jsonParsed":
        enc = {
            "parsed": {
                "info": {
                    "decimals": sp.USDC_DECIMALS,
                    "freezeAuthority": sp.USDC_FREEZE_AUTHORITY,
                    "isInitialized": True,
                    "mintAuthority": sp.USDC_MINT_AUTHORITY,
                    "supply": "9000000000000000",
                },
                "type": "mint",
            },
            "program": "spl-token",
            "space": 82,
        }
    else:
        raise RpcError(-32602, f"Invalid params: unsupported encoding: {encoding}")
    return {
        "context": state.context(),
        "value": {
            "data": enc,
            "executable": False,
            "lamports": 388_127_047_454,
            "owner": sp.TOKEN_PROGRAM,
            "rentEpoch": 18446744073709551615,
            "space": 82,
        },
    }


def check_signatures(tx) -> None:
    if not all(sp.signature_results(tx)):
        raise RpcError(-32003, "Transaction signature verification failure")


def simulate(state: State, params) -> dict:
    tx, cfg = decode_wire_tx(params, state)
    if cfg.get("sigVerify") and cfg.get("replaceRecentBlockhash"):
        raise RpcError(-32602, "sigVerify may not be used with replaceRecentBlockhash")
    if cfg.get("sigVerify"):
        check_signatures(tx)
    replacement = None
    err = None
    if cfg.get("replaceRecentBlockhash"):
        bh, lvbh = state.new_blockhash()
        replacement = {"blockhash": bh, "lastValidBlockHeight": lvbh}
    elif not state.blockhash_valid(str(tx.message.recent_blockhash)):
        err = "BlockhashNotFound"
    if err is None:
        try:
            sp.decode_instructions(tx)
        except ValueError:
            err = {"InstructionError": [0, "MissingAccount"]}
    value = {
        "err": err,
        "logs": [] if err else [
            f"Program {sp.COMPUTE_BUDGET_PROGRAM} invoke [1]",
            f"Program {sp.COMPUTE_BUDGET_PROGRAM} success",
            f"Program {sp.TOKEN_PROGRAM} invoke [1]",
            "Program log: Instruction: TransferChecked",
            f"Program {sp.TOKEN_PROGRAM} consumed 6200 of 20000 compute units",
            f"Program {sp.TOKEN_PROGRAM} success",
        ],
        "accounts": None,
        "unitsConsumed": 0 if err else 6200,
        "returnData": None,
        "innerInstructions": None,
        "replacementBlockhash": replacement,
    }
    return {"context": state.context(), "value": value}


def send(state: State, params) -> str:
    tx, _cfg = decode_wire_tx(params, state)
    check_signatures(tx)
    if not state.blockhash_valid(str(tx.message.recent_blockhash)):
        raise RpcError(-32002, "Transaction simulation failed: Blockhash not found")
    return state.record(tx)


def signatures_for_address(state: State, params) -> list:
    address = param(params, 0)
    cfg = config_of(params, 1)
    limit = cfg.get("limit", 1000)
    if not isinstance(address, str) or not address:
        raise RpcError(-32602, "Invalid params: address must be a base58 string")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise RpcError(-32602, "Invalid limit; max 1000")
    before = cfg.get("before")
    with state.lock:
        recorded = list(state.transactions.items())
    found = []
    passed = before is None  # newest first, starting just after `before` when named
    for sig, rec in reversed(recorded):
        if not passed:
            passed = sig == before
            continue
        if address not in (str(k) for k in rec["tx"].message.account_keys):
            continue
        found.append({
            "signature": sig, "slot": rec["slot"], "err": None, "memo": None,
            "blockTime": rec["blockTime"], "confirmationStatus": "confirmed",
        })
        if len(found) == limit:
            break
    return found


def signature_statuses(state: State, params) -> dict:
    sigs = param(params, 0, [])
    if not isinstance(sigs, list) or len(sigs) > 256:
        raise RpcError(-32602, "Invalid params")
    value = []
    for s in sigs:
        rec = state.transactions.get(s)
        value.append(None if rec is None else {
            "slot": rec["slot"], "confirmations": None, "err": None,
            "status": {"Ok": None}, "confirmationStatus": "finalized",
        })
    return {"context": state.context(), "value": value}


def ui_amount(amount: int, decimals: int) -> dict:
    s = str(amount / 10 ** decimals)
    if s.endswith(".0"):
        s = s[:-2]
    return {"amount": str(amount), "decimals": decimals, "uiAmount": amount / 10 ** decimals,
            "uiAmountString": s}


def encode_tx(tx, encoding: str):
    msg = tx.message
    keys = [str(k) for k in msg.account_keys]
    header = {
        "numRequiredSignatures": msg.header.num_required_signatures,
        "numReadonlySignedAccounts": msg.header.num_readonly_signed_accounts,
        "numReadonlyUnsignedAccounts": msg.header.num_readonly_unsigned_accounts,
    }
    if encoding == "base64":
        return [base64.b64encode(bytes(tx)).decode(), "base64"]
    if encoding == "base58":
        return [b58encode(bytes(tx)), "base58"]
    if encoding == "json":
        return {
            "signatures": [str(s) for s in tx.signatures],
            "message": {
                "header": header,
                "accountKeys": keys,
                "recentBlockhash": str(msg.recent_blockhash),
                "instructions": [
                    {"programIdIndex": ix.program_id_index, "accounts": list(ix.accounts),
                     "data": b58encode(bytes(ix.data)), "stackHeight": None}
                    for ix in msg.instructions
                ],
                "addressTableLookups": [],
            },
        }
    if encoding == "jsonParsed":
        parsed_ixs = []
        for ix in sp.decode_instructions(tx):
            if ix.program == sp.MEMO_PROGRAM:
                parsed_ixs.append({"parsed": ix.data.decode("utf-8", "replace"), "program": "spl-memo",
                                   "programId": ix.program, "stackHeight": None})
            elif ix.program == sp.TOKEN_PROGRAM and len(ix.data) == 10 and ix.data[0] == 12:
                parsed_ixs.append({
                    "parsed": {"info": {
                        "authority": ix.accounts[3], "destination": ix.accounts[2],
                        "mint": ix.accounts[1], "source": ix.accounts[0],
                        "tokenAmount": ui_amount(int.from_bytes(ix.data[1:9], "little"), ix.data[9]),
                    }, "type": "transferChecked"},
                    "program": "spl-token", "programId": ix.program, "stackHeight": None,
                })
            else:
                parsed_ixs.append({"accounts": ix.accounts, "data": b58encode(ix.data),
                                   "programId": ix.program, "stackHeight": None})
        return {
            "signatures": [str(s) for s in tx.signatures],
            "message": {
                "accountKeys": [
                    {"pubkey": k, "signer": msg.is_signer(i), "writable": msg.is_maybe_writable(i),
                     "source": "transaction"}
                    for i, k in enumerate(keys)
                ],
                "recentBlockhash": str(msg.recent_blockhash),
                "instructions": parsed_ixs,
                "addressTableLookups": [],
            },
        }
    raise RpcError(-32602, f"Invalid params: unsupported encoding: {encoding}")


def tx_meta(state: State, tx) -> dict:
    keys = [str(k) for k in tx.message.account_keys]
    pre, post = [], []
    for i, k in enumerate(keys):
        if i == 0:
            pre.append(1_000_000_000)
            post.append(1_000_000_000 - state.fee_lamports)
        elif k in (sp.TOKEN_PROGRAM, sp.COMPUTE_BUDGET_PROGRAM, sp.MEMO_PROGRAM):
            pre.append(1)
            post.append(1)
        else:
            pre.append(2_039_280)
            post.append(2_039_280)
    pre_tok, post_tok = [], []
    for t in sp.describe_tx(tx)["transfers"]:
        for acct, before, after, owner in (
            (t["source"], 1_000_000, 1_000_000 - t["amount"], t["authority"]),
            (t["destination"], 0, t["amount"], None),
        ):
            if acct not in keys:
                continue
            base = {"accountIndex": keys.index(acct), "mint": t["mint"], "programId": t["program"]}
            if owner:
                base["owner"] = owner
            pre_tok.append({**base, "uiTokenAmount": ui_amount(before, t["decimals"])})
            post_tok.append({**base, "uiTokenAmount": ui_amount(after, t["decimals"])})
    return {
        "err": None,
        "status": {"Ok": None},
        "fee": state.fee_lamports,
        "preBalances": pre,
        "postBalances": post,
        "innerInstructions": [],
        "logMessages": [
            f"Program {sp.COMPUTE_BUDGET_PROGRAM} invoke [1]",
            f"Program {sp.COMPUTE_BUDGET_PROGRAM} success",
            f"Program {sp.TOKEN_PROGRAM} invoke [1]",
            "Program log: Instruction: TransferChecked",
            f"Program {sp.TOKEN_PROGRAM} success",
        ],
        "preTokenBalances": pre_tok,
        "postTokenBalances": post_tok,
        "rewards": [],
        "loadedAddresses": {"writable": [], "readonly": []},
        "computeUnitsConsumed": 6200,
    }


def get_transaction(state: State, params):
    sig = param(params, 0)
    cfg = config_of(params, 1)
    mode = state.modes["getTransaction"]
    if mode == "slow":
        time.sleep(min(float(state.modes.get("slow_seconds", 5.0)), 30.0))
    elif mode == "error":
        raise RpcError(-32000, "fixture: getTransaction forced error")
    elif mode == "null":
        return None
    rec = state.transactions.get(sig) if isinstance(sig, str) else None
    if rec is None:
        return None
    if cfg.get("maxSupportedTransactionVersion") is None:
        raise RpcError(
            -32015,
            "Transaction version (0) is not supported by the requesting client. Please try the "
            "request again with the following configuration parameter: "
            "\"maxSupportedTransactionVersion\": 0",
        )
    tx = rec["tx"]
    return {
        "slot": rec["slot"],
        "blockTime": rec["blockTime"],
        "version": 0,
        "meta": tx_meta(state, tx),
        "transaction": encode_tx(tx, cfg.get("encoding", "json")),
    }


def dispatch(state: State, method: str, params):
    if method == "getAccountInfo":
        return account_info(state, params)
    if method == "getLatestBlockhash":
        bh, lvbh = state.new_blockhash()
        return {"context": state.context(), "value": {"blockhash": bh, "lastValidBlockHeight": lvbh}}
    if method == "isBlockhashValid":
        return {"context": state.context(), "value": state.blockhash_valid(param(params, 0))}
    if method == "simulateTransaction":
        return simulate(state, params)
    if method == "sendTransaction":
        return send(state, params)
    if method == "getSignatureStatuses":
        return signature_statuses(state, params)
    if method == "getSignaturesForAddress":
        return signatures_for_address(state, params)
    if method == "getTransaction":
        return get_transaction(state, params)
    if method == "getHealth":
        return "ok"
    if method == "getVersion":
        return {"solana-core": API_VERSION, "feature-set": 3294202862}
    if method == "getSlot":
        return state.slot
    if method == "getBlockHeight":
        return state.block_height
    if method == "getGenesisHash":
        return sp.NETWORK_V2.split(":", 1)[1]
    if method == "getFeeForMessage":
        return {"context": state.context(), "value": state.fee_lamports}
    if method == "getMinimumBalanceForRentExemption":
        size = param(params, 0, 0)
        return 6960 * (128 + int(size if isinstance(size, int) else 0))
    raise LookupError(method)


def handle_one(state: State, req) -> dict | None:
    if not isinstance(req, dict) or not isinstance(req.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}}
    rid = req.get("id")
    method = req["method"]
    with state.lock:
        state.counts[method] += 1
        if len(state.last_params) < 64 or method in state.last_params:
            state.last_params[method] = req.get("params", [])
    try:
        result = dispatch(state, method, req.get("params", []))
    except LookupError:
        print(f"solana_rpc_stub: unknown method {method!r}", file=sys.stderr, flush=True)
        with state.lock:
            if len(state.unknown) < 200:
                state.unknown.append(method)
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
    except RpcError as e:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": e.code, "message": e.message}}
    except Exception as e:  # noqa: BLE001
        print(f"solana_rpc_stub: {method} failed: {e!r}", file=sys.stderr, flush=True)
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "Internal error"}}
    return {"jsonrpc": "2.0", "result": result, "id": rid}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server_version = "solana-rpc-stub/1"
    state: State
    verbose = False

    def log_message(self, fmt, *args):  # noqa: D401 - quiet unless --verbose
        if self.verbose:
            sys.stderr.write("solana_rpc_stub: " + (fmt % args) + "\n")

    def _send(self, status: int, obj) -> None:
        body = sp.json_bytes(obj)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _read_body(self) -> bytes | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._send(413, {"error": "body too large"})
            self.close_connection = True
            return None
        return self.rfile.read(length)

    def do_GET(self):  # noqa: N802
        if self.path == "/__stub/calls":
            st = self.state
            with st.lock:
                self._send(200, {"counts": dict(st.counts), "unknown": list(st.unknown),
                                 "last_params": dict(st.last_params),
                                 "transactions": list(st.transactions.keys()), "modes": dict(st.modes)})
            return
        if self.path == "/health":
            self._send(200, {"ok": True})
            return
        self._send(405, {"error": "use POST for JSON-RPC"})

    def do_POST(self):  # noqa: N802
        raw = self._read_body()
        if raw is None:
            return
        st = self.state
        if self.path.startswith("/__stub/"):
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": "bad json"})
                return
            if self.path == "/__stub/mode":
                mode = body.get("getTransaction")
                if mode is not None and mode not in ("normal", "null", "error", "slow"):
                    self._send(400, {"error": "unknown getTransaction mode"})
                    return
                with st.lock:
                    if mode is not None:
                        st.modes["getTransaction"] = mode
                    if "slow_seconds" in body:
                        st.modes["slow_seconds"] = float(body["slow_seconds"])
                    self._send(200, {"modes": dict(st.modes)})
                return
            if self.path == "/__stub/reset":
                with st.lock:
                    st.counts.clear()
                    st.unknown.clear()
                    st.last_params.clear()
                    st.modes = {"getTransaction": "normal", "slow_seconds": 5.0}
                self._send(200, {"ok": True})
                return
            if self.path == "/__stub/expire_blockhashes":
                self._send(200, {"expired": st.expire_blockhashes()})
                return
            if self.path == "/__stub/land":
                encoded = body.get("transaction") if isinstance(body, dict) else None
                try:
                    from solders.transaction import VersionedTransaction

                    tx = VersionedTransaction.from_bytes(base64.b64decode(encoded, validate=True))
                except Exception:  # noqa: BLE001
                    self._send(400, {"error": "transaction must be base64 of a wire transaction"})
                    return
                self._send(200, {"signature": st.record(tx)})
                return
            self._send(404, {"error": "unknown control endpoint"})
            return
        try:
            req = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._send(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        if isinstance(req, list):
            if not req or len(req) > 100:
                self._send(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid request"}})
                return
            self._send(200, [handle_one(st, r) for r in req])
        else:
            self._send(200, handle_one(st, req))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fee-lamports", type=int, default=5000)
    ap.add_argument("--max-lifetime", type=float, default=900.0, help="exit after this many seconds")
    ap.add_argument("--watch-stdin", action="store_true", help="exit when stdin reaches EOF")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    Handler.state = State(args.fee_lamports)
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
