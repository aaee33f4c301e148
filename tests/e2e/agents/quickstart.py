"""Agent quickstart with the official x402 Python client (PyPI `x402[svm,httpx]`): from the
service's base URL alone to a paid, verified verdict. What docs/agents.md
shows; `shared/cli/tests/agents.rs` runs it against the loopback fixtures.

    python quickstart.py --base URL --target URL --rpc URL --buyer-seed-hex HEX
        [--op check|memo] [--discovery auto|well-known|openapi] [--tamper-report] [--timeout S]

1. Discover what to call, knowing only --base: `GET <base>/.well-known/x402` (the paid
   resources, x402scan's list) names the op's route; else `GET <base>/openapi.json` (the
   path whose GET operation has `x-payment-info`). The OpenAPI document, when served, also
   names the GET query parameter (`url`). A route on another origin than --base is not paid.
   --discovery well-known or openapi reads only that document (default auto: both, in order).
2. Pay `GET <route>?url=<target>` through the SDK's httpx client: it reads the 402's v2
   `PAYMENT-REQUIRED` header, signs a USDC transfer (with the challenge's `extra.memo`) and
   retries the same request with `PAYMENT-SIGNATURE`.
3. Verify the signed report with none of the service's code: `GET <base>/criteria`, the key
   whose `keyId` is `signature.key_id`, RFC 8785 bytes of the report without `signature`
   (`rfc8785`), Ed25519 (`cryptography`), and `checked_at` inside the key's window.

Prints one JSON line: {client, discovered_via, route, status, op, state, valid, key_id,
settled, transaction, error}. Exit 0 when the answer is 200 and the report verifies, 1
otherwise, 2 on bad arguments. --tamper-report (for tests) changes the paid report's `state`
before verifying it, which must then fail. --rpc is the Solana JSON-RPC the signer reads the mint and a
blockhash from; --buyer-seed-hex the buyer's 32-byte Ed25519 seed (64 hex digits).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from importlib.metadata import version
from urllib.parse import urljoin, urlsplit

import httpx
import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from solders.keypair import Keypair
from x402 import x402Client
from x402.http import x402HTTPClient
from x402.http.clients import x402HttpxClient
from x402.mechanisms.svm import KeypairSigner
from x402.mechanisms.svm.exact import register_exact_svm_client


class Refused(Exception):
    """The quickstart cannot go on (discovery found nothing, an answer is not JSON, ...)."""


def same_origin(a: str, b: str) -> bool:
    x, y = urlsplit(a), urlsplit(b)
    return (x.scheme, x.netloc) == (y.scheme, y.netloc)


def last_segment(url_or_path: str) -> str:
    return urlsplit(url_or_path).path.rstrip("/").rsplit("/", 1)[-1]


async def get_json(http: httpx.AsyncClient, url: str):
    """The JSON document at `url`, or None when it is not served (any non-200, not JSON)."""
    try:
        answer = await http.get(url)
    except httpx.HTTPError:
        return None
    if answer.status_code != 200:
        return None
    try:
        return answer.json()
    except ValueError:
        return None


async def discover(http: httpx.AsyncClient, base: str, op: str, documents: str) -> dict:
    """{route, via, query_param} for the op's paid GET route, from the documents at `base`."""
    found = None
    known = await get_json(http, f"{base}/.well-known/x402") if documents != "openapi" else None
    if isinstance(known, dict) and isinstance(known.get("resources"), list):
        for resource in known["resources"]:
            if isinstance(resource, str) and last_segment(resource) == op:
                found = {"route": resource.split("?", 1)[0], "via": "/.well-known/x402"}
                break
    spec = await get_json(http, f"{base}/openapi.json") if documents != "well-known" else None
    query_param = "url"
    if isinstance(spec, dict) and isinstance(spec.get("paths"), dict):
        servers = spec.get("servers") or [{}]
        server = servers[0].get("url") if isinstance(servers[0], dict) else None
        for path, item in spec["paths"].items():
            get = item.get("get") if isinstance(item, dict) else None
            if last_segment(path) != op or not isinstance(get, dict) or "x-payment-info" not in get:
                continue
            required = [p.get("name") for p in get.get("parameters", [])
                        if isinstance(p, dict) and p.get("in") == "query" and p.get("required")]
            if len(required) == 1 and isinstance(required[0], str):
                query_param = required[0]
            if found is None:
                route = urljoin((server or base).rstrip("/") + "/", path.lstrip("/"))
                found = {"route": route, "via": "/openapi.json"}
            break
    if found is None:
        raise Refused(f"neither {base}/.well-known/x402 nor {base}/openapi.json names a paid "
                      f"GET /{op} route")
    if not same_origin(found["route"], base):
        raise Refused(f"the discovered route {found['route']} is not on {base}; not paying it")
    return {**found, "query_param": query_param}


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(report: dict, criteria: dict) -> tuple[bool, str | None, str | None]:
    """(valid, key_id, why not): docs/verification.md's recipe, with the key's window."""
    report = dict(report)
    signature = report.pop("signature", None) or {}
    key_id = signature.get("key_id")
    if signature.get("alg") != "Ed25519":
        return False, key_id, "not an Ed25519 signature"
    key = next((k for k in criteria.get("signing_keys", []) if k.get("keyId") == key_id), None)
    if key is None:
        return False, key_id, "no key in /criteria has this key id"
    checked_at = report.get("checked_at", "")
    if (key.get("valid_from") and checked_at < key["valid_from"]) or (
            key.get("valid_until") and checked_at >= key["valid_until"]):
        return False, key_id, "checked_at is outside the key's published window"
    try:
        Ed25519PublicKey.from_public_bytes(b64url(key["jwk"]["x"])).verify(
            b64url(signature["value"]), rfc8785.dumps(report))
    except (InvalidSignature, KeyError, ValueError):
        return False, key_id, "the signature does not match"
    return True, key_id, None


async def quickstart(args, out: dict) -> None:
    base = args.base.rstrip("/")
    async with httpx.AsyncClient(timeout=args.timeout, trust_env=False) as plain:
        found = await discover(plain, base, args.op, args.discovery)
        criteria = await get_json(plain, f"{base}/criteria")
    out["discovered_via"] = found["via"]
    out["route"] = f"GET {found['route']}?{found['query_param']}=<target>"
    if not isinstance(criteria, dict):
        raise Refused(f"{base}/criteria is not a JSON document")

    client = x402Client()
    register_exact_svm_client(client, KeypairSigner(Keypair.from_seed(args.seed)), rpc_url=args.rpc)
    async with x402HttpxClient(client, timeout=args.timeout, trust_env=False) as http:
        answer = await http.get(found["route"], params={found["query_param"]: args.target})
        await answer.aread()
    out["status"] = answer.status_code
    try:
        settlement = x402HTTPClient(client).get_payment_settle_response(answer.headers.get)
        out["settled"], out["transaction"] = settlement.success, settlement.transaction
    except ValueError:
        pass
    try:
        body = answer.json()
    except ValueError:
        raise Refused(f"the answer ({answer.status_code}) is not JSON") from None
    if answer.status_code != 200:
        error = body.get("error") if isinstance(body, dict) else None
        out["error"] = error.get("rule") if isinstance(error, dict) else error
        return
    if args.tamper_report:
        body["state"] = "NOT-A-402" if body.get("state") != "NOT-A-402" else "POPULATED"
    out["op"], out["state"] = body.get("op"), body.get("state")
    out["valid"], out["key_id"], out["error"] = verify(body, criteria)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the service's base URL")
    ap.add_argument("--target", required=True, help="the x402 endpoint to have checked")
    ap.add_argument("--rpc", required=True, help="Solana JSON-RPC URL for the signer")
    ap.add_argument("--buyer-seed-hex", required=True, help="the buyer's 32-byte seed, 64 hex digits")
    ap.add_argument("--op", choices=("check", "memo"), default="check")
    ap.add_argument("--discovery", choices=("auto", "well-known", "openapi"), default="auto",
                    help="which discovery document to read (auto: /.well-known/x402, then /openapi.json)")
    ap.add_argument("--tamper-report", action="store_true",
                    help="alter the report before verifying it (for tests: it must not verify)")
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    try:
        args.seed = bytes.fromhex(args.buyer_seed_hex)
    except ValueError:
        args.seed = b""
    if len(args.seed) != 32:
        ap.error("--buyer-seed-hex must be 64 hex digits")
    out = {"client": f"x402 {version('x402')} (PyPI), x402HttpxClient", "discovered_via": None,
           "route": None, "status": None, "op": None, "state": None, "valid": False,
           "key_id": None, "settled": None, "transaction": None, "error": None}
    try:
        asyncio.run(quickstart(args, out))
    except (Refused, httpx.HTTPError) as e:
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out, separators=(",", ":")), flush=True)
    return 0 if out.get("status") == 200 and out.get("valid") else 1


if __name__ == "__main__":
    sys.exit(main())
