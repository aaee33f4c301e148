"""A seller built with the official x402 Python SDK's middleware (FastAPI or Flask), for the
sellers test (test code). Loopback only.

    python seller.py --framework fastapi|flask --variant NAME --facilitator http://127.0.0.1:N
        --pay-to <base58 wallet> --memo <memo> [--port 0] [--max-lifetime 600] [--watch-stdin]

Run with the x402 virtualenv's Python (scripts/test installs x402[svm,httpx,fastapi,flask]
2.25.0 there). Serves one paid route, `GET /weather`: the Solana `exact` scheme on solana
mainnet (solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp), USDC, $0.01 (10000 base units), paid to
--pay-to, on 127.0.0.1:--port (0: a free port); the facilitator (only its /supported is read)
is --facilitator. Prints exactly one stdout line, `ready <port>`, once it listens; exits
after --max-lifetime seconds and, with --watch-stdin, when stdin reaches end-of-file. The
variants are those of seller.mjs (see there): default, bazaar, memo-fixed, memo-fresh,
body-only, populated, bound.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
import socket
import sys
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

from solders.pubkey import Pubkey  # noqa: E402
from spl.token.instructions import get_associated_token_address  # noqa: E402
from x402.extensions.bazaar import OutputConfig, declare_discovery_extension  # noqa: E402
from x402.http import (  # noqa: E402
    FacilitatorConfig,
    HTTPResponseBody,
    decode_payment_signature_header,
)

import svm_payment as sp  # noqa: E402

SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
VARIANTS = ("default", "bazaar", "memo-fixed", "memo-fresh", "body-only", "populated", "bound")
WEATHER = {"report": {"weather": "sunny", "temperature": 70}}


def routes_for(variant: str, pay_to: str, memo: str) -> dict:
    """The route configuration of `variant` (what docs/sellers.md quotes)."""
    # The seller's USDC token account: the associated token account of payTo and the mint.
    usdc_token_account = str(
        get_associated_token_address(Pubkey.from_string(pay_to), Pubkey.from_string(USDC_MINT))
    )
    # A fresh memo per challenge: `<prefix>-<nonce>.<tag>`, the tag an HMAC of the nonce under
    # a key only this seller holds, so the seller recognises its own memo when the buyer pays
    # (the requirements are built again for the paid request, and a payment matches only
    # requirements with its memo) without storing any.
    memo_key = secrets.token_bytes(32)

    def tag_of(nonce: str) -> str:
        digest = hmac.new(memo_key, nonce.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")[:22]

    def issue_memo() -> str:
        nonce = secrets.token_urlsafe(12)
        return f"{memo}-{nonce}.{tag_of(nonce)}"

    def paid_memo(payment_header: str) -> str | None:
        # The memo of the payment a request carries, when this seller issued it.
        try:
            offered = decode_payment_signature_header(payment_header).accepted.extra.get("memo")
        except Exception:  # noqa: BLE001 - not a payment of ours
            return None
        parts = re.fullmatch(r".*-([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})", str(offered))
        ours = parts is not None and hmac.compare_digest(parts[2], tag_of(parts[1]))
        return offered if ours else None

    # One memo per request, remembered (the price function and the unpaid-body hook get the
    # same request adapter) so that the body carries the header's memo.
    memo_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def fresh_memo(context) -> str:
        if context.adapter not in memo_of:
            offered = context.payment_header and paid_memo(context.payment_header)
            memo_of[context.adapter] = offered or issue_memo()
        return memo_of[context.adapter]

    fixed_memo = variant in ("memo-fixed", "populated")
    per_challenge_memo = variant in ("memo-fresh", "bound")
    with_body = variant in ("body-only", "populated", "bound")
    extra = {
        **({"memo": memo} if fixed_memo else {}),
        **({"usdc_token_account": usdc_token_account} if with_body else {}),
    }

    def dynamic_price(context) -> dict:
        # A dynamic price can carry extra fields of its own challenge.
        return {"amount": "10000", "asset": USDC_MINT, "extra": {"memo": fresh_memo(context)}}

    accepts = {
        "scheme": "exact",
        "network": SOLANA_MAINNET,
        "payTo": pay_to,
        "price": dynamic_price if per_challenge_memo else "$0.01",
        **({"extra": extra} if extra else {}),
    }

    def unpaid_response_body(context) -> HTTPResponseBody:
        # The v1-style body the grading rule reads: accepts[0] with the same payTo, amount,
        # memo and the called URL as resource.
        body_extra = {**extra, **({"memo": fresh_memo(context)} if per_challenge_memo else {})}
        offer = {
            "scheme": "exact",
            "network": SOLANA_MAINNET,
            "amount": "10000",
            "maxAmountRequired": "10000",
            "resource": context.adapter.get_url(),
            "description": "Weather report",
            "mimeType": "application/json",
            "payTo": pay_to,
            "asset": USDC_MINT,
            "maxTimeoutSeconds": 300,
            "extra": body_extra,
        }
        body = {"x402Version": 1, "error": "Payment required", "accepts": [offer]}
        return HTTPResponseBody(content_type="application/json", body=body)

    route = {"accepts": accepts, "description": "Weather report", "mimeType": "application/json"}
    if variant == "bazaar":
        output = OutputConfig(example={"weather": "sunny", "temperature": 70})
        route["extensions"] = declare_discovery_extension(output=output)
    if with_body:
        route["unpaidResponseBody"] = unpaid_response_body
    return {"GET /weather": route}


def serve_fastapi(routes: dict, facilitator_url: str, sock: socket.socket) -> None:
    import uvicorn
    from fastapi import FastAPI
    from x402 import x402ResourceServer
    from x402.http import HTTPFacilitatorClient
    from x402.http.middleware.fastapi import PaymentMiddlewareASGI
    from x402.mechanisms.svm.exact import register_exact_svm_server

    server = x402ResourceServer(HTTPFacilitatorClient(FacilitatorConfig(url=facilitator_url)))
    register_exact_svm_server(server, SOLANA_MAINNET)
    app = FastAPI()
    app.add_middleware(PaymentMiddlewareASGI, routes=routes, server=server)

    @app.get("/weather")
    async def weather() -> dict:
        return WEATHER

    config = uvicorn.Config(app, log_level="warning", access_log=False)
    print(f"ready {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


def serve_flask(routes: dict, facilitator_url: str, sock: socket.socket) -> None:
    from flask import Flask
    from werkzeug.serving import make_server
    from x402 import x402ResourceServerSync
    from x402.http import HTTPFacilitatorClientSync
    from x402.http.middleware.flask import payment_middleware
    from x402.mechanisms.svm.exact import register_exact_svm_server

    server = x402ResourceServerSync(
        HTTPFacilitatorClientSync(FacilitatorConfig(url=facilitator_url))
    )
    register_exact_svm_server(server, SOLANA_MAINNET)
    app = Flask(__name__)
    payment_middleware(app, routes, server)

    @app.get("/weather")
    def weather() -> dict:
        return WEATHER

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request on stderr
    http = make_server("127.0.0.1", 0, app, threaded=True, fd=sock.fileno())
    print(f"ready {sock.getsockname()[1]}", flush=True)
    http.serve_forever(poll_interval=0.2)


def main() -> None:
    ap = argparse.ArgumentParser(description="an official x402 middleware seller (loopback)")
    ap.add_argument("--framework", choices=("fastapi", "flask"), required=True)
    ap.add_argument("--variant", choices=VARIANTS, default="default")
    ap.add_argument("--facilitator", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--pay-to", required=True)
    ap.add_argument("--memo", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--max-lifetime", type=float, default=600.0)
    ap.add_argument("--watch-stdin", action="store_true")
    args = ap.parse_args()
    if not args.facilitator.startswith("http://127.0.0.1:"):
        sys.exit("--facilitator must be a loopback URL")

    routes = routes_for(args.variant, args.pay_to, args.memo)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    sp.Lifetime(args.max_lifetime, args.watch_stdin)
    serve = serve_fastapi if args.framework == "fastapi" else serve_flask
    serve(routes, args.facilitator.rstrip("/"), sock)


if __name__ == "__main__":
    main()
