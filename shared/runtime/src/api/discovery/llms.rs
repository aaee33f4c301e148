//! `GET /llms.txt`: what this is, where it is, how to pay and how to verify, in a few lines.

use payability_core::criteria::{CRITERIA_ID, published};
use payability_core::price::price_usd;

use crate::base_url::Base;
use crate::routes::Route;

/// The text for a base URL.
pub(super) fn llms_txt(base: &Base) -> String {
    let url = |route: Route| base.url(route.path());
    let price = price_usd();
    let texts = published();
    let check = url(Route::Check);
    let memo = url(Route::Memo);
    format!(
        "# payability-verdict\n\
         \n\
         > Signed, field-level verdicts on whether an x402 endpoint's HTTP 402 challenge is \
         payable, as served right now to an unauthenticated stranger (criteria {CRITERIA_ID}).\n\
         \n\
         Base URL: {base}\n\
         Version: {version}\n\
         \n\
         People: open {page} in a browser: the free pre-check, a verdict paid with a Solana \
         browser wallet, the report verified in the page.\n\
         \n\
         ## Use\n\
         \n\
         - `POST {check}` with `{{\"url\": \"<endpoint>\"}}`, or `GET {check}?url=<endpoint>`: \
         one fetch, a signed check report (states {check_states}). {price}.\n\
         - `POST {memo}` (or `GET ?url=`): two back-to-back fetches, a signed memo-binding \
         report ({memo_states}). {price}.\n\
         - A GET whose URL (path and query) is over {get_bytes} bytes is refused free \
         (`url_too_long_for_get`): its paid retry would not pass an API gateway; use POST.\n\
         - `POST {precheck}` with `{{\"url\", \"op\"?, \"caller\"?}}`: free, the URL policy only \
         (no fetch; 100 a day, 5,000 ms apart, per source; a `caller` wallet's own 100 when the \
         wallet signs the pre-check, `SIGN-IN-WITH-X`).\n\
         - `POST {mcp}`: the same as MCP tools (Streamable HTTP, JSON answers; MCP 2026-07-28 \
         with `server/discover`, and the `initialize` revisions 2024-11-05 to 2025-11-25): \
         `criteria`, `precheck`, and `check` and `memo` paid with x402 v2 in \
         `params._meta[\"x402/payment\"]` (x402's `org.x402/payment` extension answers \
         `payment_required` to a 2026-07-28 client that advertises it).\n\
         - `POST {a2a}`: the same as A2A skills (JSON-RPC `SendMessage` or `message/send`, the \
         card at {card}): a data part `{{\"skill\": \"check\", \"url\": \"<endpoint>\"}}`; \
         `check` and `memo` are paid with the x402 A2A extension (`x402.payment.payload` in the \
         metadata of the message answering the task's `x402.payment.required`).\n\
         \n\
         ## Pay\n\
         \n\
         The first request answers 402 with the challenge: the x402 v2 `PAYMENT-REQUIRED` \
         header (base64 JSON) and the v1 JSON body; {price} in USDC on Solana, scheme `exact`. \
         Pay it with any x402 client and repeat the same request with `PAYMENT-SIGNATURE` (v2) \
         or `X-PAYMENT` (v1). A refused payment answers 402 again with `error` \
         \"<rule>: <message>\" in both legs; nothing is charged before the URL is accepted.\n\
         \n\
         A verdict whose answer was lost goes again only to the wallet that paid: every 402 \
         declares x402 `sign-in-with-x` in `extensions`; sign it with that wallet and repeat the \
         request with `SIGN-IN-WITH-X` (no payment needed; within 24 h, at most 3 times). Re-sent \
         without it, a settled payment gets 402 `sign_in_as_payer`, which offers no payment.\n\
         \n\
         ## Verify\n\
         \n\
         Take the key in `{criteria}` `signing_keys` whose `keyId` is the report's \
         `signature.key_id`; check the report's `checked_at` is inside the key's \
         `valid_from`..`valid_until`; remove `signature`; serialise the rest with RFC 8785; \
         verify the base64url `signature.value` with Ed25519 over those bytes.\n\
         \n\
         ## Links\n\
         \n\
         - {openapi}: every route, the request and report schemas, every rule id\n\
         - {criteria}: the rule, its interpretations, the verification steps, the refusal \
         rules, the signing keys\n\
         - {corpus}: the pinned test corpus (recompute its pin and rerun it: see \
         `corpus_replay` in {criteria})\n\
         - {well_known}: the paid resources\n",
        base = base.url(""),
        version = env!("CARGO_PKG_VERSION"),
        page = base.url(Route::Page.path()),
        mcp = url(Route::Mcp),
        a2a = url(Route::A2a),
        card = url(Route::AgentCard),
        check_states = texts.states.join(", "),
        memo_states = texts.memo_op.states.join(", "),
        get_bytes = crate::api::request::MAX_GET_RESOURCE_URL_BYTES,
        precheck = url(Route::Precheck),
        criteria = url(Route::Criteria),
        openapi = url(Route::OpenApi),
        corpus = url(Route::Corpus),
        well_known = url(Route::WellKnownX402),
    )
}
