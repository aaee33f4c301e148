//! The free read route `GET /metrics`: counts and tripwire ratios, no content, no wallet
//! (`GET /criteria` is a discovery document: `discovery/criteria.rs`).

use std::collections::BTreeMap;

use http::StatusCode;
use payability_core::report::UtcMillis;
use serde_json::json;

use super::errors::ApiError;
use super::respond::{ApiResponse, Tripwires, error, json_response};
use super::service::{Service, Stores};
use crate::store::{DayCounts, MAX_METRICS_DAYS, Metrics, UtcDay};

/// The window of the tripwires, in days.
const TRIPWIRE_WINDOW_DAYS: i64 = 30;

impl<S: Stores> Service<S> {
    pub(super) async fn metrics(&self) -> ApiResponse {
        metrics_response(&self.store, (self.clock)()).await
    }
}

/// The free-use tripwire's rule, as `/metrics` publishes it.
pub const FREE_USE_RULE: &str = "Armed from Day-0 (the UTC instant of the first outside paid ledger entry; house checks never count and never set it). Compares the free pre-checks answered with the paid checks and memo checks delivered, both counted over whole UTC days from Day-0's UTC day through today inclusive (at most the last 366 days); fires when free > 10 x paid. Before Day-0 it is not armed and never fires.";
/// The refund tripwire's rule, as `/metrics` publishes it.
pub const REFUND_RULE: &str = "Armed from Day-0. Evaluates every window of 30 consecutive UTC days that ends on a day from Day-0's UTC day through today (within the last 366 days read; a window ending less than 29 days after Day-0 starts before it, where nothing was paid); in each, refunds recorded and paid checks and memo checks delivered; fires when any window has refunds > 5% of paid uses (refunds x 20 > paid, refunds > 0; a window with refunds and no paid use counts as over). Reports the worst window (the highest refunds/paid ratio, the latest on a tie).";

/// The counters of the last [`TRIPWIRE_WINDOW_DAYS`] UTC days, Day-0 and both tripwires.
pub(super) async fn metrics_response(store: &impl Metrics, now: UtcMillis) -> ApiResponse {
    let unavailable_now = || error(ApiError::StoreUnavailable);
    let Some(today) = UtcDay::of(now) else {
        return unavailable_now();
    };
    let Some(first) = today.shifted(1 - TRIPWIRE_WINDOW_DAYS) else {
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
        "window_days": TRIPWIRE_WINDOW_DAYS,
        "today": today_counts,
        "window_totals": totals,
        "tripwires": tripwires,
        "note": "counts only; house checks never count as paid use and never set Day-0",
    });
    json_response(StatusCode::OK, &body).with_tripwires(flags)
}

/// Free pre-checks, paid verdicts and refunds of one day's counts.
fn uses(counts: &BTreeMap<String, u64>) -> (u64, u64, u64) {
    let sum = |prefix: &str| {
        counts.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, c)| c).sum::<u64>()
    };
    (sum("precheck"), sum("paid_check_") + sum("paid_memo_"), sum("refund"))
}

/// refunds / paid (None without paid use).
fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// Whether refunds are over 5% of paid uses (any refund without paid use is).
fn refunds_over(refunds: u64, paid: u64) -> bool {
    refunds > 0 && refunds.saturating_mul(20) > paid
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
        let (free, paid, refunds) = days
            .iter()
            .filter(|d| d.day >= *first)
            .map(|d| uses(&d.counts))
            .fold((0, 0, 0), |a, u| (a.0 + u.0, a.1 + u.1, a.2 + u.2));
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
    // One entry per day from `since` through today: (day, paid, refunds); free summed alongside.
    let mut daily: Vec<(UtcDay, u64, u64)> = Vec::new();
    let mut free = 0;
    let mut day = since.clone();
    while day <= *today {
        let (f, p, r) = days.iter().find(|d| d.day == day).map_or((0, 0, 0), |d| uses(&d.counts));
        free += f;
        daily.push((day.clone(), p, r));
        day = day.shifted(1)?;
    }
    let paid: u64 = daily.iter().map(|(_, p, _)| p).sum();
    let span = usize::try_from(TRIPWIRE_WINDOW_DAYS).ok()?;
    // A window that would start before the read is evaluated only when the read starts at
    // Day-0 (nothing was paid before it); otherwise it would be partial.
    let from_day0 = day0.and_then(UtcDay::of).as_ref() == Some(since);
    let mut worst: Option<(usize, u64, u64)> = None;
    let mut evaluated = 0u64;
    for end in 0..daily.len() {
        if end + 1 < span && !from_day0 {
            continue;
        }
        let start = (end + 1).saturating_sub(span);
        let (p, r) = daily[start..=end].iter().fold((0, 0), |a, (_, p, r)| (a.0 + p, a.1 + r));
        evaluated += 1;
        let key = |r: u64, p: u64| match (r, p) {
            (0, _) => 0.0,
            (_, 0) => f64::INFINITY,
            _ => r as f64 / p as f64,
        };
        if worst.is_none_or(|(_, wp, wr)| key(r, p) >= key(wr, wp)) {
            worst = Some((end, p, r));
        }
    }
    let worst_window = worst.map(|(end, p, r)| {
        let last = &daily[end].0;
        let first = last.shifted(1 - TRIPWIRE_WINDOW_DAYS);
        json!({
            "first_day": first.as_ref().map(UtcDay::as_str), "last_day": last.as_str(),
            "refunds": r, "paid": p, "ratio": ratio(r, p), "over": refunds_over(r, p),
        })
    });
    let refunds_fired = worst.is_some_and(|(_, p, r)| refunds_over(r, p));
    let free_fired = free > paid.saturating_mul(10);
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
                "refunds": daily.iter().map(|(_, _, r)| r).sum::<u64>(), "paid": paid,
                "ratio": ratio(daily.iter().map(|(_, _, r)| r).sum::<u64>(), paid),
                "windows_evaluated": evaluated, "worst_window": worst_window,
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
