"""Verifies a payability-verdict report without any of our code, the way docs/verification.md
tells a stranger to: take the key named by signature.key_id from a criteria document, drop the
`signature` member, serialise the rest with RFC 8785 (the `rfc8785` package), and check the
Ed25519 signature with `cryptography`.

Usage: python verify_report.py REPORT.json CRITERIA.json
Prints `valid <keyId>` and exits 0, or prints why and exits 1.
"""

import base64
import json
import sys

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify(report, criteria):
    envelope = report.pop("signature")
    if envelope.get("alg") != "Ed25519":
        return "not an Ed25519 signature"
    keys = {k["keyId"]: k for k in criteria["signing_keys"]}
    key = keys.get(envelope["key_id"])
    if key is None:
        return "no published key has this key id"
    public = Ed25519PublicKey.from_public_bytes(b64url(key["jwk"]["x"]))
    try:
        public.verify(b64url(envelope["value"]), rfc8785.dumps(report))
    except InvalidSignature:
        return "the signature does not match"
    return None


def main():
    with open(sys.argv[1], "rb") as f:
        report = json.load(f)
    with open(sys.argv[2], "rb") as f:
        criteria = json.load(f)
    key_id = report.get("signature", {}).get("key_id")
    problem = verify(report, criteria)
    if problem:
        print(problem)
        sys.exit(1)
    print(f"valid {key_id}")


if __name__ == "__main__":
    main()
