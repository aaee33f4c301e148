//! `GET /criteria`: the core's criteria document, with what only the API knows: every rule
//! id it answers, every route and where the corpus is served.

use http::StatusCode;
use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::layout::{CHECK_FACTORS, Group, MEMO_FETCH_FACTORS, MEMO_PAIR_FACTORS};
use serde_json::json;

use crate::api::respond::{ApiResponse, json_response};
use crate::routes::Route;
use crate::rules::{ApiError, Refusal};

/// The criteria document with these signing keys, and what the API adds to the core's:
/// `api_rules` (every error with its status, every payment refusal), `routes` (each with its
/// methods and its public path), where the corpus is served (`corpus_replay.path`, relative to
/// the API's base URL) and `report_layout`, the legs a viewer groups a report's factors by.
pub(in crate::api) fn criteria_response(keys: Vec<SigningKeyEntry>) -> ApiResponse {
    json_response(StatusCode::OK, &served_criteria(keys))
}

/// The served criteria document as JSON.
fn served_criteria(keys: Vec<SigningKeyEntry>) -> serde_json::Value {
    let mut document =
        serde_json::to_value(criteria_document(keys)).expect("the criteria serialise");
    let [corpus_path, corpus_public_path] = Route::Corpus.paths();
    document["corpus_replay"]["path"] = json!(corpus_path);
    document["corpus_replay"]["public_path"] = json!(corpus_public_path);
    document["api_rules"] = json!({
        "note": "every answer that is not a success: errors are {\"error\": {\"rule\", \"message\"}} with their status; payment refusals are 402 with a fresh challenge whose error, in the v2 PAYMENT-REQUIRED header and in the v1 body, is \"<rule>: <message>\"",
        "errors": ApiError::all().into_iter().map(|e| json!({
            "status": e.status().as_u16(), "rule": e.rule(), "message": e.message(),
        })).collect::<Vec<_>>(),
        "payment_refusals": Refusal::all().into_iter().map(|r| json!({
            "status": 402, "rule": r.rule(), "message": r.message(),
        })).collect::<Vec<_>>(),
    });
    fn legs(factors: &[(&'static str, Group)]) -> Vec<[&'static str; 2]> {
        factors.iter().map(|(name, group)| [*name, group.heading()]).collect()
    }
    document["report_layout"] = json!({
        "note": "how a viewer groups a report's factors, as the command line's text view does: each factor with the heading of its leg, the legs in print order; a factor not listed goes under \"other\"; a memo report's correlation_census lists its body names under \"body leg\" and its header names under \"header leg\", by fetch",
        "groups": Group::ALL.map(Group::heading),
        "check": legs(&CHECK_FACTORS),
        "memo_per_fetch": legs(&MEMO_FETCH_FACTORS),
        "memo_pair": legs(&MEMO_PAIR_FACTORS),
    });
    document["routes"] = Route::ALL
        .into_iter()
        .map(|route| {
            let [path, public_path] = route.paths();
            let methods: Vec<&str> = route.methods().iter().map(http::Method::as_str).collect();
            json!({"name": route.name(), "methods": methods, "path": path, "public_path": public_path, "paid": route.paid().is_some()})
        })
        .collect();
    document
}
