"""Grades 402 answers with x402-conformance's own P1-P7 rules (x402conf.harness.check_402), for the
answers its CLI cannot fetch: `x402conf resource` sends one unpaid GET and, when a PAYMENT-REQUIRED
header is present, grades only the header. run.mjs fetches the rest (POST with and without a body,
the /precheck refusal) and also asks for the v1 JSON body to be graded on its own, by sending the
same answer without its PAYMENT-REQUIRED header.

Input (stdin): one JSON object a line, {"label", "status", "headers": {name: value}, "body_b64"}.
Output (stdout): one JSON object a line, {"label", "checks": [x402conf check results]}.
Run it with the Python that has x402-conformance installed (see README.md)."""

from __future__ import annotations

import base64
import json
import sys

from x402conf import harness


def main() -> int:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        case = json.loads(line)
        resp = {
            "status": int(case["status"]),
            "headers": {k.lower(): v for k, v in case.get("headers", {}).items()},
            "body": base64.b64decode(case.get("body_b64") or ""),
            "ms": 0,
        }
        print(json.dumps({"label": case["label"], "checks": harness.check_402(resp)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
