//! `payability doctor` against sellers built with the official x402 middlewares
//! (`@x402/express` and `@x402/hono` 2.27.0, the x402 2.25.0 Python SDK's FastAPI and Flask
//! middleware; tests/e2e/sellers), each serving one Solana `exact` USDC route with the
//! facilitator fixture: out of the box, behind a CORS layer (no check fails), and with one
//! seeded defect each, which the doctor must flag alone; and the same route on Base
//! (`@x402/evm` 2.27.0, `x402[evm]` 2.25.0) with a facilitator stand-in listing Base. The table is docs/doctor.md's
//! "Tested against the official middlewares". Needs `scripts/test` (as sellers.rs).

use crate::sellers::Middleware;
use crate::support;

use std::process::Command;
use std::time::Duration;

use payability_tests::standin::{Recorded, Reply, StandIn};
use serde_json::{Value, json};
use support::world::{Fixture, http_json, run_bounded};

/// How long one doctor run may take (the GET and preflight, then the probes: 5 s each).
const RUN_WITHIN: Duration = Duration::from_secs(30);

/// (route variant, the flags beside the URL, the checks that fail): out of the box a seller
/// has no CORS, so the two CORS checks fail; behind the CORS layer nothing fails, and each
/// seeded defect fails its check alone.
const ROWS: [(&str, &[&str], &[&str]); 8] = [
    ("default", &[], &["cors-expose-header", "cors-preflight"]),
    ("doctor-cors", &[], &[]),
    ("doctor-cors-no-expose", &[], &["cors-expose-header"]),
    ("doctor-devnet-mint", &[], &["asset-known"]),
    ("doctor-long-description", &[], &["description-length"]),
    ("doctor-wrong-token-account", &[], &["svm-token-account"]),
    ("doctor-bad-bazaar", &[], &["bazaar-declaration"]),
    ("doctor-post-400", &["--method", "POST"], &["method-402"]),
];

/// The Base sellers (`@x402/evm`; the Python SDK's `evm` extra), whose facilitator lists Base:
/// (route variant, the checks that fail).
const BASE_ROWS: [(&str, &[&str]); 2] =
    [("doctor-base", &[]), ("doctor-base-wrong-domain", &["evm-domain"])];

/// Runs `payability doctor` on `url` with `flags`; returns the failed check ids.
fn failed_checks(url: &str, flags: &[&str]) -> Vec<String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command
        .args(["doctor", "--allow-private", "--format", "json", "--fail-on", "info"])
        .args(flags)
        .arg(url);
    let ran = run_bounded(command, RUN_WITHIN);
    let line: Value = serde_json::from_str(ran.stdout.lines().next().unwrap_or_default())
        .unwrap_or_else(|_| panic!("doctor printed no findings: {ran}"));
    let code = ran.status.and_then(|s| s.code());
    let failed: Vec<String> = line["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .map(|c| c["id"].as_str().expect("an id").to_owned())
        .collect();
    assert_eq!(code, Some(if failed.is_empty() { 0 } else { 3 }), "{url}: {ran}");
    failed
}

/// Every row of [`ROWS`] for `middleware`, and its extra defect: a facilitator without a fee
/// payer (`svm-fee-payer`, for the Python middlewares) or a probed facilitator that does not
/// support Solana (`facilitator-supports`, for the npm ones).
fn flags_exactly_the_seeded_check(middleware: Middleware) {
    let rpc = Fixture::start("solana_rpc_stub.py", &[]);
    let facilitator = Fixture::start("facilitator_fixture.py", &["--rpc", &rpc.url()]);
    // A facilitator that lists Base only: the Base sellers' own, and the probed one that does
    // not support Solana.
    let evm_only = StandIn::replying(|_: &Recorded| {
        let kinds = json!([{"x402Version": 2, "scheme": "exact", "network": "eip155:8453"}]);
        Reply::json(200, &json!({"kinds": kinds, "extensions": [], "signers": {}}))
    });
    let mut wrong = Vec::new();
    for (variant, want) in BASE_ROWS {
        let seller = middleware.start(variant, &evm_only.origin());
        let got = failed_checks(&format!("{}/weather", seller.url()), &[]);
        if got != want {
            wrong.push(format!("{middleware:?} {variant}: {got:?}, not {want:?}"));
        }
    }
    for (variant, flags, want) in ROWS {
        let seller = middleware.start(variant, &facilitator.url());
        let got = failed_checks(&format!("{}/weather", seller.url()), flags);
        if got != want {
            wrong.push(format!("{middleware:?} {variant}: {got:?}, not {want:?}"));
        }
    }
    let (variant, flags, want) = match middleware {
        Middleware::Express | Middleware::Hono => {
            let seller = middleware.start("doctor-cors", &facilitator.url());
            let flags = ["--facilitator".to_owned(), evm_only.origin()];
            let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
            let got = failed_checks(&format!("{}/weather", seller.url()), &flags);
            ("doctor-cors with an EVM-only facilitator probed", got, vec!["facilitator-supports"])
        }
        Middleware::FastApi | Middleware::Flask => {
            let mode = json!({"supported": "no_fee_payer"});
            http_json("POST", &format!("{}/__fixture/mode", facilitator.url()), Some(mode));
            let seller = middleware.start("doctor-cors", &facilitator.url());
            let got = failed_checks(&format!("{}/weather", seller.url()), &[]);
            ("doctor-cors with a facilitator without a fee payer", got, vec!["svm-fee-payer"])
        }
    };
    if flags != want {
        wrong.push(format!("{middleware:?} {variant}: {flags:?}, not {want:?}"));
    }
    assert!(wrong.is_empty(), "the doctor flagged otherwise than seeded:\n{}", wrong.join("\n"));
}

#[test]
fn express_sellers_fail_exactly_their_seeded_checks() {
    flags_exactly_the_seeded_check(Middleware::Express);
}

#[test]
fn hono_sellers_fail_exactly_their_seeded_checks() {
    flags_exactly_the_seeded_check(Middleware::Hono);
}

#[test]
fn fastapi_sellers_fail_exactly_their_seeded_checks() {
    flags_exactly_the_seeded_check(Middleware::FastApi);
}

#[test]
fn flask_sellers_fail_exactly_their_seeded_checks() {
    flags_exactly_the_seeded_check(Middleware::Flask);
}

#[test]
fn the_doctor_page_tables_the_middlewares_and_their_seeded_checks() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/doctor.md"))
        .expect("docs/doctor.md");
    let rows = ROWS
        .iter()
        .map(|(variant, _, want)| (variant, want))
        .chain(BASE_ROWS.iter().map(|(v, w)| (v, w)));
    for (variant, want) in rows {
        let row = format!("| `{variant}` | {} |", cell(want));
        assert!(doc.contains(&row), "docs/doctor.md has no row {row}");
    }
}

/// The checks cell of the doctor page's table: the ids as code, or "none".
fn cell(checks: &[&str]) -> String {
    if checks.is_empty() {
        return "none".to_owned();
    }
    checks.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
}

/// An MCP seller built with the official `mcp` SDK 1.30 (FastMCP, Streamable HTTP with its
/// sessions and event streams, the handshake era) and x402 2.25.0's MCP payment wrapper
/// (tests/e2e/mcp_seller.py): the doctor asks `server/discover`, falls back to the handshake,
/// and finds the paid tool's unpaid call in x402's tool-result binding with terms that pass
/// every check. (x402 2.25.0's wrapper imports `mcp.server.fastmcp`, which `mcp` 2.x renamed:
/// an MCP 2026-07-28 seller is our own `/mcp`, in doctor.rs.)
#[test]
fn an_official_mcp_seller_is_in_the_binding_and_its_terms_pass() {
    let rpc = Fixture::start("solana_rpc_stub.py", &[]);
    let facilitator = Fixture::start("facilitator_fixture.py", &["--rpc", &rpc.url()]);
    let pay_to = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
    let seller =
        Fixture::start("mcp_seller.py", &["--facilitator", &facilitator.url(), "--pay-to", pay_to]);
    let url = format!("{}/mcp", seller.url());
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command.args([
        "doctor",
        "--allow-private",
        "--format",
        "json",
        "--mcp",
        &url,
        "--tool",
        "weather",
    ]);
    let ran = run_bounded(command, RUN_WITHIN);
    assert_eq!(ran.status.and_then(|s| s.code()), Some(0), "{ran}");
    let line: Value = serde_json::from_str(ran.stdout.lines().next().unwrap_or_default()).unwrap();
    assert_eq!(line["counts"]["fail"], 0, "{line}");
    let passed: Vec<&str> = line["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "pass")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for check in ["mcp-answers", "mcp-tool-result", "accepts-shape", "svm-fee-payer", "asset-known"]
    {
        assert!(passed.contains(&check), "{check}: {line}");
    }
    assert!(!ran.stdout.contains(pay_to) && !ran.stderr.contains(pay_to), "custody: {ran}");
}
