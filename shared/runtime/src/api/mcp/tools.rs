//! The MCP tools ([`Tool`]): four of the routes, each named as its route is in logs, with
//! the input schema of its request and the output schema OpenAPI publishes for its answer.

use payability_core::challenge::{PRICE_USDC_UNITS, price_usd};
use payability_core::op::PaidOp;
use serde_json::{Value, json};

use crate::api::discovery::{mcp_input_schema, report_schema_name, standalone_schema};
use crate::routes::Route;

/// A tool: a route offered over MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tool {
    /// The criteria document and the signing keys (free).
    Criteria,
    /// The URL-policy pre-check (free, metered).
    Precheck,
    /// A paid op.
    Paid(PaidOp),
}

impl Tool {
    /// Every tool, in `tools/list` order: the free ones, then the paid ones.
    pub(super) const ALL: [Tool; 4] =
        [Self::Criteria, Self::Precheck, Self::Paid(PaidOp::Check), Self::Paid(PaidOp::Memo)];

    /// The tool named `name`, if it is one of ours.
    pub(super) fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.route().name() == name)
    }

    /// The route the tool is.
    pub(super) fn route(self) -> Route {
        match self {
            Self::Criteria => Route::Criteria,
            Self::Precheck => Route::Precheck,
            Self::Paid(PaidOp::Check) => Route::Check,
            Self::Paid(PaidOp::Memo) => Route::Memo,
        }
    }
}

/// What `initialize` tells the agent.
pub(super) fn instructions() -> String {
    format!(
        "payability-verdict: whether an x402 endpoint's 402 challenge is payable right now, as a \
         signed report. criteria and precheck are free; check and memo cost {PRICE_USDC_UNITS} \
         USDC base units ({usd}) on Solana, paid with x402 v2 in params._meta[\"x402/payment\"] \
         after the first call answers isError with the PaymentRequired in structuredContent. \
         Verify a report against the criteria tool's signing_keys.",
        usd = price_usd(),
    )
}

/// Every tool as `tools/list` gives it.
pub(super) fn listed() -> Vec<Value> {
    Tool::ALL.into_iter().map(described).collect()
}

/// One tool: name, description, input schema and (when OpenAPI has one) output schema.
fn described(tool: Tool) -> Value {
    let price = PRICE_USDC_UNITS;
    let (description, input, output) = match tool {
        Tool::Criteria => (
            "Free: the criteria document (the published rule, its interpretations, every rule \
             id, the corpus pin) and the signing keys that verify every report."
                .to_owned(),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            None,
        ),
        Tool::Precheck => (
            "Free (100 a day, 5,000 ms apart, per source and per named wallet): whether a URL \
             is in the target-URL policy, signed. Never fetches; no state, no factor."
                .to_owned(),
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
        ),
        Tool::Paid(op) => {
            let what = match op {
                PaidOp::Check => "one fetch of the endpoint, graded by the check rule (six states)",
                PaidOp::Memo => {
                    "two back-to-back fetches of the endpoint, graded by the memo rule (five states)"
                }
            };
            (
                format!(
                    "Paid ({price} USDC base units, x402 v2 on Solana): {what}; a signed report."
                ),
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
