"""MCP buyer for the end-to-end tests (test code): an agent on the official SDKs only, the MCP
SDK's Streamable HTTP client and ClientSession (`mcp` 1.x) wrapped by the official x402 MCP
client (`x402.mcp.x402MCPSession`, x402 2.25.0) with the SVM exact scheme. It lists the tools,
calls the free `criteria` and `precheck` tools with the MCP SDK alone, then calls a paid tool,
which pays on the stubbed Solana, and prints one JSON line.

    python mcp_buyer.py --url http://127.0.0.1:PORT/mcp --target URL --rpc http://127.0.0.1:RPC
        [--tool check|memo] [--keypair-seed-hex HEX] [--calls N] [--no-precheck] [--no-criteria]

--calls N makes N paid calls in a row (each a new payment), for timing; --calls 0 makes only the
free reads. --no-criteria and --no-precheck skip those free calls. --compare-http URL
(the same op's HTTP route) interleaves each paid MCP call with one paid POST to URL through the
official HTTP client (x402HttpxClient) on the same x402 client, timed the same way: the line
then also has "http_seconds" (one per call) and "median_seconds" {"mcp", "http"}.

Output (stdout, one line): {"tools": [names], "criteria": the criteria tool's
structuredContent, "precheck": {"is_error", "structured"}, "paid": [{"is_error", "payment_made", "payment_response" (the settlement
object of result._meta, or null), "structured" (the result's structuredContent), "seconds"
(the paid call's wall time: probe, payment, paid call)}], "payer", "error" (null, or why it
stopped: tests/e2e/failure.py's one line), "http_seconds"}. Exit 0 when the
calls were made (whatever they answered), 3 when the MCP client itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import svm_payment as sp  # noqa: E402
from failure import describe  # noqa: E402
from plain import plain  # noqa: E402



async def run(args, out: dict) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client
    from x402 import x402Client
    from x402.mcp import x402MCPSession
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client

    kp = sp.keypair_from_seed_hex(args.keypair_seed_hex)
    out["payer"] = str(kp.pubkey())
    client = x402Client()
    register_exact_svm_client(client, KeypairSigner(kp), rpc_url=args.rpc)
    async with streamablehttp_client(args.url) as (read, write, _session_id):
        async with ClientSession(read, write) as session:
            paying = x402MCPSession(session, client)
            await paying.initialize()
            listed = await paying.list_tools()
            out["tools"] = [tool.name for tool in listed.tools]
            if not args.no_criteria:
                criteria = await session.call_tool("criteria", {})
                out["criteria"] = criteria.structuredContent
            if not args.no_precheck:
                precheck = await session.call_tool("precheck", {"url": args.target})
                out["precheck"] = {"is_error": precheck.isError,
                                   "structured": precheck.structuredContent}
            for _ in range(args.calls):
                started = time.monotonic()
                result = await paying.call_tool(args.tool, {"url": args.target})
                seconds = time.monotonic() - started
                if args.compare_http:
                    from x402.http.clients import x402HttpxClient

                    async with x402HttpxClient(client, timeout=30, trust_env=False) as http:
                        began = time.monotonic()
                        answer = await http.post(args.compare_http, json={"url": args.target})
                        out["http_seconds"].append(round(time.monotonic() - began, 4))
                        if answer.status_code != 200:
                            raise RuntimeError(f"the HTTP purchase answered {answer.status_code}")
                raw = result.raw_result
                out["paid"].append({
                    "is_error": result.is_error,
                    "payment_made": result.payment_made,
                    "payment_response": plain(result.payment_response),
                    "structured": getattr(raw, "structuredContent", None),
                    "seconds": round(seconds, 4),
                })


def main() -> int:
    ap = argparse.ArgumentParser(description="x402 MCP buyer for the loopback end-to-end tests")
    ap.add_argument("--url", required=True, help="the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    ap.add_argument("--target", required=True, help="the URL to have checked")
    ap.add_argument("--rpc", required=True, help="Solana RPC (the loopback stub)")
    ap.add_argument("--tool", default="check", choices=["check", "memo"])
    ap.add_argument("--keypair-seed-hex", help="32-byte buyer seed (default: a fresh key)")
    ap.add_argument("--calls", type=int, default=1)
    ap.add_argument("--no-precheck", action="store_true", help="skip the free pre-check call")
    ap.add_argument("--no-criteria", action="store_true", help="skip the free criteria call")
    ap.add_argument("--compare-http", metavar="URL", help="time the HTTP route too (see above)")
    args = ap.parse_args()
    out = {"tools": None, "criteria": None, "precheck": None, "paid": [], "payer": None, "error": None,
           "http_seconds": []}
    try:
        asyncio.run(asyncio.wait_for(run(args, out), timeout=120))
    except BaseException as e:  # noqa: BLE001 (an exception group from anyio included)
        out["error"] = describe(e)
        print(json.dumps(out, separators=(",", ":")), flush=True)
        return 3
    if args.compare_http:
        import statistics

        out["median_seconds"] = {
            "mcp": statistics.median(p["seconds"] for p in out["paid"]),
            "http": statistics.median(out["http_seconds"]),
        }
    print(json.dumps(out, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
