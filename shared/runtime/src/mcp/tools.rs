//! The MCP tools ([`Tool`]): four of the routes, each named as its route is in logs, with the
//! input schema of its request and the output schema OpenAPI publishes for its answer; who
//! answers them ([`Offer`]: the service, paid, or the command line, free and local); the one
//! tool only the command line offers, [`DOCTOR`] (it fetches for free, which the service
//! never does); and a `tools/call` read ([`read_call`]).

use payability_core::op::PaidOp;
use payability_core::payment::siwx::{
    SIGN_IN_WITH_X, SignInProof, SignInRefusal, decode_proof_header,
};
use payability_core::price::{PRICE_USDC_UNITS, price_usd};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::McpError;
use crate::routes::Route;
use crate::schemas::{mcp_input_schema, report_schema_name, standalone_schema};

/// The `_meta` key of the payment a paid call carries.
pub const PAYMENT_META: &str = "x402/payment";

/// A tool: a route offered over MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The criteria document and the signing keys (free).
    Criteria,
    /// The URL-policy pre-check (free; metered by the service).
    Precheck,
    /// A verdict op (paid from the service; free from the command line).
    Paid(PaidOp),
}

/// Who answers the tools, which is what their descriptions say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// The service (`POST /mcp`): `check` and `memo` are paid with x402, the pre-check is
    /// metered.
    Service,
    /// The command line on the agent's own machine (`payability mcp`): everything is free,
    /// fetched from there and signed with the local key.
    Local,
}

impl Tool {
    /// Every tool, in `tools/list` order: the free ones, then the paid ones.
    pub const ALL: [Tool; 4] =
        [Self::Criteria, Self::Precheck, Self::Paid(PaidOp::Check), Self::Paid(PaidOp::Memo)];

    /// The tool named `name`, if it is one of ours.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.route().name() == name)
    }

    /// The route the tool is.
    pub fn route(self) -> Route {
        match self {
            Self::Criteria => Route::Criteria,
            Self::Precheck => Route::Precheck,
            Self::Paid(PaidOp::Check) => Route::Check,
            Self::Paid(PaidOp::Memo) => Route::Memo,
        }
    }
}

/// The tool only `payability mcp` offers: the seller's doctor on one URL (`payability doctor`'s
/// check list, no probe), free and local. Not a route: the service does not fetch for free.
pub const DOCTOR: &str = "doctor";

/// The doctor tool as `tools/list` gives it.
fn doctor_described() -> Value {
    json!({
        "name": DOCTOR,
        "description": "Free, from this machine: the seller's check list (doctor/v1) on one \
                        URL: will buyers pay it, browsers read it and indexers find it; each \
                        check pass, fail or not applicable, no score.",
        "inputSchema": {
            "type": "object",
            "properties": {"url": {"type": "string"}},
            "required": ["url"],
            "additionalProperties": false,
        },
    })
}

/// Every tool's name as `tools/list` gives it to `offer`: the routes', and for the command line
/// the doctor's.
pub fn names(offer: Offer) -> Vec<&'static str> {
    let routes = Tool::ALL.into_iter().map(|tool| tool.route().name());
    let local = (offer == Offer::Local).then_some(DOCTOR);
    routes.chain(local).collect()
}

/// What `initialize` and `server/discover` tell the agent.
pub fn instructions(offer: Offer) -> String {
    match offer {
        Offer::Service => format!(
            "payability-verdict: whether an x402 endpoint's 402 challenge is payable right now, \
             as a signed report. criteria and precheck are free; check and memo cost \
             {PRICE_USDC_UNITS} USDC base units ({usd}) on Solana, paid with x402 v2 in \
             params._meta[\"x402/payment\"] after the first call answers the PaymentRequired \
             (isError with it in structuredContent, or, for a 2026-07-28 client that advertises \
             the org.x402/payment extension, resultType payment_required). Verify a report \
             against the criteria tool's signing_keys.",
            usd = price_usd(),
        ),
        Offer::Local => "payability (local): whether an x402 endpoint's 402 challenge is \
             payable right now, as a report signed with this machine's key. Every tool is free \
             here: check and memo fetch the endpoint from this machine, under the same target \
             policy as the service; doctor runs the seller's check list on it. Verify a report \
             against the criteria tool's signing_keys."
            .to_owned(),
    }
}

/// Every tool as `tools/list` gives it ([`names`]' order).
pub fn listed(offer: Offer) -> Vec<Value> {
    let routes = Tool::ALL.into_iter().map(|tool| described(tool, offer));
    let local = (offer == Offer::Local).then(doctor_described);
    routes.chain(local).collect()
}

/// One tool: name, description, input schema and (when OpenAPI has one) output schema.
fn described(tool: Tool, offer: Offer) -> Value {
    let price = PRICE_USDC_UNITS;
    let (description, input, output) = match tool {
        Tool::Criteria => (
            "Free: the criteria document (the published rule, its interpretations, every rule \
             id, the corpus pin) and the signing keys that verify every report."
                .to_owned(),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            None,
        ),
        Tool::Precheck => {
            let metered = match offer {
                Offer::Service => {
                    "Free (100 a day, 5,000 ms apart, per source and per named wallet)"
                }
                Offer::Local => "Free",
            };
            (
                format!(
                    "{metered}: whether a URL is in the target-URL policy, signed. Never \
                     fetches; no state, no factor."
                ),
                json!({
                    "type": "object",
                    "properties": {
                        "url": {"type": "string"},
                        "op": {"type": "string", "enum": ["check", "memo"]},
                        "caller": {"type": "string", "description": "a base58 Solana wallet"},
                    },
                    "required": ["url"],
                    "additionalProperties": false,
                }),
                Some(standalone_schema("PrecheckAnswer")),
            )
        }
        Tool::Paid(op) => {
            let what = match op {
                PaidOp::Check => "one fetch of the endpoint, graded by the check rule (six states)",
                PaidOp::Memo => {
                    "two back-to-back fetches of the endpoint, graded by the memo rule (five states)"
                }
            };
            let cost = match offer {
                Offer::Service => format!("Paid ({price} USDC base units, x402 v2 on Solana)"),
                Offer::Local => "Free, from this machine".to_owned(),
            };
            (
                format!("{cost}: {what}; a signed report."),
                mcp_input_schema(),
                Some(standalone_schema(report_schema_name(op))),
            )
        }
    };
    let name = tool.route().name();
    let mut described = json!({"name": name, "description": description, "inputSchema": input});
    if let Some(output) = output {
        described["outputSchema"] = output;
    }
    described
}

/// The `params` of `tools/call`.
#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

/// A `tools/call`, read: the tool named, its arguments and what its `_meta` carries.
pub struct ToolCall {
    /// The tool named.
    pub tool: Tool,
    /// Its arguments (an object; `{}` when absent).
    pub arguments: Value,
    /// `_meta["x402/payment"]`, as sent (decoded only by a paid tool).
    pub payment: Option<Value>,
    /// `_meta["sign-in-with-x"]`, decoded.
    pub proof: Option<Result<SignInProof, SignInRefusal>>,
}

/// The sign-in proof in `_meta["sign-in-with-x"]`: the `SIGN-IN-WITH-X` header's text, decoded
/// by the header's own rules (anything but a string is malformed).
fn proof_of(value: &Value) -> Result<SignInProof, SignInRefusal> {
    let text = value.as_str().ok_or(SignInRefusal::HeaderMalformed)?;
    decode_proof_header(text.as_bytes())
}

/// Reads `tools/call`'s params: params of another shape, a tool that is not ours or
/// arguments that are not an object are invalid.
pub fn read_call(params: Value) -> Result<ToolCall, McpError> {
    let params: CallParams = serde_json::from_value(params).map_err(|_| McpError::InvalidParams)?;
    let tool = Tool::named(&params.name).ok_or(McpError::InvalidParams)?;
    let arguments = match params.arguments {
        None => json!({}),
        Some(arguments @ Value::Object(_)) => arguments,
        Some(_) => return Err(McpError::InvalidParams),
    };
    let mut meta = params.meta.unwrap_or_default();
    let payment = meta.remove(PAYMENT_META);
    let proof = meta.get(SIGN_IN_WITH_X).map(proof_of);
    Ok(ToolCall { tool, arguments, payment, proof })
}
