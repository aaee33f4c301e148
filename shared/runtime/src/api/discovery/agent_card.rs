//! `GET /.well-known/agent-card.json`: the A2A agent card. One card for both wire shapes a
//! buyer may speak: A2A 1.0's fields (`supportedInterfaces`) and A2A 0.3's (`url`,
//! `preferredTransport`, `protocolVersion`), which each version's parser ignores in the other.
//! The skills are the routes an agent calls by name ([`Route::AGENT_CALLS`]); the x402 A2A
//! extension is required (two of them are paid).

use payability_core::criteria::{CRITERIA_ID, published};
use payability_core::op::PaidOp;
use payability_core::price::{PRICE_USDC_UNITS, price_usd};
use serde_json::{Value, json};

use crate::base_url::Base;
use crate::routes::Route;

/// The x402 A2A extension's URI in its v0.2 specification (google-agentic-commerce/a2a-x402),
/// the one the card declares.
pub const X402_EXTENSION_URI: &str =
    "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

/// The extension's URI as x402's own A2A transport text names it (v0.1); accepted on
/// activation as well.
pub const X402_EXTENSION_URI_V01: &str = "https://github.com/google-a2a/a2a-x402/v0.1";

/// The card for a base URL.
pub(super) fn agent_card(base: &Base) -> Value {
    let endpoint = base.url(Route::A2a.path());
    let texts = published();
    json!({
        "name": "payability-verdict",
        "description": format!(
            "Signed, field-level verdicts on whether an x402 endpoint's HTTP 402 challenge is \
             payable, as served right now to an unauthenticated stranger (criteria \
             {CRITERIA_ID}). check (one fetch, states {check_states}) and memo (two fetches, \
             states {memo_states}) cost {price} each in USDC on Solana, paid with the x402 A2A \
             extension; criteria and precheck are free. Verify a report against the keys the \
             criteria skill publishes.",
            check_states = texts.states.join(", "),
            memo_states = texts.memo_op.states.join(", "),
            price = price_usd(),
        ),
        "version": env!("CARGO_PKG_VERSION"),
        "supportedInterfaces": [
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "protocolVersion": "0.3.0",
        "url": endpoint,
        "preferredTransport": "JSONRPC",
        "provider": {"organization": "payability-verdict", "url": base.url("")},
        "documentationUrl": base.url(Route::LlmsTxt.path()),
        "capabilities": {
            "streaming": false,
            "pushNotifications": false,
            "extensions": [{
                "uri": X402_EXTENSION_URI,
                "description": format!(
                    "x402 payments (standalone flow): check and memo answer a task in \
                     input-required carrying x402.payment.required (x402 v2, exact scheme, \
                     {PRICE_USDC_UNITS} USDC base units on Solana); answer it with \
                     x402.payment.payload in the message's metadata"
                ),
                "required": true,
            }],
        },
        "securitySchemes": {},
        "securityRequirements": [],
        "security": [],
        "defaultInputModes": ["application/json", "text/plain"],
        "defaultOutputModes": ["application/json"],
        "skills": Route::AGENT_CALLS.map(skill),
    })
}

/// One skill: a route called by name, with the input its message carries.
fn skill(route: Route) -> Value {
    let name = route.name();
    let (title, what, input, tags) = match route.paid() {
        Some(op) => paid_skill(op),
        None if route == Route::Precheck => (
            "Pre-check a URL against the target policy",
            "Free (100 a day, 5,000 ms apart): whether a URL is in the target-URL policy, \
             signed. Never fetches."
                .to_owned(),
            r#"{"skill": "precheck", "url": "<endpoint>", "op": "check"}"#,
            &["x402", "url policy", "free"][..],
        ),
        None => (
            "The criteria document",
            "Free: the published rule, its interpretations, every rule id, the corpus pin and \
             the signing keys that verify every report."
                .to_owned(),
            r#"{"skill": "criteria"}"#,
            &["criteria", "signing keys", "free"][..],
        ),
    };
    let text = match route {
        Route::Criteria => name.to_owned(),
        _ => format!("{name} <endpoint>"),
    };
    json!({
        "id": name,
        "name": title,
        "description": format!(
            "{what} Send a message with the data part {input} (or the text \"{text}\")."
        ),
        "tags": tags,
        "examples": [input],
        "inputModes": ["application/json", "text/plain"],
        "outputModes": ["application/json"],
    })
}

/// A paid op's skill: title, description, example input and tags (every op named, so a new
/// one does not compile until it has its skill).
fn paid_skill(op: PaidOp) -> (&'static str, String, &'static str, &'static [&'static str]) {
    let price = price_usd();
    match op {
        PaidOp::Check => (
            "Check a 402 challenge",
            format!(
                "Paid ({price}, x402): one fetch of the endpoint, graded by the check rule (six \
                 states); the signed report as the task's artifact."
            ),
            r#"{"skill": "check", "url": "<endpoint>"}"#,
            &["x402", "402 challenge", "payability", "paid"],
        ),
        PaidOp::Memo => (
            "Check a challenge's memo binding",
            format!(
                "Paid ({price}, x402): two back-to-back fetches of the endpoint, graded by the \
                 memo rule (five states); the signed report as the task's artifact."
            ),
            r#"{"skill": "memo", "url": "<endpoint>"}"#,
            &["x402", "memo", "payability", "paid"],
        ),
    }
}
