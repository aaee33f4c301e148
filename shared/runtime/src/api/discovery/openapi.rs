//! `GET /openapi.json`: OpenAPI 3.1 of every route of [`Route::ALL`] with its methods, the
//! request and answer schemas ([`super::schemas`]), every error rule with its status
//! ([`ApiError::all`]) and every payment refusal ([`Refusal::all`]), and `x-payment-info` on
//! the paid operations in the shape x402 discovery tools read. `servers` is the origin only
//! and every path carries the base's prefix, so that tools which join `servers` and a path
//! and tools which take a path as is both reach the route.

use std::collections::BTreeMap;

use http::Method;
use payability_core::criteria::{CORPUS_ID, CORPUS_SHA256, CRITERIA_ID, CRITERIA_REVISION};
use payability_core::op::PaidOp;
use payability_core::payment::x402::{
    V1_PAYMENT_HEADER, V1_RESPONSE_HEADER, V2_PAYMENT_HEADER, V2_RESPONSE_HEADER,
};
use payability_core::price::{PRICE_USDC_UNITS, price_usd, usd_amount};
use serde_json::{Map, Value, json};

use super::bazaar::example_report;
use crate::base_url::Base;
use crate::routes::Route;
use crate::rules::{ApiError, Refusal};
use crate::schemas::{URL_DESCRIPTION, components, reference, report_schema_name};

/// `info.x-guidance`: short, for an agent's first look.
const GUIDANCE: &str = "Pay per verdict with x402 (USDC on Solana, v1 or v2). Send POST /check \
{\"url\": \"<x402 endpoint>\"} or GET /check?url=<x402 endpoint> (one fetch, six states); /memo \
the same (two back-to-back fetches, five states). The first answer is 402: pay its challenge \
and repeat the same request with PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1). The 200 is a report \
signed with Ed25519 over its RFC 8785 bytes without `signature`; verify it with the key in GET \
/criteria whose keyId is signature.key_id. POST /precheck is free and checks the URL policy \
only. A refused payment's 402 says why in `error` (\"<rule>: <message>\"). A verdict whose \
answer was lost goes again only to the wallet that paid, signed in: every 402 declares \
extensions[\"sign-in-with-x\"]; sign it and repeat the request with SIGN-IN-WITH-X (no \
payment needed). A pre-check naming a wallet spends that wallet's free allowance and must be \
signed by it the same way.";

/// The OpenAPI document for a base URL.
pub fn openapi_document(base: &Base) -> Value {
    let mut paths = Map::new();
    for route in Route::ALL {
        let item: Map<String, Value> = route
            .methods()
            .iter()
            .map(|method| (method.as_str().to_ascii_lowercase(), operation(route, method)))
            .collect();
        paths.insert(base.path(route.path()), Value::Object(item));
    }
    let llms = base.url(Route::LlmsTxt.path());
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "payability-verdict",
            "version": env!("CARGO_PKG_VERSION"),
            "summary": "Signed, field-level verdicts on whether an x402 endpoint's 402 challenge is payable",
            "description": format!(
                "Fetches an x402 endpoint once (check) or twice back to back (memo) as an \
                 unauthenticated stranger, grades its 402 challenge by the published rule \
                 {CRITERIA_ID} (revision {CRITERIA_REVISION}; GET {criteria}) and answers an \
                 Ed25519-signed report. Nothing fetched is stored.",
                criteria = base.path(Route::Criteria.path()),
            ),
            "contact": {"name": "payability-verdict", "url": llms},
            "x-guidance": GUIDANCE,
        },
        "servers": [{"url": base.origin, "description": "the API's origin; every path carries its prefix"}],
        "x-agentcash-guidance": {"llmsTxtUrl": llms},
        "paths": paths,
        "components": {"schemas": components()},
        "x-error-rules": ApiError::all().into_iter().map(error_rule).collect::<Vec<_>>(),
        "x-payment-refusals": Refusal::all().into_iter().map(refusal_rule).collect::<Vec<_>>(),
    })
}

/// One error of the closed list: status, rule, message (and `Retry-After` when it asks).
fn error_rule(error: ApiError) -> Value {
    let mut rule = json!({
        "status": error.status().as_u16(),
        "rule": error.rule(),
        "message": error.message(),
    });
    if let Some(seconds) = error.retry_after() {
        rule["retry_after_seconds"] = json!(seconds.parse::<u32>().expect("seconds"));
    }
    rule
}

/// What `SIGN-IN-WITH-X` does on a paid route.
const SIGN_IN_PAID: &str = "x402 sign-in-with-x: base64 JSON of the proof answering a 402's extensions[\"sign-in-with-x\"], signed by a Solana wallet; with it the wallet that paid receives its verdict again (same op and URL, within 24 h, at most 3 times), with or without the payment";
/// What `SIGN-IN-WITH-X` does on the pre-check.
const SIGN_IN_PRECHECK: &str = "x402 sign-in-with-x: base64 JSON of the proof answering the sign-in challenge (the 402 of a pre-check naming a wallet), signed by that wallet: the pre-check spends the wallet's allowance (100 a UTC day, 5,000 ms apart), which nobody else can";

/// The optional `SIGN-IN-WITH-X` request header, doing `what`.
fn sign_in_parameter(what: &str) -> Value {
    json!({
        "in": "header",
        "name": "SIGN-IN-WITH-X",
        "required": false,
        "description": format!("{what}; at most 16,384 bytes"),
        "schema": {"type": "string"},
    })
}

/// One payment refusal: always 402, with a fresh challenge whose `error` is
/// `"<rule>: <message>"` in both legs.
fn refusal_rule(refusal: Refusal) -> Value {
    json!({"status": 402, "rule": refusal.rule(), "message": refusal.message()})
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// One operation of a route.
fn operation(route: Route, method: &Method) -> Value {
    let verb = method.as_str().to_ascii_lowercase();
    let mut operation = json!({
        "operationId": format!("{verb}_{}", route.name()),
        "summary": summary(route, method),
        "security": [],
    });
    let mut responses = Map::new();
    match route {
        Route::Check | Route::Memo => {
            let paid = route.paid().expect("a paid route");
            operation["x-payment-info"] = json!({
                "price": {"mode": "fixed", "currency": "USD", "amount": usd_amount(PRICE_USDC_UNITS)},
                "protocols": [{"x402": {}}],
            });
            if method == Method::GET {
                operation["parameters"] = json!([{
                    "in": "query",
                    "name": "url",
                    "required": true,
                    "description": format!(
                        "{}; the request's URL (path and query) at most {} bytes, else 414 \
                         url_too_long_for_get (send POST)",
                        URL_DESCRIPTION,
                        crate::api::request::MAX_GET_RESOURCE_URL_BYTES,
                    ),
                    "schema": {"type": "string", "format": "uri"},
                }, sign_in_parameter(SIGN_IN_PAID)]);
            } else {
                operation["parameters"] = json!([sign_in_parameter(SIGN_IN_PAID)]);
                operation["requestBody"] = json!({
                    "required": true,
                    "content": json_content(reference("PaidRequest")),
                });
            }
            operation["description"] = json!(format!(
                "Without a payment: 402 with the challenge (also to a request without a URL, an \
                 indexer's probe). With one ({v2} for v2, {v1} for v1): the URL is vetted free \
                 (400, nothing charged), the payment verified and settled, then the endpoint \
                 fetched and graded. A payment sent to settlement before (its transaction may be \
                 public on chain) buys its verdict again only with the payer's SIGN-IN-WITH-X; \
                 without it, 402 sign_in_as_payer (no payment offered).",
                v2 = V2_PAYMENT_HEADER.to_ascii_uppercase(),
                v1 = V1_PAYMENT_HEADER.to_ascii_uppercase(),
            ));
            responses.insert("200".into(), report_response(paid));
            responses.insert("402".into(), challenge_response("the route's challenge"));
            responses.extend(error_responses());
        }
        Route::Precheck => {
            operation["parameters"] = json!([sign_in_parameter(SIGN_IN_PRECHECK)]);
            operation["requestBody"] =
                json!({"required": true, "content": json_content(reference("PrecheckRequest"))});
            responses.insert(
                "200".into(),
                json!({
                    "description": "the signed URL-policy answer (no fetch, no verdict)",
                    "content": json_content(reference("PrecheckAnswer")),
                }),
            );
            responses.insert(
                "402".into(),
                challenge_response(
                    "the free allowance is used (or the last pre-check was under 5,000 ms ago): the challenge of the op's paid route, whose resource names where to pay; or the pre-check names a wallet unsigned (sign_in_as_caller) or its proof was refused: the sign-in challenge, accepts empty",
                ),
            );
            responses.extend(error_responses());
        }
        Route::Criteria => {
            responses.insert("200".into(), document_response(
                "the criteria document: the published text of the rule, its interpretations, how to verify a report, every rule id, the corpus pin and replay, the signing keys",
                json!({"type": "object", "required": ["criteria_id", "criteria_revision", "verification", "corpus_replay", "api_rules", "signing_keys"]}),
            ));
        }
        Route::Metrics => {
            responses.insert("200".into(), document_response(
                "counts per UTC day and the two tripwires (no content, no wallet)",
                json!({"type": "object", "required": ["as_of_day", "window_days", "today", "window_totals", "tripwires"]}),
            ));
        }
        Route::OpenApi => {
            responses.insert(
                "200".into(),
                document_response("this document", json!({"type": "object"})),
            );
        }
        Route::WellKnownX402 => {
            responses.insert(
                "200".into(),
                document_response("the paid resources", reference("WellKnownX402")),
            );
        }
        Route::LlmsTxt => {
            responses.insert(
                "200".into(),
                json!({
                    "description": "a short text for agents: what this is, how to pay and verify, links",
                    "content": {"text/plain": {"schema": {"type": "string"}}},
                }),
            );
        }
        Route::Mcp => {
            operation["description"] = json!(
                "MCP's Streamable HTTP transport, stateless (JSON answers, no session, no SSE                  stream): JSON-RPC 2.0 initialize, ping, tools/list and tools/call of the tools                  criteria and precheck (free) and check and memo (paid, x402 v2 in                  params._meta[\"x402/payment\"], the settlement in result._meta[\"x402/payment-response\"]).                  Every request is answered 200 with a JSON-RPC response (errors included); a                  notification 202 with no body. See docs/mcp.md."
            );
            json_rpc(&mut operation, &mut responses);
            responses.insert("202".into(), json!({"description": "a notification, accepted"}));
        }
        Route::A2a => {
            operation["description"] = json!(
                "A2A's JSON-RPC binding, stateless: SendMessage (A2A 1.0) and message/send (A2A \
                 0.3) of the skills criteria and precheck (free) and check and memo (paid with \
                 the x402 A2A extension: a task in input-required carries \
                 metadata[\"x402.payment.required\"]; the message answering it carries \
                 metadata[\"x402.payment.payload\"]; the completed task carries the signed \
                 report as its artifact and metadata[\"x402.payment.receipts\"]). Every request is \
                 answered 200 with a JSON-RPC response (errors included). See docs/a2a.md and \
                 the agent card."
            );
            json_rpc(&mut operation, &mut responses);
        }
        Route::Page => {
            responses.insert("200".into(), json!({
                "description": "the web page for people (to a request whose Accept names text/html; any other Accept: 404): pre-check, buy a verdict with a Solana browser wallet, read the report, verify a report in the browser",
                "content": {"text/html": {"schema": {"type": "string"}}},
            }));
        }
        Route::PageScript => {
            responses.insert("200".into(), json!({
                "description": "the web page's one script (the official x402 client packages, bundled)",
                "content": {"text/javascript": {"schema": {"type": "string"}}},
            }));
        }
        Route::PageStyle => {
            responses.insert(
                "200".into(),
                json!({
                    "description": "the web page's style sheet",
                    "content": {"text/css": {"schema": {"type": "string"}}},
                }),
            );
        }
        Route::Rpc => {
            operation["description"] = json!(
                "The two Solana JSON-RPC calls a browser payment makes, so that the web page connects to this origin only: getAccountInfo of the USDC mint (answered without a call) and getLatestBlockhash (asked of the operator's RPC, answered as read). Any other method is -32601. Answered 200 with a JSON-RPC response."
            );
            json_rpc(&mut operation, &mut responses);
        }
        Route::AgentCard => {
            responses.insert("200".into(), document_response(
                "the A2A agent card: the skills (criteria, precheck, check, memo), the x402 extension (required), the JSON-RPC endpoint in both the A2A 1.0 and the 0.3 fields",
                json!({"type": "object", "required": ["name", "description", "version", "supportedInterfaces", "capabilities", "skills"]}),
            ));
        }
        Route::DidDocument => {
            responses.insert("200".into(), document_response(
                "the did:web DID document of the signing keys (current and retired), each a JsonWebKey2020 verification method: it resolves the kid of every receipt (PAYMENT-RESPONSE extensions[\"offer-receipt\"].info.receipt, a JWS)",
                json!({"type": "object", "required": ["id", "verificationMethod", "assertionMethod"]}),
            ));
        }
        Route::Corpus => {
            responses.insert("200".into(), document_response(
                "the corpus file as committed; its pin is the SHA-256 of its RFC 8785 serialization without sha256",
                json!({
                    "type": "object",
                    "properties": {
                        "id": {"const": CORPUS_ID},
                        "sha256": {"const": CORPUS_SHA256},
                        "cases": {"type": "array", "items": {"type": "object"}},
                    },
                    "required": ["id", "sha256", "cases"],
                }),
            ));
        }
    }
    if route.paid().is_none() && route != Route::Precheck {
        responses.insert(
            "default".into(),
            json!({
                "description": "a closed-form error (405 method_not_allowed, 503 base_url_unknown, ...)",
                "content": json_content(reference("Error")),
            }),
        );
    }
    operation["responses"] = Value::Object(responses);
    operation
}

/// A JSON-RPC endpoint's request body and answer: one JSON-RPC 2.0 request object, answered
/// 200 with a JSON-RPC response, errors included.
fn json_rpc(operation: &mut Value, responses: &mut Map<String, Value>) {
    operation["requestBody"] = json!({
        "required": true,
        "content": json_content(json!({"type": "object", "required": ["jsonrpc", "method"]})),
    });
    let answer = json!({"type": "object", "required": ["jsonrpc", "id"]});
    let described = document_response("a JSON-RPC 2.0 response (result or error)", answer);
    responses.insert("200".into(), described);
}

fn summary(route: Route, method: &Method) -> String {
    let price = price_usd();
    let how = if method == Method::GET { "?url=<endpoint>" } else { "{\"url\"} body" };
    match route {
        Route::Check => {
            format!("Paid ({price}): one fetch of the endpoint ({how}), a signed check report")
        }
        Route::Memo => format!(
            "Paid ({price}): two back-to-back fetches of the endpoint ({how}), a signed memo-binding report"
        ),
        Route::Precheck => "Free: the URL policy only, signed (100 a day, 5,000 ms apart)".into(),
        Route::Criteria => "Free: the criteria document and the signing keys".into(),
        Route::Metrics => "Free: counts per day and the tripwires".into(),
        Route::OpenApi => "Free: this OpenAPI document".into(),
        Route::WellKnownX402 => "Free: the paid resources (x402 discovery)".into(),
        Route::LlmsTxt => "Free: a short text for agents".into(),
        Route::Corpus => "Free: the pinned test corpus, as committed".into(),
        Route::DidDocument => "Free: the DID document that resolves the receipts' keys".into(),
        Route::Mcp => format!(
            "MCP (Streamable HTTP, stateless JSON): the free tools and the paid ones ({price} each)"
        ),
        Route::A2a => format!(
            "A2A (JSON-RPC, stateless): the free skills and the paid ones ({price} each, the x402 A2A extension)"
        ),
        Route::AgentCard => "Free: the A2A agent card".into(),
        Route::Page => "Free: the web page for people".into(),
        Route::PageScript => "Free: the web page's script".into(),
        Route::PageStyle => "Free: the web page's style sheet".into(),
        Route::Rpc => "Free: the Solana RPC calls a browser payment makes".into(),
    }
}

fn document_response(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": json_content(schema)})
}

/// The 200 of a paid route: the signed report and the settlement header.
fn report_response(route: PaidOp) -> Value {
    let settlement = json!({
        "description": "the settlement answer, base64 JSON {success, transaction, network, ...}",
        "schema": {"type": "string"},
    });
    json!({
        "description": "the signed report",
        "headers": {
            V2_RESPONSE_HEADER.to_ascii_uppercase(): settlement.clone(),
            V1_RESPONSE_HEADER.to_ascii_uppercase(): settlement,
        },
        "content": {"application/json": {
            "schema": reference(report_schema_name(route)),
            "example": example_report(route),
        }},
    })
}

/// A 402: the challenge in both legs, and every refusal rule it can carry.
fn challenge_response(when: &str) -> Value {
    json!({
        "description": format!(
            "Payment Required: {when}. The x402 v2 PaymentRequired object is the base64 JSON \
             PAYMENT-REQUIRED header (with extensions.bazaar); the body is the v1 object (with \
             accepts[0].outputSchema). Both legs' error is \"<rule>: <message>\"."
        ),
        "headers": {
            "PAYMENT-REQUIRED": {
                "description": "the x402 v2 PaymentRequired object, base64 JSON",
                "schema": {"type": "string"},
            },
        },
        "content": json_content(reference("PaymentRequiredV1")),
        "x-rules": Refusal::all().into_iter().map(refusal_rule).collect::<Vec<_>>(),
    })
}

/// One response per status of the closed error list, each naming its rules.
fn error_responses() -> Map<String, Value> {
    let mut by_status: BTreeMap<u16, Vec<ApiError>> = BTreeMap::new();
    for error in ApiError::all() {
        by_status.entry(error.status().as_u16()).or_default().push(error);
    }
    by_status
        .into_iter()
        .map(|(status, errors)| {
            let rules: Vec<&str> = errors.iter().map(|e| e.rule()).collect();
            let mut response = json!({
                "description": format!("one of: {}", rules.join(", ")),
                "content": json_content(reference("Error")),
                "x-rules": errors.iter().map(|e| json!({"rule": e.rule(), "message": e.message()})).collect::<Vec<_>>(),
            });
            if errors.iter().any(|e| e.retry_after().is_some()) {
                response["headers"] = json!({
                    "Retry-After": {
                        "description": "seconds before retrying the same request (the rules that ask for it)",
                        "schema": {"type": "integer"},
                    },
                });
            }
            (status.to_string(), response)
        })
        .collect()
}
