"""MCP buyer of the current revision for the end-to-end tests (test code): an agent on the
official MCP SDK 2.x alone (`mcp` 2.3.0's `Client` over Streamable HTTP), which speaks MCP
2026-07-28 (stateless: every request carries its version and the client's capabilities in
`_meta`) and the handshake era, with x402's Solana client (x402 2.25.0: `x402Client`,
`register_exact_svm_client`, `KeypairSigner`) making the payment. x402's own MCP client is
written for mcp 1.x, so the x402 MCP transport (x402 `specs/transports-v2/mcp.md`) is done
here with the MCP SDK's public API: the payment goes in `params._meta["x402/payment"]` of a
second `tools/call` (`Client.call_tool(..., meta=...)`), the settlement comes back in
`result._meta["x402/payment-response"]`.

    python mcp2_buyer.py --url http://127.0.0.1:PORT/mcp --target URL --rpc http://127.0.0.1:RPC
        [--mode 2026-07-28|auto|legacy] [--tool check|memo] [--extension]
        [--keypair-seed-hex HEX] [--calls N] [--no-precheck] [--no-criteria]
        [--save-payment FILE] [--timeout S]

--mode is the SDK's `Client(mode=...)`: a modern version adopts it directly, `auto` probes
`server/discover` and falls back to `initialize`, `legacy` runs `initialize`. Unless the mode is
legacy, `server/discover` is also sent once more on its own (`ClientSession.send_discover`)
and its raw result recorded.

--extension advertises x402's MCP extension, `org.x402/payment`, the SDK's way: a
`ClientExtension` whose `ResultClaim` accepts the `payment_required` result type (a modern
connection advertises it in `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`),
and whose resolver hands the claimed result back as the tool-result binding's `isError`
result carrying the `PaymentRequired`, after recording it. Without it, the unpaid call's
answer is that tool result itself.

Each paid call: the tool unpaid (the `PaymentRequired` recorded), the payment built from it
with `x402Client.create_payment_payload`, the tool again with the payment in `_meta`.
--calls 0 makes only the free reads. --no-criteria and --no-precheck skip those free calls.
--save-payment FILE stops the first paid call before its payment is sent: the PaymentPayload,
as it would have been sent, is written to FILE (JSON), for a test to send it itself.

Output (stdout, one line): {"mode", "protocol_version" (the SDK's negotiated version),
"negotiated_by" ("discover", "initialize" or "adopted": a version pinned by --mode),
"server_info", "server_capabilities", "discover" (the raw server/discover result, or null),
"tools" [names], "tools_list" {"result_type", "cache_scope", "ttl_ms"} (the wire's),
"criteria" (structuredContent), "criteria_envelope", "precheck" {"is_error", "structured",
"envelope"}, "paid": [{"tool", "unpaid" {"result_type" (the wire's: "complete" or
"payment_required"), "is_error", "payment_required" (the PaymentRequired), "cache_scope",
"ttl_ms", "claimed" (whether the extension's claim received it)}, "is_error", "result_type",
"cache_scope", "ttl_ms", "payment_response" (result._meta["x402/payment-response"]),
"structured" (structuredContent), "seconds"; with --save-payment only "saved", the FILE)}],
"claimed" [the payment_required results the extension's claim received, as sent], "wire":
[{"method", "status", "mcp_protocol_version", "mcp_method", "mcp_name", "extensions" (the
names under _meta's clientCapabilities.extensions, null without them), "result_type",
"error_code"}] (every request the SDK's HTTP client made), "payer", "error" (null, or why it
stopped: tests/e2e/failure.py's one line)}. Exit 0 when the calls were made (whatever they
answered), 3 when the client itself failed. Bounded: every request by the SDK's read
timeout, the whole run by --timeout seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from typing import Any, Literal

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import svm_payment as sp  # noqa: E402
from failure import describe  # noqa: E402
from plain import plain  # noqa: E402

# x402 `specs/transports-v2/mcp.md`: the extension's identifier, its result type, and the
# `_meta` keys of the payment and of the settlement answer.
PAYMENT_EXTENSION = "org.x402/payment"
PAYMENT_REQUIRED = "payment_required"
PAYMENT_META = "x402/payment"
PAYMENT_RESPONSE_META = "x402/payment-response"
# MCP 2026-07-28: where a request carries the client's capabilities.
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
# Per request: the SDK's read timeout (a paid call settles within a few seconds here).
READ_TIMEOUT_S = 60.0



class Wire:
    """Every POST the SDK's HTTP client makes and what it got (httpx2 event hooks): the
    mirrored headers sent and the answer's status and `resultType`, in order. Kept per
    request so the answers of concurrent requests cannot be confused."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    async def on_response(self, response: Any) -> None:
        request = response.request
        if request.method != "POST":
            self.exchanges.append({"method": request.method, "status": response.status_code})
            return
        body: dict[str, Any] = {}
        try:
            sent = json.loads(request.content or b"{}")
        except ValueError:
            sent = {}
        if response.headers.get("content-type", "").startswith("application/json"):
            await response.aread()
            try:
                body = response.json()
            except ValueError:
                body = {}
        result = body.get("result") if isinstance(body, dict) else None
        error = body.get("error") if isinstance(body, dict) else None
        sent = sent if isinstance(sent, dict) else {}
        params = sent.get("params") if isinstance(sent.get("params"), dict) else {}
        capabilities = (params.get("_meta") or {}).get(CLIENT_CAPABILITIES_META)
        advertised = capabilities.get("extensions") if isinstance(capabilities, dict) else None
        self.exchanges.append({
            "method": sent.get("method"),
            "status": response.status_code,
            "mcp_protocol_version": request.headers.get("mcp-protocol-version"),
            "mcp_method": request.headers.get("mcp-method"),
            "mcp_name": request.headers.get("mcp-name"),
            "extensions": sorted(advertised) if isinstance(advertised, dict) else None,
            "result_type": result.get("resultType") if isinstance(result, dict) else None,
            "error_code": error.get("code") if isinstance(error, dict) else None,
        })
        if isinstance(result, dict):
            self.results.append(result)

    def last_result(self) -> dict[str, Any]:
        """The last result the server sent (the wire's own fields, which the SDK's models
        drop: `cacheScope` and `ttlMs` of a tool result)."""
        return self.results[-1] if self.results else {}


def envelope(raw: dict[str, Any]) -> dict[str, Any]:
    """A result's stateless-era envelope, as sent (absent fields are null)."""
    return {
        "result_type": raw.get("resultType"),
        "cache_scope": raw.get("cacheScope"),
        "ttl_ms": raw.get("ttlMs"),
    }


def payment_extension(claimed: list[dict[str, Any]]) -> Any:
    """x402's MCP extension for the SDK's `Client(extensions=[...])`: advertised as
    `org.x402/payment`, it claims the `payment_required` result type of `tools/call`; the
    resolver records the claimed result in `claimed` and returns what the tool-result binding
    would have: an `isError` tool result with the `PaymentRequired` as `structuredContent`."""
    from mcp.client.extension import ClientExtension, ResultClaim
    from mcp_types import CallToolResult, Result, TextContent

    class PaymentRequiredResult(Result):
        """x402's `payment_required` result: the tool did not run."""

        result_type: Literal["payment_required"]
        payment_required: dict[str, Any]
        cache_scope: str | None = None
        ttl_ms: int | None = None

    async def resolve(result: PaymentRequiredResult, ctx: Any) -> CallToolResult:
        claimed.append({"tool": ctx.tool_name, **plain(result)})
        text = json.dumps(result.payment_required, separators=(",", ":"))
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=result.payment_required,
            is_error=True,
            _meta=result.meta,
        )

    class X402Payment(ClientExtension):
        identifier = PAYMENT_EXTENSION

        def claims(self):
            return [ResultClaim(result_type=PAYMENT_REQUIRED, model=PaymentRequiredResult,
                                resolve=resolve)]

    return X402Payment()


async def run(args, out: dict) -> None:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types.version import LATEST_MODERN_VERSION
    from x402 import x402Client
    from x402.mechanisms.svm import KeypairSigner
    from x402.mechanisms.svm.exact import register_exact_svm_client
    from x402.schemas import PaymentRequired

    kp = sp.keypair_from_seed_hex(args.keypair_seed_hex)
    out["payer"] = str(kp.pubkey())
    payments = x402Client()
    register_exact_svm_client(payments, KeypairSigner(kp), rpc_url=args.rpc)

    wire = Wire()
    claimed: list[dict[str, Any]] = []
    out["wire"], out["claimed"] = wire.exchanges, claimed
    extensions = [payment_extension(claimed)] if args.extension else None
    timeout = httpx2.Timeout(30.0, read=READ_TIMEOUT_S)
    async with httpx2.AsyncClient(timeout=timeout, trust_env=False,
                                  event_hooks={"response": [wire.on_response]}) as http:
        transport = streamable_http_client(args.url, http_client=http)
        async with Client(transport, mode=args.mode, extensions=extensions,
                          read_timeout_seconds=READ_TIMEOUT_S) as client:
            session = client.session
            out["protocol_version"] = client.protocol_version
            if session.discover_result is not None:
                # `auto` adopted the server's discover result; a pinned version adopts a
                # synthesized one (its supportedVersions is the pin alone).
                out["negotiated_by"] = "adopted" if args.mode not in ("auto", "legacy") else "discover"
            else:
                out["negotiated_by"] = "initialize"
            out["server_info"] = plain(client.server_info)
            out["server_capabilities"] = plain(client.server_capabilities)
            if args.mode != "legacy":
                out["discover"] = await session.send_discover(LATEST_MODERN_VERSION)

            listed = await client.list_tools()
            out["tools"] = [tool.name for tool in listed.tools]
            out["tools_list"] = envelope(wire.last_result())
            if not args.no_criteria:
                criteria = await client.call_tool("criteria", {})
                out["criteria"] = criteria.structured_content
                out["criteria_envelope"] = envelope(wire.last_result())
            if not args.no_precheck:
                precheck = await client.call_tool("precheck", {"url": args.target})
                out["precheck"] = {"is_error": precheck.is_error,
                                   "structured": precheck.structured_content,
                                   "envelope": envelope(wire.last_result())}
            arguments = {"url": args.target}
            for _ in range(args.calls):
                started = time.monotonic()
                before = len(claimed)
                unpaid = await client.call_tool(args.tool, arguments)
                sent = wire.last_result()
                record: dict[str, Any] = {"tool": args.tool, "unpaid": {
                    **envelope(sent),
                    "is_error": unpaid.is_error,
                    "payment_required": unpaid.structured_content,
                    "claimed": len(claimed) > before,
                }}
                out["paid"].append(record)
                challenge = unpaid.structured_content
                if not unpaid.is_error or not isinstance(challenge, dict) or "accepts" not in challenge:
                    raise RuntimeError(f"the unpaid {args.tool} call answered no PaymentRequired")
                payload = await payments.create_payment_payload(PaymentRequired.model_validate(challenge))
                # As x402's MCP client sends it (its null members included).
                payment = payload.model_dump(by_alias=True, mode="json")
                if args.save_payment:
                    with open(args.save_payment, "w", encoding="utf-8") as f:
                        json.dump(payment, f)
                    record["saved"] = args.save_payment
                    break
                meta = {PAYMENT_META: payment}
                result = await client.call_tool(args.tool, arguments, meta=meta)
                record.update({
                    **envelope(wire.last_result()),
                    "is_error": result.is_error,
                    "payment_response": (result.meta or {}).get(PAYMENT_RESPONSE_META),
                    "structured": result.structured_content,
                    "seconds": round(time.monotonic() - started, 4),
                })


def main() -> int:
    ap = argparse.ArgumentParser(description="MCP 2026-07-28 x402 buyer for the loopback end-to-end tests")
    ap.add_argument("--url", required=True, help="the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    ap.add_argument("--target", required=True, help="the URL to have checked")
    ap.add_argument("--rpc", required=True, help="Solana RPC (the loopback stub)")
    ap.add_argument("--mode", default="2026-07-28", help="the SDK's Client(mode=...): 2026-07-28, auto or legacy")
    ap.add_argument("--tool", default="check", choices=["check", "memo"])
    ap.add_argument("--extension", action="store_true", help="advertise org.x402/payment (see above)")
    ap.add_argument("--keypair-seed-hex", help="32-byte buyer seed (default: a fresh key)")
    ap.add_argument("--calls", type=int, default=1)
    ap.add_argument("--no-precheck", action="store_true", help="skip the free pre-check call")
    ap.add_argument("--no-criteria", action="store_true", help="skip the free criteria call")
    ap.add_argument("--save-payment", metavar="FILE", help="write the first payment to FILE, unsent")
    ap.add_argument("--timeout", type=float, default=120.0, help="the whole run's bound, in seconds")
    args = ap.parse_args()
    out: dict[str, Any] = {
        "mode": args.mode, "protocol_version": None, "negotiated_by": None, "server_info": None,
        "server_capabilities": None, "discover": None, "tools": None, "tools_list": None,
        "criteria": None, "criteria_envelope": None, "precheck": None, "paid": [], "claimed": [],
        "wire": [], "payer": None, "error": None,
    }
    try:
        asyncio.run(asyncio.wait_for(run(args, out), timeout=args.timeout))
    except BaseException as e:  # noqa: BLE001 (an exception group from anyio included)
        out["error"] = describe(e)
        print(json.dumps(out, separators=(",", ":")), flush=True)
        return 3
    print(json.dumps(out, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
