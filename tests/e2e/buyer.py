"""x402 buyer for the end-to-end tests (test code): pays a loopback endpoint in USDC on a
stubbed Solana and prints one JSON line describing what happened.

Default mode is the official Python SDK (x402 on PyPI) as a real agent would use it:
    x402Client() + register_exact_svm_client(client, KeypairSigner(kp), rpc_url=RPC)
    + x402HttpxClient(client).post(URL, json={"url": TARGET})
It reads the v2 PAYMENT-REQUIRED header, builds and signs the transaction itself and retries
with PAYMENT-SIGNATURE.

    python buyer.py --url http://127.0.0.1:PORT/check --target URL --rpc http://127.0.0.1:RPCPORT
        [--keypair-seed-hex HEX] [--save-payment FILE] [--build-only]
    python buyer.py --v1   ...   legacy x402 v1: a hand-built payment exactly as the npm x402
        0.x SVM client builds it (compute limit estimated with simulateTransaction, compute
        price 1 microlamport, TransferChecked to extra.usdc_token_account, fee payer
        extra.feePayer, NO memo), sent as X-PAYMENT.
    python buyer.py --hand ...   a hand-built v2 payment (PAYMENT-SIGNATURE), like the SDK's.
    python buyer.py --sdk-v1 ... the SDK's own V1 scheme fed the 402's v1 JSON body, sent as
        X-PAYMENT (x402 2.x's V1 scheme DOES add a Memo instruction: extra.memo or a nonce).
    python buyer.py --replay-last --payment-file FILE [--url URL] [--sign-in]   resend a saved
        payment (the file keeps the payer's throwaway keypair); --sign-in adds a SIGN-IN-WITH-X
        proof by that payer, made with the SDK's create_siwx_payload of a fresh 402.
    --siwx   SDK mode: the SDK's sign-in-with-x client extension (create_siwx_client_extension)
        with the buyer's key: on a 402 it signs in first and pays only if that is refused.
    --caller-self   the body {"url": TARGET, "caller": <the buyer's wallet>}: with --url
        .../precheck and --siwx, the SDK signs the pre-check of its own allowance.
    --payment-id ID   the x402 payment-identifier extension: the SDK's own
        append_payment_identifier_to_extensions in a before-payment hook (it adds the id only
        when the 402 declares the extension, and refuses a malformed id); with --hand the id
        is written into `extensions` as given (malformed ones included).

Tampering (--v1/--hand only): --amount N, --destination ADDR, --memo TEXT, --no-memo,
--fee-payer ADDR, --echo-memo TEXT (v2: the memo written into `accepted`).

Output (stdout, one line): {"mode", "status", "body", "payment_response" (raw PAYMENT-RESPONSE
or X-PAYMENT-RESPONSE header or null), "payment_response_decoded", "retry_after" (the
Retry-After header or null), "payment_header"
({"name","value"} of the payment sent, or null), "payer", "challenge" ({"v1": body or null,
"v2": decoded header or null} of the 402 that was paid), "error" (null, or why no payment was
sent)}. Exit 0 when an HTTP answer was obtained (whatever its status), 3 when the buyer
refused or failed to build a payment (the official client refuses a challenge without
extra.feePayer), 2 on bad arguments. With --payment-id (SDK mode) the line also has
"payment_identifier": {"declared": the 402's extensions["payment-identifier"] or null,
"sdk_declaration": the SDK's declare_payment_identifier_extension()}; SDK mode also says
"signed_in": whether a SIGN-IN-WITH-X header was sent.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import urllib.error
import urllib.request

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import svm_payment as sp  # noqa: E402

MAX_BODY = 1 << 20


def parse_body(raw: bytes):
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")


def decode_b64_json(value: str | None):
    if not value:
        return None
    try:
        return json.loads(base64.b64decode(value + "=" * (-len(value) % 4)))
    except Exception:  # noqa: BLE001
        return None


class Result(dict):
    def emit(self) -> int:
        print(json.dumps(self, separators=(",", ":")), flush=True)
        return 3 if self.get("error") and self.get("status") is None else 0


def new_result(mode: str) -> Result:
    return Result(mode=mode, status=None, body=None, payment_response=None,
                  payment_response_decoded=None, retry_after=None, payment_header=None, payer=None,
                  challenge=None, error=None)


def http(method: str, url: str, body: bytes | None, headers: dict, timeout: float):
    """(status, headers (lower-case names, first value), body bytes)."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=timeout) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read(MAX_BODY)
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read(MAX_BODY)


def rpc(url: str, method: str, params: list, timeout: float):
    status, _h, raw = http("POST", url, sp.json_bytes({"jsonrpc": "2.0", "id": 1, "method": method,
                                                      "params": params}),
                           {"Content-Type": "application/json"}, timeout)
    out = json.loads(raw)
    if status != 200 or "error" in out:
        raise RuntimeError(f"RPC {method} failed: {out.get('error')}")
    return out["result"]


def fill_response(res: Result, status: int, headers: dict, raw: bytes) -> None:
    res["status"] = status
    res["body"] = parse_body(raw)
    pr = headers.get("payment-response") or headers.get("x-payment-response")
    res["payment_response"] = pr
    res["payment_response_decoded"] = decode_b64_json(pr)
    res["retry_after"] = headers.get("retry-after")


def save_payment(path: str | None, url: str, method: str, body: bytes, name: str, value: str,
                 kp) -> None:
    """Saves the payment sent, with the payer's (throwaway) keypair, so that a replay can sign
    in as the payer."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"url": url, "method": method, "body": body.decode("utf-8"),
                       "header": {"name": name, "value": value},
                       "payer_keypair_hex": bytes(kp).hex()}, f)


# -- official SDK (v2) ------------------------------------------------------------------------
async def sdk_mode(args, kp, request_body: bytes) -> Result:
    import httpx
    from x402 import x402Client
    from x402.http import x402HTTPClient
    from x402.http.clients import x402HttpxClient
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client

    res = new_result("sdk-v2")
    res["payer"] = str(kp.pubkey())
    client = x402Client()
    register_exact_svm_client(client, KeypairSigner(kp), rpc_url=args.rpc)
    if args.siwx:
        from x402.extensions.sign_in_with_x import (
            CreateSIWxClientExtensionOptions,
            create_siwx_client_extension,
        )

        options = CreateSIWxClientExtensionOptions(signers=[KeypairSigner(kp)])
        client.register_extension(create_siwx_client_extension(options))
    challenge = {}
    if args.payment_id is not None:
        from x402.extensions.payment_identifier import (
            PAYMENT_IDENTIFIER,
            append_payment_identifier_to_extensions,
            declare_payment_identifier_extension,
        )

        noted = {"declared": None, "sdk_declaration": declare_payment_identifier_extension()}
        res["payment_identifier"] = noted

        def add_payment_id(ctx) -> None:
            extensions = ctx.payment_required.extensions
            if extensions is None:
                return
            noted["declared"] = json.loads(json.dumps(extensions.get(PAYMENT_IDENTIFIER)))
            append_payment_identifier_to_extensions(extensions, args.payment_id)

        client.on_before_payment_creation(add_payment_id)

    def note_402(status: int, headers) -> None:
        if status == 402 and "v2" not in challenge:
            challenge["v2"] = decode_b64_json(headers.get("payment-required"))

    if args.build_only:
        async with httpx.AsyncClient(timeout=args.timeout, trust_env=False) as plain:
            first = await plain.request(args.method, args.url, content=request_body,
                                        headers={"Content-Type": "application/json"})
        note_402(first.status_code, first.headers)
        res["challenge"] = {"v1": parse_body(first.content) if first.status_code == 402 else None,
                            "v2": challenge.get("v2")}
        if first.status_code != 402:
            fill_response(res, first.status_code, dict(first.headers), first.content)
            res["error"] = "no 402 to pay"
            return res
        helper = x402HTTPClient(client)
        try:
            body_json = first.json()
        except json.JSONDecodeError:
            body_json = None
        try:
            required = helper.get_payment_required_response(first.headers.get, body_json)
            payload = await client.create_payment_payload(required)
        except Exception as e:  # noqa: BLE001
            res["error"] = f"{type(e).__name__}: {e}"
            return res
        (name, value), = helper.encode_payment_signature_header(payload).items()
        res["payment_header"] = {"name": name, "value": value}
        save_payment(args.save_payment, args.url, args.method, request_body, name, value, kp)
        res["error"] = None
        return res

    sent = {}

    class Recorder(httpx.AsyncBaseTransport):
        """Sits under the SDK's payment transport: sees the 402 and the paid retry."""

        def __init__(self, inner):
            self.inner = inner

        async def handle_async_request(self, request):
            for name in ("PAYMENT-SIGNATURE", "X-PAYMENT"):
                if name in request.headers:
                    sent["header"] = {"name": name, "value": request.headers[name]}
            if "SIGN-IN-WITH-X" in request.headers:
                sent["signed_in"] = True
            response = await self.inner.handle_async_request(request)
            note_402(response.status_code, response.headers)
            return response

        async def aclose(self):
            await self.inner.aclose()

    async with x402HttpxClient(client, timeout=args.timeout, trust_env=False) as http_client:
        payment_transport = http_client._transport  # the SDK's x402AsyncTransport
        inner = getattr(payment_transport, "_transport", None)
        if not isinstance(inner, httpx.AsyncBaseTransport):
            raise RuntimeError("x402HttpxClient internals changed: cannot record the payment header")
        payment_transport._transport = Recorder(inner)
        try:
            resp = await http_client.request(args.method, args.url, content=request_body,
                                             headers={"Content-Type": "application/json"})
        except Exception as e:  # noqa: BLE001 - the SDK refusing to pay (or timing out) is a result
            res["error"] = f"{type(e).__name__}: {e}"
            res["challenge"] = {"v1": None, "v2": challenge.get("v2")}
            # A paid retry that timed out (the client closed its connection) was still sent.
            res["payment_header"] = sent.get("header")
            if sent.get("header"):
                save_payment(args.save_payment, args.url, args.method, request_body,
                             sent["header"]["name"], sent["header"]["value"], kp)
            return res
        await resp.aread()
    fill_response(res, resp.status_code, {k.lower(): v for k, v in resp.headers.items()}, resp.content)
    res["payment_header"] = sent.get("header")
    res["signed_in"] = sent.get("signed_in", False)
    res["challenge"] = {"v1": None, "v2": challenge.get("v2")}
    if sent.get("header"):
        save_payment(args.save_payment, args.url, args.method, request_body,
                     sent["header"]["name"], sent["header"]["value"], kp)
    return res


def sdk_v1_mode(args, kp, request_body: bytes) -> Result:
    """The SDK's own V1 scheme, fed the 402's v1 JSON body (the header is ignored), sent as
    X-PAYMENT. Note: x402 2.x's V1 scheme adds a Memo instruction (extra.memo or a nonce)."""
    from x402 import x402ClientSync
    from x402.http import x402HTTPClientSync
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client
    from x402.schemas.v1 import PaymentRequiredV1

    res = new_result("sdk-v1")
    res["payer"] = str(kp.pubkey())
    status, headers, raw = http(args.method, args.url, request_body,
                                {"Content-Type": "application/json"}, args.timeout)
    body = parse_body(raw)
    res["challenge"] = {"v1": body if status == 402 else None,
                        "v2": decode_b64_json(headers.get("payment-required")) if status == 402 else None}
    if status != 402:
        fill_response(res, status, headers, raw)
        res["error"] = "no 402 to pay"
        return res
    client = x402ClientSync()
    register_exact_svm_client(client, KeypairSigner(kp), rpc_url=args.rpc)
    try:
        payload = client.create_payment_payload(PaymentRequiredV1.model_validate(body))
    except Exception as e:  # noqa: BLE001
        res["error"] = f"{type(e).__name__}: {e}"
        return res
    (name, value), = x402HTTPClientSync(client).encode_payment_signature_header(payload).items()
    res["payment_header"] = {"name": name, "value": value}
    save_payment(args.save_payment, args.url, args.method, request_body, name, value, kp)
    if args.build_only:
        return res
    status, headers, raw = http(args.method, args.url, request_body,
                                {"Content-Type": "application/json", name: value}, args.timeout)
    fill_response(res, status, headers, raw)
    return res


# -- hand-built payments (v1 legacy and v2) ---------------------------------------------------
def hand_mode(args, kp, request_body: bytes, version: int) -> Result:
    res = new_result("hand-v1" if version == 1 else "hand-v2")
    res["payer"] = str(kp.pubkey())
    status, headers, raw = http(args.method, args.url, request_body,
                                {"Content-Type": "application/json"}, args.timeout)
    body = parse_body(raw)
    v2 = decode_b64_json(headers.get("payment-required"))
    res["challenge"] = {"v1": body if status == 402 else None, "v2": v2 if status == 402 else None}
    if status != 402:
        fill_response(res, status, headers, raw)
        res["error"] = "no 402 to pay"
        return res
    try:
        if version == 1:
            if not isinstance(body, dict) or body.get("x402Version") != 1:
                raise ValueError("402 body is not an x402 v1 PaymentRequired")
            reqs = [r for r in body.get("accepts", []) if isinstance(r, dict)
                    and r.get("scheme") == "exact" and r.get("network") == sp.NETWORK_V1]
            amount_field = "maxAmountRequired"
        else:
            if not isinstance(v2, dict):
                raise ValueError("no decodable PAYMENT-REQUIRED header")
            reqs = [r for r in v2.get("accepts", []) if isinstance(r, dict)
                    and r.get("scheme") == "exact" and r.get("network") == sp.NETWORK_V2]
            amount_field = "amount"
        if not reqs:
            raise ValueError("no exact/solana requirement")
        req = reqs[0]
        extra = req.get("extra") or {}
        fee_payer = args.fee_payer or extra.get("feePayer")
        if not fee_payer:
            raise ValueError("feePayer is required in requirements.extra for SVM transactions")
        mint = req["asset"]
        # The mint's owner and decimals, as the clients read them (getAccountInfo, base64).
        info = rpc(args.rpc, "getAccountInfo", [mint, {"encoding": "base64", "commitment": "confirmed"}],
                   args.timeout)["value"]
        if info is None or info["owner"] not in (sp.TOKEN_PROGRAM, sp.TOKEN_2022_PROGRAM):
            raise ValueError("asset was not created by a known token program")
        decimals = base64.b64decode(info["data"][0])[44]
        destination = args.destination or extra.get("usdc_token_account") \
            or sp.derive_ata(req["payTo"], mint, info["owner"])
        amount = args.amount if args.amount is not None else int(req[amount_field])
        if version == 1:
            memo = args.memo.encode() if args.memo is not None else None
        elif args.no_memo:
            memo = None
        elif args.memo is not None:
            memo = args.memo.encode()
        else:
            memo = extra["memo"].encode() if extra.get("memo") else os.urandom(16).hex().encode()
        spec = sp.TransferSpec(buyer=kp, fee_payer=fee_payer, destination=destination,
                               blockhash="11111111111111111111111111111111",
                               amount=amount, decimals=decimals, mint=mint, memo=memo,
                               token_program=info["owner"])
        if version == 1:
            # npm x402 0.x: simulate [limit 1.4M, price 1, transfer] with replaceRecentBlockhash
            # to estimate compute units, then [limit estimate, price 1, transfer] + blockhash.
            spec.compute_unit_limit = 1_400_000
            sim_tx = sp.sign_partially(sp.build_message(spec), [])
            sim = rpc(args.rpc, "simulateTransaction", [sp.tx_to_b64(sim_tx), {
                "encoding": "base64", "sigVerify": False, "replaceRecentBlockhash": True,
                "commitment": "confirmed"}], args.timeout)["value"]
            if sim.get("err") is not None:
                raise ValueError("compute unit estimate failed")
            spec.compute_unit_limit = int(sim["unitsConsumed"])
        spec.blockhash = rpc(args.rpc, "getLatestBlockhash", [{"commitment": "confirmed"}],
                             args.timeout)["value"]["blockhash"]
        tx = sp.build_payment_tx(spec)
        if version == 1:
            payment = {"x402Version": 1, "scheme": "exact", "network": sp.NETWORK_V1,
                       "payload": {"transaction": sp.tx_to_b64(tx)}}
            name = "X-PAYMENT"
        else:
            accepted = json.loads(json.dumps(req))
            if args.echo_memo is not None:
                accepted.setdefault("extra", {})["memo"] = args.echo_memo
            payment = {"x402Version": 2, "resource": v2.get("resource"), "accepted": accepted,
                       "payload": {"transaction": sp.tx_to_b64(tx)}}
            if args.payment_id is not None:
                payment["extensions"] = {"payment-identifier": {
                    "info": {"required": False, "id": args.payment_id}}}
            name = "PAYMENT-SIGNATURE"
    except (ValueError, KeyError, TypeError, RuntimeError, OSError) as e:
        res["error"] = f"{type(e).__name__}: {e}"
        return res
    value = base64.b64encode(json.dumps(payment, separators=(",", ":")).encode()).decode()
    res["payment_header"] = {"name": name, "value": value}
    save_payment(args.save_payment, args.url, args.method, request_body, name, value, kp)
    if args.build_only:
        return res
    status, headers, raw = http(args.method, args.url, request_body,
                                {"Content-Type": "application/json", name: value}, args.timeout)
    fill_response(res, status, headers, raw)
    return res


def sign_in_header(method: str, url: str, body: bytes, kp, timeout: float) -> str:
    """The SIGN-IN-WITH-X value the payer's wallet makes of a fresh 402 of `url`, with the
    official SDK's own functions (create_siwx_payload, encode_siwx_header)."""
    from x402.extensions.sign_in_with_x import create_siwx_payload, encode_siwx_header
    from x402.mechanisms.svm import KeypairSigner

    status, headers, _raw = http(method, url, body, {"Content-Type": "application/json"}, timeout)
    declared = (decode_b64_json(headers.get("payment-required")) or {}).get("extensions", {})
    siwx = declared.get("sign-in-with-x")
    if status != 402 or not siwx:
        raise RuntimeError(f"no sign-in challenge to sign (status {status})")
    chain = siwx["supportedChains"][0]
    info = {**siwx["info"], "chainId": chain["chainId"], "type": chain["type"]}
    payload = asyncio.run(create_siwx_payload(info, KeypairSigner(kp), url))
    return encode_siwx_header(payload)


def replay_mode(args) -> Result:
    """Resends a saved payment; with --sign-in, signed in as its payer (the saved keypair)."""
    from solders.keypair import Keypair

    res = new_result("replay")
    with open(args.payment_file, encoding="utf-8") as f:
        saved = json.load(f)
    url = args.url or saved["url"]
    method = saved.get("method", "POST")
    body = saved["body"].encode() if args.body is None else args.body.encode()
    header = saved["header"]
    res["payment_header"] = header
    headers = {"Content-Type": "application/json", header["name"]: header["value"]}
    if args.sign_in:
        kp = Keypair.from_bytes(bytes.fromhex(saved["payer_keypair_hex"]))
        res["payer"] = str(kp.pubkey())
        headers["SIGN-IN-WITH-X"] = sign_in_header(method, url, body, kp, args.timeout)
    status, response_headers, raw = http(method, url, body, headers, args.timeout)
    fill_response(res, status, response_headers, raw)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description="x402 buyer for the loopback end-to-end tests")
    ap.add_argument("--url", help="paid endpoint, e.g. http://127.0.0.1:PORT/check")
    ap.add_argument("--target", help="the URL to have checked: body {\"url\": TARGET}")
    ap.add_argument("--body", help="raw request body instead of {\"url\": TARGET}")
    ap.add_argument("--method", default="POST")
    ap.add_argument("--rpc", help="Solana RPC (the loopback stub)")
    ap.add_argument("--keypair-seed-hex", help="32-byte buyer seed (default: a fresh key)")
    ap.add_argument("--v1", action="store_true", help="hand-built legacy x402 v1 payment (X-PAYMENT)")
    ap.add_argument("--hand", action="store_true", help="hand-built v2 payment (PAYMENT-SIGNATURE)")
    ap.add_argument("--sdk-v1", action="store_true",
                    help="the SDK's own V1 scheme on the 402's v1 body (X-PAYMENT; it adds a memo)")
    ap.add_argument("--build-only", action="store_true", help="build and print the payment, do not send it")
    ap.add_argument("--save-payment", metavar="FILE", help="save the payment header sent")
    ap.add_argument("--replay-last", action="store_true", help="resend the payment in --payment-file")
    ap.add_argument("--payment-file", metavar="FILE")
    ap.add_argument("--amount", type=int)
    ap.add_argument("--destination")
    ap.add_argument("--memo")
    ap.add_argument("--no-memo", action="store_true")
    ap.add_argument("--fee-payer")
    ap.add_argument("--echo-memo")
    ap.add_argument("--payment-id", help="payment-identifier id (see the module documentation)")
    ap.add_argument("--siwx", action="store_true",
                    help="SDK mode: register the SDK's sign-in-with-x client extension with the "
                         "buyer's key (it signs in before paying when a 402 declares it)")
    ap.add_argument("--sign-in", action="store_true",
                    help="with --replay-last: sign in as the saved payer (SIGN-IN-WITH-X)")
    ap.add_argument("--caller-self", action="store_true",
                    help="with --target: the body also names the buyer's own wallet as caller "
                         "(a pre-check of its own allowance)")
    ap.add_argument("--timeout", type=float, default=20.0)
    args = ap.parse_args()

    if args.replay_last:
        if not args.payment_file:
            ap.error("--replay-last needs --payment-file")
        return replay_mode(args).emit()
    if not args.url or not args.rpc:
        ap.error("--url and --rpc are required")
    kp = sp.keypair_from_seed_hex(args.keypair_seed_hex)
    if args.body is not None:
        request_body = args.body.encode()
    elif args.target is not None:
        fields = {"url": args.target}
        if args.caller_self:
            fields["caller"] = str(kp.pubkey())
        request_body = json.dumps(fields).encode()
    else:
        ap.error("--target or --body is required")
    tampering = any(v is not None for v in (args.amount, args.destination, args.memo, args.fee_payer,
                                            args.echo_memo)) or args.no_memo
    if tampering and not (args.v1 or args.hand):
        ap.error("tampering options need --v1 or --hand")
    if sum((args.v1, args.hand, args.sdk_v1)) > 1:
        ap.error("choose one of --v1, --hand, --sdk-v1")
    if args.v1 or args.hand:
        return hand_mode(args, kp, request_body, 1 if args.v1 else 2).emit()
    if args.sdk_v1:
        return sdk_v1_mode(args, kp, request_body).emit()
    return asyncio.run(sdk_mode(args, kp, request_body)).emit()


if __name__ == "__main__":
    sys.exit(main())
