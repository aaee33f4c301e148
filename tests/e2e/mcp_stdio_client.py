"""MCP stdio client for the end-to-end tests (test code): the official MCP SDK's own stdio
client starts `payability mcp --allow-private` (the binary given) as a subprocess and talks to it
over its stdin and stdout, as an agent's MCP host does. With `--sdk 1` it is `mcp` 1.x's
`stdio_client` and `ClientSession` (the handshake era: initialize); with `--sdk 2` it is `mcp`
2.x's `Client` in `--mode auto` (probes server/discover: the 2026-07-28 era), `2026-07-28`
(adopts the revision without a probe) or `legacy` (the handshake). It lists the tools, calls
`criteria`, `precheck` and `check` of the target, then the hostile calls below, and prints one
JSON line.

    python mcp_stdio_client.py (--binary PATH | --manifest FILE) --target URL
        --server-stderr FILE [--sdk 1|2] [--mode auto|2026-07-28|legacy]

With `--manifest`, the server is the one an MCP bundle's manifest.json (unpacked) names, run
as an MCP host runs it: its `mcp_config` command, arguments and environment, `${__dirname}`
being the manifest's folder; private targets are allowed by PAYABILITY_ALLOW_PRIVATE_TARGETS=1
instead of the `--allow-private` argument. The server's standard error is written to FILE (the
test reads it for custody). The server is given PAYABILITY_SIGNING_KEY_FILE from this
process's environment.

Output (stdout, one line): {"sdk", "mode", "protocol_version", "tools": [names],
"descriptions": {name: description},
"criteria": the criteria tool's result, "precheck": its result, "check": its result,
"hostile": [{"call", "result"} or {"call", "error_code"}], "error" (null, or why it stopped)}.
A result is the SDK's CallToolResult dumped by alias (isError, structuredContent, content, ...).
Exit 0 when the calls were made (whatever they answered), 3 when the MCP client itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

for _var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
    os.environ.pop(_var, None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from plain import plain  # noqa: E402

# The hostile calls: (name, tool, arguments, _meta). Each is answered closed form, either as a
# tool result with isError or as a JSON-RPC error the SDK raises.
HOSTILE = [
    ("url_not_a_string", "check", {"url": 7}, None),
    ("unknown_field", "check", {"url": "http://127.0.0.1:9/x", "CANARY-ARG": "CANARY-ARG"}, None),
    ("bad_op", "precheck", {"url": "http://127.0.0.1:9/x", "op": "CANARY-ARG"}, None),
    ("huge_url", "check", {"url": "http://127.0.0.1:9/" + "a" * 100_000 + "CANARY-ARG"}, None),
    ("payment", "check", {"url": "http://127.0.0.1:9/x"}, {"x402/payment": {"CANARY-ARG": 1}}),
    ("unknown_tool", "CANARY-ARG", {}, None),
]



def error_code(exc: BaseException):
    """The JSON-RPC error code an SDK's exception carries, else None."""
    error = getattr(exc, "error", None)
    return getattr(error, "code", None)


def server_parameters(args, StdioServerParameters):
    env = {}
    for name in ("PAYABILITY_SIGNING_KEY_FILE",):
        if name in os.environ:
            env[name] = os.environ[name]
    if args.binary:
        return StdioServerParameters(command=args.binary, args=["mcp", "--allow-private"], env=env)
    with open(args.manifest) as f:
        config = json.load(f)["server"]["mcp_config"]
    folder = os.path.dirname(os.path.abspath(args.manifest))

    def here(text):
        return text.replace("${__dirname}", folder)

    env.update({name: here(value) for name, value in config.get("env", {}).items()})
    env["PAYABILITY_ALLOW_PRIVATE_TARGETS"] = "1"
    return StdioServerParameters(
        command=here(config["command"]), args=[here(arg) for arg in config.get("args", [])], env=env
    )


async def calls(call_tool, list_tools, args, out: dict) -> None:
    """The calls both SDKs make, through their own call_tool and list_tools."""
    listed = await list_tools()
    out["tools"] = [tool.name for tool in listed.tools]
    out["descriptions"] = {tool.name: tool.description for tool in listed.tools}
    out["criteria"] = plain(await call_tool("criteria", {}, None))
    precheck = {"url": args.target, "op": "check"}
    out["precheck"] = plain(await call_tool("precheck", precheck, None))
    out["check"] = plain(await call_tool("check", {"url": args.target}, None))
    for name, tool, arguments, meta in HOSTILE:
        try:
            out["hostile"].append({"call": name, "result": plain(await call_tool(tool, arguments, meta))})
        except Exception as exc:  # the SDK raises a JSON-RPC error; its code is what matters
            out["hostile"].append({"call": name, "error_code": error_code(exc)})


async def run_sdk1(args, out: dict, errlog) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async with stdio_client(server_parameters(args, StdioServerParameters), errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            out["protocol_version"] = initialized.protocolVersion

            async def call_tool(tool, arguments, meta):
                return await session.call_tool(tool, arguments, meta=meta)

            await calls(call_tool, session.list_tools, args, out)


async def run_sdk2(args, out: dict, errlog) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    transport = stdio_client(server_parameters(args, StdioServerParameters), errlog=errlog)
    async with Client(transport, mode=args.mode) as client:
        out["protocol_version"] = client.protocol_version

        async def call_tool(tool, arguments, meta):
            return await client.call_tool(tool, arguments, meta=meta)

        async def list_tools():
            return await client.list_tools()

        await calls(call_tool, list_tools, args, out)


def main() -> int:
    parser = argparse.ArgumentParser()
    server = parser.add_mutually_exclusive_group(required=True)
    server.add_argument("--binary")
    server.add_argument("--manifest")
    parser.add_argument("--target", required=True)
    parser.add_argument("--server-stderr", required=True)
    parser.add_argument("--sdk", choices=["1", "2"], default="2")
    parser.add_argument("--mode", default="auto")
    args = parser.parse_args()
    out = {"sdk": args.sdk, "mode": args.mode, "protocol_version": None, "tools": [], "descriptions": {},
           "criteria": None, "precheck": None, "check": None, "hostile": [], "error": None}
    status = 0
    with open(args.server_stderr, "w") as errlog:
        try:
            run = run_sdk1 if args.sdk == "1" else run_sdk2
            asyncio.run(asyncio.wait_for(run(args, out, errlog), timeout=120))
        except BaseException as exc:  # one line whatever happened, for the test to show
            out["error"] = f"{type(exc).__name__}: {exc}"[:2000]
            status = 3
    print(json.dumps(out))
    return status


if __name__ == "__main__":
    sys.exit(main())
