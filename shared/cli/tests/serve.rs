//! `payability serve` end to end, without a facilitator: every free route's closed-form
//! answers, house checks, signed pre-checks, "do not pay" when payments are not configured,
//! logs that never carry a submitted URL or anything fetched, and `payability check` and `memo`
//! of our own offers (every GET names its own URL: POPULATED and BOUND).

use crate::support;

use std::io::Write;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::{ReportSigner, verify_signed};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};
use support::{HOUSE_TOKEN, Server, trusted};

const CANARY: &str = "CANARY3s8u";

/// A loopback seller answering every request with a 402 whose values carry the canary.
fn canary_seller() -> StandIn {
    StandIn::replying_with(|origin| {
        let served = format!("{origin}/paid");
        move |_: &Recorded| {
            let body = json!({"accepts": [{"payTo": CANARY, "amount": "10000", "resource": served,
                "extra": {"memo": CANARY, "usdc_token_account": CANARY}, "description": CANARY}]});
            Reply::status(402).body(body.to_string())
        }
    })
}

#[test]
fn free_routes_answer_closed_form_and_paid_routes_say_do_not_pay_without_a_facilitator() {
    let server = Server::start(&[]);
    let big = vec![b'x'; 262_145];
    let cases: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        ("POST", "/check", big, 413, "body_too_large"),
        ("POST", "/check", b"{not json".to_vec(), 400, "body_not_json"),
        ("POST", "/check", br#"{"url": 5}"#.to_vec(), 400, "body_wrong_shape"),
        (
            "POST",
            "/check",
            br#"{"url": "https://a.example/", "extra": 1}"#.to_vec(),
            400,
            "body_wrong_shape",
        ),
        ("POST", "/check", br#"{"url": "ftp://a.example/"}"#.to_vec(), 400, "scheme_not_http"),
        (
            "POST",
            "/memo",
            br#"{"url": "https://u:p@a.example/"}"#.to_vec(),
            400,
            "credentials_in_url",
        ),
        (
            "POST",
            "/check",
            br#"{"url": "https://seller.example/x"}"#.to_vec(),
            503,
            "payments_unavailable",
        ),
        ("GET", "/check", Vec::new(), 503, "payments_unavailable"),
        ("POST", "/somewhere-else", b"{}".to_vec(), 404, "not_covered"),
        ("DELETE", "/check", Vec::new(), 405, "method_not_allowed"),
        ("GET", "/criteria/extra", Vec::new(), 404, "not_found"),
        (
            "POST",
            "/precheck",
            br#"{"url": "https://a.example/", "op": "both"}"#.to_vec(),
            400,
            "op_unknown",
        ),
        (
            "POST",
            "/precheck",
            br#"{"url": "https://a.example/", "caller": "not a wallet"}"#.to_vec(),
            400,
            "caller_not_a_wallet",
        ),
    ];
    for (method, path, body, status, rule) in cases {
        let (got, _, bytes) = server.request(method, path, &[], &body);
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            (got, answer["error"]["rule"].as_str()),
            (status, Some(rule)),
            "{method} {path}"
        );
    }
    let (status, metrics) = server.json("GET", "/metrics", &[], &Value::Null);
    assert_eq!(status, 200);
    assert_eq!(metrics["window_days"], 30);
    server.stop();
}

#[test]
fn a_precheck_is_signed_and_metered_and_never_fetches() {
    let server = Server::start(&[]);
    let keys = trusted(&server);
    let body = json!({"url": "https://seller.example/x", "op": "memo"});
    let (status, answer) = server.json("POST", "/precheck", &[], &body);
    assert_eq!(status, 200, "{answer}");
    assert!(verify_signed(&answer, &keys).is_ok());
    assert_eq!((answer["in_policy"].clone(), answer["op"].clone()), (json!(true), json!("memo")));
    assert!(answer.get("state").is_none() && answer.get("factors").is_none());
    // Every unsigned pre-check spends its source's allowance (5,000 ms apart): this one comes
    // from the same loopback source, so it waits out the interval.
    std::thread::sleep(std::time::Duration::from_millis(5_100));
    let refused = json!({"url": "ftp://seller.example/"});
    let (_, answer) = server.json("POST", "/precheck", &[], &refused);
    assert_eq!(
        (answer["in_policy"].clone(), answer["refusal"]["rule"].clone()),
        (json!(false), json!("scheme_not_http"))
    );
    // The same source again within 5,000 ms: the allowance answers (no payments: 503).
    let (status, again) = server.json("POST", "/precheck", &[], &body);
    assert_eq!((status, again["error"]["rule"].as_str()), (503, Some("payments_unavailable")));
    server.stop();
}

/// The buyer of the signed pre-checks (a throwaway key).
const SIGNER_SEED_HEX: &str = "0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e";

/// The official Python SDK (buyer.py's SDK mode) with its sign-in-with-x client extension
/// pre-checking `url` for its own wallet (`caller`); returns its JSON line.
fn signed_precheck(server: &Server, url: &str) -> Value {
    let (python, dir) = support::world::fixtures();
    let mut command = std::process::Command::new(python);
    command.arg(format!("{dir}/buyer.py")).args([
        "--url",
        &format!("{}/precheck", server.base),
        "--target",
        url,
        "--caller-self",
        "--siwx",
        "--keypair-seed-hex",
        SIGNER_SEED_HEX,
        "--rpc",
        &format!("http://127.0.0.1:{}", closed_port()),
    ]);
    let ran = support::world::run_bounded(command, std::time::Duration::from_secs(60));
    ran.last_json().unwrap_or_else(|| panic!("buyer.py printed no JSON line: {ran}"))
}

#[test]
fn the_official_clients_signed_precheck_is_answered_while_a_stranger_keeps_naming_its_wallet() {
    let server = Server::start(&[]);
    let keys = trusted(&server);
    let url = "https://seller.example/x";
    let first = signed_precheck(&server, url);
    assert_eq!((first["status"].as_u64(), first["signed_in"].as_bool()), (Some(200), Some(true)));
    assert!(first["payment_header"].is_null(), "a pre-check pays nothing: {first}");
    assert!(verify_signed(&first["body"], &keys).is_ok(), "{first}");
    let wallet = first["payer"].as_str().expect("the buyer's wallet").to_owned();
    // A stranger naming the wallet spends nothing of it: the sign-in challenge, every time.
    for _ in 0..5 {
        let named = json!({"url": url, "caller": wallet});
        let (status, answer) = server.json("POST", "/precheck", &[], &named);
        assert_eq!(status, 402, "{answer}");
        assert!(answer["error"].as_str().unwrap().starts_with("sign_in_as_caller: "), "{answer}");
        assert_eq!(answer["accepts"], json!([]), "no payment offered: {answer}");
    }
    // The wallet's own interval: within 5,000 ms of its last, its allowance answers (503
    // here: no payments); after it, the signed pre-check is answered again.
    let soon = signed_precheck(&server, url);
    assert_eq!(soon["status"], 503, "{soon}");
    std::thread::sleep(std::time::Duration::from_millis(5_100));
    let later = signed_precheck(&server, url);
    assert_eq!((later["status"].as_u64(), later["signed_in"].as_bool()), (Some(200), Some(true)));
    server.stop();
}

#[test]
fn a_house_check_is_signed_and_nothing_fetched_reaches_the_log() {
    let server = Server::start(&[]);
    let keys = trusted(&server);
    let seller = canary_seller();
    let target = seller.url("/paid");
    let auth = format!("Bearer {HOUSE_TOKEN}");
    for path in ["/check", "/memo"] {
        let (status, report) =
            server.json("POST", path, &[("Authorization", &auth)], &json!({"url": target}));
        assert_eq!(status, 200, "{report}");
        assert_eq!(report["house"], true);
        assert!(verify_signed(&report, &keys).is_ok());
        assert!(!report.to_string().contains(CANARY));
    }
    let (status, wrong) =
        server.json("POST", "/check", &[("Authorization", "Bearer nope")], &json!({"url": target}));
    assert_eq!((status, wrong["error"]["rule"].as_str()), (503, Some("payments_unavailable")));
    let (_, metrics) = server.json("GET", "/metrics", &[], &Value::Null);
    assert_eq!(metrics["today"]["house_check"], 1);
    assert_eq!(
        metrics["tripwires"]["free_use_over_10x_paid_use"]["paid"], 0,
        "house checks are not paid use"
    );
    let log = server.stop();
    assert!(log.contains("\"route\":\"check\""), "the log has request lines: {log}");
    assert!(!log.contains(CANARY) && !log.contains("/paid") && !log.contains(HOUSE_TOKEN), "{log}");
}

#[test]
fn criteria_publish_the_pinned_key_and_the_retired_keys_with_their_windows() {
    let dir = ScratchDir::new("keys");
    let seed_file = dir.join("seed");
    std::fs::write(&seed_file, STANDARD.encode([3u8; 32])).unwrap();
    let current = ReportSigner::from_seed(&[3; 32]).descriptor().clone();
    let retired = ReportSigner::from_seed(&[4; 32]).descriptor().clone();
    let previous = json!([{
        "publicKey": retired.jwk.x,
        "validFrom": "2026-01-01T00:00:00.000Z",
        "validUntil": "2026-11-01T00:00:00.000Z",
    }])
    .to_string();
    let server = Server::start(&[
        ("PAYABILITY_SIGNING_KEY_FILE", seed_file.to_str().unwrap()),
        ("PAYABILITY_SIGNING_PUBLIC_KEY", &current.jwk.x),
        ("PAYABILITY_SIGNING_KEY_VALID_FROM", "2026-11-01T00:00:00.000Z"),
        ("PAYABILITY_PREVIOUS_SIGNING_KEYS", &previous),
    ]);
    let (status, criteria) = server.json("GET", "/criteria", &[], &Value::Null);
    assert_eq!(status, 200);
    let keys = &criteria["signing_keys"];
    assert_eq!(keys[0]["keyId"], current.key_id.as_str());
    assert_eq!(keys[0]["valid_from"], "2026-11-01T00:00:00.000Z");
    assert_eq!(keys[0]["valid_until"], Value::Null);
    assert_eq!(keys[1]["keyId"], retired.key_id.as_str());
    assert_eq!(keys[1]["fingerprint"], retired.fingerprint.as_str());
    assert_eq!(keys[1]["valid_from"], "2026-01-01T00:00:00.000Z");
    assert_eq!(keys[1]["valid_until"], "2026-11-01T00:00:00.000Z");
    assert_eq!(keys.as_array().map(Vec::len), Some(2));
    server.stop();

    // A seed that is not the pinned key never signs: the server does not start.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(["serve", "--port", "0"])
        .env_clear()
        .env("XDG_DATA_HOME", dir.path())
        .env("PAYABILITY_OPERATOR_WALLET", support::WALLET)
        .env("PAYABILITY_SIGNING_KEY_FILE", &seed_file)
        .env("PAYABILITY_SIGNING_PUBLIC_KEY", &retired.jwk.x)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("PAYABILITY_SIGNING_PUBLIC_KEY is not the signing seed's"), "{stderr}");
}

#[test]
fn a_missing_or_bad_setting_stops_the_server_with_one_line_naming_it() {
    let vectors = [
        (vec![], "PAYABILITY_OPERATOR_WALLET is not set"),
        (
            vec![("PAYABILITY_OPERATOR_WALLET", "not-a-wallet")],
            "PAYABILITY_OPERATOR_WALLET is not a base58",
        ),
        (
            vec![
                ("PAYABILITY_OPERATOR_WALLET", support::WALLET),
                ("PAYABILITY_FACILITATOR_URL", "ftp://x"),
            ],
            "PAYABILITY_FACILITATOR_URL is not an http(s) URL",
        ),
        (
            vec![("PAYABILITY_OPERATOR_WALLET", support::WALLET), ("PAYABILITY_STORE", "dynamodb")],
            "PAYABILITY_TABLE_",
        ),
        (
            vec![
                ("PAYABILITY_OPERATOR_WALLET", support::WALLET),
                ("PAYABILITY_SIGNING_PUBLIC_KEY", "not-a-key"),
            ],
            "PAYABILITY_SIGNING_PUBLIC_KEY is not a base64url Ed25519 key",
        ),
        (
            vec![
                ("PAYABILITY_OPERATOR_WALLET", support::WALLET),
                ("PAYABILITY_PREVIOUS_SIGNING_KEYS", "{}"),
            ],
            "PAYABILITY_PREVIOUS_SIGNING_KEYS is not a JSON array",
        ),
    ];
    let dir = ScratchDir::new("config");
    for (env, said) in vectors {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_payability"))
            .args(["serve", "--port", "0"])
            .env_clear()
            .env("XDG_DATA_HOME", dir.path())
            .envs(env)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("configuration: ") && last.contains(said), "{stderr}");
    }
}

#[test]
fn a_client_that_leaves_mid_request_does_not_stop_the_check_half_way() {
    let server = Server::start(&[]);
    let (fetched, answered) = std::sync::mpsc::channel();
    let fetched = std::sync::Mutex::new(fetched);
    let slow = StandIn::start(Arc::new(move |_| {
        let _ = fetched.lock().unwrap().send(());
        Box::pin(async {
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            Reply::status(402).body("{}")
        })
    }));
    let seller = slow.url("/slow");
    let body = json!({"url": seller}).to_string();
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut client = std::net::TcpStream::connect(&address).unwrap();
    let request = format!(
        "POST /check HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {HOUSE_TOKEN}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    client.write_all(request.as_bytes()).unwrap();
    answered.recv_timeout(std::time::Duration::from_secs(10)).expect("the seller was fetched");
    drop(client);
    // The check runs to its end after the client left: its ledger entry and its log line.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = payability_runtime::store::sqlite::SqliteStore::open(&server.store_path()).unwrap();
    let day = payability_runtime::store::UtcDay::of(payability_runtime::clock::now()).unwrap();
    let house_checks = || {
        use payability_runtime::store::Metrics;
        let days = runtime.block_on(store.days(&day, &day)).unwrap();
        days.first().and_then(|d| d.counts.get("house_check").copied()).unwrap_or(0)
    };
    while house_checks() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(house_checks(), 1, "the check was recorded after its client left");
    // Its log line is written when the request ends, a little after the record.
    let logged_its_end = || {
        let log = server.logged();
        log.lines().any(|l| l.contains("\"route\":\"check\"") && l.contains("\"status\":200"))
    };
    while !logged_its_end() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(logged_its_end(), "the request logged its end: {}", server.logged());
}

/// The stderr lines of a `payability serve` started with `env` on top of the test defaults,
/// up to its "serving on" line (or its exit), then stopped.
fn startup_lines(data: &std::path::Path, env: &[(&str, &std::ffi::OsStr)]) -> Vec<String> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(["serve", "--port", "0"])
        .env_clear()
        .env("PAYABILITY_OPERATOR_WALLET", support::WALLET)
        .env("PAYABILITY_STORE", data.join("store.sqlite3"))
        .env("XDG_DATA_HOME", data)
        .envs(env.iter().copied())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    for line in std::io::BufReader::new(child.stderr.take().unwrap()).lines().take(10) {
        let line = line.unwrap();
        let started = line.starts_with("payability: serving on ");
        lines.push(line);
        if started {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lines
}

#[test]
fn a_seventy_kilobyte_method_is_logged_cut_to_sixteen_bytes() {
    let server = Server::start(&[]);
    let method = "A".repeat(70_000);
    let (status, _, bytes) = server.request(&method, "/criteria", &[], b"");
    let answer: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!((status, answer["error"]["rule"].as_str()), (405, Some("method_not_allowed")));
    let log = server.stop();
    let line = log.lines().find(|l| l.contains("\"route\":\"criteria\"")).expect("a log line");
    assert!(line.contains(&format!("\"method\":\"{}\"", "A".repeat(16))), "{line}");
    assert!(!line.contains(&"A".repeat(17)), "{line}");
    assert!(log.lines().all(|l| l.len() < 1_024), "every log line is short");
}

#[test]
fn the_bearer_scheme_is_accepted_in_any_case_and_nothing_else_is() {
    let server = Server::start(&[]);
    let seller = canary_seller();
    let target = seller.url("/paid");
    let accepted = [
        format!("bearer {HOUSE_TOKEN}"),
        format!("BEARER {HOUSE_TOKEN}"),
        format!("BeArEr  {HOUSE_TOKEN}"),
    ];
    for auth in &accepted {
        let (status, report) =
            server.json("POST", "/check", &[("Authorization", auth)], &json!({"url": target}));
        assert_eq!((status, report["house"].as_bool()), (200, Some(true)), "{auth}: {report}");
    }
    let refused = [
        format!("Bearer{HOUSE_TOKEN}"),
        format!("Bearerx {HOUSE_TOKEN}"),
        format!("Basic {HOUSE_TOKEN}"),
        format!("bearer {HOUSE_TOKEN}x"),
        format!("bearer {}", &HOUSE_TOKEN[1..]),
        HOUSE_TOKEN.to_owned(),
        "bearer".to_owned(),
    ];
    for auth in &refused {
        let (status, answer) =
            server.json("POST", "/check", &[("Authorization", auth)], &json!({"url": target}));
        assert_eq!(
            (status, answer["error"]["rule"].as_str()),
            (503, Some("payments_unavailable")),
            "{auth}"
        );
    }
    server.stop();
}

#[test]
fn a_generated_signing_key_is_0600_in_a_0700_directory() {
    use std::os::unix::fs::PermissionsExt;
    let data = ScratchDir::new("generated-key");
    let first = startup_lines(data.path(), &[]);
    assert!(first.iter().any(|l| l.contains("generated a new signing key")), "{first:?}");
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data.join("payability")), 0o700);
    assert_eq!(mode(&data.join("payability/signing-key")), 0o600);
    // Started again, the key is found and nothing is said about it.
    let lines = startup_lines(data.path(), &[]);
    assert!(lines.last().is_some_and(|l| l.starts_with("payability: serving on ")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("signing key")), "{lines:?}");
}

#[test]
fn a_seed_file_others_can_read_is_used_with_one_warning_line_naming_the_setting() {
    use std::os::unix::fs::PermissionsExt;
    let dir = ScratchDir::new("exposed");
    let seed_file = dir.join("seed");
    std::fs::write(&seed_file, STANDARD.encode([5u8; 32])).unwrap();
    let env = [("PAYABILITY_SIGNING_KEY_FILE", seed_file.as_os_str())];
    for (mode, warned) in
        [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)]
    {
        std::fs::set_permissions(&seed_file, std::fs::Permissions::from_mode(mode)).unwrap();
        let lines = startup_lines(dir.path(), &env);
        assert!(
            lines.last().is_some_and(|l| l.starts_with("payability: serving on ")),
            "{lines:?}"
        );
        let warnings: Vec<&String> = lines.iter().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), usize::from(warned), "{mode:o}: {lines:?}");
        if let Some(warning) = warnings.first() {
            assert!(warning.contains("PAYABILITY_SIGNING_KEY_FILE"), "{warning}");
            assert!(warning.contains(&format!("readable by group or others (mode {mode:04o})")));
            assert!(!warning.contains(&STANDARD.encode([5u8; 32])), "never the seed");
        }
    }
    // The generated default key, loosened by hand, is warned about under its own name.
    let data = dir.join("data");
    let _ = startup_lines(&data, &[]);
    let key = data.join("payability/signing-key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let lines = startup_lines(&data, &[]);
    let warnings: Vec<&String> = lines.iter().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{lines:?}");
    assert!(warnings[0].contains("the default signing key file"), "{lines:?}");
}

#[test]
fn payability_check_of_our_own_offers_grades_populated_and_memo_bound() {
    // A facilitator that cannot be reached: the configured fee payer is advertised.
    let facilitator = format!("http://127.0.0.1:{}", closed_port());
    let server = Server::start(&[
        ("PAYABILITY_FACILITATOR_URL", &facilitator),
        ("PAYABILITY_FEE_PAYER", "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1"),
    ]);
    let data = ScratchDir::new("own-offer");
    let seller = "url=https%3A%2F%2Fseller.example%2Fx";
    // (op, our URL as a buyer submits it, state)
    let vectors = [
        ("check", format!("/check?{seller}"), "POPULATED"),
        ("check", format!("/memo?{seller}"), "POPULATED"),
        ("check", format!("/toll/payability/check?{seller}"), "POPULATED"),
        ("check", "/check?url=https://seller.example/x&q='a'".to_owned(), "POPULATED"),
        ("check", "/check".to_owned(), "POPULATED"),
        ("memo", format!("/memo?{seller}"), "BOUND"),
        ("memo", format!("/check?{seller}"), "BOUND"),
    ];
    for (op, path, state) in vectors {
        let url = format!("{}{path}", server.base);
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_payability"))
            .args([op, &url])
            .env_clear()
            .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
            .env("XDG_DATA_HOME", data.path())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        let at = format!("payability {op} {url}");
        assert_eq!(
            report["state"],
            state,
            "{at}: {report} {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    server.stop();
}

/// Every refusal's log line names its rule, over HTTP and over MCP alike: an MCP tool result
/// also names the route and status it stands for (the MCP answer itself is 200), so an
/// operator reading the logs sees a refused MCP payment as what it was. Answers that record no
/// rule log none. (Without a facilitator a paid tool is refused `payments_unavailable`.)
#[test]
fn a_refusal_is_logged_by_its_rule_over_http_and_over_mcp() {
    let server = Server::start(&[]);
    let tool_call = |tool: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
    };
    let fragment = json!({"url": "https://seller.example/x#top"});
    let paid = json!({"url": "https://seller.example/x"});
    // (path, body, HTTP status, tool_route, tool_status, rule); the line's route is the path's.
    type Case = (&'static str, Value, u16, Option<&'static str>, Option<u64>, Option<&'static str>);
    let cases: Vec<Case> = vec![
        ("/check", fragment.clone(), 400, None, None, Some("fragment_in_url")),
        (
            "/mcp",
            tool_call("memo", fragment),
            200,
            Some("memo"),
            Some(400),
            Some("fragment_in_url"),
        ),
        (
            "/mcp",
            tool_call("check", paid),
            200,
            Some("check"),
            Some(503),
            Some("payments_unavailable"),
        ),
        ("/mcp", json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), 200, None, None, None),
    ];
    for (path, body, status, ..) in &cases {
        let (answered, answer) = server.json("POST", path, &[], body);
        assert_eq!(answered, *status, "{path} {body}: {answer}");
    }
    let log = server.stop();
    let lines: Vec<Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["fields"]["message"] == "request")
        .map(|line| line["fields"].clone())
        .collect();
    assert_eq!(lines.len(), cases.len(), "one line per request: {log}");
    for ((path, body, status, tool_route, tool_status, rule), line) in cases.iter().zip(&lines) {
        let read = (
            line["route"].as_str(),
            line["status"].as_u64(),
            line["tool_route"].as_str(),
            line["tool_status"].as_u64(),
            line["rule"].as_str(),
        );
        let expected =
            (Some(&path[1..]), Some(u64::from(*status)), *tool_route, *tool_status, *rule);
        assert_eq!(read, expected, "{path} {body}: {line}");
    }
}
