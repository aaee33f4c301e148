"""An MCP seller (test code): the official `mcp` SDK's FastMCP serving one paid tool,
`weather`, wrapped by the official x402 Python SDK's MCP payment wrapper
(`x402.mcp.create_payment_wrapper`, x402 2.25.0): Solana `exact`, USDC, $0.01, paid to
--pay-to, the facilitator at --facilitator (its /supported gives the fee payer). Streamable
HTTP at http://127.0.0.1:PORT/mcp, loopback only; one free tool, `ping`, beside it.

    python mcp_seller.py --facilitator http://127.0.0.1:N --pay-to <base58> [--port 0]
        [--watch-stdin] [--max-lifetime 600]

Prints exactly one stdout line, `ready <port>`, once it listens; exits when its stdin reaches
end-of-file (with --watch-stdin) or after --max-lifetime seconds. For
shared/cli/tests/doctor_sellers.rs (`payability doctor --mcp`).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))]
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)

import svm_payment as sp  # noqa: E402  (the fixtures' process lifetime)

SOLANA_MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"


def main() -> None:
    ap = argparse.ArgumentParser(description="an official MCP seller with x402 (loopback)")
    ap.add_argument("--facilitator", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--pay-to", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--max-lifetime", type=float, default=600.0)
    ap.add_argument("--watch-stdin", action="store_true")
    args = ap.parse_args()
    if not args.facilitator.startswith("http://127.0.0.1:"):
        sys.exit("--facilitator must be a loopback URL")

    import uvicorn
    from mcp.server.fastmcp import FastMCP
    from x402 import x402ResourceServerSync
    from x402.http import FacilitatorConfig, HTTPFacilitatorClientSync
    from x402.mcp import create_payment_wrapper
    from x402.mechanisms.svm.exact import register_exact_svm_server
    from x402.schemas import ResourceConfig

    server = x402ResourceServerSync(
        HTTPFacilitatorClientSync(FacilitatorConfig(url=args.facilitator.rstrip("/")))
    )
    register_exact_svm_server(server, SOLANA_MAINNET)
    server.initialize()
    accepts = server.build_payment_requirements(
        ResourceConfig(scheme="exact", network=SOLANA_MAINNET, pay_to=args.pay_to, price="$0.01")
    )
    paid = create_payment_wrapper(server, accepts=accepts)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    mcp = FastMCP("weather-seller")

    @mcp.tool(name="weather", description="The weather report. Costs $0.01.")
    @paid
    async def weather(city: str = "Paris") -> str:
        return json.dumps({"city": city, "weather": "sunny"})

    @mcp.tool(name="ping", description="Free: pong.")
    async def ping() -> str:
        return "pong"

    sp.Lifetime(args.max_lifetime, args.watch_stdin)
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning", access_log=False)
    print(f"ready {sock.getsockname()[1]}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
