//! JSON Schemas (2020-12, as OpenAPI 3.1 embeds them) of what the API takes and answers,
//! read by OpenAPI and the bazaar description (`api/discovery/`) and by the MCP tools'
//! input and output schemas (`mcp/tools.rs`), built from the core's own types and lists: the published state lists, the factor
//! structs' enums (each listed through an exhaustive match, so a new variant does not
//! compile until it is here), the criteria id, revision and published sentences. A test
//! grades real reports, pre-check answers and errors against them, so they cannot drift.

use payability_core::criteria::{CRITERIA_ID, CRITERIA_REVISION, published};
use payability_core::grade::check::NotA402Reason;
use payability_core::grade::memo::{CompletionReason, FormatClass, FreshnessClass};
use payability_core::op::PaidOp;
use payability_core::policy::PolicyRefusal;
use payability_core::signing::SIGNATURE_ALG;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The report timestamp format, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
const TIMESTAMP_PATTERN: &str =
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$";

/// What the URL field says, in every schema that carries it.
pub(crate) const URL_DESCRIPTION: &str = "the x402 endpoint to check (http or https, at most 2,048 bytes, no credentials, a public host)";

/// The serialised names of some enum values (their serde names).
fn names<T: Serialize>(values: &[T]) -> Vec<Value> {
    values.iter().map(|v| serde_json::to_value(v).expect("an enum serialises")).collect()
}

/// Every NOT-A-402 reason of a check.
fn not_a_402_reasons() -> Vec<Value> {
    use NotA402Reason::*;
    let all = [FetchFailed, Timeout, StatusNot402, BodyOverCap];
    for reason in all {
        match reason {
            FetchFailed | Timeout | StatusNot402 | BodyOverCap => {}
        }
    }
    names(&all)
}

/// Every memo completion reason.
fn completion_reasons() -> Vec<Value> {
    use CompletionReason::*;
    let all = [MemoAbsentOneFetch, MemoBindingNotEstablished];
    for reason in all {
        match reason {
            MemoAbsentOneFetch | MemoBindingNotEstablished => {}
        }
    }
    names(&all)
}

/// Every freshness class.
fn freshness_classes() -> Vec<Value> {
    use FreshnessClass::*;
    let all = [Regenerated, Static, NotGradable];
    for class in all {
        match class {
            Regenerated | Static | NotGradable => {}
        }
    }
    names(&all)
}

/// Every memo format class.
fn format_classes() -> Vec<Value> {
    use FormatClass::*;
    let all = [Absent, Short, PrefixedOpaque, Opaque];
    for class in all {
        match class {
            Absent | Short | PrefixedOpaque | Opaque => {}
        }
    }
    names(&all)
}

/// The published states of an op, as the criteria text lists them.
pub(crate) fn states(route: PaidOp) -> Vec<Value> {
    let texts = published();
    let states = match route {
        PaidOp::Check => &texts.states,
        PaidOp::Memo => &texts.memo_op.states,
    };
    states.iter().map(|s| json!(s)).collect()
}

/// The report's op name.
pub(crate) fn op_name(route: PaidOp) -> &'static str {
    route.as_str()
}

/// The published honesty and retention lines of an op.
pub(crate) fn op_lines(route: PaidOp) -> (&'static str, &'static str) {
    let texts = published();
    match route {
        PaidOp::Check => (&texts.honesty_line, &texts.retention),
        PaidOp::Memo => (&texts.memo_op.boundary_statement, &texts.memo_op.custody),
    }
}

fn boolean() -> Value {
    json!({"type": "boolean"})
}

fn nullable_boolean() -> Value {
    json!({"type": ["boolean", "null"]})
}

fn nullable_status() -> Value {
    json!({"type": ["integer", "null"], "minimum": 100, "maximum": 999})
}

/// A closed object: these properties, each one required unless named in `optional`.
fn object(properties: Vec<(&str, Value)>, optional: &[&str]) -> Value {
    let required: Vec<&str> =
        properties.iter().map(|(n, _)| *n).filter(|n| !optional.contains(n)).collect();
    let properties: Map<String, Value> =
        properties.into_iter().map(|(n, s)| (n.to_owned(), s)).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A local reference to a component schema.
pub(crate) fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The request of a paid route (the POST body; the GET query has the same one field).
pub(crate) fn paid_request() -> Value {
    object(
        vec![("url", json!({"type": "string", "format": "uri", "description": URL_DESCRIPTION}))],
        &[],
    )
}

/// The request of `POST /precheck`.
fn precheck_request() -> Value {
    object(
        vec![
            ("url", json!({"type": "string", "description": URL_DESCRIPTION})),
            (
                "caller",
                json!({"type": "string", "description": "a base58 Solana wallet: the free allowance is counted per wallet (else per source IP)"}),
            ),
            (
                "op",
                json!({"type": "string", "enum": ["check", "memo"], "default": "check", "description": "the op whose policy and 402 apply"}),
            ),
        ],
        &["caller", "op"],
    )
}

/// A URL-policy refusal `{rule, message}`.
fn policy_refusal() -> Value {
    let rules: Vec<&str> = PolicyRefusal::ALL.iter().map(|r| r.rule()).collect();
    object(
        vec![
            ("rule", json!({"type": "string", "enum": rules})),
            ("message", json!({"type": "string"})),
        ],
        &[],
    )
}

/// The signature envelope of a report or a pre-check answer.
fn signature() -> Value {
    object(
        vec![
            ("alg", json!({"type": "string", "const": SIGNATURE_ALG})),
            (
                "key_id",
                json!({"type": "string", "description": "the keyId of a key in GET /criteria signing_keys"}),
            ),
            (
                "value",
                json!({"type": "string", "description": "the 64-byte Ed25519 signature, base64url without padding, over the RFC 8785 bytes of the object without `signature`"}),
            ),
        ],
        &[],
    )
}

/// The signed answer of `POST /precheck`.
fn precheck_answer() -> Value {
    let texts = published();
    let mut refusal = policy_refusal();
    refusal["type"] = json!(["object", "null"]);
    object(
        vec![
            ("criteria", json!({"type": "string", "const": CRITERIA_ID})),
            ("criteria_revision", json!({"type": "string", "const": CRITERIA_REVISION})),
            ("kind", json!({"type": "string", "const": "precheck"})),
            ("op", json!({"type": "string", "enum": ["check", "memo"]})),
            (
                "url",
                json!({"type": ["string", "null"], "description": "the WHATWG serialisation of the URL, when in policy"}),
            ),
            ("in_policy", boolean()),
            ("refusal", refusal),
            ("checked_at", json!({"type": "string", "pattern": TIMESTAMP_PATTERN})),
            ("disclosure", json!({"type": "string", "const": texts.disclosure_sentence})),
            ("honesty", json!({"type": "string"})),
            ("retention", json!({"type": "string"})),
            ("signature", reference("Signature")),
        ],
        &[],
    )
}

/// Every factor of a check report.
fn check_factors() -> Value {
    object(
        vec![
            ("fetch_ok", boolean()),
            ("status", nullable_status()),
            ("body_over_cap", boolean()),
            (
                "reason",
                json!({"type": "string", "enum": not_a_402_reasons(), "description": "present only when the state is NOT-A-402"}),
            ),
            ("body_parseable", boolean()),
            ("body_leg_present", boolean()),
            ("header_present", boolean()),
            ("header_over_cap", boolean()),
            ("header_decodable", boolean()),
            ("recipient_present", boolean()),
            ("token_account_present", boolean()),
            ("memo_present", boolean()),
            ("amounts_present", boolean()),
            ("amounts_consistent", boolean()),
            ("resource_present", boolean()),
            ("resource_equal", nullable_boolean()),
            ("memo_equal", nullable_boolean()),
            ("amount_equal", nullable_boolean()),
            ("pay_to_equal", nullable_boolean()),
            ("description_overlong", boolean()),
            ("description_length", json!({"type": ["integer", "null"], "minimum": 0})),
        ],
        &["reason"],
    )
}

/// The factors of one of a memo check's two fetches.
fn fetch_factors() -> Value {
    object(
        vec![
            ("fetch_ok", boolean()),
            ("status", nullable_status()),
            ("is_402", boolean()),
            ("body_over_cap", boolean()),
            ("body_parseable", boolean()),
            ("body_leg_present", boolean()),
            ("header_present", boolean()),
            ("header_over_cap", boolean()),
            ("header_decodable", boolean()),
            ("body_memo_present", boolean()),
            ("header_memo_present", boolean()),
        ],
        &[],
    )
}

/// The field names (never values) of one fetch's two legs.
fn leg_census() -> Value {
    let names = json!({"type": "array", "items": {"type": "string"}});
    object(vec![("body", names.clone()), ("header", names)], &[])
}

/// Every factor of a memo report.
fn memo_factors() -> Value {
    let freshness = json!({"type": "string", "enum": freshness_classes()});
    let format = json!({"type": "string", "enum": format_classes()});
    object(
        vec![
            (
                "fetches",
                json!({"type": "array", "items": reference("FetchFactors"), "minItems": 2, "maxItems": 2}),
            ),
            ("memo_equality_fetch1", nullable_boolean()),
            ("memo_equality_fetch2", nullable_boolean()),
            ("body_memos_unique", nullable_boolean()),
            ("header_memos_unique", nullable_boolean()),
            ("body_freshness_class", freshness.clone()),
            ("header_freshness_class", freshness),
            ("body_memo_format_fetch1", format.clone()),
            ("body_memo_format_fetch2", format.clone()),
            ("header_memo_format_fetch1", format.clone()),
            ("header_memo_format_fetch2", format),
            (
                "correlation_census",
                object(
                    vec![("fetch1", reference("LegCensus")), ("fetch2", reference("LegCensus"))],
                    &[],
                ),
            ),
            (
                "reason",
                json!({"type": "string", "enum": completion_reasons(), "description": "present only when a completion rule decided the state"}),
            ),
        ],
        &["reason"],
    )
}

/// Every factor name of both ops (the properties of the factor schemas above), sorted.
fn factor_names() -> Vec<Value> {
    let mut names: Vec<String> = [check_factors(), fetch_factors(), memo_factors()]
        .iter()
        .filter_map(|schema| schema["properties"].as_object())
        .flat_map(|properties| properties.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    names.into_iter().map(Value::String).collect()
}

/// What decided a report's state (interpretation `decided_by`): the step of the op's state
/// rule and the factors, by name and printed value, that met its conditions.
fn decided_by(route: PaidOp) -> Value {
    let name = ("factor", json!({"type": "string", "enum": factor_names()}));
    let value = ("value", json!({"type": ["boolean", "integer", "null"]}));
    let (last_step, factor) = match route {
        PaidOp::Check => (6, object(vec![name, value], &[])),
        PaidOp::Memo => {
            let fetch = (
                "fetch",
                json!({"type": "integer", "enum": [1, 2], "description": "the fetch a per-fetch factor belongs to"}),
            );
            (7, object(vec![name, fetch, value], &["fetch"]))
        }
    };
    object(
        vec![
            ("step", json!({"type": "integer", "minimum": 1, "maximum": last_step})),
            ("factors", json!({"type": "array", "items": factor})),
        ],
        &[],
    )
}

/// The signed report of a paid route.
fn report(route: PaidOp) -> Value {
    let texts = published();
    let (honesty, retention) = op_lines(route);
    let factors = match route {
        PaidOp::Check => "CheckFactors",
        PaidOp::Memo => "MemoFactors",
    };
    object(
        vec![
            ("criteria", json!({"type": "string", "const": CRITERIA_ID})),
            ("criteria_revision", json!({"type": "string", "const": CRITERIA_REVISION})),
            ("op", json!({"type": "string", "const": op_name(route)})),
            (
                "url",
                json!({"type": "string", "description": "the called URL: the WHATWG serialisation of the submitted one"}),
            ),
            ("state", json!({"type": "string", "enum": states(route)})),
            (
                "verdict_line",
                json!({"type": "string", "description": "the published verdict line: title, state, checked_at"}),
            ),
            ("checked_at", json!({"type": "string", "pattern": TIMESTAMP_PATTERN})),
            ("factors", reference(factors)),
            ("decided_by", decided_by(route)),
            (
                "house",
                json!({"type": "boolean", "description": "true for the operator's own unpaid checks"}),
            ),
            ("disclosure", json!({"type": "string", "const": texts.disclosure_sentence})),
            ("honesty", json!({"type": "string", "const": honesty})),
            ("retention", json!({"type": "string", "const": retention})),
            ("signature", reference("Signature")),
        ],
        &[],
    )
}

/// The closed-form error `{"error": {"rule", "message"}}`.
fn error() -> Value {
    object(
        vec![(
            "error",
            object(
                vec![
                    (
                        "rule",
                        json!({"type": "string", "description": "a stable snake_case rule id (the closed list: x-error-rules)"}),
                    ),
                    ("message", json!({"type": "string"})),
                ],
                &[],
            ),
        )],
        &[],
    )
}

/// The v1 body of a 402 (the v2 object is the base64 `PAYMENT-REQUIRED` header).
fn payment_required_v1() -> Value {
    json!({
        "type": "object",
        "properties": {
            "x402Version": {"const": 1},
            "error": {"type": "string", "description": "\"<rule>: <message>\", the same text as the v2 header's error (the rules: x-payment-refusals)"},
            "accepts": {
                "type": "array",
                "maxItems": 1,
                "items": {"type": "object"},
                "description": "the one offer; empty in a sign-in challenge (sign_in_as_payer, sign_in_as_caller), which offers no payment: sign in with SIGN-IN-WITH-X",
            },
        },
        "required": ["x402Version", "error", "accepts"],
    })
}

/// `GET /.well-known/x402`.
fn well_known_x402() -> Value {
    object(
        vec![
            ("version", json!({"const": 1})),
            ("resources", json!({"type": "array", "items": {"type": "string", "format": "uri"}})),
            ("instructions", json!({"type": "string"})),
        ],
        &[],
    )
}

/// Every component schema, by name.
pub(crate) fn components() -> Map<String, Value> {
    let schemas = [
        ("PaidRequest", paid_request()),
        ("PrecheckRequest", precheck_request()),
        ("PrecheckAnswer", precheck_answer()),
        ("CheckReport", report(PaidOp::Check)),
        ("MemoReport", report(PaidOp::Memo)),
        ("CheckFactors", check_factors()),
        ("MemoFactors", memo_factors()),
        ("FetchFactors", fetch_factors()),
        ("LegCensus", leg_census()),
        ("Signature", signature()),
        ("Error", error()),
        ("PaymentRequiredV1", payment_required_v1()),
        ("WellKnownX402", well_known_x402()),
    ];
    schemas.into_iter().map(|(n, s)| (n.to_owned(), s)).collect()
}

/// The name of a paid route's report schema.
pub(crate) fn report_schema_name(route: PaidOp) -> &'static str {
    match route {
        PaidOp::Check => "CheckReport",
        PaidOp::Memo => "MemoReport",
    }
}

/// The schema of the abridged report the 402's discovery description gives as its example: the
/// op, its states and the verdict line, with a pointer to the full schema and example in
/// OpenAPI (the description rides in every paid retry's `PAYMENT-SIGNATURE`: kept small). No
/// `$ref`, no `format`: facilitators compile it as it stands.
pub(crate) fn abridged_report(route: PaidOp) -> Value {
    let mut schema = object(
        vec![
            ("op", json!({"type": "string", "const": op_name(route)})),
            ("state", json!({"type": "string", "enum": states(route)})),
            ("verdict_line", json!({"type": "string"})),
        ],
        &[],
    );
    schema["description"] = json!(format!(
        "abridged; the signed report's schema and a full example: GET /openapi.json, {}",
        report_schema_name(route)
    ));
    schema
}

/// The request schema of the 402's discovery description (no `format`, see above; the URL's
/// rules are in OpenAPI).
pub(crate) fn compact_request() -> Value {
    object(vec![("url", json!({"type": "string"}))], &[])
}

/// The JSON Schema of a document OpenAPI publishes under `name` (`CheckReport`,
/// `MemoReport`, `PrecheckAnswer`), standing alone: the reference, with every component
/// beside it (an MCP tool's `outputSchema`).
pub(crate) fn standalone_schema(name: &str) -> Value {
    json!({
        "type": "object",
        "$ref": format!("#/components/schemas/{name}"),
        "components": {"schemas": components()},
    })
}

/// The `inputSchema` of a paid MCP tool (`tools/list` and the bazaar MCP form): the one
/// endpoint to check, nothing else.
pub(crate) fn mcp_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"url": {"type": "string", "description": URL_DESCRIPTION}},
        "required": ["url"],
        "additionalProperties": false,
    })
}
