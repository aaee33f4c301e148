//! Paid end to end, loopback only: the official x402 Python SDK pays `payability serve`,
//! whose facilitator is a test fixture that really verifies the Solana transaction and
//! whose RPC is a stub. Covers both ops, the legacy v1 path, the self-check, the ledger and
//! the abuse cases (each closed-form, nothing fetched, nothing charged).
//!
//! Needs `scripts/test` (it installs the SDK and exports PAYABILITY_TEST_X402_PYTHON and
//! PAYABILITY_TEST_E2E_DIR).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use payability_core::payment::x402::PaymentRefusal;
use payability_core::signing::verify_signed;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{Ledger, Payer};
use serde_json::{Value, json};
use support::{Server, trusted};

/// The Python interpreter and fixture folder `scripts/test` exports.
fn fixtures() -> (String, String) {
    let missing = "the paid end-to-end test needs the x402 fixtures: run scripts/test";
    let python = std::env::var("PAYABILITY_TEST_X402_PYTHON").expect(missing);
    let dir = std::env::var("PAYABILITY_TEST_E2E_DIR").expect(missing);
    (python, dir)
}

/// Verifies `report` with none of our code (tests/e2e/verify_report.py: the `rfc8785`
/// package and `cryptography`'s Ed25519) against the server's `/criteria`; returns whether
/// it is valid and what the verifier printed.
fn third_party_verify(report: &Value, server: &Server) -> (bool, String) {
    let (python, dir) = fixtures();
    let (_, criteria) = server.json("GET", "/criteria", &[], &Value::Null);
    let report_path = scratch_file("third-party-report.json");
    let criteria_path = scratch_file("third-party-criteria.json");
    std::fs::write(&report_path, report.to_string()).unwrap();
    std::fs::write(&criteria_path, criteria.to_string()).unwrap();
    let output = Command::new(python)
        .arg(format!("{dir}/verify_report.py"))
        .args([&report_path, &criteria_path])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let key_id = said.strip_prefix("valid ").map(str::to_owned);
    (output.status.success(), key_id.unwrap_or(said))
}

/// A fixture process (killed on drop) and its port.
struct Fixture {
    child: Child,
    port: u16,
}

impl Fixture {
    fn start(script: &str, args: &[&str]) -> Self {
        let (python, dir) = fixtures();
        let mut child = Command::new(python)
            .arg(format!("{dir}/{script}"))
            .args(["--port", "0", "--watch-stdin"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port =
            line.trim().strip_prefix("ready ").expect("the fixture is ready").parse().unwrap();
        Self { child, port }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback seller that counts the requests reaching it and answers a POPULATED 402.
struct Target {
    url: String,
    hits: Arc<AtomicUsize>,
}

impl Target {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/seller", listener.local_addr().unwrap());
        let hits = Arc::new(AtomicUsize::new(0));
        let (served, counter) = (url.clone(), hits.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(200) {
                let Ok(mut stream) = stream else { continue };
                counter.fetch_add(1, Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let offer = json!({"scheme": "exact", "amount": "10000", "maxAmountRequired": "10000",
                    "resource": served, "payTo": "Seller1", "description": "one sample",
                    "extra": {"usdc_token_account": "Ata1", "memo": "pvm_static0001"}});
                let header = json!({"resource": {"url": served}, "accepts": [{"amount": "10000",
                    "payTo": "Seller1", "extra": {"memo": "pvm_static0001"}}]});
                let header = base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    header.to_string(),
                );
                let body = json!({"x402Version": 1, "accepts": [offer]}).to_string();
                let response = format!(
                    "HTTP/1.1 402 Payment Required\r\nPAYMENT-REQUIRED: {header}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes());
            }
        });
        Self { url, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The whole loopback world of one test.
struct World {
    _rpc: Fixture,
    facilitator: Fixture,
    rpc_url: String,
    server: Server,
    target: Target,
}

impl World {
    fn start() -> Self {
        let rpc = Fixture::start("solana_rpc_stub.py", &[]);
        let facilitator = Fixture::start("facilitator_fixture.py", &["--rpc", &rpc.url()]);
        let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let valet = format!("http://{closed}");
        let server = Server::start(&[
            ("PAYABILITY_FACILITATOR_URL", &facilitator.url()),
            ("PAYABILITY_SOLANA_RPC_URL", &rpc.url()),
            ("PAYABILITY_BOC_VALET_ORIGIN", &valet),
        ]);
        Self { rpc_url: rpc.url(), _rpc: rpc, facilitator, server, target: Target::start() }
    }

    /// Runs buyer.py against a route of ours; returns its JSON line.
    fn buy(&self, route: &str, extra: &[&str]) -> Value {
        let (python, dir) = fixtures();
        let url = format!("{}{route}", self.server.base);
        let output = Command::new(python)
            .arg(format!("{dir}/buyer.py"))
            .args(["--url", &url, "--target", &self.target.url, "--rpc", &self.rpc_url])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout.lines().last().unwrap_or_default();
        serde_json::from_str(line).unwrap_or_else(|_| {
            panic!("buyer said: {stdout} / {}", String::from_utf8_lossy(&output.stderr))
        })
    }

    fn fixture_calls(&self) -> Value {
        http_json("GET", &format!("{}/__fixture/calls", self.facilitator.url()), None)
    }

    fn fixture_mode(&self, mode: Value) {
        http_json("POST", &format!("{}/__fixture/mode", self.facilitator.url()), Some(mode));
    }
}

/// A tiny JSON-over-HTTP call to a fixture's control endpoint.
fn http_json(method: &str, url: &str, body: Option<Value>) -> Value {
    let address = url.trim_start_matches("http://");
    let (host, path) =
        address.split_once('/').map_or((address, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (_, body) = raw.split_once("\r\n\r\n").unwrap_or_default();
    serde_json::from_str(body).unwrap_or(Value::Null)
}

fn scratch_file(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("payability-paid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn the_official_client_pays_both_ops_and_gets_verified_reports_with_a_ledger_entry() {
    let world = World::start();
    let keys = trusted(&world.server);
    let saved = scratch_file("check-payment.json");
    let paid = world.buy("/check", &["--save-payment", &saved]);
    assert_eq!(paid["status"], 200, "{paid}");
    let report = &paid["body"];
    assert!(verify_signed(report, &keys).is_ok());
    assert_eq!(
        (report["op"].clone(), report["state"].clone(), report["house"].clone()),
        (json!("check"), json!("POPULATED"), json!(false))
    );
    assert_eq!(paid["payment_response_decoded"]["success"], true, "{paid}");
    assert_eq!(world.target.hits(), 1);

    assert_eq!(third_party_verify(report, &world.server), (true, keys[0].key_id.clone()));
    let mut altered = report.clone();
    altered["state"] = json!("NO-PAYMENT");
    assert!(!third_party_verify(&altered, &world.server).0, "an altered report does not verify");

    let memo = world.buy("/memo", &[]);
    assert_eq!(memo["status"], 200, "{memo}");
    assert!(verify_signed(&memo["body"], &keys).is_ok());
    assert_eq!(memo["body"]["state"], "MEMO-REUSED", "the target serves a static memo");
    assert_eq!(world.target.hits(), 3, "the memo op fetches twice");

    let legacy = world.buy("/check", &["--v1"]);
    assert_eq!(legacy["status"], 200, "{legacy}");
    assert!(legacy["payment_response"].is_string(), "X-PAYMENT-RESPONSE is set: {legacy}");

    let calls = world.fixture_calls();
    assert_eq!(calls["settled"], 3, "{calls}");
    let recent = calls["recent"].as_array().unwrap();
    let v2_memo_seen = recent.iter().any(|c| {
        c["summary"]["memos"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m.as_str().is_some_and(|m| m.starts_with("pvm_"))))
    });
    assert!(v2_memo_seen, "the v2 client put our extra.memo into a Memo instruction");

    let (_, metrics) = world.server.json("GET", "/metrics", &[], &Value::Null);
    assert_eq!(metrics["today"]["paid_check_populated"], 2, "{metrics}");
    assert_eq!(metrics["today"]["paid_memo_memo_reused"], 1, "{metrics}");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = SqliteStore::open(&world.server.store_path()).unwrap();
    let pending = runtime.block_on(store.cad_pending(10)).unwrap();
    assert_eq!(
        pending.len(),
        3,
        "the CAD rate source is down: every entry is pending, none guessed"
    );
    for entry in &pending {
        match &entry.payer {
            Payer::Paid { fee_lamports, wallet, .. } => {
                assert_eq!(*fee_lamports, Some(5000), "the fee came from getTransaction");
                assert!(wallet.is_some());
            }
            Payer::House { .. } => panic!("no house entry was expected"),
        }
    }
}

#[test]
fn abuse_cases_are_closed_form_fetch_nothing_and_charge_nothing() {
    let world = World::start();
    let saved = scratch_file("abuse-payment.json");
    let first = world.buy("/check", &["--save-payment", &saved]);
    assert_eq!(first["status"], 200, "{first}");
    let (hits, settled) = (world.target.hits(), world.fixture_calls()["settled"].clone());

    let not_verified = json!("the facilitator did not verify this payment");
    let replay = vec!["--replay-last", "--payment-file", &saved];
    let cases: Vec<(&str, &str, Vec<&str>, u64, Value)> = vec![
        ("replayed payment", "/check", replay.clone(), 409, json!("payment_already_used")),
        (
            "payment for another op",
            "/memo",
            replay,
            402,
            json!(PaymentRefusal::MemoForged.message()),
        ),
        ("wrong amount", "/check", vec!["--hand", "--amount", "9999"], 402, not_verified.clone()),
        (
            "wrong destination",
            "/check",
            vec!["--hand", "--destination", "So11111111111111111111111111111111111111112"],
            402,
            not_verified.clone(),
        ),
        (
            "wrong memo in the transaction",
            "/check",
            vec!["--hand", "--memo", "pvm_not_the_challenge_memo"],
            402,
            not_verified,
        ),
    ];
    for (name, route, args, status, said) in cases {
        let answer = world.buy(route, &args);
        assert_eq!(answer["status"], status, "{name}: {answer}");
        let body = &answer["body"];
        let reason =
            if status == 402 { body["error"].clone() } else { body["error"]["rule"].clone() };
        assert_eq!(reason, said, "{name}: {body}");
        assert_eq!(world.target.hits(), hits, "{name}: nothing was fetched");
        assert_eq!(world.fixture_calls()["settled"], settled, "{name}: nothing was charged");
    }

    let malformed: Vec<(&str, String, u16, &str)> = vec![
        ("x-payment", "!!!not base64!!!".to_owned(), 400, "payment_header_malformed"),
        ("payment-signature", "e30".to_owned(), 400, "payment_"),
        ("x-payment", "A".repeat(20_000), 400, "payment_header_too_large"),
    ];
    for (name, value, status, rule) in malformed {
        let body = json!({"url": world.target.url}).to_string();
        let (got, _, bytes) =
            world.server.request("POST", "/check", &[(name, &value)], body.as_bytes());
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(got, status, "{name}: {answer}");
        assert!(answer["error"]["rule"].as_str().unwrap().starts_with(rule), "{name}: {answer}");
    }
    assert_eq!(world.target.hits(), hits, "malformed headers fetched nothing");

    // A facilitator whose settlement answer is forged: no report is released.
    world.fixture_mode(json!({"settle": "forged_network"}));
    let forged = world.buy("/check", &[]);
    assert_eq!(forged["status"], 503, "{forged}");
    assert!(forged["body"].get("signature").is_none(), "no report without a real settlement");
    world.fixture_mode(json!({"settle": "normal", "verify": "down"}));
    let down = world.buy("/check", &[]);
    assert_eq!(
        (down["status"].clone(), down["body"]["error"]["rule"].clone()),
        (json!(503), json!("facilitator_unavailable"))
    );
}

#[test]
fn concurrent_double_submissions_yield_exactly_one_verdict() {
    let world = World::start();
    let saved = scratch_file("double-payment.json");
    let built = world.buy("/check", &["--build-only", "--save-payment", &saved]);
    assert!(built["payment_header"].is_object(), "{built}");
    let world = Arc::new(world);
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let (world, saved) = (world.clone(), saved.clone());
            std::thread::spawn(move || {
                world.buy("/check", &["--replay-last", "--payment-file", &saved])
            })
        })
        .collect();
    let statuses: Vec<u64> =
        runs.into_iter().map(|r| r.join().unwrap()["status"].as_u64().unwrap()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "{statuses:?}");
    assert_eq!(world.fixture_calls()["settled"], 1);
}

#[test]
fn the_service_checks_itself_populated_and_bound() {
    let world = World::start();
    for (op, state) in [("check", "POPULATED"), ("memo", "BOUND")] {
        let output = Command::new(env!("CARGO_BIN_EXE_payability"))
            .args([op, &format!("{}/{op}", world.server.base)])
            .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
            .env("PAYABILITY_SIGNING_KEY_FILE", scratch_key())
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["state"], state, "{op}: {report}");
    }
}

fn scratch_key() -> String {
    let path = scratch_file("self-check-seed");
    std::fs::write(&path, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=").unwrap();
    path
}
