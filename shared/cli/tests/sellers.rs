//! The official x402 middlewares as test sellers, graded end to end by the `payability`
//! command, loopback only: `@x402/express` and `@x402/hono` 2.27.0
//! (tests/e2e/sellers/seller.mjs) and the x402 2.25.0 Python SDK's FastAPI and Flask
//! middleware (tests/e2e/sellers/seller.py), each serving one Solana `exact` USDC route with
//! the facilitator fixture answering `/supported`, in every route variant docs/sellers.md
//! documents: out of the box, with the bazaar extension, with a fixed and a fresh
//! `extra.memo`, with a v1-style body but no memo, and the recipes that reach POPULATED and
//! BOUND. Each row runs the real
//! `payability check` and `payability memo` against a fresh seller and asserts the state;
//! neither the seller's payTo, its token account nor any memo it issued reaches the output.
//! Then the official x402 Python client pays the seller (the facilitator fixture verifying
//! and settling on the Solana RPC stub): no variant stops the route from taking payments.
//!
//! Needs `scripts/test`: it installs the npm middlewares (tests/e2e/sellers/package-lock.json)
//! and the SDK's web extras into the x402 virtualenv, and exports
//! PAYABILITY_TEST_SELLERS_MODULES, PAYABILITY_TEST_X402_PYTHON and PAYABILITY_TEST_E2E_DIR.

use crate::support;

use std::process::Command;
use std::time::Duration;

use payability_tests::scratch::ScratchDir;
use serde_json::{Value, json};
use support::world::{Fixture, Ran, fixtures, http_json, run_bounded};

/// The sellers' payTo: a made-up wallet (valid base58, 32 bytes), a custody canary.
const PAY_TO: &str = "Se11erPayToCanary11111111111111111111111111";
/// The associated USDC token account of [`PAY_TO`], which the recipes put in
/// `extra.usdc_token_account` (a custody canary too).
const TOKEN_ACCOUNT: &str = "5KEdu177rti6LWpyC8A1G28FZm7iyhZGUcG22YCx4LK5";
/// The fixed memo, and the prefix of every fresh one (`<memo>-<16 random bytes>`).
const MEMO: &str = "sellercanary_memo_5b1f";
/// How long one `payability` run may take (the memo op fetches twice, 5 s each at most).
const RUN_WITHIN: Duration = Duration::from_secs(30);
/// How long one paid request with the official client may take (402, sign, verify, settle).
const PAY_WITHIN: Duration = Duration::from_secs(60);
/// A throwaway signing seed (64 hex digits).
const SEED_HEX: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";

/// An official middleware a seller is built with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Middleware {
    Express,
    Hono,
    FastApi,
    Flask,
}

/// (middleware, route variant, check state, memo state): what each seller grades.
const GRADES: [(Middleware, &str, &str, &str); 28] = {
    use Middleware::*;
    [
        (Express, "default", "UNCONFIGURED", "MEMO-ABSENT"),
        (Express, "bazaar", "UNCONFIGURED", "MEMO-ABSENT"),
        (Express, "memo-fixed", "UNCONFIGURED", "MEMO-ABSENT"),
        (Express, "memo-fresh", "UNCONFIGURED", "MEMO-ABSENT"),
        (Express, "body-only", "UNCONFIGURED", "MEMO-ABSENT"),
        (Express, "populated", "POPULATED", "MEMO-REUSED"),
        (Express, "bound", "POPULATED", "BOUND"),
        (Hono, "default", "UNCONFIGURED", "MEMO-ABSENT"),
        (Hono, "bazaar", "UNCONFIGURED", "MEMO-ABSENT"),
        (Hono, "memo-fixed", "UNCONFIGURED", "MEMO-ABSENT"),
        (Hono, "memo-fresh", "UNCONFIGURED", "MEMO-ABSENT"),
        (Hono, "body-only", "UNCONFIGURED", "MEMO-ABSENT"),
        (Hono, "populated", "POPULATED", "MEMO-REUSED"),
        (Hono, "bound", "POPULATED", "BOUND"),
        (FastApi, "default", "UNCONFIGURED", "MEMO-ABSENT"),
        (FastApi, "bazaar", "UNCONFIGURED", "MEMO-ABSENT"),
        (FastApi, "memo-fixed", "UNCONFIGURED", "MEMO-ABSENT"),
        (FastApi, "memo-fresh", "UNCONFIGURED", "MEMO-ABSENT"),
        (FastApi, "body-only", "UNCONFIGURED", "MEMO-ABSENT"),
        (FastApi, "populated", "POPULATED", "MEMO-REUSED"),
        (FastApi, "bound", "POPULATED", "BOUND"),
        (Flask, "default", "UNCONFIGURED", "MEMO-ABSENT"),
        (Flask, "bazaar", "UNCONFIGURED", "MEMO-ABSENT"),
        (Flask, "memo-fixed", "UNCONFIGURED", "MEMO-ABSENT"),
        (Flask, "memo-fresh", "UNCONFIGURED", "MEMO-ABSENT"),
        (Flask, "body-only", "UNCONFIGURED", "MEMO-ABSENT"),
        (Flask, "populated", "POPULATED", "MEMO-REUSED"),
        (Flask, "bound", "POPULATED", "BOUND"),
    ]
};

/// The check factors a variant's report shows: on a v2 middleware's `{}` body (parseable JSON
/// without `accepts[0]`) every body field is absent while the header decodes; with the v1-style
/// body but no memo, only the memo is missing.
fn factors_of(variant: &str) -> &'static [(&'static str, bool)] {
    match variant {
        "populated" | "bound" => &[],
        "body-only" => &[
            ("recipient_present", true),
            ("token_account_present", true),
            ("amounts_consistent", true),
            ("resource_present", true),
            ("memo_present", false),
        ],
        _ => &[
            ("body_parseable", true),
            ("body_leg_present", false),
            ("header_decodable", true),
            ("recipient_present", false),
            ("token_account_present", false),
            ("amounts_present", false),
            ("resource_present", false),
        ],
    }
}

/// The step of the check state rule that decides a variant's report, and one factor (with
/// its value) its `decided_by` must list: the seller's first thing to fix.
fn check_decided_of(variant: &str) -> (u64, Option<(&'static str, bool)>) {
    match variant {
        "populated" | "bound" => (6, None),
        "body-only" => (5, Some(("memo_present", false))),
        _ => (5, Some(("body_leg_present", false))),
    }
}

/// Memo-report factors (JSON pointers into `factors`) a variant shows: a memo in the header
/// alone is seen, fresh or static, and still does not count.
fn memo_factors_of(variant: &str) -> Vec<(&'static str, Value)> {
    let header_only = |freshness: &str| {
        vec![
            ("/fetches/0/header_memo_present", json!(true)),
            ("/fetches/1/header_memo_present", json!(true)),
            ("/fetches/0/body_memo_present", json!(false)),
            ("/header_freshness_class", json!(freshness)),
        ]
    };
    match variant {
        "memo-fixed" => header_only("static"),
        "memo-fresh" => header_only("regenerated"),
        "bound" => vec![
            ("/body_freshness_class", json!("regenerated")),
            ("/memo_equality_fetch1", json!(true)),
            ("/memo_equality_fetch2", json!(true)),
        ],
        _ => Vec::new(),
    }
}

impl Middleware {
    /// Starts a seller built with this middleware in `variant`, on a free loopback port.
    pub fn start(self, variant: &str, facilitator: &str) -> Fixture {
        let (python, dir) = fixtures();
        let args = ["--variant", variant, "--facilitator", facilitator];
        let args = args.into_iter().chain(["--pay-to", PAY_TO, "--memo", MEMO, "--port", "0"]);
        let mut command = match self {
            Self::Express | Self::Hono => {
                let modules = std::env::var("PAYABILITY_TEST_SELLERS_MODULES").expect(
                    "the npm middlewares are installed by scripts/test \
                     (PAYABILITY_TEST_SELLERS_MODULES)",
                );
                let mut command = Command::new("node");
                command.arg(format!("{dir}/sellers/seller.mjs")).args(["--modules", &modules]);
                command
            }
            Self::FastApi | Self::Flask => {
                let mut command = Command::new(python);
                command.arg(format!("{dir}/sellers/seller.py")).arg("--watch-stdin");
                command
            }
        };
        let framework = match self {
            Self::Express => "express",
            Self::Hono => "hono",
            Self::FastApi => "fastapi",
            Self::Flask => "flask",
        };
        command.args(["--framework", framework]).args(args);
        Fixture::spawn(command)
    }
}

/// Runs `payability <op> <url>` as a seller checking a local server does, signing with the
/// seed in the file `key`; returns the run and its report.
fn payability(op: &str, url: &str, key: &str) -> (Ran, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command
        .args([op, url])
        .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
        .env("PAYABILITY_SIGNING_KEY_FILE", key);
    let ran = run_bounded(command, RUN_WITHIN);
    assert_eq!(ran.status.and_then(|s| s.code()), Some(0), "payability {op} {url}: {ran}");
    let report = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|_| panic!("payability {op} printed no report: {ran}"));
    (ran, report)
}

/// Pays `url` with the official x402 Python client (tests/e2e/buyer.py, `GET`) on the Solana
/// RPC stub at `rpc`; returns the buyer's JSON line.
fn pay(url: &str, rpc: &str) -> Value {
    let (python, dir) = fixtures();
    let mut command = Command::new(python);
    command
        .arg(format!("{dir}/buyer.py"))
        .args(["--url", url, "--method", "GET", "--body", "{}", "--rpc", rpc]);
    let ran = run_bounded(command, PAY_WITHIN);
    ran.last_json().unwrap_or_else(|| panic!("buyer.py printed no JSON line: {ran}"))
}

/// Grades every variant of `middleware` in [`GRADES`] with both ops and asserts the states,
/// the empty-body factors of the out-of-the-box challenges and custody of the output; then
/// pays each seller once with the official client (every variant still takes payments: a
/// fresh memo is recognised on the paid request).
fn grades_as_documented(middleware: Middleware) {
    let rpc = Fixture::start("solana_rpc_stub.py", &[]);
    let facilitator = Fixture::start("facilitator_fixture.py", &["--rpc", &rpc.url()]);
    let scratch = ScratchDir::new("sellers");
    let key = scratch.join("signing-seed").to_string_lossy().into_owned();
    std::fs::write(&key, SEED_HEX).unwrap();
    let mut failures = Vec::new();
    let rows: Vec<_> = GRADES.iter().filter(|g| g.0 == middleware).collect();
    for (_, variant, check_state, memo_state) in &rows {
        let seller = middleware.start(variant, &facilitator.url());
        let url = format!("{}/weather", seller.url());
        let (check_run, check) = payability("check", &url, &key);
        let (memo_run, memo) = payability("memo", &url, &key);
        let got = (check["state"].as_str(), memo["state"].as_str());
        if got != (Some(*check_state), Some(*memo_state)) {
            failures.push(format!("{middleware:?} {variant}: {got:?}\n{check}\n{memo}"));
        }
        for (factor, value) in factors_of(variant) {
            let had = &check["factors"][factor];
            assert_eq!(had, value, "{middleware:?} {variant}: {factor} in {check}");
        }
        let (step, listed) = check_decided_of(variant);
        assert_eq!(check["decided_by"]["step"], json!(step), "{middleware:?} {variant}: {check}");
        if let Some((factor, value)) = listed {
            let entry = json!({"factor": factor, "value": value});
            let decided = check["decided_by"]["factors"].as_array().expect("decided_by.factors");
            assert!(decided.contains(&entry), "{middleware:?} {variant}: {factor} in {check}");
        }
        if *memo_state == "MEMO-ABSENT" && *variant != "body-only" {
            let entry = json!({"factor": "body_leg_present", "fetch": 1, "value": false});
            let decided = memo["decided_by"]["factors"].as_array().expect("decided_by.factors");
            assert!(decided.contains(&entry), "{middleware:?} {variant}: the body leg in {memo}");
        }
        for (pointer, value) in memo_factors_of(variant) {
            let had = memo["factors"].pointer(pointer);
            assert_eq!(had, Some(&value), "{middleware:?} {variant}: {pointer} in {memo}");
        }
        for run in [&check_run, &memo_run] {
            for canary in [PAY_TO, TOKEN_ACCOUNT, MEMO] {
                let leaked = run.stdout.contains(canary) || run.stderr.contains(canary);
                assert!(!leaked, "{middleware:?} {variant}: a fetched value in the output: {run}");
            }
        }
        let paid = pay(&url, &rpc.url());
        assert_eq!(
            (&paid["status"], &paid["payment_response_decoded"]["success"]),
            (&json!(200), &json!(true)),
            "{middleware:?} {variant}: the official client's payment: {paid}"
        );
    }
    assert!(failures.is_empty(), "graded otherwise than documented:\n{}", failures.join("\n"));
    let calls = http_json("GET", &format!("{}/__fixture/calls", facilitator.url()), None);
    assert_eq!(calls["settled"], json!(rows.len()), "one settlement per seller: {calls}");
}

#[test]
fn express_sellers_grade_as_documented() {
    grades_as_documented(Middleware::Express);
}

#[test]
fn hono_sellers_grade_as_documented() {
    grades_as_documented(Middleware::Hono);
}

#[test]
fn fastapi_sellers_grade_as_documented() {
    grades_as_documented(Middleware::FastApi);
}

#[test]
fn flask_sellers_grade_as_documented() {
    grades_as_documented(Middleware::Flask);
}

#[test]
fn docs_sellers_md_shows_the_recipes_the_sellers_run() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |path: &str| std::fs::read_to_string(format!("{root}/{path}")).unwrap();
    let doc = read("docs/sellers.md");
    for (file, fence) in [("recipe.mjs", "```js\n"), ("recipe.py", "```python\n")] {
        let code = read(&format!("tests/e2e/sellers/{file}"));
        let shown = doc.contains(&format!("{fence}{code}```\n"));
        assert!(shown, "docs/sellers.md does not show tests/e2e/sellers/{file} as it is");
    }
}
