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
body-only, populated and bound, the last three from recipe.py.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

from x402.extensions.bazaar import OutputConfig, declare_discovery_extension  # noqa: E402
from x402.http import FacilitatorConfig  # noqa: E402

import svm_payment as sp  # noqa: E402
from recipe import fresh_memos, weather_routes  # noqa: E402

SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
VARIANTS = (
    "default",
    "bazaar",
    "memo-fixed",
    "memo-fresh",
    "body-only",
    "populated",
    "bound",
    "doctor-cors",
    "doctor-cors-no-expose",
    "doctor-devnet-mint",
    "doctor-long-description",
    "doctor-wrong-token-account",
    "doctor-bad-bazaar",
    "doctor-post-400",
    "doctor-base",
    "doctor-base-wrong-domain",
)
BASE = "eip155:8453"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
# The Base variants' payTo: EIP-55's own example address (seller.mjs's EVM_PAY_TO).
EVM_PAY_TO = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
SOLANA_DEVNET_USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
# A Solana address that is not the payTo's USDC account: the seeded wrong token account.
WRONG_TOKEN_ACCOUNT = "Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR"
WEATHER = {"report": {"weather": "sunny", "temperature": 70}}


def routes_for(variant: str, pay_to: str, memo: str) -> dict:
    """The route configuration of `variant`: the middleware's own example route and what the
    first variants add to it, or recipe.py's routes (the code docs/sellers.md shows)."""
    if variant in ("body-only", "populated", "bound"):
        chosen = {"body-only": None, "populated": memo, "bound": fresh_memos(memo)}[variant]
        return weather_routes(pay_to, chosen)
    if variant.startswith("doctor-base"):
        return base_routes(variant)
    memo_for = fresh_memos(memo)
    accepts = {"scheme": "exact", "network": SOLANA_MAINNET, "payTo": pay_to, "price": "$0.01"}
    if variant == "memo-fixed":
        accepts["extra"] = {"memo": memo}
    if variant == "doctor-wrong-token-account":
        accepts["extra"] = {"usdc_token_account": WRONG_TOKEN_ACCOUNT}
    if variant == "doctor-devnet-mint":
        accepts["price"] = {"amount": "10000", "asset": SOLANA_DEVNET_USDC}
    if variant == "memo-fresh":
        accepts["price"] = lambda context: {
            "amount": "10000",
            "asset": USDC_MINT,
            "extra": {"memo": memo_for(context)},
        }
    description = "x" * 501 if variant == "doctor-long-description" else "Weather report"
    route = {"accepts": accepts, "description": description, "mimeType": "application/json"}
    if variant == "bazaar":
        output = OutputConfig(example={"weather": "sunny", "temperature": 70})
        route["extensions"] = declare_discovery_extension(output=output)
    if variant == "doctor-bad-bazaar":
        route["extensions"] = {
            "bazaar": {
                "info": {"input": {"type": "http", "queryParams": "city=Paris"}},
                "schema": {"type": "object"},
            }
        }
    if variant == "doctor-post-400":
        return {"GET /weather": route, "POST /weather": route}
    return {"GET /weather": route}


def base_routes(variant: str) -> dict:
    """The Base variants' route (seller.mjs's baseRoutes): priced in dollars, or with a seeded
    wrong EIP-712 domain name."""
    price = "$0.01"
    if variant == "doctor-base-wrong-domain":
        price = {"amount": "10000", "asset": BASE_USDC, "extra": {"name": "USDC", "version": "2"}}
    accepts = {"scheme": "exact", "network": BASE, "payTo": EVM_PAY_TO, "price": price}
    route = {"accepts": accepts, "description": "Weather report", "mimeType": "application/json"}
    return {"GET /weather": route}


def register_scheme(server, variant: str) -> None:
    """Solana's exact scheme, or Base's for the Base variants."""
    if variant.startswith("doctor-base"):
        from x402.mechanisms.evm.exact import register_exact_evm_server

        register_exact_evm_server(server, BASE)
    else:
        from x402.mechanisms.svm.exact import register_exact_svm_server

        register_exact_svm_server(server, SOLANA_MAINNET)


def doctor_headers(variant: str, method: str) -> list[tuple[str, str]]:
    """The doctor variants' CORS headers (seller.mjs's corsHeaders)."""
    headers = [("access-control-allow-origin", "*")]
    if variant != "doctor-cors-no-expose":
        headers.append(("access-control-expose-headers", "PAYMENT-REQUIRED, PAYMENT-RESPONSE"))
    if method == "OPTIONS":
        headers.append(("access-control-allow-methods", "GET, POST"))
        headers.append(("access-control-allow-headers", "PAYMENT-SIGNATURE, content-type"))
    return headers


class DoctorLayer:
    """The doctor variants' layer around the whole app (WSGI or ASGI, outermost): seller.mjs's
    CORS layer and doctor-post-400's body check, before the payment middleware."""

    def __init__(self, app, variant: str) -> None:
        self.app, self.variant = app, variant

    def early(self, method: str, length: str) -> tuple[int, bytes] | None:
        if method == "OPTIONS":
            return 204, b""
        if self.variant == "doctor-post-400" and method == "POST" and not length.strip("0"):
            return 400, b'{"error": "a JSON body is required"}'
        return None

    def __call__(self, environ, start_response):  # WSGI (Flask)
        method = environ["REQUEST_METHOD"]
        added = doctor_headers(self.variant, method)
        early = self.early(method, environ.get("CONTENT_LENGTH") or "")
        if early:
            status = "204 No Content" if early[0] == 204 else "400 Bad Request"
            start_response(status, added + [("content-length", str(len(early[1])))])
            return [early[1]]

        def with_cors(status, headers, exc_info=None):
            return start_response(status, list(headers) + added, exc_info)

        return self.app(environ, with_cors)

    async def asgi(self, scope, receive, send):  # ASGI (FastAPI)
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method = scope["method"]
        added = [(k.encode(), v.encode()) for k, v in doctor_headers(self.variant, method)]
        length = dict(scope["headers"]).get(b"content-length", b"").decode()
        early = self.early(method, length)
        if early:
            await send({"type": "http.response.start", "status": early[0], "headers": added})
            return await send({"type": "http.response.body", "body": early[1]})

        async def with_cors(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + added}
            await send(message)

        return await self.app(scope, receive, with_cors)


def serve_fastapi(routes: dict, variant: str, facilitator_url: str, sock: socket.socket) -> None:
    import uvicorn
    from fastapi import FastAPI
    from x402 import x402ResourceServer
    from x402.http import HTTPFacilitatorClient
    from x402.http.middleware.fastapi import PaymentMiddlewareASGI

    server = x402ResourceServer(HTTPFacilitatorClient(FacilitatorConfig(url=facilitator_url)))
    register_scheme(server, variant)
    app = FastAPI()
    app.add_middleware(PaymentMiddlewareASGI, routes=routes, server=server)

    @app.get("/weather")
    async def weather() -> dict:
        return WEATHER

    if variant == "doctor-post-400":
        app.post("/weather")(weather)
    served = app
    if variant.startswith("doctor-"):
        served = DoctorLayer(app, variant).asgi
    config = uvicorn.Config(served, log_level="warning", access_log=False, interface="asgi3")
    print(f"ready {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


def serve_flask(routes: dict, variant: str, facilitator_url: str, sock: socket.socket) -> None:
    from flask import Flask
    from werkzeug.serving import make_server
    from x402 import x402ResourceServerSync
    from x402.http import HTTPFacilitatorClientSync
    from x402.http.middleware.flask import payment_middleware

    server = x402ResourceServerSync(
        HTTPFacilitatorClientSync(FacilitatorConfig(url=facilitator_url))
    )
    register_scheme(server, variant)
    app = Flask(__name__)
    payment_middleware(app, routes, server)

    @app.get("/weather")
    def weather() -> dict:
        return WEATHER

    if variant == "doctor-post-400":
        app.post("/weather")(weather)
    if variant.startswith("doctor-"):
        app.wsgi_app = DoctorLayer(app.wsgi_app, variant)
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
    serve(routes, args.variant, args.facilitator.rstrip("/"), sock)


if __name__ == "__main__":
    main()
