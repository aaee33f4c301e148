//! The free read route `GET /metrics`: counts and tripwire ratios, no content, no wallet
//! (`GET /criteria` is a discovery document: `discovery/criteria.rs`). The tripwires'
//! arithmetic is `crate::tripwires`; this is what `/metrics` publishes of it.

use std::collections::BTreeMap;

use http::StatusCode;
use payability_core::report::UtcMillis;
use serde_json::json;

use super::respond::{ApiResponse, error, json_response};
use super::service::{Service, Stores};
use crate::rules::ApiError;
use crate::store::{DayCounts, MAX_METRICS_DAYS, Metrics, UtcDay};
use crate::telemetry::Tripwires;
use crate::tripwires::{Armed, Uses, WINDOW_DAYS};

impl<S: Stores> Service<S> {
    pub(super) async fn metrics(&self) -> ApiResponse {
        metrics_response(&self.store, (self.clock)()).await
    }
}

/// The free-use tripwire's rule, as `/metrics` publishes it.
pub(super) const FREE_USE_RULE: &str = "Armed from Day-0 (the UTC instant of the first outside paid ledger entry; house checks never count and never set it). Compares the free pre-checks answered with the paid checks and memo checks delivered, both counted over whole UTC days from Day-0's UTC day through today inclusive (at most the last 366 days); fires when free > 10 x paid. Before Day-0 it is not armed and never fires.";
/// The refund tripwire's rule, as `/metrics` publishes it.
pub(super) const REFUND_RULE: &str = "Armed from Day-0. Evaluates every window of 30 consecutive UTC days that ends on a day from Day-0's UTC day through today (within the last 366 days read; a window ending less than 29 days after Day-0 starts before it, where nothing was paid); in each, refunds recorded and paid checks and memo checks delivered; fires when any window has refunds > 5% of paid uses (refunds x 20 > paid, refunds > 0; a window with refunds and no paid use counts as over). Reports the worst window (the highest refunds/paid ratio, the latest on a tie).";

/// The counters of the last [`WINDOW_DAYS`] UTC days, Day-0 and both tripwires.
pub(super) async fn metrics_response(store: &impl Metrics, now: UtcMillis) -> ApiResponse {
    let unavailable_now = || error(ApiError::StoreUnavailable);
    let Some(today) = UtcDay::of(now) else {
        return unavailable_now();
    };
    let Some(first) = today.shifted(1 - WINDOW_DAYS) else {
        return unavailable_now();
    };
    let Ok(day0) = store.day0().await else {
        return unavailable_now();
    };
    // Day-0's UTC day, no earlier than the oldest day a read covers.
    let since = match day0.and_then(UtcDay::of) {
        Some(day0_day) => match today.shifted(1 - MAX_METRICS_DAYS) {
            Some(oldest) => Some(day0_day.max(oldest).min(today.clone())),
            None => return unavailable_now(),
        },
        None => None,
    };
    let read_first = since.clone().map_or(first.clone(), |since| since.min(first.clone()));
    let Ok(days) = store.days(&read_first, &today).await else {
        return unavailable_now();
    };
    let mut totals: BTreeMap<String, u64> = BTreeMap::new();
    for day in days.iter().filter(|d| d.day >= first) {
        for (name, count) in &day.counts {
            *totals.entry(name.clone()).or_default() += count;
        }
    }
    let today_counts =
        days.iter().find(|d| d.day == today).map(|d| d.counts.clone()).unwrap_or_default();
    let Some((flags, tripwires)) = tripwires(&days, day0, since.as_ref(), &first, &today) else {
        return unavailable_now();
    };
    let body = json!({
        "as_of_day": today.as_str(),
        "day0": day0.and_then(|at| at.to_rfc3339_millis()),
        "window_days": WINDOW_DAYS,
        "today": today_counts,
        "window_totals": totals,
        "tripwires": tripwires,
        "note": "counts only; house checks never count as paid use and never set Day-0",
    });
    json_response(StatusCode::OK, &body).with_tripwires(flags)
}

/// refunds / paid (None without paid use).
fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Both tripwires, as flags and as published: not armed before Day-0 (`since` is Day-0's UTC
/// day, clipped to the read); armed, free use since Day-0 and refunds over every 30-day
/// window. `days` are the counts read (ascending), `first` the first day of the last 30.
/// None when a day is out of range.
fn tripwires(
    days: &[DayCounts],
    day0: Option<UtcMillis>,
    since: Option<&UtcDay>,
    first: &UtcDay,
    today: &UtcDay,
) -> Option<(Tripwires, serde_json::Value)> {
    let Some(since) = since.filter(|_| day0.is_some()) else {
        let Uses { free, paid, refunds } = Uses::from_day(days, first);
        let window = json!({"first_day": first.as_str(), "last_day": today.as_str()});
        let not_armed = "not armed: no outside paid use yet (Day-0 not recorded); the counts of the last 30 days are shown for information";
        return Some((
            Tripwires::default(),
            json!({
                "free_use_over_10x_paid_use": {
                    "armed": false, "fired": false, "status": not_armed, "rule": FREE_USE_RULE,
                    "window": window, "free": free, "paid": paid, "ratio": ratio(free, paid),
                },
                "refunds_over_5_percent_in_30_days": {
                    "armed": false, "fired": false, "status": not_armed, "rule": REFUND_RULE,
                    "window": window, "refunds": refunds, "paid": paid, "ratio": ratio(refunds, paid),
                    "windows_evaluated": 0, "worst_window": null,
                },
            }),
        ));
    };
    let armed = Armed::evaluate(days, day0, since, today)?;
    let worst_window = armed.worst.as_ref().map(|worst| {
        json!({
            "first_day": worst.first_day().as_ref().map(UtcDay::as_str),
            "last_day": worst.last_day.as_str(),
            "refunds": worst.refunds, "paid": worst.paid, "ratio": ratio(worst.refunds, worst.paid),
            "over": worst.over(),
        })
    });
    let (free_fired, refunds_fired) = (armed.free_use_fired(), armed.refunds_fired());
    let Uses { free, paid, refunds } = armed.uses;
    let status = |fired: bool| if fired { "fired: stop and review" } else { "armed: not fired" };
    let flags = Tripwires { armed: true, free_use_fired: free_fired, refunds_fired };
    Some((
        flags,
        json!({
            "free_use_over_10x_paid_use": {
                "armed": true, "fired": free_fired, "status": status(free_fired),
                "rule": FREE_USE_RULE,
                "window": {"first_day": since.as_str(), "last_day": today.as_str()},
                "free": free, "paid": paid, "ratio": ratio(free, paid),
            },
            "refunds_over_5_percent_in_30_days": {
                "armed": true, "fired": refunds_fired, "status": status(refunds_fired),
                "rule": REFUND_RULE,
                "window": {"first_day": since.as_str(), "last_day": today.as_str()},
                "refunds": refunds, "paid": paid, "ratio": ratio(refunds, paid),
                "windows_evaluated": armed.windows_evaluated, "worst_window": worst_window,
            },
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> UtcDay {
        UtcDay::parse(text).unwrap()
    }

    fn counts(text: &str, entries: &[(&str, u64)]) -> DayCounts {
        let counts = entries.iter().map(|(n, c)| ((*n).to_owned(), *c)).collect();
        DayCounts { day: day(text), counts }
    }

    fn at(text: &str) -> UtcMillis {
        UtcMillis::parse_rfc3339_millis(text).unwrap()
    }

    #[test]
    fn unarmed_before_day0_whatever_the_counts() {
        let days = [counts("2026-03-01", &[("precheck", 500), ("refund", 3)])];
        let (flags, wires) =
            tripwires(&days, None, None, &day("2026-02-01"), &day("2026-03-02")).unwrap();
        assert_eq!(flags, Tripwires::default(), "the flags say what the answer says");
        for name in ["free_use_over_10x_paid_use", "refunds_over_5_percent_in_30_days"] {
            assert_eq!(wires[name]["armed"], false);
            assert_eq!(wires[name]["fired"], false);
        }
        assert_eq!(wires["free_use_over_10x_paid_use"]["free"], 500);
    }

    #[test]
    fn refunds_are_judged_over_every_30_day_window_and_the_worst_is_reported() {
        // 100 paid on Day-0's day, none after; 4 refunds 40 days later: the window ending
        // that day holds 4 refunds and no paid use, over 5% although the whole span is 4%.
        let day0 = at("2026-01-01T08:00:00.000Z");
        let days = [
            counts("2026-01-01", &[("paid_check_populated", 100), ("precheck", 10)]),
            counts("2026-02-10", &[("refund", 4)]),
        ];
        let today = day("2026-02-15");
        let since = day("2026-01-01");
        let first = today.shifted(-29).unwrap();
        let (flags, wires) = tripwires(&days, Some(day0), Some(&since), &first, &today).unwrap();
        let armed_refunds = Tripwires { armed: true, free_use_fired: false, refunds_fired: true };
        assert_eq!(flags, armed_refunds, "the flags say what the answer says");
        let refunds = &wires["refunds_over_5_percent_in_30_days"];
        assert_eq!(refunds["armed"], true);
        assert_eq!(refunds["fired"], true, "{refunds}");
        assert_eq!(refunds["windows_evaluated"], 46, "one per day from Day-0 through today");
        assert_eq!(refunds["worst_window"]["last_day"], "2026-02-15", "latest on a tie");
        assert_eq!(refunds["worst_window"]["refunds"], 4);
        assert_eq!(refunds["worst_window"]["paid"], 0);
        let free = &wires["free_use_over_10x_paid_use"];
        assert_eq!((free["free"].as_u64(), free["paid"].as_u64()), (Some(10), Some(100)));
        assert_eq!(free["fired"], false);

        // Steady sales, 10 a day: a full window holds 300; refunds fire above 15 in one.
        let steady = |refunds: u64| {
            let mut days = Vec::new();
            let mut day = since.clone();
            while day <= today {
                let mut entries = vec![("paid_check_populated", 10)];
                if day == self::day("2026-02-09") {
                    entries.push(("refund", refunds));
                }
                days.push(counts(day.as_str(), &entries));
                day = day.shifted(1).unwrap();
            }
            tripwires(&days, Some(day0), Some(&since), &first, &today).unwrap()
        };
        let ((under_flags, under), (over_flags, over)) = (steady(15), steady(16));
        assert!(!under_flags.refunds_fired && over_flags.refunds_fired);
        let refunds = &under["refunds_over_5_percent_in_30_days"];
        assert_eq!(refunds["fired"], false, "15 of 300 is 5%, not over: {refunds}");
        assert_eq!(refunds["worst_window"]["paid"], 300, "{refunds}");
        assert_eq!(refunds["worst_window"]["last_day"], "2026-02-15", "latest on a tie");
        assert_eq!(over["refunds_over_5_percent_in_30_days"]["fired"], true, "16 of 300");
    }
}
