//! The free read routes: `GET /criteria` and `GET /metrics` (counts and tripwire ratios,
//! no content, no wallet).

use std::collections::BTreeMap;

use http::StatusCode;
use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::report::UtcMillis;
use serde_json::json;

use super::errors::ApiError;
use super::respond::{ApiResponse, error, json_response};
use super::service::{Service, Stores};
use crate::store::{Metrics, UtcDay};

/// The window of the tripwires, in days.
const TRIPWIRE_WINDOW_DAYS: i64 = 30;

impl<S: Stores> Service<S> {
    pub(super) fn criteria(&self) -> ApiResponse {
        criteria_response(self.config.keys.entries(self.signer.descriptor()))
    }

    pub(super) async fn metrics(&self) -> ApiResponse {
        metrics_response(&self.store, (self.clock)()).await
    }
}

/// The criteria document with these signing keys.
pub(super) fn criteria_response(keys: Vec<SigningKeyEntry>) -> ApiResponse {
    json_response(StatusCode::OK, &criteria_document(keys))
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
