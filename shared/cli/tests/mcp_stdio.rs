//! `payability mcp`, the MCP server over stdio, end to end: started by the official MCP SDKs'
//! own stdio clients (tests/e2e/mcp_stdio_client.py: `mcp` 1.x's `stdio_client` and
//! `ClientSession`, and `mcp` 2.x's `Client` in both eras), which list the tools, call
//! `criteria`, `precheck` and `check` of a loopback seller, then hostile calls. The check
//! report and the pre-check verify against the criteria tool's keys, the report with none of
//! our code too (tests/e2e/verify_report.py); every hostile call is answered closed form,
//! echoing nothing; and a canary the seller serves in its 402 (body and headers) never
//! reaches the server's standard error. Raw lines hold the transport: the line cap, the
//! order of the answers, notifications, both eras' envelopes, the end at end of input.
//!
//! Needs `scripts/test` (it installs both SDKs and exports PAYABILITY_TEST_X402_PYTHON,
//! PAYABILITY_TEST_MCP2_PYTHON and PAYABILITY_TEST_E2E_DIR).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::{PublicKeyDescriptor, verify_signed};
use payability_tests::scratch::{ScratchDir, ScratchFile};
use payability_tests::standin::{Recorded, Reply, StandIn};
use serde_json::{Value, json};

use crate::support::world::{fixtures, run_bounded, third_party_verify_against};
use payability_runtime::mcp::tools::{Offer, names};

/// What the seller serves in its 402, body and headers; never on the server's stderr.
const CANARY: &str = "CANARY-stdio-4b1f";

/// What the hostile calls send; never in an answer.
const ARGUMENT_CANARY: &str = "CANARY-ARG";

/// The test key's seed (32 bytes of 7, base64).
const SEED_B64: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

/// How long one SDK client run may take.
const CLIENT_WITHIN: Duration = Duration::from_secs(180);

/// The test key's seed file (owner-only).
pub(crate) fn key_file() -> ScratchFile {
    let key = ScratchFile::new("mcp-stdio", "seed");
    std::fs::write(&key, SEED_B64).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    key
}

/// A loopback seller answering a POPULATED 402 (fresh memo each time) that carries the canary
/// in its body, in its PAYMENT-REQUIRED header and in a header of its own.
fn seller() -> StandIn {
    StandIn::replying_with(|origin| {
        let served = format!("{origin}/seller");
        move |_: &Recorded| {
            let memo = format!("pvm_{}", crate::support::world::unique_suffix());
            let offer = json!({"scheme": "exact", "network": "solana", "amount": "10000",
                "maxAmountRequired": "10000", "resource": served, "payTo": "Seller1",
                "description": CANARY, "extra": {"usdc_token_account": "Ata1", "memo": memo}});
            let header = json!({"x402Version": 2, "resource": {"url": served, "description": CANARY},
                "accepts": [{"scheme": "exact", "amount": "10000", "payTo": "Seller1",
                "extra": {"memo": memo}}]});
            let body = json!({"x402Version": 1, "error": CANARY, "accepts": [offer]});
            Reply::status(402)
                .header("payment-required", STANDARD.encode(header.to_string()))
                .header("x-seller-note", CANARY)
                .body(body.to_string())
        }
    })
}

/// The descriptors of a criteria document's `signing_keys`.
pub(crate) fn keys_of(criteria: &Value) -> Vec<PublicKeyDescriptor> {
    let keys = criteria["signing_keys"].as_array().cloned().unwrap_or_default();
    keys.into_iter().map(|key| serde_json::from_value(key).unwrap()).collect()
}

/// The server the SDK client starts.
pub(crate) enum Server<'a> {
    /// This test build's `payability mcp --allow-private`.
    ThisBinary,
    /// The one an unpacked MCP bundle's `manifest.json` (this path) names.
    Manifest(&'a Path),
}

/// One run of the SDK client: its JSON line and what the server wrote on stderr.
pub(crate) fn client_run(
    server: &Server,
    python: &str,
    sdk: &str,
    mode: &str,
    target: &str,
    key: &Path,
) -> (Value, String) {
    let (_, dir) = fixtures();
    let scratch = ScratchDir::new("mcp-stdio");
    let stderr_file = scratch.join("server-stderr.txt");
    let mut command = Command::new(python);
    command.arg(format!("{dir}/mcp_stdio_client.py"));
    match server {
        Server::ThisBinary => command.args(["--binary", env!("CARGO_BIN_EXE_payability")]),
        Server::Manifest(manifest) => command.arg("--manifest").arg(manifest),
    };
    command
        .args(["--target", target])
        .arg("--server-stderr")
        .arg(&stderr_file)
        .args(["--sdk", sdk, "--mode", mode])
        .env("PAYABILITY_SIGNING_KEY_FILE", key);
    let ran = run_bounded(command, CLIENT_WITHIN);
    let line = ran.last_json().unwrap_or_else(|| panic!("the client printed no JSON line: {ran}"));
    assert_eq!(line["error"], Value::Null, "the SDK client ran: {ran}");
    let stderr = std::fs::read_to_string(&stderr_file).unwrap_or_default();
    (line, stderr)
}

/// The rules the hostile calls are answered with, by call: a closed-form tool error's rule,
/// or the JSON-RPC error code.
const HOSTILE: [(&str, Result<&str, i64>); 6] = [
    ("url_not_a_string", Ok("body_wrong_shape")),
    ("unknown_field", Ok("body_wrong_shape")),
    ("bad_op", Ok("op_unknown")),
    ("huge_url", Ok("url_too_long")),
    ("payment", Ok("local_takes_no_payment")),
    ("unknown_tool", Err(-32602)),
];

/// (SDK python variable, SDK, mode, the revision the client ends up speaking) for each client.
#[test]
fn the_official_sdks_stdio_clients_get_verified_reports_and_closed_form_refusals() {
    let vectors: [(&str, &str, &str, &str); 4] = [
        ("PAYABILITY_TEST_X402_PYTHON", "1", "auto", "2025-11-25"),
        ("PAYABILITY_TEST_MCP2_PYTHON", "2", "auto", "2026-07-28"),
        ("PAYABILITY_TEST_MCP2_PYTHON", "2", "2026-07-28", "2026-07-28"),
        ("PAYABILITY_TEST_MCP2_PYTHON", "2", "legacy", "2025-11-25"),
    ];
    let (seller, key) = (seller(), key_file());
    let target = seller.url("/seller");
    for (runs, (python_var, sdk, mode, revision)) in (1..).zip(vectors) {
        let python = std::env::var(python_var).expect("scripts/test exports the SDKs' pythons");
        let (run, stderr) =
            client_run(&Server::ThisBinary, &python, sdk, mode, &target, key.as_ref());
        let said = format!("sdk {sdk} {mode}: {run}");
        assert_eq!(run["protocol_version"], revision, "{said}");
        assert_eq!(run["tools"], json!(names(Offer::Local)), "{said}");
        let criteria = &run["criteria"]["structuredContent"];
        let keys = keys_of(criteria);
        assert_eq!(keys.len(), 1, "the local key is published: {said}");
        let precheck = &run["precheck"];
        assert_eq!(precheck["isError"], false, "{said}");
        assert_eq!(precheck["structuredContent"]["in_policy"], true, "{said}");
        assert!(verify_signed(&precheck["structuredContent"], &keys).is_ok(), "{said}");
        let check = &run["check"];
        assert_eq!(check["isError"], false, "{said}");
        let report = &check["structuredContent"];
        assert_eq!((&report["op"], &report["state"]), (&json!("check"), &json!("POPULATED")));
        assert_eq!(report["url"], target, "{said}");
        assert!(verify_signed(report, &keys).is_ok(), "{said}");
        assert_eq!(third_party_verify_against(report, criteria), (true, keys[0].key_id.clone()));
        let text: Value =
            serde_json::from_str(check["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, report, "the text item is the structured content: {said}");
        let hostile = run["hostile"].as_array().unwrap();
        assert_eq!(hostile.len(), HOSTILE.len(), "{said}");
        for (answer, (call, expected)) in hostile.iter().zip(HOSTILE) {
            assert_eq!(answer["call"], call, "{said}");
            match expected {
                Ok(rule) => {
                    assert_eq!(answer["result"]["isError"], true, "{call}: {answer}");
                    let error = &answer["result"]["structuredContent"]["error"];
                    assert_eq!(error["rule"], rule, "{call}: {answer}");
                }
                Err(code) => assert_eq!(answer["error_code"], code, "{call}: {answer}"),
            }
            assert!(!answer.to_string().contains(ARGUMENT_CANARY), "{call} echoed: {answer}");
        }
        assert!(!stderr.contains(CANARY), "the seller's canary reached stderr: {stderr}");
        assert_eq!(stderr, "", "nothing on stderr with an existing key: {said}");
        assert_eq!(seller.accepted(), runs, "one fetch a run (check): {said}");
    }
}

/// Sends `lines` (each followed by a newline) to `payability mcp ARGS`, closes its stdin and
/// returns its answers (one JSON value a line), its stderr and its exit code.
fn exchange(args: &[&str], lines: &[Vec<u8>], key: &Path) -> (Vec<Value>, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_payability"))
        .arg("mcp")
        .args(args)
        .env("PAYABILITY_SIGNING_KEY_FILE", key)
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines.to_vec();
    let writer = std::thread::spawn(move || {
        for line in lines {
            if stdin.write_all(&line).and_then(|()| stdin.write_all(b"\n")).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut bytes = String::new();
        let _ = stderr.read_to_string(&mut bytes);
        bytes
    });
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    let answers = stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    (answers, stderr.join().unwrap(), status.code())
}

/// A request line.
fn request(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string().into_bytes()
}

/// A 2026-07-28 request's `_meta`, beside `params`.
fn stateless(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    params
}

/// What an answer must be: its id and a check of it.
type Expected = (Value, fn(&Value) -> bool);

#[test]
fn raw_lines_are_bounded_answered_in_order_and_the_server_ends_at_end_of_input() {
    let (seller, key) = (seller(), key_file());
    let target = seller.url("/seller");
    let mut overlong = vec![b'x'; 262_145];
    overlong.extend_from_slice(CANARY.as_bytes());
    let check = |id, params| request(id, "tools/call", params);
    // (the line, the answer expected: None for a notification or a blank line).
    let vectors: Vec<(Vec<u8>, Option<Expected>)> = vec![
        (overlong, Some((Value::Null, |a| a["error"]["code"] == -32600))),
        (b"{not json".to_vec(), Some((Value::Null, |a| a["error"]["code"] == -32700))),
        (b"   ".to_vec(), None),
        (br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(), None),
        (
            request(1, "initialize", json!({"protocolVersion": "2025-06-18"})),
            Some((json!(1), |a| a["result"]["protocolVersion"] == "2025-06-18")),
        ),
        (request(2, "ping", json!({})), Some((json!(2), |a| a["result"] == json!({})))),
        (
            request(3, "server/discover", stateless(json!({}))),
            Some((json!(3), |a| a["result"]["supportedVersions"][0] == "2026-07-28")),
        ),
        (
            check(4, stateless(json!({"name": "check", "arguments": {"url": target}}))),
            Some((json!(4), |a| {
                let result = &a["result"];
                result["structuredContent"]["state"] == "POPULATED"
                    && (&result["resultType"], &result["cacheScope"], &result["ttlMs"])
                        == (&json!("complete"), &json!("private"), &json!(0))
            })),
        ),
        (
            check(5, json!({"name": "criteria"})),
            Some((json!(5), |a| {
                a["result"].get("resultType").is_none()
                    && a["result"]["structuredContent"]["signing_keys"].is_array()
            })),
        ),
        (
            check(6, json!({"name": "memo", "arguments": {"url": target}})),
            Some((json!(6), |a| a["result"]["structuredContent"]["state"] == "BOUND")),
        ),
        (
            check(7, json!({"name": "check", "arguments": "CANARY-ARG"})),
            Some((json!(7), |a| {
                a["error"]["code"] == -32602 && !a.to_string().contains(ARGUMENT_CANARY)
            })),
        ),
        (
            request(8, "ping", stateless(json!({}))),
            Some((json!(8), |a| a["error"]["code"] == -32601)),
        ),
        (
            request(
                9,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            ),
            Some((json!(9), |a| a["error"]["code"] == -32602)),
        ),
    ];
    let lines: Vec<Vec<u8>> = vectors.iter().map(|(line, _)| line.clone()).collect();
    let (answers, stderr, status) = exchange(&["--allow-private"], &lines, key.as_ref());
    let expected: Vec<&Expected> = vectors.iter().filter_map(|(_, e)| e.as_ref()).collect();
    assert_eq!(
        answers.len(),
        expected.len(),
        "one answer a request, none for the rest: {answers:#?}"
    );
    for (answer, (id, holds)) in answers.iter().zip(expected) {
        assert_eq!(&answer["id"], id, "in order: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert!(holds(answer), "{answer}");
    }
    assert_eq!(status, Some(0), "the server ends cleanly at end of input: {stderr}");
    assert!(!stderr.contains(CANARY), "the canary reached stderr: {stderr}");
    assert_eq!(seller.accepted(), 3, "three fetches: the check's one, the memo's two");
}

#[test]
fn without_allow_private_a_loopback_target_is_refused_and_not_fetched() {
    let (seller, key) = (seller(), key_file());
    let target = seller.url("/seller");
    let lines = [
        request(1, "tools/call", json!({"name": "check", "arguments": {"url": target}})),
        request(2, "tools/call", json!({"name": "precheck", "arguments": {"url": target}})),
    ];
    let (answers, stderr, status) = exchange(&[], &lines, key.as_ref());
    let refused = &answers[0]["result"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["error"]["rule"], "address_not_public", "{refused}");
    let precheck = &answers[1]["result"]["structuredContent"];
    assert_eq!((&precheck["in_policy"], &precheck["url"]), (&json!(false), &Value::Null));
    assert_eq!(precheck["refusal"]["rule"], "address_not_public", "{precheck}");
    assert_eq!((status, stderr.as_str()), (Some(0), ""));
    assert_eq!(seller.accepted(), 0, "nothing fetched");
}

#[test]
fn the_doctor_tool_runs_the_check_list_free_and_takes_no_payment() {
    let (seller, key) = (seller(), key_file());
    let target = seller.url("/seller");
    let doctor = |arguments: Value| json!({"name": "doctor", "arguments": arguments});
    let mut paid = doctor(json!({"url": target}));
    paid["_meta"] = json!({"x402/payment": {"x402Version": 2}});
    let lines = [
        request(1, "tools/list", json!({})),
        request(2, "tools/call", doctor(json!({"url": target}))),
        request(3, "tools/call", stateless(doctor(json!({"url": target})))),
        request(4, "tools/call", paid),
        request(5, "tools/call", doctor(json!({"url": target, "SECRET": 1}))),
    ];
    let (answers, stderr, status) = exchange(&["--allow-private"], &lines, key.as_ref());
    let listed: Vec<&str> = answers[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, names(Offer::Local));
    for answer in &answers[1..3] {
        let result = &answer["result"];
        assert_eq!(result["isError"], false, "{result}");
        let findings = &result["structuredContent"];
        assert_eq!((&findings["list"], &findings["url"]), (&json!("doctor/v1"), &json!(target)));
        assert_eq!(findings["checks"].as_array().unwrap().len(), 35, "{findings}");
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, findings, "the same bytes in content[0].text");
    }
    assert_eq!(answers[2]["result"]["resultType"], "complete");
    let rules: Vec<&Value> =
        answers[3..].iter().map(|a| &a["result"]["structuredContent"]["error"]["rule"]).collect();
    assert_eq!(rules, [&json!("local_takes_no_payment"), &json!("body_wrong_shape")]);
    assert!(!answers[4].to_string().contains("SECRET"), "nothing received echoed");
    assert_eq!((status, stderr.as_str()), (Some(0), ""));
    // The doctor's GET and preflight, for each of the two calls; nothing for the others.
    assert_eq!(seller.accepted(), 4);
}
