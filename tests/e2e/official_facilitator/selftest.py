"""Self-test of the official x402 facilitator test component (test code): starts the Solana
RPC stub (../solana_rpc_stub.py) and server.mjs (@x402/core's x402Facilitator + @x402/svm's
exact scheme), builds payments with the official Python SDK as ../buyer.py does, and checks
what the official facilitator answers to /supported, /verify and /settle, replays included.

    python selftest.py        (with the x402 virtualenv's python; node 20.18+ on PATH)

The installed packages are found through $PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES, else
server.mjs's default (target/test-deps/official-facilitator/node_modules), where scripts/test
installs them. Prints one line per check (the facilitator's exact JSON answers for the
observations) and a final `N passed, M failed`; exits 0 only when every check held. Loopback
only; a watchdog ends the run after 60 s and the children exit when this process's pipes close.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.dirname(HERE)
sys.path.insert(0, E2E)
warnings.filterwarnings("ignore", message="Client is deprecated", category=FutureWarning)
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

from solders.keypair import Keypair  # noqa: E402
from solders.message import to_bytes_versioned  # noqa: E402
from solders.pubkey import Pubkey  # noqa: E402
from solders.signature import Signature  # noqa: E402

import svm_payment as sp  # noqa: E402

WATCHDOG_S = 60
# @x402/svm's SETTLEMENT_TTL_MS (the SettlementCache's TTL), as pinned: 120 s.
SETTLEMENT_TTL_S = 120
CHILDREN: list[subprocess.Popen] = []
PASSED: list[str] = []
FAILED: list[str] = []


def watchdog() -> None:
    print(f"FAIL - watchdog: the self-test did not finish within {WATCHDOG_S} s", flush=True)
    for p in CHILDREN:
        p.kill()
    print(f"{len(PASSED)} passed, {len(FAILED) + 1} failed", flush=True)
    os._exit(1)


def check(name: str, cond: bool, detail="") -> bool:
    if cond:
        PASSED.append(name)
        print(f"ok - {name}", flush=True)
    else:
        FAILED.append(name)
        print(f"FAIL - {name}: {detail}", flush=True)
    return cond


def show(label: str, obj) -> None:
    print(f"   {label}: {json.dumps(obj, separators=(',', ':'))}", flush=True)


def start(argv: list[str]) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr,
                            text=True)
    CHILDREN.append(proc)
    line = proc.stdout.readline().strip()  # bounded by the watchdog
    if not line.startswith("ready "):
        raise RuntimeError(f"{argv[1]} did not print ready (got {line!r})")
    return proc, int(line.split()[1])


def http_json(method: str, url: str, body=None, timeout=20.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=timeout) as r:
            raw, status = r.read(), r.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    try:
        return status, json.loads(raw)
    except json.JSONDecodeError:
        return status, raw.decode("utf-8", "replace")


class Payments:
    """Requirements in our service's shape and payments for them from the official SDK."""

    def __init__(self, rpc_url: str, fee_payer: str):
        from x402 import x402ClientSync
        from x402.mechanisms.svm import KeypairSigner
        from x402.mechanisms.svm.exact import register_exact_svm_client

        self.fee_payer = fee_payer
        self.pay_to = str(Keypair().pubkey())
        self.token_account = sp.derive_ata(self.pay_to)
        self.buyer = Keypair()
        self.client = x402ClientSync()
        register_exact_svm_client(self.client, KeypairSigner(self.buyer), rpc_url=rpc_url)

    def requirements(self, version: int = 2, amount: int = sp.PRICE_UNITS, memo: str | None = None) -> dict:
        extra = {"feePayer": self.fee_payer, "usdc_token_account": self.token_account,
                 "memo": memo or "pvm_" + os.urandom(16).hex()}
        if version == 2:
            return {"scheme": "exact", "network": sp.NETWORK_V2, "amount": str(amount),
                    "asset": sp.USDC_MINT, "payTo": self.pay_to, "maxTimeoutSeconds": 60, "extra": extra}
        return {"scheme": "exact", "network": sp.NETWORK_V1, "maxAmountRequired": str(amount),
                "resource": "http://127.0.0.1:9/check", "description": "One signed payability verdict",
                "mimeType": "application/json", "payTo": self.pay_to, "maxTimeoutSeconds": 60,
                "asset": sp.USDC_MINT, "extra": extra}

    def pay(self, requirements: dict) -> dict:
        """The SDK's payment payload for one requirements object, as JSON (the header's content)."""
        if requirements["network"] == sp.NETWORK_V1:
            from x402.schemas.v1 import PaymentRequiredV1

            required = PaymentRequiredV1.model_validate(
                {"x402Version": 1, "error": "payment required", "accepts": [requirements]})
        else:
            from x402.schemas import PaymentRequired

            required = PaymentRequired.model_validate(
                {"x402Version": 2, "error": "payment required",
                 "resource": {"url": "http://127.0.0.1:9/check", "description": "One signed payability verdict",
                              "mimeType": "application/json"},
                 "accepts": [requirements]})
        payload = self.client.create_payment_payload(required)
        return json.loads(payload.model_dump_json(by_alias=True, exclude_none=True))


def body(payload: dict, requirements: dict) -> dict:
    return {"x402Version": payload["x402Version"], "paymentPayload": payload,
            "paymentRequirements": requirements}


def main() -> int:
    timer = threading.Timer(WATCHDOG_S, watchdog)
    timer.daemon = True
    timer.start()
    t0 = time.monotonic()
    try:
        run_checks()
    except Exception:  # noqa: BLE001 - report, then fail
        traceback.print_exc()
        check("the self-test ran to the end", False, "exception (traceback above)")
    finally:
        for p in CHILDREN:
            p.terminate()
        for p in CHILDREN:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
    print(f"(took {time.monotonic() - t0:.1f} s)", flush=True)
    print(f"{len(PASSED)} passed, {len(FAILED)} failed", flush=True)
    return 0 if not FAILED and PASSED else 1


def run_checks() -> None:
    node = os.environ.get("PAYABILITY_TEST_NODE") or shutil.which("node")
    if not node:
        raise RuntimeError("node is not on PATH")
    _stub, rpc_port = start([sys.executable, os.path.join(E2E, "solana_rpc_stub.py"), "--port", "0",
                             "--watch-stdin", "--max-lifetime", "120"])
    rpc_url = f"http://127.0.0.1:{rpc_port}"
    seed = os.urandom(32).hex()
    fee_payer = str(sp.keypair_from_seed_hex(seed).pubkey())
    argv = [node, os.path.join(HERE, "server.mjs"), "--port", "0", "--rpc", rpc_url,
            "--fee-payer-seed-hex", seed, "--max-seconds", "120"]
    if os.environ.get("PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES"):
        argv += ["--modules", os.environ["PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES"]]
    _fac, fac_port = start(argv)
    fac = f"http://127.0.0.1:{fac_port}"

    def stub_calls() -> dict:
        return http_json("GET", rpc_url + "/__stub/calls")[1]

    def stub_reset() -> None:
        http_json("POST", rpc_url + "/__stub/reset", {})

    # 0. The installed packages are the pinned ones.
    with open(os.path.join(HERE, "package.json"), encoding="utf-8") as f:
        pinned = json.load(f)["dependencies"]
    _s, info = http_json("GET", fac + "/__official/info")
    show("installed", info.get("versions"))
    check("the facilitator runs the pinned @x402/core, @x402/svm and @solana/kit",
          info.get("versions") == pinned, (info, pinned))
    check("its fee payer is the --fee-payer-seed-hex key", info.get("feePayer") == fee_payer, info)
    check(f"@x402/svm's SettlementCache TTL (SETTLEMENT_TTL_MS) is {SETTLEMENT_TTL_S} s",
          info.get("settlementTtlMs") == SETTLEMENT_TTL_S * 1000, info)

    # 1. /supported.
    status, supported = http_json("GET", fac + "/supported")
    show("/supported", supported)
    kinds = {(k.get("x402Version"), k.get("scheme"), k.get("network")): k.get("extra")
             for k in supported.get("kinds", [])} if isinstance(supported, dict) else {}
    check("/supported lists v2 exact on solana mainnet (CAIP-2) with extra.feePayer",
          status == 200 and kinds.get((2, "exact", sp.NETWORK_V2)) == {"feePayer": fee_payer}, supported)
    check("/supported lists v1 exact on `solana` with the same extra.feePayer",
          kinds.get((1, "exact", sp.NETWORK_V1)) == {"feePayer": fee_payer}, supported)
    check("/supported signers: {\"solana:*\": [fee payer]}",
          supported.get("signers") == {"solana:*": [fee_payer]}, supported)

    pay = Payments(rpc_url, fee_payer)

    # 2. v2: SDK payment, /verify, /settle.
    req = pay.requirements()
    payload = pay.pay(req)
    stub_reset()
    status, verdict = http_json("POST", fac + "/verify", body(payload, req))
    verify_calls = stub_calls()
    show("/verify", verdict)
    show("RPC calls during /verify", {"counts": verify_calls["counts"], "unknown": verify_calls["unknown"]})
    check("v2 /verify: isValid true, payer the buyer",
          status == 200 and verdict == {"isValid": True, "payer": str(pay.buyer.pubkey())}, verdict)
    check("v2 /verify calls simulateTransaction only (no sigVerify, no blockhash replacement)",
          verify_calls["counts"] == {"simulateTransaction": 1} and not verify_calls["unknown"]
          and verify_calls["last_params"]["simulateTransaction"][1]
          == {"sigVerify": False, "replaceRecentBlockhash": False, "commitment": "confirmed",
              "encoding": "base64"}, verify_calls)

    stub_reset()
    status, settled = http_json("POST", fac + "/settle", body(payload, req))
    settle_calls = stub_calls()
    show("/settle", settled)
    show("RPC calls during /settle", {"counts": settle_calls["counts"], "unknown": settle_calls["unknown"],
                                      "sendTransaction": settle_calls["last_params"].get("sendTransaction", [None, None])[1]})
    tx_id = settled.get("transaction") if isinstance(settled, dict) else None
    check("v2 /settle: success true, network the CAIP-2 id, payer the buyer",
          status == 200 and settled.get("success") is True and settled.get("network") == sp.NETWORK_V2
          and settled.get("payer") == str(pay.buyer.pubkey()) and set(settled) == {"success", "transaction", "network", "payer"},
          settled)
    check("v2 /settle calls simulateTransaction, sendTransaction, getSignatureStatuses, nothing unknown",
          set(settle_calls["counts"]) == {"simulateTransaction", "sendTransaction", "getSignatureStatuses"}
          and not settle_calls["unknown"], settle_calls)
    paid_tx = sp.tx_from_b64(payload["payload"]["transaction"])
    check("the settle answer's transaction is the one the stub recorded, signed by the fee payer",
          isinstance(tx_id, str) and tx_id in settle_calls["transactions"]
          and Signature.from_string(tx_id).verify(Pubkey.from_string(fee_payer), to_bytes_versioned(paid_tx.message)),
          (tx_id, settle_calls["transactions"][-3:]))
    summary = sp.describe_tx(paid_tx)
    check("the SDK's transaction carries requirements' extra.memo and pays usdc_token_account",
          summary["memos"] == [req["extra"]["memo"]]
          and summary["transfers"][0]["destination"] == pay.token_account, summary)

    # 3. The same payload again.
    stub_reset()
    status, again = http_json("POST", fac + "/settle", body(payload, req))
    again_calls = stub_calls()
    show("second /settle (same payload)", again)
    check("a second /settle of the same payload: success false, duplicate_settlement, no RPC call",
          status == 200 and again == {"success": False, "network": sp.NETWORK_V2, "transaction": "",
                                      "errorReason": "duplicate_settlement", "payer": str(pay.buyer.pubkey())}
          and again_calls["counts"] == {}, (again, again_calls["counts"]))
    status, reverify = http_json("POST", fac + "/verify", body(payload, req))
    show("/verify after settlement", reverify)
    check("observation: /verify of the settled payload still answers isValid true (verify keeps no state; "
          "the stub simulates it again)", reverify == {"isValid": True, "payer": str(pay.buyer.pubkey())}, reverify)

    # 4. After the SettlementCache TTL (the facilitator's clock moved forward, no waiting).
    http_json("POST", fac + "/__official/clock", {"advance_seconds": SETTLEMENT_TTL_S + 1})
    stub_reset()
    status, late = http_json("POST", fac + "/settle", body(payload, req))
    late_calls = stub_calls()
    show(f"/settle of the same payload {SETTLEMENT_TTL_S + 1} s later", late)
    show("RPC calls", late_calls["counts"])
    check(f"observation: after the {SETTLEMENT_TTL_S} s TTL the same payload settles again: success true, same "
          "transaction (the stub accepts the re-send; a real chain would have expired the blockhash)",
          late == settled and late_calls["counts"].get("sendTransaction") == 1, (late, late_calls["counts"]))
    status, again = http_json("POST", fac + "/settle", body(payload, req))
    check("... and right after that it is a duplicate again", again.get("errorReason") == "duplicate_settlement", again)

    # 5. Concurrent settlement of one fresh payload: exactly one goes through.
    req_c = pay.requirements()
    payload_c = pay.pay(req_c)
    results: list = []

    def settle_once():
        results.append(http_json("POST", fac + "/settle", body(payload_c, req_c))[1])

    threads = [threading.Thread(target=settle_once) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    wins = [r for r in results if r.get("success")]
    dups = [r for r in results if r.get("errorReason") == "duplicate_settlement"]
    check("4 concurrent /settle of one payload: 1 success, 3 duplicate_settlement",
          len(wins) == 1 and len(dups) == 3, results)

    # 6. Refusals.
    wrong_payments = []
    for amount in (sp.PRICE_UNITS - 1, sp.PRICE_UNITS + 1):
        req_paid = pay.requirements(amount=amount)
        wrong_payments.append((amount, pay.pay(req_paid), dict(req_paid, amount=str(sp.PRICE_UNITS))))
    stub_reset()  # the SDK's own RPC calls (getLatestBlockhash) are behind us
    for amount, wrong, req_ours in wrong_payments:
        status, out = http_json("POST", fac + "/verify", body(wrong, req_ours))
        show(f"/verify of a payment of {amount} against amount {sp.PRICE_UNITS}", out)
        check(f"paid {amount} for {sp.PRICE_UNITS}: isValid false, invalid_exact_svm_payload_amount_mismatch",
              status == 200 and out == {"isValid": False, "invalidReason": "invalid_exact_svm_payload_amount_mismatch",
                                        "payer": str(pay.buyer.pubkey())}, out)
        status, out = http_json("POST", fac + "/settle", body(wrong, req_ours))
        check(f"paid {amount} for {sp.PRICE_UNITS}: /settle success false with the same reason",
              out.get("success") is False and out.get("errorReason") == "invalid_exact_svm_payload_amount_mismatch"
              and out.get("transaction") == "", out)
    refused_calls = stub_calls()
    check("nothing was sent for the refused payments (no simulate, no send)",
          refused_calls["counts"] == {}, refused_calls["counts"])

    req_m = pay.requirements()
    payload_m = pay.pay(req_m)
    other = json.loads(json.dumps(req_m))
    other["extra"]["memo"] = "pvm_not-the-one-paid"
    _s, out = http_json("POST", fac + "/verify", body(payload_m, other))
    check("a payment whose memo is not requirements' extra.memo: invalid_exact_svm_payload_memo_mismatch",
          out.get("invalidReason") == "invalid_exact_svm_payload_memo_mismatch", out)
    other = json.loads(json.dumps(req_m))
    other["extra"]["feePayer"] = str(Keypair().pubkey())
    _s, out = http_json("POST", fac + "/verify", body(payload_m, other))
    check("requirements naming another fee payer: invalid_exact_svm_fee_payer_not_managed_by_facilitator",
          out.get("invalidReason") == "invalid_exact_svm_fee_payer_not_managed_by_facilitator", out)
    other = json.loads(json.dumps(req_m))
    other["payTo"] = str(Keypair().pubkey())
    _s, out = http_json("POST", fac + "/verify", body(payload_m, other))
    check("requirements with another payTo: invalid_exact_svm_payload_recipient_mismatch",
          out.get("invalidReason") == "invalid_exact_svm_payload_recipient_mismatch", out)
    devnet_payload = json.loads(json.dumps(payload_m))
    devnet_payload["accepted"]["network"] = sp.NETWORK_V2_DEVNET
    status, out = http_json("POST", fac + "/verify", body(devnet_payload, dict(req_m, network=sp.NETWORK_V2_DEVNET)))
    show("/verify on a network it does not serve (v2 devnet)", [status, out])
    check("a network it does not serve: the library throws, 500 {error: \"No facilitator registered ...\"}",
          status == 500 and str(out.get("error", "")).startswith("No facilitator registered"), (status, out))
    status, out = http_json("POST", fac + "/verify", {"x402Version": 2})
    check("a body without paymentPayload: 400 {error}", status == 400 and "error" in out, (status, out))

    # 7. v1 (the SDK's own V1 scheme, network `solana`, extra.memo in a Memo instruction).
    req1 = pay.requirements(version=1)
    payload1 = pay.pay(req1)
    status, v1v = http_json("POST", fac + "/verify", body(payload1, req1))
    show("v1 /verify", v1v)
    check("v1 /verify: isValid true", status == 200 and v1v.get("isValid") is True, v1v)
    stub_reset()
    status, v1s = http_json("POST", fac + "/settle", body(payload1, req1))
    show("v1 /settle", v1s)
    check("v1 /settle: success true on network `solana`, transaction recorded by the stub",
          v1s.get("success") is True and v1s.get("network") == sp.NETWORK_V1
          and v1s.get("transaction") in stub_calls()["transactions"], v1s)
    status, v1again = http_json("POST", fac + "/settle", body(payload1, req1))
    show("v1 second /settle", v1again)
    check("v1 second /settle: success false, duplicate_settlement",
          v1again == {"success": False, "network": sp.NETWORK_V1, "transaction": "",
                      "errorReason": "duplicate_settlement", "payer": str(pay.buyer.pubkey())}, v1again)

    final = stub_calls()
    check("the facilitator called no RPC method the stub does not know", not final["unknown"], final["unknown"])


if __name__ == "__main__":
    sys.exit(main())
