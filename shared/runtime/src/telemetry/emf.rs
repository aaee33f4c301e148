//! CloudWatch metrics in Embedded Metric Format: one JSON object per answered request, on its
//! own line of the function's log (stdout under Lambda), which CloudWatch Logs turns into
//! metrics in namespace [`NAMESPACE`] without an API call. `template.yaml`'s alarms and
//! dashboard read these metrics; [`METRICS`] is their one list (the parity test checks every
//! metric the template names against it).
//!
//! Every dimension value and every key comes from a closed list: the route's name
//! ([`Route::name`] or `none`), a verdict state from the published criteria, a rule id from
//! [`crate::rules`]. Nothing of the request (URL, path, query, header value, body) and
//! nothing fetched is read into the object, and no response body is ever seen: the route
//! comes resolved from `handle`, and the only things read of an answer are its status and
//! its [`Telemetry`] (the rule id of our own error or refusal, the verdict state and house
//! flag of our own report, the tripwires of our own `/metrics` answer), set where the answer
//! was built; a rule or a state is looked up in its closed list and replaced by the list's
//! own string.

use std::cell::RefCell;
use std::io::Write;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use http::StatusCode;
use payability_core::criteria::published;
use serde_json::{Map, Value, json};

use super::{Relay, Telemetry, Tripwires};
use crate::routes::Route;

/// The CloudWatch namespace of every metric.
pub const NAMESPACE: &str = "Payability";

/// The dimension every metric carries: the route's name (`check`, `precheck`, …, `none`).
pub const ROUTE: &str = "Route";
/// The second dimension of [`PAID_VERDICTS`] and [`HOUSE_VERDICTS`]: the verdict state.
pub const STATE: &str = "State";
/// The second dimension of [`REFUSALS`]: the rule id of the answer.
pub const RULE: &str = "Rule";

/// Requests answered (every answer, whatever its status).
pub const REQUESTS: &str = "Requests";
/// Milliseconds from the request's arrival to its answer.
pub const LATENCY: &str = "LatencyMs";
/// Answers with a 2xx status.
pub const STATUS_2XX: &str = "Status2xx";
/// Answers with a 4xx status (402 included).
pub const STATUS_4XX: &str = "Status4xx";
/// Answers with a 5xx status.
pub const STATUS_5XX: &str = "Status5xx";
/// Free pre-checks answered (200 from `/precheck`): the free use of the tripwire.
pub const FREE_PRECHECKS: &str = "FreePrechecks";
/// Paid verdicts delivered (200 from `/check` or `/memo`, not a house check): the paid use
/// of the tripwire; also by [`STATE`].
pub const PAID_VERDICTS: &str = "PaidVerdicts";
/// House verdicts delivered (never paid use); also by [`STATE`].
pub const HOUSE_VERDICTS: &str = "HouseVerdicts";
/// Answers carrying a rule id of the closed list (errors and 402 refusals); also by [`RULE`].
pub const REFUSALS: &str = "Refusals";
/// Payments the facilitator refused or that did not settle (`payment_not_verified`,
/// `payment_not_settled`).
pub const PAYMENT_FAILURES: &str = "PaymentFailures";
/// The facilitator failed us: [`FACILITATOR_FAILURE_RULES`].
pub const FACILITATOR_FAILURES: &str = "FacilitatorFailures";
/// The store could not be reached (`store_unavailable`).
pub const STORE_FAILURES: &str = "StoreFailures";
/// `POST /rpc` blockhash answers asked of the operator's Solana RPC (one call each).
pub const RPC_UPSTREAM_CALLS: &str = "RpcUpstreamCalls";
/// `POST /rpc` blockhash answers reused from a read of the last 2 s (no call).
pub const RPC_CACHE_HITS: &str = "RpcCacheHits";
/// 1 when `/metrics` answers that the free-use tripwire fired (armed, since Day-0, free >
/// 10 x paid), else 0; only on `/metrics` answers. The template reads `/metrics` on a
/// schedule so this is emitted without a caller.
pub const TRIPWIRE_FREE_USE: &str = "TripwireFreeUseFired";
/// 1 when `/metrics` answers that the refund tripwire fired (armed, refunds > 5% of paid use
/// in a 30-day window: the refunds `payability ledger refund` counted in the store), else 0;
/// only on `/metrics` answers.
pub const TRIPWIRE_REFUNDS: &str = "TripwireRefundsFired";
/// 1 when `/metrics` answers that the tripwires are armed (Day-0 is recorded), else 0.
pub const TRIPWIRES_ARMED: &str = "TripwiresArmed";

/// Every metric of the namespace, with its CloudWatch unit: the one list.
pub const METRICS: [(&str, &str); 17] = [
    (REQUESTS, "Count"),
    (LATENCY, "Milliseconds"),
    (STATUS_2XX, "Count"),
    (STATUS_4XX, "Count"),
    (STATUS_5XX, "Count"),
    (FREE_PRECHECKS, "Count"),
    (PAID_VERDICTS, "Count"),
    (HOUSE_VERDICTS, "Count"),
    (REFUSALS, "Count"),
    (PAYMENT_FAILURES, "Count"),
    (FACILITATOR_FAILURES, "Count"),
    (STORE_FAILURES, "Count"),
    (RPC_UPSTREAM_CALLS, "Count"),
    (RPC_CACHE_HITS, "Count"),
    (TRIPWIRE_FREE_USE, "Count"),
    (TRIPWIRE_REFUNDS, "Count"),
    (TRIPWIRES_ARMED, "Count"),
];

/// Counts a request's object may carry by [`ROUTE`] only (besides [`REQUESTS`] and
/// [`LATENCY`], which every object carries). Only the counts that are 1 are written: a metric
/// that never occurs on a route never becomes a billed custom metric, and the alarms fill
/// missing data with 0.
const PER_ROUTE_COUNTS: [&str; 9] = [
    STATUS_2XX,
    STATUS_4XX,
    STATUS_5XX,
    FREE_PRECHECKS,
    PAYMENT_FAILURES,
    FACILITATOR_FAILURES,
    STORE_FAILURES,
    RPC_UPSTREAM_CALLS,
    RPC_CACHE_HITS,
];

/// Rules that mean the facilitator failed us (not the buyer's payment).
pub const FACILITATOR_FAILURE_RULES: [&str; 4] = [
    "facilitator_unavailable",
    "payments_unavailable",
    "settlement_outcome_unknown",
    "settlement_already_recorded",
];
/// Rules that mean a buyer's payment failed.
const PAYMENT_FAILURE_RULES: [&str; 2] = ["payment_not_verified", "payment_not_settled"];
/// The rule that means the store failed.
const STORE_FAILURE_RULE: &str = "store_unavailable";

/// The unit of a metric of [`METRICS`].
fn unit(name: &str) -> &'static str {
    METRICS.iter().find(|(n, _)| *n == name).map_or("Count", |(_, unit)| unit)
}

/// The verdict state of a delivered report, if it is one of the published states.
fn state_of(telemetry: &Telemetry) -> Option<&'static str> {
    let state = telemetry.state?;
    let texts = published();
    let known = texts.states.iter().chain(texts.memo_op.states.iter()).any(|s| s == state);
    known.then_some(state)
}

/// Each tripwire metric with the `/metrics` flag it mirrors.
fn tripwire_flags(tripwires: Tripwires) -> [(&'static str, bool); 3] {
    [
        (TRIPWIRE_FREE_USE, tripwires.free_use_fired),
        (TRIPWIRE_REFUNDS, tripwires.refunds_fired),
        (TRIPWIRES_ARMED, tripwires.armed),
    ]
}

/// One directive of `_aws.CloudWatchMetrics`.
fn directive(dimensions: &[&[&str]], metrics: &[&str]) -> Value {
    let metrics: Vec<Value> =
        metrics.iter().map(|name| json!({"Name": name, "Unit": unit(name)})).collect();
    json!({"Namespace": NAMESPACE, "Dimensions": dimensions, "Metrics": metrics})
}

/// One answered request as its EMF line sees it: the route `handle` resolved (None: a path
/// that is not ours), the answer's status and [`Telemetry`], and how long it took.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    /// The route of the request.
    pub route: Option<Route>,
    /// The status of the answer.
    pub status: StatusCode,
    /// The telemetry its builder set.
    pub telemetry: &'a Telemetry,
    /// Milliseconds from the request's arrival to its answer.
    pub elapsed_ms: u64,
}

/// The EMF object of one answered request (`timestamp_ms`: when it was answered).
pub fn object(answered: &Answered<'_>, timestamp_ms: u64) -> Value {
    let telemetry = answered.telemetry;
    let (route, status) = match telemetry.stands_for {
        Some((tool, status)) => (Some(tool), status.as_u16()),
        None => (answered.route, answered.status.as_u16()),
    };
    let rule = telemetry.closed_rule();
    let state = match route.and_then(Route::paid) {
        Some(_) if status == 200 => state_of(telemetry),
        _ => None,
    };
    let house = state.is_some() && telemetry.house;
    let is = |hit: bool| Value::from(u64::from(hit));
    let hits = [
        (200..300).contains(&status),
        (400..500).contains(&status),
        (500..600).contains(&status),
        route == Some(Route::Precheck) && status == 200,
        rule.is_some_and(|r| PAYMENT_FAILURE_RULES.contains(&r)),
        rule.is_some_and(|r| FACILITATOR_FAILURE_RULES.contains(&r)),
        rule == Some(STORE_FAILURE_RULE),
        telemetry.relay == Some(Relay::Upstream),
        telemetry.relay == Some(Relay::Cache),
    ];

    let mut root = Map::new();
    root.insert(ROUTE.into(), route.map_or("none", Route::name).into());
    root.insert(REQUESTS.into(), 1.into());
    root.insert(LATENCY.into(), answered.elapsed_ms.into());
    let mut per_route = vec![REQUESTS, LATENCY];
    for (name, hit) in PER_ROUTE_COUNTS.into_iter().zip(hits) {
        if hit {
            root.insert(name.into(), 1.into());
            per_route.push(name);
        }
    }

    let mut directives = vec![directive(&[&[ROUTE]], &per_route)];
    if let Some(state) = state {
        let verdicts = if house { HOUSE_VERDICTS } else { PAID_VERDICTS };
        root.insert(STATE.into(), state.into());
        root.insert(verdicts.into(), 1.into());
        directives.push(directive(&[&[ROUTE], &[ROUTE, STATE]], &[verdicts]));
    }
    if route == Some(Route::Metrics) && status == 200 {
        let names = tripwire_flags(telemetry.tripwires.unwrap_or_default()).map(|(name, set)| {
            root.insert(name.into(), is(set));
            name
        });
        directives.push(directive(&[&[ROUTE]], &names));
    }
    if let Some(rule) = rule {
        root.insert(RULE.into(), rule.into());
        root.insert(REFUSALS.into(), 1.into());
        directives.push(directive(&[&[ROUTE], &[ROUTE, RULE]], &[REFUSALS]));
    }
    root.insert("_aws".into(), json!({"Timestamp": timestamp_ms, "CloudWatchMetrics": directives}));
    Value::Object(root)
}

thread_local! {
    /// Lines captured on this thread instead of written (tests).
    static CAPTURED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// From now on, this thread's EMF lines are kept for [`take_captured`] instead of written
/// (for tests driving `Service::handle` on a current-thread runtime).
#[doc(hidden)]
pub fn capture_on_this_thread() {
    CAPTURED.with(|captured| *captured.borrow_mut() = Some(Vec::new()));
}

/// The EMF lines captured on this thread so far.
#[doc(hidden)]
pub fn take_captured() -> Vec<String> {
    CAPTURED.with(|captured| captured.borrow_mut().as_mut().map(std::mem::take).unwrap_or_default())
}

/// Whether this process runs as a Lambda function (the runtime sets the variable), where
/// stdout is the function's log; `payability serve` writes no EMF.
fn in_lambda() -> bool {
    static IN_LAMBDA: OnceLock<bool> = OnceLock::new();
    *IN_LAMBDA.get_or_init(|| std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some())
}

/// Writes the EMF line of one answered request: captured on this thread if a test asked, else
/// to stdout under Lambda, else nowhere.
pub fn emit(answered: &Answered<'_>) {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let captured = CAPTURED.with(|captured| captured.borrow().is_some());
    if !captured && !in_lambda() {
        return;
    }
    let line = object(answered, now_ms).to_string();
    if captured {
        CAPTURED.with(|captured| {
            if let Some(lines) = captured.borrow_mut().as_mut() {
                lines.push(line);
            }
        });
    } else {
        // One write of the whole line: it stays one CloudWatch log event.
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(format!("{line}\n").as_bytes());
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{ApiError, Refusal};

    /// The EMF object of an answer to `path` (the route `handle` resolves for it).
    fn object_of(path: &str, status: StatusCode, telemetry: &Telemetry, elapsed_ms: u64) -> Value {
        let answered = Answered { route: Route::of_path(path), status, telemetry, elapsed_ms };
        object(&answered, 1)
    }

    /// The telemetry of an answer carrying `rule`.
    fn ruled(rule: &'static str) -> Telemetry {
        Telemetry { rule: Some(rule), ..Telemetry::default() }
    }

    /// The telemetry of a delivered report.
    fn verdict(state: &'static str, house: bool) -> Telemetry {
        Telemetry { state: Some(state), house, ..Telemetry::default() }
    }

    /// Every metric a directive names is at the root, with a number; every dimension too.
    fn assert_well_formed(object: &Value) {
        let directives = object["_aws"]["CloudWatchMetrics"].as_array().expect("directives");
        for directive in directives {
            assert_eq!(directive["Namespace"], NAMESPACE);
            for set in directive["Dimensions"].as_array().unwrap() {
                for dimension in set.as_array().unwrap() {
                    assert!(object[dimension.as_str().unwrap()].is_string(), "{object}");
                }
            }
            for metric in directive["Metrics"].as_array().unwrap() {
                let name = metric["Name"].as_str().unwrap();
                assert!(METRICS.iter().any(|(n, _)| *n == name), "{name} is not listed");
                assert!(object[name].is_u64(), "{name}: {object}");
            }
        }
    }

    #[test]
    fn the_metric_list_has_no_unknown_units() {
        for (name, unit) in METRICS {
            assert!(["Count", "Milliseconds"].contains(&unit), "{name}");
        }
        for name in PER_ROUTE_COUNTS {
            assert!(METRICS.iter().any(|(n, _)| *n == name), "{name}");
        }
    }

    #[test]
    fn an_error_counts_its_rule_and_its_failure_class() {
        let error = ApiError::StoreUnavailable;
        let object = object_of("/check", error.status(), &ruled(error.rule()), 12);
        assert_well_formed(&object);
        assert_eq!(object[ROUTE], "check");
        assert_eq!(object[RULE], "store_unavailable");
        assert_eq!(object[STORE_FAILURES], 1);
        assert_eq!(object[STATUS_5XX], 1);
        assert_eq!(object[LATENCY], 12);
        assert!(object.get(STATE).is_none());
        assert!(object.get(FREE_PRECHECKS).is_none(), "a count that is 0 is not written");
        assert!(object.get(STATUS_2XX).is_none(), "a count that is 0 is not written");
    }

    #[test]
    fn a_402_counts_its_refusal_rule() {
        let refusal = Refusal::NotVerified(None);
        let status = StatusCode::PAYMENT_REQUIRED;
        let object = object_of("/toll/payability/memo", status, &ruled(refusal.rule()), 3);
        assert_well_formed(&object);
        assert_eq!(object[ROUTE], "memo");
        assert_eq!(object[RULE], "payment_not_verified");
        assert_eq!(object[PAYMENT_FAILURES], 1);
        assert_eq!(object[STATUS_4XX], 1);
    }

    #[test]
    fn a_rule_outside_the_closed_list_is_not_a_dimension() {
        let telemetry = ruled("https://canary.example/x");
        let object = object_of("/nowhere", StatusCode::BAD_REQUEST, &telemetry, 0);
        assert_well_formed(&object);
        assert_eq!(object[ROUTE], "none");
        assert!(object.get(RULE).is_none());
        assert!(!object.to_string().contains("canary"));
    }

    #[test]
    fn a_verdict_counts_by_state_and_a_house_one_is_not_paid() {
        let object_paid = object_of("/memo", StatusCode::OK, &verdict("BOUND", false), 5);
        assert_well_formed(&object_paid);
        assert_eq!(object_paid[PAID_VERDICTS], 1);
        assert_eq!(object_paid[STATE], "BOUND");
        assert!(object_paid.get(HOUSE_VERDICTS).is_none());
        let object_house = object_of("/check", StatusCode::OK, &verdict("POPULATED", true), 5);
        assert_eq!(object_house[HOUSE_VERDICTS], 1);
        assert!(object_house.get(PAID_VERDICTS).is_none());
        let unknown = verdict("NOT-A-STATE", false);
        assert!(object_of("/check", StatusCode::OK, &unknown, 5).get(STATE).is_none());
    }

    #[test]
    fn a_metrics_answer_mirrors_its_tripwires() {
        let tripwires = Tripwires { armed: true, free_use_fired: true, refunds_fired: false };
        let telemetry = Telemetry { tripwires: Some(tripwires), ..Telemetry::default() };
        let read = object_of("/metrics", StatusCode::OK, &telemetry, 4);
        assert_well_formed(&read);
        assert_eq!(read[TRIPWIRE_FREE_USE], 1);
        assert_eq!(read[TRIPWIRE_REFUNDS], 0);
        assert_eq!(read[TRIPWIRES_ARMED], 1);
        let other = object_of("/check", StatusCode::OK, &telemetry, 4);
        assert!(other.get(TRIPWIRE_FREE_USE).is_none(), "only /metrics answers say");
    }

    #[test]
    fn a_free_precheck_is_counted() {
        let object = object_of("/precheck", StatusCode::OK, &Telemetry::default(), 1);
        assert_well_formed(&object);
        assert_eq!(object[FREE_PRECHECKS], 1);
        assert_eq!(object[STATUS_2XX], 1);
    }

    #[test]
    fn a_relayed_blockhash_counts_where_it_came_from() {
        for (relay, counted, not_counted) in [
            (Relay::Upstream, RPC_UPSTREAM_CALLS, RPC_CACHE_HITS),
            (Relay::Cache, RPC_CACHE_HITS, RPC_UPSTREAM_CALLS),
        ] {
            let telemetry = Telemetry { relay: Some(relay), ..Telemetry::default() };
            let object = object_of("/rpc", StatusCode::OK, &telemetry, 1);
            assert_well_formed(&object);
            assert_eq!((&object[ROUTE], &object[counted]), (&json!("rpc"), &json!(1)));
            assert!(object.get(not_counted).is_none(), "{object}");
        }
        let other = object_of("/rpc", StatusCode::OK, &Telemetry::default(), 1);
        assert!(other.get(RPC_UPSTREAM_CALLS).is_none() && other.get(RPC_CACHE_HITS).is_none());
    }

    #[test]
    fn capture_keeps_this_threads_lines() {
        capture_on_this_thread();
        let telemetry = Telemetry::default();
        let route = Route::of_path("/criteria");
        emit(&Answered { route, status: StatusCode::OK, telemetry: &telemetry, elapsed_ms: 1 });
        let lines = take_captured();
        assert_eq!(lines.len(), 1);
        let object: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(object[ROUTE], "criteria");
    }
}
