//! `payability doctor` end to end against loopback sellers (the stand-in answering the GET
//! and the preflight): a healthy seller passes every check that applies; `--fail-on` sets
//! which failure fails the run, with `check`'s precedence of exit codes; `--list` is the
//! core's list; and no value a seller served (canaries in every field and header) reaches
//! any output, in every format, the reports file and the step summary.

use std::process::{Command, Output};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::doctor::CheckId;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn};
use serde_json::{Value, json};

const BASE_USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PAY_TO: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

fn doctor(args: &[&str], summary: Option<&std::path::Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command.arg("doctor").args(args).env_remove("NO_COLOR").env_remove("GITHUB_STEP_SUMMARY");
    if let Some(path) = summary {
        command.env("GITHUB_STEP_SUMMARY", path);
    }
    command.output().unwrap()
}

/// A v2 seller on Base serving `challenge` (its `resource.url` set to the URL asked), with
/// `headers` on the 402 and `preflight` headers on a 204 to OPTIONS.
fn seller(
    challenge: Value,
    headers: Vec<(&'static str, String)>,
    preflight: Vec<(&'static str, String)>,
) -> StandIn {
    StandIn::replying_with(move |origin| {
        let origin = origin.to_owned();
        move |request: &Recorded| {
            if request.method == "OPTIONS" {
                let mut reply = Reply::status(204);
                for (name, value) in &preflight {
                    reply = reply.header(name, value.clone());
                }
                return reply;
            }
            let mut document = challenge.clone();
            if document["resource"]["url"] == "SELF" {
                document["resource"]["url"] = json!(format!("{origin}{}", request.path));
            }
            let encoded = STANDARD.encode(document.to_string());
            let mut reply = Reply::json(402, &json!({})).header("payment-required", encoded);
            for (name, value) in &headers {
                reply = reply.header(name, value.clone());
            }
            reply
        }
    })
}

fn healthy_challenge() -> Value {
    json!({
        "x402Version": 2,
        "resource": { "url": "SELF", "description": "Weather", "mimeType": "application/json" },
        "accepts": [{
            "scheme": "exact", "network": "eip155:8453", "amount": "10000", "asset": BASE_USDC,
            "payTo": PAY_TO, "maxTimeoutSeconds": 300, "extra": { "name": "USD Coin", "version": "2" }
        }]
    })
}

fn cors() -> Vec<(&'static str, String)> {
    vec![
        ("access-control-allow-origin", "*".into()),
        ("access-control-expose-headers", "PAYMENT-REQUIRED".into()),
    ]
}

fn preflight() -> Vec<(&'static str, String)> {
    vec![
        ("access-control-allow-origin", "*".into()),
        ("access-control-allow-headers", "PAYMENT-SIGNATURE".into()),
    ]
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn outcomes(line: &Value) -> Vec<(String, String)> {
    line["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_owned(), c["outcome"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn a_healthy_seller_passes_every_check_that_applies_and_each_request_is_the_strangers() {
    let seller = seller(healthy_challenge(), cors(), preflight());
    let url = seller.url("/weather");
    let output = doctor(&["--allow-private", "--format", "json", &url], None);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let line = &lines(&output)[0];
    assert_eq!(line["list"], "doctor/v1");
    assert_eq!(line["url"], url);
    let ids: Vec<String> = outcomes(line).into_iter().map(|(id, _)| id).collect();
    let want: Vec<&str> = CheckId::ALL.into_iter().map(CheckId::as_str).collect();
    assert_eq!(ids, want);
    let failed: Vec<_> = outcomes(line).into_iter().filter(|(_, o)| o == "fail").collect();
    assert_eq!(failed, vec![]);
    assert_eq!(line["counts"], json!({"pass": 19, "fail": 0, "not_applicable": 5}));
    // Two requests: the GET (with an Origin, no payment, no body) and the preflight.
    let mut requests = seller.requests();
    requests.sort_by(|a, b| a.method.cmp(&b.method));
    assert_eq!(requests.len(), 2);
    let (get, options) = (&requests[0], &requests[1]);
    assert_eq!((get.method.as_str(), options.method.as_str()), ("GET", "OPTIONS"));
    assert_eq!(get.header("origin"), Some("https://buyer.example"));
    assert!(get.header("payment-signature").is_none() && get.header("x-payment").is_none());
    assert!(get.body.is_empty());
    assert_eq!(options.header("access-control-request-method"), Some("GET"));
    assert_eq!(options.header("access-control-request-headers"), Some("payment-signature"));
}

#[test]
fn fail_on_sets_which_failure_fails_the_run_and_exit_codes_keep_checks_precedence() {
    // Only warnings fail here: no CORS at all.
    let warned = seller(healthy_challenge(), vec![], vec![]);
    // An error: the asset is Base Sepolia's USDC on Base.
    let mut wrong_asset = healthy_challenge();
    wrong_asset["accepts"][0]["asset"] = json!("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
    let erred = seller(wrong_asset, cors(), preflight());
    let (warned, erred) = (warned.url("/w"), erred.url("/e"));
    let refused = "ftp://seller.example/";
    let vectors: [(&[&str], i32); 7] = [
        (&[&warned], 0),
        (&["--fail-on", "warning", &warned], 3),
        (&["--fail-on", "info", &warned], 3),
        (&[&erred], 3),
        (&[&warned, refused], 2),
        (&[&erred, refused], 2),
        (&["--fail-on", "fatal", &warned], 2),
    ];
    for (args, code) in vectors {
        let mut all = vec!["--allow-private", "--format", "json"];
        all.extend_from_slice(args);
        let output = doctor(&all, None);
        assert_eq!(output.status.code(), Some(code), "{args:?}");
    }
    let output = doctor(&["--allow-private", "--format", "json", &erred], None);
    let failed: Vec<_> =
        outcomes(&lines(&output)[0]).into_iter().filter(|(_, o)| o == "fail").collect();
    assert_eq!(failed, vec![("asset-known".to_owned(), "fail".to_owned())]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("\"rule\":\"checks_failed\""), "{stderr}");
}

#[test]
fn the_list_is_the_cores_in_text_and_json() {
    let output = doctor(&["--list", "--format", "json"], None);
    assert_eq!(output.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(list["list"], "doctor/v1");
    let ids: Vec<&str> =
        list["checks"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    let want: Vec<&str> = CheckId::ALL.into_iter().map(CheckId::as_str).collect();
    assert_eq!(ids, want);
    let text = String::from_utf8(doctor(&["--list", "--format", "text"], None).stdout).unwrap();
    for id in CheckId::ALL {
        assert!(text.lines().any(|line| line.starts_with(id.as_str())), "{}", id.as_str());
    }
    let refused = doctor(&["--list", "https://seller.example/"], None);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn no_value_a_seller_served_reaches_any_output_in_any_format() {
    const CANARY: &str = "CanaryQz7";
    let canary = |what: &str| format!("{CANARY}{what}");
    let challenge = json!({
        "x402Version": 2,
        "resource": { "url": canary("url"), "description": canary("description"), "mimeType": canary("mime") },
        "accepts": [{
            "scheme": canary("scheme"), "network": canary("network"), "amount": canary("amount"),
            "asset": canary("asset"), "payTo": canary("payTo"), "maxTimeoutSeconds": 1,
            "extra": { "name": canary("name"), "version": canary("version"), "feePayer": canary("fee") }
        }],
        "extensions": { "bazaar": { "info": canary("bazaar") } }
    });
    let headers = vec![
        ("access-control-allow-origin", canary("origin")),
        ("access-control-expose-headers", canary("expose")),
        ("cache-control", format!("public, max-age=60, {}", canary("cache"))),
    ];
    let preflight = vec![("access-control-allow-headers", canary("allow"))];
    // And an EVM-shaped seller whose every value is a valid one but its own canary-bearing
    // description: the offer checks pass, so their values are read and still not shown.
    let mut valid = healthy_challenge();
    valid["resource"]["description"] = json!(canary("valid-description"));
    let a = seller(challenge, headers, preflight);
    let b = seller(valid, cors(), self::preflight());
    let (a, b) = (a.url("/canary"), b.url("/valid"));
    let scratch = ScratchDir::new("doctor-custody");
    for format in ["text", "json", "github", "markdown"] {
        let reports = scratch.join(&format!("{format}.jsonl"));
        let summary = scratch.join(&format!("{format}.md"));
        let output = doctor(
            &[
                "--allow-private",
                "--fail-on",
                "info",
                "--format",
                format,
                "--reports",
                reports.to_str().unwrap(),
                &a,
                &b,
            ],
            Some(&summary),
        );
        assert_eq!(output.status.code(), Some(3), "{format}");
        let mut seen = String::from_utf8_lossy(&output.stdout).into_owned();
        seen += &String::from_utf8_lossy(&output.stderr);
        seen += &std::fs::read_to_string(&reports).unwrap();
        seen += &std::fs::read_to_string(&summary).unwrap_or_default();
        assert!(seen.contains("asset-known") || seen.contains("failed"), "{format}: {seen}");
        assert!(!seen.contains(CANARY), "{format}: a served value reached the output:\n{seen}");
    }
}
