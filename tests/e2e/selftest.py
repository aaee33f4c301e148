"""Self-test of the x402 end-to-end fixtures (test code): starts the Solana RPC stub, the
facilitator fixture and a small Python stand-in for our paid route that answers 402 in the
DESIGN.md "Our own challenge" shape, then pays it with buyer.py (official SDK, v2) and with a
hand-built legacy v1 payment, and checks that the facilitator fixture really verifies.

    python selftest.py        (with the x402 virtualenv's python)

Prints one line per check and a final `N passed, M failed`; exits 0 only when every check
held. Everything it starts listens on 127.0.0.1 and stops by itself: a watchdog ends the run
after 75 s, and the fixtures exit when this process's pipes close.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

from solders.keypair import Keypair  # noqa: E402
from solders.message import to_bytes_versioned  # noqa: E402
from solders.pubkey import Pubkey  # noqa: E402
from solders.signature import Signature  # noqa: E402

import svm_payment as sp  # noqa: E402

WATCHDOG_S = 75
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


# -- plumbing ---------------------------------------------------------------------------------
def start(script: str, *args: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, os.path.join(HERE, script), "--port", "0", "--watch-stdin",
         "--max-lifetime", "120", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, text=True,
    )
    CHILDREN.append(proc)
    line = proc.stdout.readline().strip()  # bounded by the watchdog
    if not line.startswith("ready "):
        raise RuntimeError(f"{script} did not print ready (got {line!r})")
    return proc, int(line.split()[1])


def http_json(method: str, url: str, body=None, headers=None, timeout=15.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=timeout) as r:
            raw, status, hdrs = r.read(), r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        raw, status, hdrs = e.read(), e.code, dict(e.headers)
    try:
        return status, json.loads(raw), hdrs
    except json.JSONDecodeError:
        return status, raw.decode("utf-8", "replace"), hdrs


def rpc(port: int, method: str, params: list):
    _s, out, _h = http_json("POST", f"http://127.0.0.1:{port}/",
                            {"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    return out


def buyer(*args: str) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, os.path.join(HERE, "buyer.py"), *args],
                          capture_output=True, text=True, timeout=40)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if not lines:
        raise RuntimeError(f"buyer.py printed nothing (rc {proc.returncode}): {proc.stderr[-2000:]}")
    return proc.returncode, json.loads(lines[-1])


def b64json(obj) -> str:
    return base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()


def unb64json(value: str):
    return json.loads(base64.b64decode(value))


# -- the stand-in resource server ------------------------------------------------------------
class StandIn:
    """Answers our challenge like DESIGN.md says the service does; pays through the fixture."""

    def __init__(self, facilitator: str, fee_payer: str):
        self.facilitator = facilitator
        self.fee_payer = fee_payer
        self.pay_to = str(Keypair().pubkey())
        self.token_account = sp.derive_ata(self.pay_to)
        self.lock = threading.Lock()
        self.issued: dict[str, dict] = {}  # memo -> the v2 requirements issued with it
        self.log: list[dict] = []
        self.port = 0

    def challenge(self, path: str) -> tuple[bytes, str, str]:
        memo = "pvm_" + os.urandom(16).hex()
        resource = f"http://127.0.0.1:{self.port}{path}"
        extra = {"feePayer": self.fee_payer, "usdc_token_account": self.token_account, "memo": memo}
        if path == "/check-nofeepayer":
            extra = {"usdc_token_account": self.token_account, "memo": memo}
        description = "One signed payability verdict"
        body = {"x402Version": 1, "error": "payment required", "accepts": [{
            "scheme": "exact", "network": sp.NETWORK_V1, "maxAmountRequired": "10000",
            "amount": "10000", "resource": resource, "description": description,
            "mimeType": "application/json", "payTo": self.pay_to, "maxTimeoutSeconds": 60,
            "asset": sp.USDC_MINT, "extra": extra}]}
        req_v2 = {"scheme": "exact", "network": sp.NETWORK_V2, "amount": "10000",
                  "asset": sp.USDC_MINT, "payTo": self.pay_to, "maxTimeoutSeconds": 60,
                  "extra": extra}
        header = {"x402Version": 2, "error": "payment required",
                  "resource": {"url": resource, "description": description,
                               "mimeType": "application/json"},
                  "accepts": [req_v2]}
        with self.lock:
            self.issued[memo] = req_v2
        return json.dumps(body).encode(), b64json(header), memo

    def v1_requirements(self, path: str) -> dict:
        """Our v1 requirements as forwarded to the facilitator: without extra.memo, since v1
        clients put no memo in the transaction."""
        return {"scheme": "exact", "network": sp.NETWORK_V1, "maxAmountRequired": "10000",
                "resource": f"http://127.0.0.1:{self.port}{path}",
                "description": "One signed payability verdict", "mimeType": "application/json",
                "payTo": self.pay_to, "maxTimeoutSeconds": 60, "asset": sp.USDC_MINT,
                "extra": {"feePayer": self.fee_payer, "usdc_token_account": self.token_account}}

    def pay(self, path: str, headers) -> tuple[int, dict, dict]:
        """(status, body, extra headers) for a request carrying a payment header."""
        v2_value = headers.get("PAYMENT-SIGNATURE")
        name = "PAYMENT-SIGNATURE" if v2_value else "X-PAYMENT"
        try:
            payload = unb64json(v2_value or headers.get("X-PAYMENT"))
        except Exception:  # noqa: BLE001
            return 400, {"error": "malformed payment header"}, {}
        if not isinstance(payload, dict):
            return 400, {"error": "malformed payment header"}, {}
        entry = {"path": path, "header": name, "payload": payload}
        if v2_value:
            accepted = payload.get("accepted") if isinstance(payload.get("accepted"), dict) else {}
            memo = (accepted.get("extra") or {}).get("memo")
            with self.lock:
                requirements = self.issued.get(memo) if isinstance(memo, str) else None
            if requirements is None or accepted != requirements:
                entry["refused"] = "accepted does not echo our requirements"
                self.log.append(entry)
                return 402, {"error": entry["refused"]}, {}
            version, response_header = 2, "PAYMENT-RESPONSE"
        else:
            requirements = self.v1_requirements(path)
            version, response_header = 1, "X-PAYMENT-RESPONSE"
        entry["requirements"] = requirements
        req = {"x402Version": version, "paymentPayload": payload, "paymentRequirements": requirements}
        vs, verdict, _ = http_json("POST", self.facilitator + "/verify", req)
        entry["verify"] = verdict
        if vs != 200 or not verdict.get("isValid"):
            self.log.append(entry)
            return (503 if vs != 200 else 402), {"error": "payment not valid", "verify": verdict}, {}
        ss, settled, _ = http_json("POST", self.facilitator + "/settle", req)
        entry["settle"] = settled
        self.log.append(entry)
        want_network = sp.NETWORK_V2 if version == 2 else sp.NETWORK_V1
        if ss != 200 or not settled.get("success") or settled.get("network") != want_network \
                or settled.get("payer") != verdict.get("payer"):
            return 502, {"error": "settlement failed", "settle": settled}, {}
        return 200, {"ok": True, "report": "stand-in verdict"}, {response_header: b64json(settled)}

    def serve(self) -> ThreadingHTTPServer:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 20

            def log_message(self, *_a):
                pass

            def answer(self, status: int, body: bytes, headers: dict) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def handle_any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(min(length, 1 << 20))
                path = self.path.split("?", 1)[0]
                if path not in ("/check", "/check-nofeepayer"):
                    self.answer(404, b'{"error":"not found"}', {})
                    return
                if self.headers.get("PAYMENT-SIGNATURE") or self.headers.get("X-PAYMENT"):
                    status, body, extra = standin.pay(path, self.headers)
                    self.answer(status, json.dumps(body).encode(), extra)
                    return
                body, header, _memo = standin.challenge(path)
                self.answer(402, body, {"PAYMENT-REQUIRED": header})

            do_GET = handle_any  # noqa: N815
            do_POST = handle_any  # noqa: N815

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        return server


# -- the checks -------------------------------------------------------------------------------
def main() -> int:
    timer = threading.Timer(WATCHDOG_S, watchdog)
    timer.daemon = True
    timer.start()
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="x402-selftest-") as tmp:
        run_all(tmp)
    print(f"(took {time.monotonic() - t0:.1f} s)", flush=True)
    print(f"{len(PASSED)} passed, {len(FAILED)} failed", flush=True)
    return 0 if not FAILED and PASSED else 1


def run_all(tmp: str) -> None:
    """Runs the checks in `tmp`, recording an exception as a failed check; stops the children."""
    try:
        run_checks(tmp)
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


def run_checks(tmp: str) -> None:
    _stub, rpc_port = start("solana_rpc_stub.py")
    rpc_url = f"http://127.0.0.1:{rpc_port}"
    _fac, fac_port = start("facilitator_fixture.py", "--rpc", rpc_url)
    fac = f"http://127.0.0.1:{fac_port}"

    status, supported, _ = http_json("GET", fac + "/supported")
    kinds = supported.get("kinds", []) if isinstance(supported, dict) else []
    fee_payer = kinds[1]["extra"]["feePayer"] if len(kinds) == 2 else None
    check("fixture /supported lists v1 solana and v2 CAIP-2 kinds with one feePayer and signers",
          status == 200 and [(k["x402Version"], k["network"]) for k in kinds]
          == [(1, sp.NETWORK_V1), (2, sp.NETWORK_V2)]
          and kinds[0]["extra"] == kinds[1]["extra"] == {"feePayer": fee_payer}
          and supported.get("signers") == {"solana:*": [fee_payer]}, supported)

    standin = StandIn(fac, fee_payer)
    standin.serve()
    url = f"http://127.0.0.1:{standin.port}/check"
    target = "https://seller.example/api"
    buyer_seed = os.urandom(32).hex()

    # 1. What the official client calls on the RPC (build only: no facilitator traffic).
    http_json("POST", rpc_url + "/__stub/reset", {})
    rc, built = buyer("--url", url, "--target", target, "--rpc", rpc_url, "--build-only",
                      "--keypair-seed-hex", buyer_seed)
    _s, calls, _ = http_json("GET", rpc_url + "/__stub/calls")
    print(f"   observed SDK RPC calls: {calls['counts']} unknown={calls['unknown']} "
          f"params={json.dumps(calls['last_params'])}", flush=True)
    check("SDK builds a v2 payment against our challenge (build only)",
          rc == 0 and built["payment_header"] and built["payment_header"]["name"] == "PAYMENT-SIGNATURE",
          built)
    check("SDK calls only getAccountInfo and getLatestBlockhash on the RPC, nothing unknown",
          set(calls["counts"]) == {"getAccountInfo", "getLatestBlockhash"} and not calls["unknown"],
          calls)

    # 2. v2 with the official SDK: pays and gets 200.
    v2_file = os.path.join(tmp, "v2-payment.json")
    rc, v2 = buyer("--url", url, "--target", target, "--rpc", rpc_url,
                   "--keypair-seed-hex", buyer_seed, "--save-payment", v2_file)
    pr = v2.get("payment_response_decoded") or {}
    check("v2 (x402HttpxClient + ExactSvmScheme) pays and gets 200 with PAYMENT-RESPONSE",
          rc == 0 and v2["status"] == 200 and pr.get("success") is True
          and pr.get("network") == sp.NETWORK_V2 and pr.get("payer") == v2["payer"], v2)
    paid = unb64json(v2["payment_header"]["value"])
    challenge_memo = (v2["challenge"]["v2"] or {}).get("accepts", [{}])[0].get("extra", {}).get("memo")
    _s, fcalls, _ = http_json("GET", fac + "/__fixture/calls")
    settles = [e for e in fcalls["recent"] if e["endpoint"] == "settle" and e.get("success")]
    seen_memos = settles[-1]["summary"]["memos"] if settles else None
    check("the fixture saw one Memo instruction equal to the challenge's extra.memo",
          challenge_memo is not None and challenge_memo in standin.issued
          and seen_memos == [challenge_memo], (challenge_memo, seen_memos))
    check("v2 accepted echoes the issued requirements exactly (SDK round trip)",
          paid.get("accepted") == standin.issued.get(challenge_memo), paid.get("accepted"))
    tx_desc = settles[-1]["summary"] if settles else {}
    check("SDK transaction: fee payer = feePayer, limit/price/TransferChecked/Memo, to usdc_token_account",
          tx_desc.get("fee_payer") == fee_payer and len(tx_desc.get("instructions", [])) == 4
          and tx_desc["transfers"][0]["destination"] == standin.token_account
          and tx_desc["transfers"][0]["amount"] == 10000 and tx_desc["transfers"][0]["decimals"] == 6,
          tx_desc)

    # 3. The settled transaction on the RPC stub: getTransaction with meta.fee.
    tx_id = pr.get("transaction")
    got = rpc(rpc_port, "getTransaction", [tx_id, {"encoding": "json", "maxSupportedTransactionVersion": 0}])
    check("getTransaction(settled id) answers meta.fee 5000",
          (got.get("result") or {}).get("meta", {}).get("fee") == 5000, got)
    got = rpc(rpc_port, "getTransaction", [tx_id, {"encoding": "json"}])
    check("getTransaction without maxSupportedTransactionVersion is refused like a real node (-32015)",
          (got.get("error") or {}).get("code") == -32015, got)
    got = rpc(rpc_port, "getTransaction", [tx_id, {"encoding": "jsonParsed", "maxSupportedTransactionVersion": 0}])
    parsed = [i.get("program") for i in got["result"]["transaction"]["message"]["instructions"]]
    check("getTransaction jsonParsed shows spl-token transferChecked and spl-memo",
          "spl-token" in parsed and "spl-memo" in parsed, parsed)
    got = rpc(rpc_port, "getTransaction", [str(Keypair().sign_message(b"x")),
                                           {"maxSupportedTransactionVersion": 0}])
    check("getTransaction(unknown signature) answers null", "result" in got and got["result"] is None, got)
    paid_tx = sp.tx_from_b64(paid["payload"]["transaction"])
    check("the settle answer's transaction is the on-chain id (slot 0: the fee payer's signature)",
          isinstance(tx_id, str) and Signature.from_string(tx_id).verify(
              Pubkey.from_string(fee_payer), to_bytes_versioned(paid_tx.message))
          and tx_id in fcalls["settled_transactions"], tx_id)

    # 4. Replay of the v2 payment is refused.
    rc, replay = buyer("--replay-last", "--payment-file", v2_file)
    _s, fcalls, _ = http_json("GET", fac + "/__fixture/calls")
    last_verify = [e for e in fcalls["recent"] if e["endpoint"] == "verify"][-1]
    check("a replayed v2 payment is refused by the fixture (duplicate_settlement)",
          replay["status"] != 200 and last_verify.get("invalidReason") == "duplicate_settlement",
          (replay["status"], last_verify))

    # 5. Legacy v1, hand-built: pays with no memo.
    v1_file = os.path.join(tmp, "v1-payment.json")
    rc, v1 = buyer("--v1", "--url", url, "--target", target, "--rpc", rpc_url,
                   "--save-payment", v1_file)
    pr1 = v1.get("payment_response_decoded") or {}
    check("v1 hand-built X-PAYMENT pays and gets 200 with X-PAYMENT-RESPONSE (network solana)",
          rc == 0 and v1["status"] == 200 and pr1.get("success") is True
          and pr1.get("network") == sp.NETWORK_V1 and v1["payment_header"]["name"] == "X-PAYMENT", v1)
    _s, fcalls, _ = http_json("GET", fac + "/__fixture/calls")
    settles = [e for e in fcalls["recent"] if e["endpoint"] == "settle" and e.get("success")]
    d1 = settles[-1]["summary"] if settles else {}
    check("v1 transaction has no memo: [limit (simulated estimate), price 1, TransferChecked]",
          d1.get("memos") == [] and len(d1.get("instructions", [])) == 3
          and d1.get("compute_unit_limit") == 6200 and d1.get("compute_unit_price") == 1
          and d1["transfers"][0]["destination"] == standin.token_account, d1)
    check("the SDK's v2 transaction: compute limit 20000, price 1 microlamport",
          tx_desc.get("compute_unit_limit") == 20000 and tx_desc.get("compute_unit_price") == 1, tx_desc)
    v1_payload = unb64json(v1["payment_header"]["value"])
    check("v1 X-PAYMENT is {x402Version:1, scheme, network:solana, payload:{transaction}}",
          set(v1_payload) == {"x402Version", "scheme", "network", "payload"}
          and v1_payload["network"] == "solana" and set(v1_payload["payload"]) == {"transaction"}, v1_payload)
    rc, replay1 = buyer("--replay-last", "--payment-file", v1_file)
    check("a replayed v1 payment is refused", replay1["status"] != 200, replay1)

    # 5b. The SDK's own V1 path (X-PAYMENT from the v1 body): it adds extra.memo as a Memo.
    rc, sv1 = buyer("--sdk-v1", "--url", url, "--target", target, "--rpc", rpc_url)
    _s, fcalls, _ = http_json("GET", fac + "/__fixture/calls")
    settles = [e for e in fcalls["recent"] if e["endpoint"] == "settle" and e.get("success")]
    sv1_memo = ((sv1.get("challenge") or {}).get("v1") or {}).get("accepts", [{}])[0].get("extra", {}).get("memo")
    check("SDK v1 (--sdk-v1) pays with X-PAYMENT; its transaction carries the body's extra.memo",
          sv1["status"] == 200 and sv1["payment_header"]["name"] == "X-PAYMENT"
          and settles and settles[-1]["summary"]["memos"] == [sv1_memo], (sv1, settles[-1:]))

    # 6. The official client refuses a challenge without feePayer, and nothing reaches /verify.
    _s, before, _ = http_json("GET", fac + "/__fixture/calls")
    rc, nofp = buyer("--url", f"http://127.0.0.1:{standin.port}/check-nofeepayer", "--target", target,
                     "--rpc", rpc_url)
    _s, after, _ = http_json("GET", fac + "/__fixture/calls")
    check("the SDK refuses a challenge without extra.feePayer (no payment sent)",
          rc == 3 and nofp["status"] is None and "feePayer" in (nofp["error"] or "")
          and after["verify"] == before["verify"], nofp)

    # 7. Tampered transactions, built here with solders, sent straight to /verify.
    tamper_checks(fac, rpc_port, standin, fee_payer)

    # 8. Tampering through the stand-in with buyer.py --hand.
    for flags, reason in ((["--amount", "9999"], "invalid_exact_svm_payload_amount_insufficient"),
                          (["--no-memo"], "invalid_exact_svm_payload_memo_count"),
                          (["--destination", sp.derive_ata(str(Keypair().pubkey()))],
                           "invalid_exact_svm_payload_recipient_mismatch")):
        rc, out = buyer("--hand", "--url", url, "--target", target, "--rpc", rpc_url, *flags)
        verdict = ((out.get("body") or {}).get("verify") or {}) if isinstance(out.get("body"), dict) else {}
        check(f"buyer --hand {' '.join(flags[:1])}: refused with {reason}",
              out["status"] == 402 and verdict.get("invalidReason") == reason, out)
    rc, out = buyer("--hand", "--url", url, "--target", target, "--rpc", rpc_url)
    check("buyer --hand (untampered v2) pays", out["status"] == 200, out)

    # 9. Control modes.
    mode_checks(fac, rpc_port, standin, fee_payer)

    # 10. Observation pinned with the SDK version: its own V1 scheme DOES add a memo.
    sdk_v1_memo_observation(rpc_url, standin)


def base_payment(standin: StandIn, our_fee_payer: str, rpc_port: int, version: int = 2, **over):
    """A valid payment body for /verify, with spec fields overridden by `over`."""
    body, header, memo = standin.challenge("/check")
    req2 = unb64json(header)["accepts"][0]
    blockhash = rpc(rpc_port, "getLatestBlockhash", [{}])["result"]["value"]["blockhash"]
    fields = dict(buyer=Keypair(), fee_payer=our_fee_payer, destination=standin.token_account,
                  blockhash=blockhash, memo=memo.encode() if version == 2 else None)
    fields.update(over)
    tx = sp.build_payment_tx(sp.TransferSpec(**fields))
    return tx, req2, memo, json.loads(body)["accepts"][0]


def verify_body(tx, requirements, version=2):
    if version == 2:
        payload = {"x402Version": 2, "accepted": requirements, "payload": {"transaction": sp.tx_to_b64(tx)}}
    else:
        payload = {"x402Version": 1, "scheme": "exact", "network": "solana",
                   "payload": {"transaction": sp.tx_to_b64(tx)}}
    return {"x402Version": version, "paymentPayload": payload, "paymentRequirements": requirements}


def tamper_checks(fac: str, rpc_port: int, standin: StandIn, fee_payer: str) -> None:
    def verify(tx, req, version=2):
        _s, out, _ = http_json("POST", fac + "/verify", verify_body(tx, req, version))
        return out

    tx, req, memo, _v1req = base_payment(standin, fee_payer, rpc_port)
    out = verify(tx, req)
    check("control: an untampered solders-built v2 payment verifies", out.get("isValid") is True, out)

    twice = Keypair()
    cases = [
        ("wrong amount 9999", dict(amount=9999), "invalid_exact_svm_payload_amount_insufficient"),
        ("wrong amount 10001", dict(amount=10001), "invalid_exact_svm_payload_amount_mismatch"),
        ("wrong destination", dict(destination=sp.derive_ata(str(Keypair().pubkey()))),
         "invalid_exact_svm_payload_recipient_mismatch"),
        ("missing memo", dict(memo=None), "invalid_exact_svm_payload_memo_count"),
        ("wrong memo", dict(memo=b"pvm_not-ours"), "invalid_exact_svm_payload_memo_mismatch"),
        ("wrong decimals", dict(decimals=9), "invalid_exact_svm_payload_decimals_mismatch"),
        ("wrong mint", dict(mint=str(Keypair().pubkey())), "invalid_exact_svm_payload_mint_mismatch"),
        ("other fee payer in the transaction", dict(fee_payer=str(Keypair().pubkey())),
         "invalid_exact_svm_payload_fee_payer_mismatch"),
        ("compute price too high", dict(compute_unit_price=5_000_001),
         "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high"),
        ("an extra unknown instruction", dict(extra_instructions=[sp.compute_limit_ix(1)]),
         "invalid_exact_svm_payload_unknown_instruction"),
        ("a second TransferChecked", dict(buyer=twice, extra_instructions=[sp.transfer_checked_ix(
            sp.derive_ata(str(twice.pubkey())), sp.USDC_MINT, standin.token_account,
            str(twice.pubkey()), 10000, 6)]), "invalid_exact_svm_payload_no_transfer_instruction"),
    ]
    for name, over, reason in cases:
        tx, req, _memo, _ = base_payment(standin, fee_payer, rpc_port, **over)
        out = verify(tx, req)
        check(f"{name}: isValid false ({reason})",
              out.get("isValid") is False and out.get("invalidReason") == reason, out)

    # Signatures: a flipped buyer signature, and no buyer signature at all.
    from solders.transaction import VersionedTransaction
    tx, req, _m, _ = base_payment(standin, fee_payer, rpc_port)
    sigs = list(tx.signatures)
    bad = bytearray(bytes(sigs[1]))
    bad[0] ^= 1
    forged = VersionedTransaction.populate(tx.message, [sigs[0], Signature.from_bytes(bytes(bad))])
    out = verify(forged, req)
    check("a corrupted buyer signature: isValid false", out.get("isValid") is False
          and out.get("invalidReason") == "invalid_exact_svm_payload_signature", out)
    unsigned = VersionedTransaction.populate(tx.message, [sigs[0], Signature.default()])
    out = verify(unsigned, req)
    check("a missing buyer signature: isValid false", out.get("isValid") is False
          and out.get("invalidReason") == "invalid_exact_svm_payload_signature", out)

    # Requirements side.
    tx, req, _m, _ = base_payment(standin, fee_payer, rpc_port)
    other = json.loads(json.dumps(req))
    other["extra"]["feePayer"] = str(Keypair().pubkey())
    out = verify(tx, other)
    check("requirements naming another feePayer: fee_payer_not_managed_by_facilitator",
          out.get("invalidReason") == "fee_payer_not_managed_by_facilitator", out)
    other = json.loads(json.dumps(req))
    other["extra"]["usdc_token_account"] = sp.derive_ata(str(Keypair().pubkey()))
    out = verify(tx, other)
    check("requirements whose usdc_token_account is not ATA(payTo): recipient mismatch",
          out.get("invalidReason") == "invalid_exact_svm_payload_recipient_mismatch", out)
    other = json.loads(json.dumps(req))
    other["network"] = sp.NETWORK_V2_DEVNET
    out = verify(tx, other)
    check("requirements on another network: network_mismatch", out.get("invalidReason") == "network_mismatch", out)

    # v1: requirements carrying a memo demand the memo; without one a memo-less tx verifies.
    tx, _req, _m, v1req = base_payment(standin, fee_payer, rpc_port, version=1)
    out = verify(tx, v1req, version=1)
    check("v1 requirements WITH extra.memo refuse a memo-less v1 transaction (memo_count)",
          out.get("invalidReason") == "invalid_exact_svm_payload_memo_count", out)
    v1req_nomemo = json.loads(json.dumps(v1req))
    del v1req_nomemo["extra"]["memo"]
    out = verify(tx, v1req_nomemo, version=1)
    check("v1 requirements without extra.memo accept the memo-less v1 transaction",
          out.get("isValid") is True, out)
    tx_bad, *_ = base_payment(standin, fee_payer, rpc_port, version=1, amount=100)
    out = verify(tx_bad, v1req_nomemo, version=1)
    check("v1 wrong amount (vs maxAmountRequired): isValid false",
          out.get("invalidReason") == "invalid_exact_svm_payload_amount_insufficient", out)

    # Concurrent double settlement: exactly one succeeds.
    tx, req, _m, _ = base_payment(standin, fee_payer, rpc_port)
    results: list = []

    def settle_once():
        results.append(http_json("POST", fac + "/settle", verify_body(tx, req))[1])

    threads = [threading.Thread(target=settle_once) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    wins = [r for r in results if r.get("success")]
    dups = [r for r in results if r.get("errorReason") == "duplicate_settlement"]
    check("4 concurrent /settle of one transaction: exactly one success, 3 duplicate_settlement",
          len(wins) == 1 and len(dups) == 3, results)
    out = verify(tx, req)
    check("/verify after settlement: duplicate_settlement", out.get("invalidReason") == "duplicate_settlement", out)


def mode_checks(fac: str, rpc_port: int, standin: StandIn, fee_payer: str) -> None:
    def mode(**m):
        s, out, _ = http_json("POST", fac + "/__fixture/mode", m)
        assert s == 200, out

    def settle(tx, req):
        return http_json("POST", fac + "/settle", verify_body(tx, req))

    s, out, _ = http_json("POST", fac + "/__fixture/mode", {"settle": "bogus"})
    check("an unknown mode is refused with 400", s == 400, out)

    mode(settle="forged_network")
    tx, req, *_ = base_payment(standin, fee_payer, rpc_port)
    s, out, _ = settle(tx, req)
    check("settle forged_network: success true on another network",
          s == 200 and out.get("success") is True and out.get("network") == sp.NETWORK_V2_DEVNET, out)
    mode(settle="forged_payer")
    s, out, _ = settle(tx, req)
    check("settle forged_payer: success true naming another payer",
          s == 200 and out.get("success") is True and out.get("payer") != str(tx.message.account_keys[1]), out)
    mode(settle="fail")
    s, out, _ = settle(tx, req)
    check("settle fail: success false", s == 200 and out.get("success") is False and out.get("errorReason"), out)
    mode(settle="down")
    s, out, _ = settle(tx, req)
    check("settle down: HTTP 503", s == 503, out)
    mode(settle="settled_but_down")
    s, out, _ = settle(tx, req)
    s2, out2, _ = http_json("POST", fac + "/verify", verify_body(tx, req))
    check("settle settled_but_down: 503, yet the transaction is settled (now a duplicate)",
          s == 503 and out2.get("invalidReason") == "duplicate_settlement", (out, out2))
    mode(settle="normal", verify="down")
    s, out, _ = http_json("POST", fac + "/verify", verify_body(tx, req))
    check("verify down: HTTP 503", s == 503, out)
    mode(verify="normal", supported="no_fee_payer")
    s, out, _ = http_json("GET", fac + "/supported")
    check("supported no_fee_payer: kinds without extra.feePayer, no signers", s == 200 and all(
        "feePayer" not in k["extra"] for k in out["kinds"]) and out["signers"] == {}, out)
    mode(supported="normal")

    # Counters: a refused payment through the stand-in moves verify but not settle.
    s, _r, _ = http_json("POST", fac + "/__fixture/reset", {})
    tx, req, *_ = base_payment(standin, fee_payer, rpc_port, amount=1)
    http_json("POST", fac + "/verify", verify_body(tx, req))
    _s, calls, _ = http_json("GET", fac + "/__fixture/calls")
    check("/__fixture/calls counts verify and settle (refused payment: verify 1, settle 0)",
          calls["verify"] == 1 and calls["verify_valid"] == 0 and calls["settle"] == 0
          and calls["modes"]["settle"] == "normal", calls)

    # RPC stub modes for getTransaction.
    http_json("POST", f"http://127.0.0.1:{rpc_port}/__stub/mode", {"getTransaction": "error"})
    got = rpc(rpc_port, "getTransaction", ["1" * 64, {"maxSupportedTransactionVersion": 0}])
    check("stub getTransaction error mode answers a JSON-RPC error", "error" in got, got)
    http_json("POST", f"http://127.0.0.1:{rpc_port}/__stub/mode", {"getTransaction": "normal"})
    got = rpc(rpc_port, "noSuchMethod", [])
    check("stub answers an unknown method with -32601", (got.get("error") or {}).get("code") == -32601, got)


def sdk_v1_memo_observation(rpc_url: str, standin: StandIn) -> None:
    """The SDK's own V1 scheme client (x402 2.x) adds a Memo instruction, unlike the legacy
    npm x402 0.x v1 client that buyer.py --v1 reproduces. Pinned here so a change shows."""
    from x402 import x402ClientSync
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client
    from x402.schemas.v1 import PaymentRequiredV1

    body, _header, memo = standin.challenge("/check")
    client = x402ClientSync()
    register_exact_svm_client(client, KeypairSigner(Keypair()), rpc_url=rpc_url)
    payload = client.create_payment_payload(PaymentRequiredV1.model_validate(json.loads(body)))
    tx = sp.tx_from_b64(payload.payload["transaction"])
    memos = sp.describe_tx(tx)["memos"]
    check("observation: the SDK's own V1 scheme (x402 2.x) puts extra.memo into a Memo instruction",
          memos == [memo], memos)


if __name__ == "__main__":
    sys.exit(main())
