# recipe.py: an x402 route that grades POPULATED and BOUND, for the x402 2.25.0 FastAPI and
# Flask middleware (docs/sellers.md): GET /weather, USDC on Solana mainnet, $0.01.
import base64
import hashlib
import hmac
import re
import secrets
import weakref

from solders.pubkey import Pubkey
from spl.token.instructions import get_associated_token_address
from x402.http import HTTPResponseBody, decode_payment_signature_header

SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"


def fresh_memos(prefix):
    """Fresh memos, `<prefix>-<nonce>.<tag>`: the tag is an HMAC of the nonce under a key only
    this server holds, so a memo coming back in a payment is recognised without storing any.
    The middleware builds the requirements again for the paid request and a payment matches
    only requirements with its memo: the paid request must get the memo it paid."""
    key = secrets.token_bytes(32)  # one per process, or a secret your instances share

    def tag_of(nonce):
        digest = hmac.new(key, nonce.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")[:22]

    def paid_memo(payment_header):
        try:
            offered = decode_payment_signature_header(payment_header).accepted.extra.get("memo")
        except Exception:  # noqa: BLE001 - not a payment of ours
            return None
        parts = re.fullmatch(r".*-([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22})", str(offered))
        return offered if parts and hmac.compare_digest(parts[2], tag_of(parts[1])) else None

    # One memo per request: the price function and the body hook get the same adapter.
    memo_of = weakref.WeakKeyDictionary()

    def memo_for(context):
        if context.adapter not in memo_of:
            nonce = secrets.token_urlsafe(12)
            paid = context.payment_header and paid_memo(context.payment_header)
            memo_of[context.adapter] = paid or f"{prefix}-{nonce}.{tag_of(nonce)}"
        return memo_of[context.adapter]

    return memo_for


def weather_routes(pay_to, memo=None):
    """The routes, paid to `pay_to`. `memo`: a fixed string (POPULATED, MEMO-REUSED) or
    fresh_memos(prefix) (POPULATED, BOUND); without one the route grades UNCONFIGURED."""
    owner, mint = Pubkey.from_string(pay_to), Pubkey.from_string(USDC)
    token_account = str(get_associated_token_address(owner, mint))

    def extra_for(context):
        chosen = memo(context) if callable(memo) else memo
        return {"usdc_token_account": token_account, **({"memo": chosen} if chosen else {})}

    def price(context):
        # A dynamic price gives each challenge its own extra fields (merged into extra).
        return {"amount": "10000", "asset": USDC, "extra": extra_for(context)}

    def unpaid_body(context):
        # The v1-style body the grading rule reads: the same payTo, amount and memo, and the
        # URL of this request (the header's resource.url) as resource.
        offer = {
            "scheme": "exact",
            "network": SOLANA,
            "amount": "10000",
            "maxAmountRequired": "10000",
            "resource": context.adapter.get_url(),
            "description": "Weather report",
            "mimeType": "application/json",
            "payTo": pay_to,
            "asset": USDC,
            "maxTimeoutSeconds": 300,
            "extra": extra_for(context),
        }
        body = {"x402Version": 1, "error": "Payment required", "accepts": [offer]}
        return HTTPResponseBody(content_type="application/json", body=body)

    accepts = {"scheme": "exact", "network": SOLANA, "payTo": pay_to, "price": price}
    return {
        "GET /weather": {
            "accepts": accepts,
            "description": "Weather report",
            "mimeType": "application/json",
            "unpaidResponseBody": unpaid_body,
        }
    }
