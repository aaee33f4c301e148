//! Test support: the loopback x402 world of the end-to-end tests. The Python fixtures of
//! tests/e2e (Solana RPC stub, facilitator fixture) or the official @x402 facilitator, a
//! `payability serve` on the embedded store or on DynamoDB (moto), a loopback seller, and
//! the buyer (tests/e2e/buyer.py). Every process is killed on drop; start-up and child runs
//! are bounded.
//!
//! Needs `scripts/test` (it installs the SDK, the official facilitator and moto, starts moto
//! and exports PAYABILITY_TEST_X402_PYTHON, PAYABILITY_TEST_MCP2_PYTHON, PAYABILITY_TEST_E2E_DIR,
//! PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES and PAYABILITY_TEST_DYNAMODB_ENDPOINTS).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use payability_runtime::store::dynamodb::{
    DynamoStore, TABLE_VARIABLES, TableNames, create_tables,
};
use payability_tests::endpoints::{LOCAL_REGION, local_sdk_config, moto_endpoint};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};

use super::Server;

/// How long a fixture has to print its `ready <port>` line.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// The Python interpreter and fixture folder `scripts/test` exports.
pub fn fixtures() -> (String, String) {
    let missing = "the end-to-end tests need the x402 fixtures: run scripts/test";
    let python = std::env::var("PAYABILITY_TEST_X402_PYTHON").expect(missing);
    let dir = std::env::var("PAYABILITY_TEST_E2E_DIR").expect(missing);
    (python, dir)
}

/// A fixture process (killed on drop) and its port.
pub struct Fixture {
    child: Child,
    pub port: u16,
}

/// The official facilitator's fee-payer seed (a throwaway key, 64 hex digits).
pub const OFFICIAL_FEE_PAYER_SEED: &str =
    "0707070707070707070707070707070707070707070707070707070707070707";

impl Fixture {
    /// Starts one of the Python fixtures of tests/e2e with `args`.
    pub fn start(script: &str, args: &[&str]) -> Self {
        let (python, dir) = fixtures();
        let mut command = Command::new(python);
        command.arg(format!("{dir}/{script}")).args(["--port", "0", "--watch-stdin"]).args(args);
        Self::spawn(command)
    }

    /// Starts the official x402 facilitator (tests/e2e/official_facilitator/server.mjs) on
    /// the Solana RPC at `rpc`.
    pub fn official_facilitator(rpc: &str) -> Self {
        let (_, dir) = fixtures();
        let modules = std::env::var("PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES")
            .expect("the official facilitator is installed by scripts/test");
        let mut command = Command::new("node");
        command.arg(format!("{dir}/official_facilitator/server.mjs")).args([
            "--port",
            "0",
            "--rpc",
            rpc,
            "--fee-payer-seed-hex",
            OFFICIAL_FEE_PAYER_SEED,
            "--modules",
            &modules,
        ]);
        Self::spawn(command)
    }

    /// Spawns `command` with a piped stdin (it exits when that closes) and waits up to
    /// [`READY_WITHIN`] for its `ready <port>` line; a fixture that does not say it is killed.
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (said, heard) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = said.send(line);
        });
        let line = heard.recv_timeout(READY_WITHIN).unwrap_or_default();
        let port = line.trim().strip_prefix("ready ").and_then(|p| p.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not print `ready <port>` within {READY_WITHIN:?}: {line:?}");
        };
        Self { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback seller that counts the requests reaching it and answers a POPULATED 402
/// (v1 body and v2 header carrying the same memo).
pub struct Target {
    pub url: String,
    seller: StandIn,
}

impl Target {
    /// A seller whose every 402 carries one static memo (`memo` grades MEMO-REUSED).
    pub fn start() -> Self {
        Self::serving(false)
    }

    /// A seller that issues a fresh memo per 402, as a memo-binding seller does (`memo`
    /// grades BOUND).
    pub fn with_fresh_memos() -> Self {
        Self::serving(true)
    }

    fn serving(fresh_memos: bool) -> Self {
        let seller = StandIn::replying_with(|origin| {
            let served = format!("{origin}/seller");
            let counter = AtomicUsize::new(0);
            move |_: &Recorded| {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                let memo = if fresh_memos {
                    format!("pvm_fresh{n:016x}")
                } else {
                    "pvm_static0001".into()
                };
                let offer = json!({"scheme": "exact", "amount": "10000", "maxAmountRequired": "10000",
                    "resource": served, "payTo": "Seller1", "description": "one sample",
                    "extra": {"usdc_token_account": "Ata1", "memo": memo}});
                let header = json!({"resource": {"url": served}, "accepts": [{"amount": "10000",
                    "payTo": "Seller1", "extra": {"memo": memo}}]});
                let header = base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    header.to_string(),
                );
                let body = json!({"x402Version": 1, "accepts": [offer]}).to_string();
                Reply::status(402).header("payment-required", header).body(body)
            }
        });
        Self { url: seller.url("/seller"), seller }
    }

    /// The sellers the web page's browser test buys from, each at its own path: `/seller`
    /// (fresh memos: `check` POPULATED, `memo` BOUND), `/unconfigured` (what the official v2
    /// middlewares answer: the challenge in the header alone, `{}` as the body) and `/hostile`
    /// (a POPULATED challenge whose `accepts[0]` names are markup and controls, and whose
    /// values carry a canary).
    pub fn sellers_for_the_page() -> Self {
        let seller = StandIn::replying_with(|origin| {
            let origin = origin.to_owned();
            let counter = AtomicUsize::new(0);
            move |request: &Recorded| {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                let served = format!("{origin}{}", request.path);
                let memo = format!("pvm_fresh{n:016x}");
                let mut offer = json!({"scheme": "exact", "amount": "10000", "maxAmountRequired": "10000",
                    "resource": served, "payTo": "Seller1", "description": "one sample",
                    "extra": {"usdc_token_account": "Ata1", "memo": memo}});
                if request.path == "/hostile" {
                    for name in HOSTILE_NAMES {
                        offer[name] = json!("CANARY-5f1e");
                    }
                    offer["extra"]["\u{202e}gnp.exe"] = json!("CANARY-5f1e");
                }
                let header = json!({"resource": {"url": served}, "accepts": [{"amount": "10000",
                    "payTo": "Seller1", "extra": {"memo": memo}}]});
                let header = base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    header.to_string(),
                );
                let body = match request.path.as_str() {
                    "/unconfigured" => "{}".to_owned(),
                    _ => json!({"x402Version": 1, "accepts": [offer]}).to_string(),
                };
                Reply::status(402).header("payment-required", header).body(body)
            }
        });
        Self { url: seller.url("/seller"), seller }
    }

    /// The URL of another path on this seller.
    pub fn url_of(&self, path: &str) -> String {
        self.seller.url(path)
    }

    pub fn hits(&self) -> usize {
        self.seller.accepted()
    }
}

/// Names the hostile seller's `accepts[0]` carries: markup, a `javascript:` URL, and one far
/// over any sensible length.
const HOSTILE_NAMES: [&str; 4] = [
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=window.__pwned=2>",
    "javascript:window.__pwned=3",
    "an-overlong-name-0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789",
];

/// The facilitator a world's service is configured with.
#[derive(Clone, Copy, Debug)]
pub enum FacilitatorKind {
    /// tests/e2e/facilitator_fixture.py: verifies for real, misbehaves on request.
    Fixture,
    /// The official @x402 facilitator code (tests/e2e/official_facilitator).
    Official,
}

/// The store a world's service runs on.
#[derive(Clone, Copy, Debug)]
pub enum StoreKind {
    /// The embedded SQLite file (serve's default).
    Embedded,
    /// Fresh DynamoDB tables on the moto server `scripts/test` starts.
    DynamoDb,
}

impl StoreKind {
    /// The serve variables for this store (none for the embedded one); for DynamoDB the
    /// tables are created first.
    pub fn serve_env(self) -> Vec<(String, String)> {
        match self {
            Self::Embedded => Vec::new(),
            Self::DynamoDb => dynamodb_env(&moto_endpoint()),
        }
    }
}

/// Creates fresh tables on `endpoint` (the runtime's `create_tables`) and returns the
/// variables that point serve at them: the store, its tables, the endpoint, dummy
/// credentials and a region.
pub fn dynamodb_env(endpoint: &str) -> Vec<(String, String)> {
    let prefix = format!("paid-{}-{}-", std::process::id(), unique_suffix());
    let tables = TableNames::with_prefix(&prefix);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime
        .block_on(async {
            let store = DynamoStore::new(&local_sdk_config(endpoint), tables.clone());
            create_tables(store.client(), store.tables()).await
        })
        .expect("the tables are created on moto");
    let names = tables.all().map(|(name, _)| name.to_owned());
    let mut env: Vec<(String, String)> =
        TABLE_VARIABLES.iter().map(|(variable, _)| variable.to_string()).zip(names).collect();
    for (name, value) in [
        ("PAYABILITY_STORE", "dynamodb"),
        ("AWS_ENDPOINT_URL_DYNAMODB", endpoint),
        ("AWS_ACCESS_KEY_ID", "local"),
        ("AWS_SECRET_ACCESS_KEY", "local"),
        ("AWS_REGION", LOCAL_REGION),
        ("AWS_EC2_METADATA_DISABLED", "true"),
    ] {
        env.push((name.to_owned(), value.to_owned()));
    }
    env
}

/// Verifies `report` with none of our code (tests/e2e/verify_report.py: the `rfc8785`
/// package and `cryptography`'s Ed25519) against the server's `/criteria`; returns whether
/// it is valid and the key id that signed it (else what the verifier printed).
pub fn third_party_verify(report: &Value, server: &Server) -> (bool, String) {
    let (_, criteria) = server.json("GET", "/criteria", &[], &Value::Null);
    third_party_verify_against(report, &criteria)
}

/// Verifies `report` with none of our code against the criteria document `criteria`; returns
/// whether it is valid and the key id that signed it (else what the verifier printed).
pub fn third_party_verify_against(report: &Value, criteria: &Value) -> (bool, String) {
    let (python, dir) = fixtures();
    let scratch = ScratchDir::new("verify");
    let (report_path, criteria_path) = (scratch.join("report.json"), scratch.join("criteria.json"));
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

/// How long one run of mcp2_buyer.py may take (it bounds itself at 120 s).
pub const MCP2_BUYER_WITHIN: Duration = Duration::from_secs(180);

/// tests/e2e/mcp2_buyer.py about `target`, paying on `rpc`, to the MCP endpoint `url`, run by
/// the interpreter of the MCP 2.x virtualenv `scripts/test` exports
/// (PAYABILITY_TEST_MCP2_PYTHON); the caller adds its arguments and bounds the run.
pub fn mcp2_buyer(url: &str, target: &str, rpc: &str) -> Command {
    let (_, dir) = fixtures();
    let python = std::env::var("PAYABILITY_TEST_MCP2_PYTHON")
        .expect("the MCP 2026-07-28 buyer needs the mcp 2.x virtualenv: run scripts/test");
    let mut command = Command::new(python);
    command
        .arg(format!("{dir}/mcp2_buyer.py"))
        .args(["--url", url, "--target", target, "--rpc", rpc]);
    command
}

/// A number that differs between calls (table prefixes).
pub fn unique_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

/// The whole loopback world of one test.
pub struct World {
    pub rpc: Fixture,
    pub facilitator: Fixture,
    pub server: Server,
    pub target: Target,
    /// The test's files (saved payments, keys), removed with the world.
    scratch: ScratchDir,
}

impl World {
    /// The usual world: the facilitator fixture and the embedded store.
    pub fn start() -> Self {
        Self::with(FacilitatorKind::Fixture, StoreKind::Embedded)
    }

    /// A world with the given facilitator and store.
    pub fn with(facilitator: FacilitatorKind, store: StoreKind) -> Self {
        Self::with_target(facilitator, store, Target::start())
    }

    /// A world with the given facilitator, store and seller.
    pub fn with_target(facilitator: FacilitatorKind, store: StoreKind, target: Target) -> Self {
        Self::with_server_env(facilitator, store, target, &[])
    }

    /// A world with the given facilitator, store and seller, `serve` started with `extra_env`
    /// besides the world's own settings.
    pub fn with_server_env(
        facilitator: FacilitatorKind,
        store: StoreKind,
        target: Target,
        extra_env: &[(&str, &str)],
    ) -> Self {
        let rpc = Fixture::start("solana_rpc_stub.py", &[]);
        let facilitator = match facilitator {
            FacilitatorKind::Fixture => {
                Fixture::start("facilitator_fixture.py", &["--rpc", &rpc.url()])
            }
            FacilitatorKind::Official => Fixture::official_facilitator(&rpc.url()),
        };
        let valet = format!("http://127.0.0.1:{}", closed_port());
        let (facilitator_url, rpc_url) = (facilitator.url(), rpc.url());
        let store_env = store.serve_env();
        let mut env = vec![
            ("PAYABILITY_FACILITATOR_URL", facilitator_url.as_str()),
            ("PAYABILITY_SOLANA_RPC_URL", rpc_url.as_str()),
            ("PAYABILITY_BOC_VALET_ORIGIN", valet.as_str()),
        ];
        env.extend(store_env.iter().map(|(name, value)| (name.as_str(), value.as_str())));
        env.extend_from_slice(extra_env);
        let server = Server::start(&env);
        Self { rpc, facilitator, server, target, scratch: ScratchDir::new("e2e") }
    }

    /// The path of a file `name` in this world's scratch directory, as a command argument.
    pub fn scratch_file(&self, name: &str) -> String {
        self.scratch.join(name).to_string_lossy().into_owned()
    }

    /// Runs buyer.py against a route of ours; returns its JSON line.
    pub fn buy(&self, route: &str, extra: &[&str]) -> Value {
        self.run_buyer("buyer.py", route, extra)
    }

    /// Runs mcp_buyer.py (the official MCP client with the official x402 MCP client) against
    /// our MCP endpoint with `extra`; returns its JSON line.
    pub fn buy_mcp(&self, extra: &[&str]) -> Value {
        self.run_buyer("mcp_buyer.py", "/mcp", extra)
    }

    /// Runs mcp2_buyer.py (the official MCP SDK 2.x, which speaks MCP 2026-07-28, with x402's
    /// Solana client) against our MCP endpoint with `extra`, bounded; returns its JSON line.
    pub fn buy_mcp2(&self, extra: &[&str]) -> Value {
        let url = format!("{}/mcp", self.server.base);
        let mut command = mcp2_buyer(&url, &self.target.url, &self.rpc.url());
        command.args(extra);
        let ran = run_bounded(command, MCP2_BUYER_WITHIN);
        ran.last_json().unwrap_or_else(|| panic!("mcp2_buyer.py gave no JSON line: {ran}"))
    }

    /// Runs a buyer script of tests/e2e against `route` about the world's seller, paying on
    /// its RPC; returns the script's last line, JSON.
    fn run_buyer(&self, script: &str, route: &str, extra: &[&str]) -> Value {
        let (python, dir) = fixtures();
        let url = format!("{}{route}", self.server.base);
        let output = Command::new(python)
            .arg(format!("{dir}/{script}"))
            .args(["--url", &url, "--target", &self.target.url, "--rpc", &self.rpc.url()])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout.lines().last().unwrap_or_default();
        serde_json::from_str(line).unwrap_or_else(|_| {
            panic!("{script} said: {stdout} / {}", String::from_utf8_lossy(&output.stderr))
        })
    }

    /// Runs a2a_buyer.py (the official A2A client with the official x402 Solana client) against
    /// the agent at the server's base URL with `extra`; returns its JSON line.
    pub fn buy_a2a(&self, extra: &[&str]) -> Value {
        self.run_buyer("a2a_buyer.py", "", extra)
    }

    /// Verifies the receipt in a settlement answer against the server's DID document with none
    /// of our code (verify_receipt.mjs: `jose` and `@x402/extensions`); returns the verified
    /// payload.
    pub fn verified_receipt(&self, settlement: &Value) -> Value {
        let (_, dir) = fixtures();
        let modules = std::env::var("PAYABILITY_TEST_DISCOVERY_MODULES")
            .expect("the receipt check needs the discovery modules: run scripts/test");
        let (status, did) = self.server.json("GET", "/.well-known/did.json", &[], &Value::Null);
        assert_eq!(status, 200, "{did}");
        let settlement_path = self.scratch_file(&format!("receipt-{}.json", unique_suffix()));
        let did_path = self.scratch_file(&format!("did-{}.json", unique_suffix()));
        std::fs::write(&settlement_path, settlement.to_string()).unwrap();
        std::fs::write(&did_path, did.to_string()).unwrap();
        let output = Command::new("node")
            .arg(format!("{dir}/discovery/verify_receipt.mjs"))
            .args(["--modules", &modules, &settlement_path, &did_path])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
            .unwrap_or_else(|_| {
                panic!("verify_receipt: {stdout} {}", String::from_utf8_lossy(&output.stderr))
            });
        assert!(output.status.success(), "the receipt verifies: {line}");
        assert_eq!(line["same"], true, "jose and @x402/extensions agree: {line}");
        line["payload"].clone()
    }

    /// Resends the payment saved in `file` (buyer.py --replay-last) to `route`.
    pub fn replay(&self, route: &str, file: &str) -> Value {
        self.buy(route, &["--replay-last", "--payment-file", file])
    }

    /// Resends the payment saved in `file` to `route`, signed in as its payer (a
    /// `SIGN-IN-WITH-X` proof made with the SDK's own functions from a fresh 402).
    pub fn replay_signed(&self, route: &str, file: &str) -> Value {
        self.buy(route, &["--replay-last", "--payment-file", file, "--sign-in"])
    }

    /// What the facilitator fixture was asked (counters, modes, recent calls).
    pub fn fixture_calls(&self) -> Value {
        http_json("GET", &format!("{}/__fixture/calls", self.facilitator.url()), None)
    }

    /// Sets the facilitator fixture's modes.
    pub fn fixture_mode(&self, mode: Value) {
        http_json("POST", &format!("{}/__fixture/mode", self.facilitator.url()), Some(mode));
    }

    /// The transaction the fixture settled while in settle mode `mode`.
    pub fn settled_in_mode(&self, mode: &str) -> Value {
        let calls = self.fixture_calls();
        let settled = calls["recent"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["endpoint"] == "settle" && c["mode"] == mode && c["success"] == true);
        settled.unwrap_or_else(|| panic!("the fixture settled nothing in {mode}: {calls}"))
            ["transaction"]
            .clone()
    }

    /// The transactions that landed on the stubbed chain.
    pub fn landed(&self) -> Vec<Value> {
        let calls = http_json("GET", &format!("{}/__stub/calls", self.rpc.url()), None);
        calls["transactions"].as_array().cloned().unwrap_or_default()
    }

    /// How often the stubbed chain was asked `method`.
    pub fn rpc_calls(&self, method: &str) -> u64 {
        let calls = http_json("GET", &format!("{}/__stub/calls", self.rpc.url()), None);
        calls["counts"][method].as_u64().unwrap_or(0)
    }

    /// Makes every blockhash issued so far invalid: a transaction not landed never will.
    pub fn expire_blockhashes(&self) {
        http_json("POST", &format!("{}/__stub/expire_blockhashes", self.rpc.url()), None);
    }

    /// How many paid checks `/metrics` counts today.
    pub fn paid_checks_today(&self) -> u64 {
        let (_, metrics) = self.server.json("GET", "/metrics", &[], &Value::Null);
        let today = metrics["today"].as_object().cloned().unwrap_or_default();
        today
            .iter()
            .filter(|(name, _)| name.starts_with("paid_check_"))
            .map(|(_, n)| n.as_u64().unwrap())
            .sum()
    }
}

/// A tiny JSON-over-HTTP call to a fixture's control endpoint.
pub fn http_json(method: &str, url: &str, body: Option<Value>) -> Value {
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

/// What a bounded child run gave: its exit status (`None`: killed at the limit) and output.
pub struct Ran {
    pub status: Option<std::process::ExitStatus>,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The last line of stdout parsed as JSON (the quickstarts' and buyer's one line).
    pub fn last_json(&self) -> Option<Value> {
        serde_json::from_str(self.stdout.lines().last()?).ok()
    }
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.status.map_or("killed at its time limit".to_owned(), |s| s.to_string());
        write!(f, "{status}\n--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
}

/// Runs `command` within `limit` in its own process group; past the limit the whole group
/// (the command and anything it started) is killed by its id. Proxy variables are removed:
/// every test talks to loopback only.
pub fn run_bounded(mut command: Command, limit: Duration) -> Ran {
    use std::os::unix::process::CommandExt;
    for name in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]
    {
        command.env_remove(name);
    }
    command.env("NO_PROXY", "127.0.0.1,localhost").env("no_proxy", "127.0.0.1,localhost");
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?} did not start: {e}"));
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().unwrap()));
    let stderr = read_all(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ran { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}
