//! The free read routes: `GET /criteria` (the core's criteria document, with what only the
//! API knows: every rule id it answers, every route and where the corpus is served) and
//! `GET /metrics` (counts and tripwire ratios, no content, no wallet).

use std::collections::BTreeMap;

use http::StatusCode;
use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::report::UtcMillis;
use serde_json::json;

use super::Route;
use super::errors::{ApiError, Refusal};
use super::respond::{ApiResponse, error, json_response};
use super::service::{Service, Stores};
use crate::store::{Metrics, UtcDay};

/// The window of the tripwires, in days.
const TRIPWIRE_WINDOW_DAYS: i64 = 30;

impl<S: Stores> Service<S> {
    pub(super) async fn metrics(&self) -> ApiResponse {
        metrics_response(&self.store, (self.clock)()).await
    }
}

/// The criteria document with these signing keys, and what the API adds to the core's:
/// `api_rules` (every error with its status, every payment refusal), `routes` (each with its
/// methods and its public path) and where the corpus is served (`corpus_replay.path`,
/// relative to the API's base URL).
pub(super) fn criteria_response(keys: Vec<SigningKeyEntry>) -> ApiResponse {
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

/// The counters of the last [`TRIPWIRE_WINDOW_DAYS`] UTC days and both tripwires.
pub(super) async fn metrics_response(store: &impl Metrics, now: UtcMillis) -> ApiResponse {
    let unavailable_now = || error(ApiError::StoreUnavailable);
    let Some(today) = UtcDay::of(now) else {
        return unavailable_now();
    };
    let Some(first) = today.shifted(1 - TRIPWIRE_WINDOW_DAYS) else {
        return unavailable_now();
    };
    let Ok(days) = store.days(&first, &today).await else {
        return unavailable_now();
    };
    let mut totals: BTreeMap<String, u64> = BTreeMap::new();
    for day in &days {
        for (name, count) in &day.counts {
            *totals.entry(name.clone()).or_default() += count;
        }
    }
    let today_counts =
        days.iter().find(|d| d.day == today).map(|d| d.counts.clone()).unwrap_or_default();
    let sum = |prefix: &str| {
        totals.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, c)| c).sum::<u64>()
    };
    let paid = sum("paid_check_") + sum("paid_memo_");
    let free = sum("precheck");
    let refunds = sum("refund");
    let ratio = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
    let body = json!({
        "as_of_day": today.as_str(),
        "window_days": TRIPWIRE_WINDOW_DAYS,
        "today": today_counts,
        "window_totals": totals,
        "tripwires": {
            "free_use_over_10x_paid_use": {
                "free": free, "paid": paid, "ratio": ratio(free, paid),
                "fired": free > paid.saturating_mul(10),
            },
            "refunds_over_5_percent_in_30_days": {
                "refunds": refunds, "paid": paid, "ratio": ratio(refunds, paid),
                "fired": refunds.saturating_mul(20) > paid && refunds > 0,
            },
        },
        "note": "counts only; house checks never count as paid use",
    });
    json_response(StatusCode::OK, &body)
}
