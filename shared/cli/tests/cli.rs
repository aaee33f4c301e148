//! End-to-end runs of the `payability` command against real loopback targets: every state of
//! both ops, policy refusals, custody of stdout and stderr, and signature verification.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::{PublicKeyDescriptor, ReportSigner, verify_signed};
use serde_json::{Value, json};

const SEED_B64: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="; // 32 bytes of 7

/// A fresh scratch directory for one test.
fn scratch_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("payability-cli-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn key_file() -> PathBuf {
    let path = scratch_dir().join("seed");
    std::fs::write(&path, SEED_B64).unwrap();
    path
}

/// One scripted HTTP response: status, optional PAYMENT-REQUIRED value, body.
struct Response {
    status: u16,
    header: Option<String>,
    body: String,
}

/// A loopback target that answers one scripted response per connection, then stops; the
/// script sees the target's own URL.
fn serve(script: impl FnOnce(&str) -> Vec<Response>) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/paid", listener.local_addr().unwrap().port());
    let responses = script(&url);
    let handle = std::thread::spawn(move || {
        for response in responses {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = stream.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
            }
            let header = response.header.map(|h| format!("PAYMENT-REQUIRED: {h}\r\n"));
            let head = format!(
                "HTTP/1.1 {} X\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n",
                response.status,
                header.unwrap_or_default(),
                response.body.len()
            );
            stream.write_all(head.as_bytes()).unwrap();
            stream.write_all(response.body.as_bytes()).unwrap();
        }
    });
    (url, handle)
}

/// The v1 body offer and v2 header of a challenge; `edit` changes them before encoding.
fn challenge(url: &str, memo: &str, edit: impl Fn(&mut Value, &mut Value)) -> Response {
    let mut body = json!({"x402Version": 1, "accepts": [{
        "scheme": "exact", "network": "solana", "amount": "10000", "maxAmountRequired": "10000",
        "resource": url, "description": "weather", "payTo": "Wallet1",
        "extra": {"feePayer": "Fee1", "usdc_token_account": "Ata1", "memo": memo}}]});
    let mut header = json!({"x402Version": 2, "resource": {"url": url}, "accepts": [{
        "scheme": "exact", "amount": "10000", "payTo": "Wallet1", "extra": {"memo": memo}}]});
    edit(&mut body, &mut header);
    let header = (!header.is_null()).then(|| STANDARD.encode(header.to_string()));
    Response { status: 402, header, body: body.to_string() }
}

fn payability(args: &[&str], key: &PathBuf) -> Output {
    Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(args)
        .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
        .env("PAYABILITY_SIGNING_KEY_FILE", key)
        .output()
        .unwrap()
}

fn report_of(output: &Output) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A loopback URL where nothing listens (the port was bound, then released).
fn refused_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}/paid", listener.local_addr().unwrap().port())
}

type Edit = fn(&mut Value, &mut Value);

/// A target's script: the responses it answers, given its own URL.
type Script = Box<dyn FnOnce(&str) -> Vec<Response>>;

fn no_edit(_: &mut Value, _: &mut Value) {}

#[test]
fn check_prints_a_signed_report_for_every_state() {
    let vectors: [(&str, u16, Edit); 6] = [
        ("POPULATED", 402, no_edit),
        ("AMOUNTS-ONLY", 402, |b, h| {
            let offer = &mut b["accepts"][0];
            offer["payTo"] = json!("");
            offer["extra"] = json!({});
            h["accepts"][0] = json!({"amount": "10000"});
        }),
        ("UNCONFIGURED", 402, |b, _| b["accepts"][0]["extra"]["usdc_token_account"] = json!(null)),
        ("HEADER-MISSING", 402, |_, h| *h = Value::Null),
        ("RESOURCE-MISMATCH", 402, |_, h| {
            h["resource"]["url"] = json!("https://elsewhere.example/")
        }),
        ("NOT-A-402", 200, no_edit),
    ];
    let key = key_file();
    for (state, status, edit) in vectors {
        let (url, target) = serve(|url| {
            let mut response = challenge(url, "pvm_abcdef12", edit);
            response.status = status;
            vec![response]
        });
        let report = report_of(&payability(&["check", &url], &key));
        target.join().unwrap();
        assert_eq!(report["state"], state, "{report}");
        assert_eq!(report["url"], url);
        assert_eq!(report["house"], true);
        let line = format!(
            "CHALLENGE PAYABILITY VERDICT \u{2014} state: {state} \u{2014} {}",
            report["checked_at"].as_str().unwrap()
        );
        assert_eq!(report["verdict_line"], line);
    }
    let report = report_of(&payability(&["check", &refused_url()], &key));
    assert_eq!(report["state"], "NOT-A-402");
    assert_eq!(report["factors"]["reason"], "fetch_failed");
    assert_eq!(report["factors"]["fetch_ok"], false);
}

#[test]
fn memo_prints_a_signed_report_for_every_state() {
    let memos = |first: &'static str, second: &'static str, edit: Edit| {
        move |url: &str| vec![challenge(url, first, edit), challenge(url, second, edit)]
    };
    let no_header_memo: Edit = |_, h| h["accepts"][0]["extra"] = json!({});
    let vectors: [(&str, Script); 5] = [
        ("BOUND", Box::new(memos("pvm_first0001", "pvm_second002", no_edit))),
        ("MEMO-REUSED", Box::new(memos("pvm_same00001", "pvm_same00001", no_edit))),
        ("LEG-MISMATCH", Box::new(memos("pvm_first0001", "pvm_second002", no_header_memo))),
        ("MEMO-ABSENT", Box::new(memos("", "", no_edit))),
        (
            "NOT-A-402",
            Box::new(|url: &str| {
                let mut second = challenge(url, "pvm_second002", no_edit);
                second.status = 500;
                vec![challenge(url, "pvm_first0001", no_edit), second]
            }),
        ),
    ];
    let key = key_file();
    for (state, script) in vectors {
        let (url, target) = serve(script);
        let report = report_of(&payability(&["memo", &url], &key));
        target.join().unwrap();
        assert_eq!(report["state"], state, "{report}");
        assert_eq!(report["op"], "memo");
        assert!(
            report["verdict_line"]
                .as_str()
                .unwrap()
                .starts_with("MEMO BINDING VERDICT \u{2014} state: ")
        );
    }
}

#[test]
fn policy_refusals_print_the_rule_on_stderr_and_nothing_on_stdout() {
    let key = key_file();
    let vectors = [
        ("ftp://seller.example/", "scheme_not_http"),
        ("https://user:pw@seller.example/", "credentials_in_url"),
        ("https://exa mple.com/", "url_unparseable"),
        ("localhost:3000/weather", "scheme_missing"),
        ("https://seller.example/x#f", "fragment_in_url"),
    ];
    for (url, rule) in vectors {
        let output = payability(&["check", url], &key);
        assert_eq!(output.status.code(), Some(2));
        assert!(output.stdout.is_empty());
        let error: Value = serde_json::from_slice(&output.stderr).unwrap();
        assert_eq!(error["error"]["rule"], rule);
    }
    let output = Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(["memo", "http://2130706433/"])
        .env("PAYABILITY_SIGNING_KEY_FILE", &key)
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("address_not_public"));
}

#[test]
fn no_challenge_value_reaches_stdout_or_stderr() {
    const CANARY: &str = "CANARY5k2w";
    let plant: Edit = |b, h| {
        let offer = &mut b["accepts"][0];
        for field in ["description", "payTo", "scheme", "network"] {
            offer[field] = json!(format!("{CANARY}-{field}"));
        }
        offer["extra"]["memo"] = json!(format!("{CANARY}-memo"));
        offer["extra"]["usdc_token_account"] = json!(format!("{CANARY}-ata"));
        b["error"] = json!(format!("{CANARY}-error"));
        h["accepts"][0]["payTo"] = json!(format!("{CANARY}-payTo"));
        h["accepts"][0]["extra"]["memo"] = json!(format!("{CANARY}-other"));
    };
    let key = key_file();
    for (op, fetches) in [("check", 1), ("memo", 2)] {
        let (url, target) = serve(|url| (0..fetches).map(|_| challenge(url, "", plant)).collect());
        let output = payability(&[op, &url], &key);
        target.join().unwrap();
        assert_eq!(output.status.code(), Some(0));
        for stream in [&output.stdout, &output.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(CANARY));
        }
    }
}

#[test]
fn verify_accepts_printed_reports_and_rejects_any_changed_byte() {
    let key = key_file();
    let (url, target) = serve(|url| vec![challenge(url, "pvm_abcdef12", no_edit)]);
    let output = payability(&["check", &url], &key);
    target.join().unwrap();
    let path = scratch_dir().join("report.json");
    std::fs::write(&path, &output.stdout).unwrap();
    let path_arg = path.to_str().unwrap();

    let verified = payability(&["verify", path_arg], &key);
    assert_eq!(verified.status.code(), Some(0));
    let descriptor = ReportSigner::from_seed(&[7; 32]).descriptor().clone();
    let said = String::from_utf8(verified.stdout).unwrap();
    assert!(said.contains(&descriptor.key_id) && said.contains(&descriptor.fingerprint), "{said}");

    let jwk = serde_json::to_string(&descriptor.jwk).unwrap();
    assert_eq!(payability(&["verify", path_arg, "--key", &jwk], &key).status.code(), Some(0));
    let other = serde_json::to_string(ReportSigner::from_seed(&[9; 32]).descriptor()).unwrap();
    assert_eq!(payability(&["verify", path_arg, "--key", &other], &key).status.code(), Some(1));

    // A criteria document's window: the report's checked_at must fall inside it.
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let checked_at = report["checked_at"].as_str().unwrap().to_owned();
    let windows = [
        (Value::Null, Value::Null, Some(0)),
        (json!("2000-01-01T00:00:00.000Z"), Value::Null, Some(0)),
        (json!(checked_at), json!(checked_at), Some(0)),
        (json!("2000-01-01T00:00:00.000Z"), json!("2000-01-02T00:00:00.000Z"), Some(1)),
        (json!("2999-01-01T00:00:00.000Z"), Value::Null, Some(1)),
        (Value::Null, json!("not a time"), Some(2)),
    ];
    for (from, until, exit) in windows {
        let mut entry = serde_json::to_value(&descriptor).unwrap();
        entry["valid_from"] = from.clone();
        entry["valid_until"] = until.clone();
        let criteria = json!({"signing_keys": [entry]}).to_string();
        let verified = payability(&["verify", path_arg, "--key", &criteria], &key);
        assert_eq!(verified.status.code(), exit, "{from} {until}");
        if exit == Some(1) {
            let said = String::from_utf8(verified.stderr).unwrap();
            assert!(said.contains("signature_outside_key_window"), "{said}");
        }
    }

    // Every single-byte change either breaks the JSON or breaks the signature.
    let trusted: [PublicKeyDescriptor; 1] = [descriptor];
    let original = output.stdout;
    for at in 0..original.len() {
        let mut changed = original.clone();
        changed[at] ^= 0x01;
        if let Ok(document) = serde_json::from_slice::<Value>(&changed) {
            assert!(verify_signed(&document, &trusted).is_err(), "byte {at} changed, still valid");
        }
    }
    for at in [10, original.len() / 2, original.len() - 10] {
        let mut changed = original.clone();
        changed[at] ^= 0x01;
        std::fs::write(&path, &changed).unwrap();
        assert_ne!(payability(&["verify", path_arg], &key).status.code(), Some(0), "byte {at}");
    }
}

#[test]
fn a_missing_key_is_generated_once_and_announced_on_stderr() {
    let data = scratch_dir();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_payability"))
            .arg("criteria")
            .env("XDG_DATA_HOME", &data)
            .env_remove("PAYABILITY_SIGNING_KEY_FILE")
            .output()
            .unwrap()
    };
    let first = run();
    let stderr = String::from_utf8(first.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(data.join("payability/signing-key").to_str().unwrap()));
    let second = run();
    assert!(second.stderr.is_empty());
    let criteria: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(criteria["criteria_revision"], "1.4.0");
    assert_eq!(criteria["signing_keys"].as_array().unwrap().len(), 1);
}

#[test]
fn demo_checks_the_embedded_seller_populated_and_bound() {
    let output = Command::new(env!("CARGO_BIN_EXE_payability"))
        .arg("demo")
        .env("PAYABILITY_SIGNING_KEY_FILE", key_file())
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .output()
        .unwrap();
    let demo = report_of(&output);
    assert_eq!(demo["check"]["state"], "POPULATED", "{demo}");
    assert_eq!(demo["memo"]["state"], "BOUND", "{demo}");
    let trusted = [ReportSigner::from_seed(&[7; 32]).descriptor().clone()];
    for op in ["check", "memo"] {
        assert!(verify_signed(&demo[op], &trusted).is_ok());
    }
}
