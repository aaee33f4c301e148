//! What every 402 says about its route besides the terms: the x402 bazaar discovery
//! extension (`extensions.bazaar` in the v2 `PAYMENT-REQUIRED` header: `info.input` with the
//! method and an example request, `info.output` with an example report, and a compact
//! `schema` that `info` validates against) and the v1 `accepts[0].outputSchema` (the same
//! description in the v1 shape). The description follows the method of the request that got
//! the 402: `GET ?url=` for a GET (and HEAD), a JSON body for a POST, so that a client that
//! retries the same request with a payment pays the way it asked. Kept small: official
//! clients echo `extensions` into `PAYMENT-SIGNATURE`, which must fit API Gateway's quota with
//! the request line (see [`crate::api::PAID_REQUEST_BUDGET_BYTES`]); the full report schema and
//! example are in `GET /openapi.json`. The v1 body is never echoed and keeps the full example.

use std::sync::LazyLock;

use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::grade::{grade_check, grade_memo};
use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::report::{UnsignedReport, UtcMillis};
use payability_core::signing::SIGNATURE_ALG;
use serde_json::{Value, json};

use crate::api::call_style::CallStyle;
use crate::schemas::{URL_DESCRIPTION, abridged_report, compact_request, mcp_input_schema};

/// The endpoint every example names.
pub const EXAMPLE_URL: &str = "https://seller.example/api";

/// One route's description for one call style: the v2 `extensions` and the v1
/// `outputSchema`.
#[derive(Debug)]
pub struct RouteDescription {
    /// `{"bazaar": {"info", "schema"}}`.
    pub extensions: Value,
    /// `{"input", "output"}` for `accepts[0].outputSchema`.
    pub output_schema: Value,
}

/// Built once: (check, memo) x (query, body, MCP, A2A).
static DESCRIPTIONS: LazyLock<[[RouteDescription; 4]; 2]> = LazyLock::new(|| {
    [PaidOp::Check, PaidOp::Memo].map(|route| CallStyle::ALL.map(|style| describe(route, style)))
});

/// The description of a paid route for a call style.
pub(in crate::api) fn description(route: PaidOp, style: CallStyle) -> &'static RouteDescription {
    let r = match route {
        PaidOp::Check => 0,
        PaidOp::Memo => 1,
    };
    let s = match style {
        CallStyle::Query => 0,
        CallStyle::Body => 1,
        CallStyle::Mcp => 2,
        CallStyle::A2a => 3,
    };
    &DESCRIPTIONS[r][s]
}

fn describe(route: PaidOp, style: CallStyle) -> RouteDescription {
    if style == CallStyle::A2a {
        // The bazaar extension describes HTTP and MCP calls only: an A2A offer carries none
        // (the agent card describes the skills), and its v1 leg, never served, the POST's.
        let body = describe(route, CallStyle::Body);
        return RouteDescription { extensions: json!({}), output_schema: body.output_schema };
    }
    let example = example_report(route);
    let request = compact_request();
    let (info_input, schema_input) = match style {
        CallStyle::Query => (
            json!({"type": "http", "method": "GET", "queryParams": {"url": EXAMPLE_URL}}),
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "const": "http"},
                    "method": {"type": "string", "enum": ["GET"]},
                    "queryParams": request,
                },
                "required": ["type", "method"],
                "additionalProperties": false,
            }),
        ),
        CallStyle::Body | CallStyle::A2a => (
            json!({"type": "http", "method": "POST", "bodyType": "json", "body": {"url": EXAMPLE_URL}}),
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "const": "http"},
                    "method": {"type": "string", "enum": ["POST"]},
                    "bodyType": {"type": "string", "enum": ["json"]},
                    "body": request,
                },
                "required": ["type", "method", "bodyType", "body"],
                "additionalProperties": false,
            }),
        ),
        CallStyle::Mcp => (
            json!({
                "type": "mcp", "tool": route.as_str(), "transport": "streamable-http",
                "inputSchema": mcp_input_schema(), "example": {"url": EXAMPLE_URL},
            }),
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "const": "mcp"},
                    "tool": {"type": "string", "const": route.as_str()},
                    "transport": {"type": "string", "enum": ["streamable-http"]},
                    "inputSchema": {"type": "object"},
                    "example": request,
                },
                "required": ["type", "tool", "inputSchema"],
                "additionalProperties": false,
            }),
        ),
    };
    let abridged = json!({
        "op": example["op"],
        "state": example["state"],
        "verdict_line": example["verdict_line"],
    });
    let bazaar = json!({
        "info": {
            "input": info_input,
            "output": {"type": "json", "example": abridged},
        },
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "input": schema_input,
                "output": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string"},
                        "example": abridged_report(route),
                    },
                    "required": ["type"],
                },
            },
            "required": ["input"],
        },
    });
    let url_field = json!({"type": "string", "required": true, "description": URL_DESCRIPTION});
    // MCP payments are v2 only: an MCP call's v1 leg is never served, and describes the POST.
    let v1_input = match style {
        CallStyle::Query => json!({
            "type": "http", "method": "GET", "discoverable": true,
            "queryParams": {"url": url_field},
        }),
        CallStyle::Body | CallStyle::Mcp | CallStyle::A2a => json!({
            "type": "http", "method": "POST", "discoverable": true, "bodyType": "json",
            "bodyFields": {"url": url_field},
        }),
    };
    RouteDescription {
        extensions: json!({"bazaar": bazaar}),
        output_schema: json!({"input": v1_input, "output": example}),
    }
}

/// When every example was checked: a fixed instant.
const EXAMPLE_CHECKED_AT: UtcMillis = UtcMillis(1_767_225_600_000);

/// An example report of a paid route, graded by the core from the service's own challenge
/// (POPULATED for check, BOUND for memo): real in every field but the three published
/// sentences (abridged) and the signature (no key's).
pub fn example_report(route: PaidOp) -> Value {
    let target = vet_target_url(EXAMPLE_URL, AddressRule::PublicOnly).expect("a public URL");
    let served = |memo: &str| {
        let challenge = own_challenge(&ChallengeTerms {
            resource_url: EXAMPLE_URL,
            description: "One example verdict",
            pay_to: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
            fee_payer: "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1",
            token_account: "5Hr7wZg7oBpVhH5nngRqzr5W7ZFUfCsfEhbziZJak7fr",
            memo,
        });
        FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: Some(CapturedHeader::of(challenge.payment_required.as_bytes())),
            body: CapturedBody::Complete(challenge.body),
        })
    };
    let report = match route {
        PaidOp::Check => UnsignedReport::of(
            &target,
            grade_check(target.as_str(), &served("pvm_example_1")),
            EXAMPLE_CHECKED_AT,
            false,
        ),
        PaidOp::Memo => UnsignedReport::of(
            &target,
            grade_memo(&served("pvm_example_1"), &served("pvm_example_2")),
            EXAMPLE_CHECKED_AT,
            false,
        ),
    }
    .expect("the example instant is in range");
    let mut report = serde_json::to_value(report).expect("a report serialises");
    // Compact: the three published sentences (hundreds of bytes each, the same in every
    // report of the op) are named, not repeated; a real report carries them in full.
    let (honesty, retention) = match route {
        PaidOp::Check => ("honesty_line", "retention"),
        PaidOp::Memo => ("memo_op.boundary_statement", "memo_op.custody"),
    };
    report["disclosure"] = json!("(abridged) the criteria's disclosure_sentence, verbatim");
    report["honesty"] = json!(format!("(abridged) the criteria's {honesty}, verbatim"));
    report["retention"] = json!(format!("(abridged) the criteria's {retention}, verbatim"));
    report["signature"] = json!({
        "alg": SIGNATURE_ALG,
        "key_id": "payability-example",
        "value": "example-only-base64url-Ed25519-signature",
    });
    report
}
