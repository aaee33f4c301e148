//! The agent quickstarts and the discovery audit, loopback only: what an autonomous x402
//! agent that knows only our base URL does. tests/e2e/agents/quickstart.py (the official
//! Python client, x402 on PyPI) and quickstart.mjs (the official npm client, @x402/fetch +
//! @x402/svm) each discover the paid route from `/.well-known/x402` or `/openapi.json`, pay
//! it (`GET /check?url=`, `POST /memo {url}`), and verify the signed report against
//! `/criteria` with none of our code (and refuse one altered after it was paid); the npm client
//! whose answer was lost gets its verdict again by signing in (@x402/extensions'
//! sign-in-with-x), without paying again; a payment on wrong terms is refused with its rule id
//! in the v2 `PAYMENT-REQUIRED` header, where @x402/core's client reads it; and the discovery
//! harness (tests/e2e/discovery/run.mjs: @agentcash/discovery, x402-conformance, the bazaar
//! extension) finds no error. The world (fixtures, serve, seller) is `support/world.rs`.
//!
//! Needs `scripts/test`: besides the paid tests' variables it exports
//! PAYABILITY_TEST_AGENTS_MODULES (the npm client), PAYABILITY_TEST_DISCOVERY_MODULES and
//! PAYABILITY_TEST_X402CONF_VENV (the discovery auditors).

use crate::support;

use std::process::Command;
use std::time::Duration;

use payability_core::payment::x402::PaymentRefusal;
use payability_runtime::rules::Refusal;
use serde_json::{Value, json};
use support::trusted;
use support::world::{FacilitatorKind, Ran, StoreKind, Target, World, fixtures, run_bounded};

/// How long one quickstart run may take (discovery, one 402, one paid request, verify).
const QUICKSTART_WITHIN: Duration = Duration::from_secs(120);
/// How long the discovery harness may take (its tools have 90 s each).
const DISCOVERY_WITHIN: Duration = Duration::from_secs(480);
/// The buyer's seed (a throwaway key, 64 hex digits); the RPC stub funds any buyer.
const BUYER_SEED_HEX: &str = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";
/// A world whose seller issues a fresh memo per 402 (memo grades BOUND).
fn world() -> World {
    World::with_target(FacilitatorKind::Fixture, StoreKind::Embedded, Target::with_fresh_memos())
}

/// The folder of the quickstarts.
fn agents_dir() -> String {
    format!("{}/agents", fixtures().1)
}

/// The quickstart arguments every run shares: only the base URL, the URL to check, the
/// signer's RPC and the buyer key.
fn quickstart_args(world: &World) -> Vec<String> {
    let base = world.server.base.clone();
    let (target, rpc) = (world.target.url.clone(), world.rpc.url());
    ["--base", &base, "--target", &target, "--rpc", &rpc, "--buyer-seed-hex", BUYER_SEED_HEX]
        .map(str::to_owned)
        .to_vec()
}

/// Runs quickstart.py (the x402 virtualenv's Python); returns its JSON line and the run.
fn python_quickstart(world: &World, extra: &[&str]) -> (Value, Ran) {
    let mut command = Command::new(fixtures().0);
    command.arg(format!("{}/quickstart.py", agents_dir())).args(quickstart_args(world)).args(extra);
    let ran = run_bounded(command, QUICKSTART_WITHIN);
    (ran.last_json().unwrap_or_else(|| panic!("quickstart.py printed no JSON line: {ran}")), ran)
}

/// Runs quickstart.mjs with the npm client scripts/test installed; returns its JSON line
/// and the run.
fn npm_quickstart(world: &World, extra: &[&str]) -> (Value, Ran) {
    let modules = std::env::var("PAYABILITY_TEST_AGENTS_MODULES")
        .expect("the npm client is installed by scripts/test (PAYABILITY_TEST_AGENTS_MODULES)");
    let mut command = Command::new("node");
    command
        .arg(format!("{}/quickstart.mjs", agents_dir()))
        .args(quickstart_args(world))
        .args(["--modules", &modules])
        .args(extra);
    let ran = run_bounded(command, QUICKSTART_WITHIN);
    (ran.last_json().unwrap_or_else(|| panic!("quickstart.mjs printed no JSON line: {ran}")), ran)
}

/// Asserts a quickstart's line is a paid, settled, verified report of `op` in `state`,
/// signed by the key `/criteria` publishes, its route found in the document `via`.
fn assert_paid_and_verified(world: &World, line: &Value, ran: &Ran, expected: [&str; 3]) {
    let [via, op, state] = expected;
    let key_id = trusted(&world.server)[0].key_id.clone();
    assert_eq!(
        (&line["discovered_via"], &line["status"], &line["op"], &line["state"]),
        (&json!(via), &json!(200), &json!(op), &json!(state)),
        "{ran}"
    );
    assert_eq!((&line["valid"], &line["key_id"]), (&json!(true), &json!(key_id)), "{ran}");
    assert_eq!(line["settled"], true, "PAYMENT-RESPONSE says settled: {ran}");
    let tx = line["transaction"].clone();
    assert!(world.landed().contains(&tx), "the settlement {tx} landed: {ran}");
}

/// Asserts a quickstart that altered its paid report before verifying it says not valid.
fn assert_altered_report_fails(line: &Value, ran: &Ran) {
    assert_eq!(
        (&line["status"], &line["valid"], &line["error"]),
        (&json!(200), &json!(false), &json!("the signature does not match")),
        "{ran}"
    );
    assert!(!ran.status.is_some_and(|s| s.success()), "exit 1 on an invalid report: {ran}");
}

#[test]
fn the_official_python_client_finds_pays_get_check_and_verifies_the_report() {
    let world = world();
    let (line, ran) = python_quickstart(&world, &[]);
    assert_paid_and_verified(&world, &line, &ran, ["/.well-known/x402", "check", "POPULATED"]);
    assert!(line["route"].as_str().unwrap().starts_with("GET "), "{line}");
    assert_eq!(world.target.hits(), 1, "one fetch for one check");

    let (line, ran) = python_quickstart(&world, &["--discovery", "openapi"]);
    assert_paid_and_verified(&world, &line, &ran, ["/openapi.json", "check", "POPULATED"]);
    let (line, ran) = python_quickstart(&world, &["--tamper-report"]);
    assert_altered_report_fails(&line, &ran);
    assert_eq!((world.target.hits(), &world.fixture_calls()["settled"]), (3, &json!(3)));
}

#[test]
fn the_official_npm_client_finds_pays_post_memo_and_verifies_the_report() {
    let world = world();
    let (line, ran) = npm_quickstart(&world, &[]);
    assert_paid_and_verified(&world, &line, &ran, ["/.well-known/x402", "memo", "BOUND"]);
    assert!(line["route"].as_str().unwrap().starts_with("POST "), "{line}");
    assert_eq!(world.target.hits(), 2, "the memo op fetches twice");

    let (line, ran) = npm_quickstart(&world, &["--discovery", "openapi"]);
    assert_paid_and_verified(&world, &line, &ran, ["/openapi.json", "memo", "BOUND"]);
    let (line, ran) = npm_quickstart(&world, &["--tamper-report"]);
    assert_altered_report_fails(&line, &ran);
    assert_eq!((world.target.hits(), &world.fixture_calls()["settled"]), (6, &json!(3)));
}

#[test]
fn the_npm_client_whose_answer_was_lost_signs_in_with_x402_extensions_and_pays_once() {
    let world = world();
    let (line, ran) = npm_quickstart(&world, &["--op", "check", "--sign-in-again"]);
    assert_paid_and_verified(&world, &line, &ran, ["/.well-known/x402", "check", "POPULATED"]);
    assert_eq!(
        line["signed_in_again"],
        json!({"status": 200, "valid": true, "sent_payment": false, "sent_sign_in": true}),
        "@x402/extensions' wrapFetchWithSIWx got the verdict again by signing in: {ran}"
    );
    assert_eq!(world.fixture_calls()["settled"], 1, "one settlement: {ran}");
    assert_eq!(world.target.hits(), 2, "fetched for each delivery");
}

#[test]
fn a_refused_payments_rule_reaches_the_npm_client_from_the_payment_required_header() {
    let world = world();
    let cases = [
        ("amount", PaymentRefusal::WrongAmount, "payment_wrong_amount"),
        ("other-route-memo", PaymentRefusal::MemoForged, "payment_memo_forged"),
    ];
    for (tamper, refusal, rule) in cases {
        let (line, ran) = npm_quickstart(&world, &["--refuse", tamper]);
        let said = json!(Refusal::Terms(refusal).error_text());
        let refused = &line["refusal"];
        assert_eq!(line["status"], 402, "{tamper}: {ran}");
        assert_eq!(refused["payment_sent"], true, "{tamper}: the client paid: {ran}");
        assert_eq!(refused["rule"], rule, "{tamper}: {ran}");
        assert_eq!(
            (&refused["reason_in_onPaymentResponse"], &refused["reason_in_processResponse"]),
            (&said, &json!({"paymentStatus": "payment_required", "error": said})),
            "{tamper}: @x402/core's client read the rule from PAYMENT-REQUIRED: {ran}"
        );
        assert_eq!(refused["v1_body_error"], said, "{tamper}: the v1 body says the same: {ran}");
    }
    let calls = world.fixture_calls();
    assert_eq!((&calls["verify"], &calls["settled"]), (&json!(0), &json!(0)), "{calls}");
    assert_eq!(world.target.hits(), 0, "nothing was fetched for a refused payment");
}

#[test]
fn the_discovery_tools_find_no_error_on_the_local_service() {
    let world = world();
    let mut command = Command::new("node");
    command.arg(format!("{}/discovery/run.mjs", fixtures().1)).args(["--base", &world.server.base]);
    let ran = run_bounded(command, DISCOVERY_WITHIN);
    let summary = ran.stdout.lines().last().unwrap_or_default().to_owned();
    let failed: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| {
            serde_json::from_str::<Value>(l)
                .is_ok_and(|f| f["pass"] == false && f.get("observation").is_none())
        })
        .collect();
    let clean = summary.ends_with(" passed, 0 failed") && ran.status.is_some_and(|s| s.success());
    assert!(
        clean,
        "run.mjs: {summary}\nfindings that did not pass ({}):\n{}\n\nthe whole run: {ran}",
        failed.len(),
        failed.join("\n")
    );
}
