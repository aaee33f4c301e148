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
    assert_eq!(line["counts"], json!({"pass": 19, "fail": 0, "not_applicable": 16}));
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

/// Everything `doctor --fail-on info` with `targets` writes in each format (stdout, stderr, the
/// reports file, the step summary), joined; each run must exit 3.
fn every_output(label: &str, targets: &[&str]) -> String {
    let scratch = ScratchDir::new(label);
    let mut seen = String::new();
    for format in ["text", "json", "github", "markdown"] {
        let reports = scratch.join(&format!("{format}.jsonl"));
        let summary = scratch.join(&format!("{format}.md"));
        let mut args = vec!["--allow-private", "--fail-on", "info", "--format", format];
        args.extend(["--reports", reports.to_str().unwrap()]);
        args.extend_from_slice(targets);
        let output = doctor(&args, Some(&summary));
        assert_eq!(output.status.code(), Some(3), "{format}");
        seen += &String::from_utf8_lossy(&output.stdout);
        seen += &String::from_utf8_lossy(&output.stderr);
        seen += &std::fs::read_to_string(&reports).unwrap();
        seen += &std::fs::read_to_string(&summary).unwrap_or_default();
    }
    seen
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
    let seen = every_output("doctor-custody", &[&a, &b]);
    assert!(seen.contains("asset-known") || seen.contains("failed"), "{seen}");
    assert!(!seen.contains(CANARY), "a served value reached the output:\n{seen}");
}

const SOLANA: &str = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const USDC_MINT: &str = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SVM_PAY_TO: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
/// SVM_PAY_TO's associated USDC account.
const SVM_ACCOUNT: &str = "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3";
const FEE_PAYER: &str = "Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR";

/// A probed world: a seller (the 402 on GET, `post` on POST, its own /.well-known/x402), a
/// facilitator (/supported, /discovery/resources) and an RPC (Solana or EVM JSON-RPC).
struct World {
    seller: StandIn,
    facilitator: StandIn,
    rpc: StandIn,
}

/// What each part of a world answers; every field healthy by default.
#[derive(Clone)]
struct Answers {
    challenge: Value,
    post: u16,
    listed: bool,
    kinds: Value,
    signers: Value,
    account_owner: &'static str,
    contract_name: &'static str,
}

fn svm_answers() -> Answers {
    Answers {
        challenge: json!({
            "x402Version": 2,
            "resource": { "url": "SELF", "description": "Weather", "mimeType": "application/json" },
            "accepts": [{
                "scheme": "exact", "network": SOLANA, "amount": "10000", "asset": USDC_MINT,
                "payTo": SVM_PAY_TO, "maxTimeoutSeconds": 60,
                "extra": { "feePayer": FEE_PAYER, "usdc_token_account": SVM_ACCOUNT }
            }]
        }),
        post: 402,
        listed: true,
        kinds: json!([{ "x402Version": 2, "scheme": "exact", "network": SOLANA }]),
        signers: json!({ "solana:*": [FEE_PAYER] }),
        account_owner: SVM_PAY_TO,
        contract_name: "USD Coin",
    }
}

fn evm_answers() -> Answers {
    Answers {
        challenge: healthy_challenge(),
        kinds: json!([{ "x402Version": 2, "scheme": "exact", "network": "eip155:8453" }]),
        signers: json!({ "eip155:*": [PAY_TO] }),
        ..svm_answers()
    }
}

/// An ABI-encoded string, as `eth_call` answers it.
fn abi(text: &str) -> String {
    let mut hex = format!("0x{:064x}{:064x}", 32, text.len());
    hex += &text.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    hex += &"0".repeat((64 - (hex.len() - 2) % 64) % 64);
    hex
}

impl World {
    fn start(answers: Answers) -> Self {
        let a = answers.clone();
        let seller = StandIn::replying_with(move |origin| {
            let origin = origin.to_owned();
            move |request: &Recorded| {
                let mut document = a.challenge.clone();
                document["resource"]["url"] = json!(format!("{origin}/weather"));
                let challenge = Reply::json(402, &json!({}))
                    .header("payment-required", STANDARD.encode(document.to_string()))
                    .header("access-control-allow-origin", "*")
                    .header("access-control-expose-headers", "PAYMENT-REQUIRED");
                match (request.method.as_str(), request.path.as_str()) {
                    ("GET", "/.well-known/x402") => {
                        let resources = if a.listed { vec!["/weather"] } else { vec!["/other"] };
                        Reply::json(200, &json!({ "version": 1, "resources": resources }))
                    }
                    ("POST", _) if a.post != 402 => Reply::status(a.post),
                    ("OPTIONS", _) => Reply::status(204)
                        .header("access-control-allow-origin", "*")
                        .header("access-control-allow-headers", "payment-signature"),
                    _ => challenge,
                }
            }
        });
        let seller_url = seller.url("/weather");
        let a = answers.clone();
        let facilitator = StandIn::replying(move |request: &Recorded| {
            if request.path.starts_with("/supported") {
                return Reply::json(
                    200,
                    &json!({ "kinds": a.kinds, "extensions": [], "signers": a.signers }),
                );
            }
            let mut document = a.challenge.clone();
            document["resource"]["url"] = json!(seller_url);
            let item = json!({ "resource": seller_url, "type": "http", "x402Version": 2, "accepts": document["accepts"] });
            Reply::json(
                200,
                &json!({ "x402Version": 2, "items": [item], "pagination": { "limit": 100, "offset": 0, "total": 1 } }),
            )
        });
        let a = answers;
        let rpc = StandIn::replying(move |request: &Recorded| {
            let call: Value = serde_json::from_slice(&request.body).unwrap_or_default();
            let result = match call["method"].as_str() {
                Some("getAccountInfo") => json!({ "context": { "slot": 1 }, "value": {
                    "owner": "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
                    "data": { "program": "spl-token", "parsed": { "type": "account",
                        "info": { "mint": USDC_MINT, "owner": a.account_owner } } } } }),
                Some("eth_getCode") => json!("0x6080604052"),
                Some("eth_call") if call["params"][0]["data"] == "0x06fdde03" => {
                    json!(abi(a.contract_name))
                }
                Some("eth_call") => json!(abi("2")),
                _ => Value::Null,
            };
            Reply::json(200, &json!({ "jsonrpc": "2.0", "id": call["id"], "result": result }))
        });
        Self { seller, facilitator, rpc }
    }

    /// `doctor` with every probe; the RPC flag is `rpc_flag`.
    fn doctor(&self, rpc_flag: &str) -> Output {
        let (facilitator, rpc, url) =
            (self.facilitator.origin(), self.rpc.origin(), self.seller.url("/weather"));
        doctor(
            &[
                "--allow-private",
                "--format",
                "json",
                "--method",
                "POST",
                "--discovery",
                "--facilitator",
                &facilitator,
                rpc_flag,
                &rpc,
                &url,
            ],
            None,
        )
    }
}

fn failed_checks(output: &Output) -> Vec<String> {
    outcomes(&lines(output)[0]).into_iter().filter(|(_, o)| o == "fail").map(|(id, _)| id).collect()
}

#[test]
fn every_probe_passes_on_a_healthy_world_and_each_seeded_defect_fails_exactly_its_check() {
    let probe_checks =
        ["method-402", "facilitator-supports", "discovery-listed", "facilitator-listing"];
    for (answers, rpc_flag, chain_check) in [
        (svm_answers(), "--solana-rpc", "svm-payout-account"),
        (evm_answers(), "--evm-rpc", "evm-asset-contract"),
    ] {
        let world = World::start(answers);
        let output = world.doctor(rpc_flag);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let all = outcomes(&lines(&output)[0]);
        for check in probe_checks.iter().chain([&chain_check]) {
            assert!(all.contains(&(check.to_string(), "pass".to_owned())), "{check}: {all:?}");
        }
    }
    let vectors: [(Answers, &str, &str); 6] = [
        (Answers { post: 400, ..svm_answers() }, "--solana-rpc", "method-402"),
        (Answers { listed: false, ..svm_answers() }, "--solana-rpc", "discovery-listed"),
        (
            Answers {
                kinds: json!([{ "x402Version": 2, "scheme": "exact", "network": "eip155:8453" }]),
                ..svm_answers()
            },
            "--solana-rpc",
            "facilitator-supports",
        ),
        (
            Answers { signers: json!({ "solana:*": [SVM_PAY_TO] }), ..svm_answers() },
            "--solana-rpc",
            "facilitator-fee-payer",
        ),
        (
            Answers { account_owner: FEE_PAYER, ..svm_answers() },
            "--solana-rpc",
            "svm-payout-account",
        ),
        (Answers { contract_name: "USDC", ..evm_answers() }, "--evm-rpc", "evm-asset-contract"),
    ];
    for (answers, rpc_flag, check) in vectors {
        let world = World::start(answers);
        let output = world.doctor(rpc_flag);
        assert_eq!(failed_checks(&output), vec![check.to_owned()], "{check}");
        assert_eq!(
            output.status.code(),
            Some(if check == "discovery-listed" { 0 } else { 3 }),
            "{check}"
        );
    }
}

#[test]
fn a_probe_url_outside_the_policy_or_an_unknown_method_is_refused_before_anything_is_fetched() {
    let seller = seller(healthy_challenge(), cors(), preflight());
    let url = seller.url("/weather");
    let vectors: [(&[&str], &str); 4] = [
        (&["--facilitator", "ftp://facilitator.example/"], "scheme_not_http"),
        (&["--evm-rpc", "http://127.0.0.1:1/"], "address_not_public"),
        (&["--method", "post"], "method_unknown"),
        (&["--method", "TRACE"], "method_unknown"),
    ];
    for (args, rule) in vectors {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        all.push(&url);
        let output = Command::new(env!("CARGO_BIN_EXE_payability"))
            .arg("doctor")
            .args(&all)
            .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "0")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(&format!("\"rule\":\"{rule}\"")), "{args:?}: {stderr}");
    }
    assert_eq!(seller.accepted(), 0);
}

/// `doctor --mcp` on a server: every named tool called unpaid; returns the run.
fn doctor_mcp(url: &str, tools: &[&str], arguments: &str) -> Output {
    let mut args =
        vec!["--allow-private", "--format", "json", "--mcp", url, "--arguments", arguments];
    for tool in tools {
        args.extend(["--tool", tool]);
    }
    doctor(&args, None)
}

#[test]
fn our_own_dual_era_mcp_server_passes_the_mcp_binding_and_the_terms_checks() {
    let world = crate::support::world::World::start();
    let target = world.target.url_of("/weather");
    let arguments = json!({ "url": target }).to_string();
    let output = doctor_mcp(&format!("{}/mcp", world.server.base), &["check", "memo"], &arguments);
    let line = &lines(&output)[0];
    let all = outcomes(line);
    for check in [
        "mcp-answers",
        "mcp-tool-result",
        "mcp-result-type",
        "mcp-payment-extension",
        "accepts-shape",
        "asset-known",
    ] {
        assert!(all.contains(&(check.to_owned(), "pass".to_owned())), "{check}: {all:?}");
    }
    let failed: Vec<_> = all.iter().filter(|(_, o)| o == "fail").collect();
    assert_eq!(failed, Vec::<&(String, String)>::new(), "{line}");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // The HTTP-only checks do not apply to an MCP server.
    for check in ["status-402", "cors-preflight", "resource-matches", "header-size"] {
        assert!(all.contains(&(check.to_owned(), "not_applicable".to_owned())), "{check}");
    }
}

/// A handshake-era MCP stand-in whose paid tool `weather` answers `answer` unpaid.
fn handshake_server(answer: Value) -> StandIn {
    StandIn::replying(move |request: &Recorded| {
        let call: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let result = match call["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": "2025-06-18", "capabilities": { "tools": {} },
                "serverInfo": { "name": "stand-in", "version": "1" } }),
            Some("tools/list") => json!({ "tools": [
                { "name": "weather", "inputSchema": { "type": "object" },
                  "annotations": { "paymentHint": true, "paymentPriceUSD": 0.01 } },
                { "name": "ping", "inputSchema": { "type": "object" } }] }),
            Some("tools/call") => answer.clone(),
            Some("notifications/initialized") => return Reply::status(202),
            _ => {
                return Reply::json(
                    200,
                    &json!({ "jsonrpc": "2.0", "id": call["id"], "error": { "code": -32601, "message": "no" } }),
                );
            }
        };
        Reply::json(200, &json!({ "jsonrpc": "2.0", "id": call["id"], "result": result }))
            .header("mcp-session-id", "s1")
    })
}

#[test]
fn an_mcp_tool_result_outside_the_binding_fails_mcp_tool_result_alone() {
    let mut challenge = healthy_challenge();
    challenge["resource"]["url"] = json!("mcp://tool/weather");
    let text = |value: &Value| json!([{ "type": "text", "text": value.to_string() }]);
    let wrapped =
        json!({ "x402/error": { "code": 402, "message": "Payment required", "data": challenge } });
    let mut other = challenge.clone();
    other["accepts"][0]["amount"] = json!("20000");
    let vectors: [(Value, &[&str]); 4] = [
        (
            json!({ "isError": true, "structuredContent": challenge, "content": text(&challenge) }),
            &[],
        ),
        (
            json!({ "isError": true, "structuredContent": challenge, "content": text(&wrapped) }),
            &[],
        ),
        (
            json!({ "isError": false, "structuredContent": challenge, "content": text(&challenge) }),
            &["mcp-tool-result"],
        ),
        (
            json!({ "isError": true, "structuredContent": challenge, "content": text(&other) }),
            &["mcp-tool-result"],
        ),
    ];
    for (answer, want) in vectors {
        let server = handshake_server(answer);
        let output = doctor_mcp(&server.url("/mcp"), &["weather"], "{}");
        let failed: Vec<String> = outcomes(&lines(&output)[0])
            .into_iter()
            .filter(|(_, o)| o == "fail")
            .map(|(id, _)| id)
            .collect();
        assert_eq!(failed, want.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let first = server.requests().into_iter().next().expect("a request");
        assert!(
            String::from_utf8_lossy(&first.body).contains("server/discover"),
            "2026-07-28 is asked first"
        );
    }
    let missing = handshake_server(json!({}));
    let output = doctor_mcp(&missing.url("/mcp"), &["forecast"], "{}");
    let failed: Vec<String> = outcomes(&lines(&output)[0])
        .into_iter()
        .filter(|(_, o)| o == "fail")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(failed, vec!["mcp-answers".to_owned(), "mcp-tool-result".to_owned()]);
}

#[test]
fn no_value_an_mcp_server_served_reaches_any_output() {
    const CANARY: &str = "CanaryMcp5w";
    let challenge = json!({
        "x402Version": 2,
        "resource": { "url": format!("mcp://tool/{CANARY}"), "description": CANARY, "mimeType": CANARY },
        "accepts": [{ "scheme": CANARY, "network": CANARY, "amount": CANARY, "asset": CANARY,
                      "payTo": CANARY, "maxTimeoutSeconds": 0, "extra": { "feePayer": CANARY } }]
    });
    let text = json!([{ "type": "text", "text": challenge.to_string() }]);
    let server = handshake_server(
        json!({ "isError": true, "structuredContent": challenge, "content": text }),
    );
    let url = server.url("/mcp");
    let seen = every_output("doctor-mcp-custody", &["--mcp", &url, "--tool", "weather"]);
    assert!(seen.contains("accepts-shape") || seen.contains("scheme-known"), "{seen}");
    assert!(!seen.contains(CANARY), "a served value reached the output:\n{seen}");
}

#[test]
fn method_declared_probes_the_bazaar_declarations_method_else_post() {
    let mut declaring = healthy_challenge();
    declaring["extensions"] = json!({ "bazaar": {
        "info": { "input": { "type": "http", "method": "PUT", "bodyType": "json", "body": {} } },
        "schema": { "type": "object" } } });
    for (challenge, sent) in [(declaring, "PUT"), (healthy_challenge(), "POST")] {
        let seller = seller(challenge, cors(), preflight());
        let url = seller.url("/weather");
        let output =
            doctor(&["--allow-private", "--format", "json", "--method", "declared", &url], None);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let all = outcomes(&lines(&output)[0]);
        assert!(all.contains(&("method-402".to_owned(), "pass".to_owned())), "{all:?}");
        let probed: Vec<_> = seller.requests().into_iter().filter(|r| r.method == sent).collect();
        assert_eq!(probed.len(), 1, "{sent}");
        assert!(probed[0].body.is_empty());
    }
}

#[test]
fn a_write_that_fails_fails_the_doctor_with_output_unwritable_whatever_the_output() {
    let seller = seller(healthy_challenge(), cors(), preflight());
    let url = seller.url("/weather");
    let full = std::path::Path::new("/dev/full");
    let vectors: [(&[&str], bool, bool, &str); 3] = [
        (&["--reports", "/dev/full", "--format", "json"], false, false, "the --reports file"),
        (&["--format", "json"], true, false, "standard output"),
        (&["--format", "github"], false, true, "the step summary"),
    ];
    for (args, stdout_full, summary_full, names) in vectors {
        let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
        command
            .args(["doctor", "--allow-private"])
            .args(args)
            .arg(&url)
            .env_remove("GITHUB_STEP_SUMMARY");
        if stdout_full {
            command.stdout(std::fs::File::create(full).unwrap());
        }
        if summary_full {
            command.env("GITHUB_STEP_SUMMARY", full);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("\"rule\":\"output_unwritable\"") && stderr.contains(names),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn without_tool_the_tools_whose_listing_declares_a_price_are_called_and_no_other() {
    let mut challenge = healthy_challenge();
    challenge["resource"]["url"] = json!("mcp://tool/weather");
    let text = json!([{ "type": "text", "text": challenge.to_string() }]);
    let server = handshake_server(
        json!({ "isError": true, "structuredContent": challenge, "content": text }),
    );
    let output =
        doctor(&["--allow-private", "--format", "json", "--mcp", &server.url("/mcp")], None);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let all = outcomes(&lines(&output)[0]);
    assert!(all.contains(&("mcp-tool-result".to_owned(), "pass".to_owned())), "{all:?}");
    let called: Vec<String> = server
        .requests()
        .into_iter()
        .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
        .filter(|call| call["method"] == "tools/call")
        .map(|call| call["params"]["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(called, ["weather"], "the free ping is never called");
}
