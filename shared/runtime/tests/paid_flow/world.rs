//! One test's world: the seller, the chain with its facilitator and RPC, a temp SQLite store
//! behind a [`PausingStore`], a clock the test moves, and the service built from them. The
//! service is driven only through `Service::handle`; the store is read back with plain SQL.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderMap, HeaderValue, Method};
use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service};
use payability_runtime::rules::ApiError;
use payability_runtime::settings::keys::KeyPublication;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{UtcDay, UtcMillis};
pub use payability_tests::answer::Answer;
use payability_tests::protobuf::as_struct;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::closed_port;
use rusqlite::types::Value as SqlValue;
use serde_json::{Value, json};

use crate::paid_flow::chain::{Chain, Facilitator, Rpc};
use crate::paid_flow::clock::TestClock;
use crate::paid_flow::pausing_store::{PauseControl, PausingStore, Point};
use crate::paid_flow::payment::Payment;
use crate::paid_flow::sign_in;
use crate::paid_flow::target::Target;

/// The operator wallet that is paid.
pub const OPERATOR_WALLET: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
/// The house bearer token.
pub const HOUSE_TOKEN: &str = "house-token-of-the-paid-flow-tests";
/// The service's public base URL (only named in challenges, never called).
pub const PUBLIC_BASE_URL: &str = "http://127.0.0.1:1";
/// The signing seed.
const SEED: [u8; 32] = [7; 32];
/// Where every world's clock starts: midday, so +31 s steps never cross a UTC day.
pub const START: &str = "2026-03-02T12:00:00.000Z";
/// Longest one request may take before the test gives up on it.
const REQUEST_LIMIT: Duration = Duration::from_secs(30);
/// Longest a kill waits for its point.
const KILL_WAIT: Duration = Duration::from_secs(20);

/// `POST /check`.
pub const CHECK: &str = "/check";
/// `POST /memo`.
pub const MEMO: &str = "/memo";
/// The MCP endpoint.
pub const MCP: &str = "/mcp";
/// The A2A endpoint.
pub const A2A: &str = "/a2a";
/// The x402 A2A extension's URI, as the card declares it.
pub const X402_A2A_EXTENSION: &str =
    "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

/// How a paid request travels: the three transports of one purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// `POST /check` (or `/memo`) with the payment header.
    Http,
    /// `POST /mcp`: `tools/call` of the op's tool, the payment in `_meta`.
    Mcp,
    /// `POST /a2a`: `SendMessage` calling the op's skill, the payment in the message's
    /// metadata.
    A2a,
}

impl Transport {
    /// Every transport.
    pub const ALL: [Transport; 3] = [Self::Http, Self::Mcp, Self::A2a];
}

/// The service under test.
pub type TestService = Service<PausingStore<SqliteStore>>;

/// How a request run under [`World::kill_when`] ended.
#[derive(Debug)]
#[allow(dead_code, reason = "the answer is read through Debug, in assertion messages")]
pub enum Interrupted {
    /// The signal came and the request was aborted there.
    Killed,
    /// The request answered before the signal.
    Finished(Answer),
}

/// A ledger row, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerRow {
    /// The key (`pvc:ledger:<tx>`, ...).
    pub key: String,
    /// `payment_tx`.
    pub payment_tx: Option<String>,
    /// `payer_wallet`.
    pub payer_wallet: Option<String>,
}

/// A payment claim, as stored (whatever its columns; these are read by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRow {
    /// The key.
    pub key: String,
    /// `op`.
    pub op: Option<String>,
    /// `marker`.
    pub marker: Option<String>,
    /// `payment_tx`.
    pub payment_tx: Option<String>,
}

/// The service's configuration on these stand-ins and this store: the operator wallet, house
/// checks on, private targets allowed (the loopback seller), the rate source unreachable.
pub fn config(facilitator: &Facilitator, rpc: &Rpc, store: StoreChoice) -> ServiceConfig {
    ServiceConfig {
        operator_wallet: Base58Id::pubkey(OPERATOR_WALLET).unwrap(),
        facilitator_url: Some(facilitator.url()),
        fee_payer: None,
        solana_rpc_url: Some(rpc.url()),
        public_base_url: Some(PUBLIC_BASE_URL.to_owned()),
        house_token: Some(HOUSE_TOKEN.to_owned()),
        store,
        address_rule: AddressRule::AllowPrivate,
        valet_origin: format!("http://127.0.0.1:{}", closed_port()),
        keys: KeyPublication::default(),
    }
}

/// The stand-ins a paid-flow service runs against, the clock at [`START`].
pub struct StandIns {
    /// The service's clock.
    pub clock: TestClock,
    /// The chain the facilitator and the RPC both read and write.
    pub chain: Arc<Chain>,
    /// The seller.
    pub target: Target,
    /// The facilitator.
    pub facilitator: Facilitator,
    /// The Solana RPC.
    pub rpc: Rpc,
}

impl StandIns {
    /// Takes the clock and starts the seller, the facilitator and the RPC on one chain.
    pub async fn start() -> Self {
        let start = UtcMillis::parse_rfc3339_millis(START).expect("a timestamp");
        let clock = TestClock::take(start).await;
        let chain = Arc::new(Chain::default());
        let target = Target::start().await;
        let facilitator = Facilitator::start(Arc::clone(&chain)).await;
        let rpc = Rpc::start(Arc::clone(&chain)).await;
        Self { clock, chain, target, facilitator, rpc }
    }
}

/// Everything one test drives.
pub struct World {
    /// The service, shared with the request tasks.
    pub service: Arc<TestService>,
    /// The handle on the service's store pauses.
    pub store: PauseControl,
    /// The seller.
    pub target: Target,
    /// The facilitator.
    pub facilitator: Facilitator,
    /// The Solana RPC.
    pub rpc: Rpc,
    /// The chain both read and write.
    pub chain: Arc<Chain>,
    clock: TestClock,
    db: PathBuf,
    requests: AtomicUsize,
    _dir: ScratchDir,
}

impl World {
    /// Starts every stand-in and the service on a fresh store, the clock at [`START`].
    pub async fn start() -> Self {
        Self::with_base(Some(PUBLIC_BASE_URL)).await
    }

    /// As [`World::start`], with this configured public base URL (None: each request's own).
    pub async fn with_base(base: Option<&str>) -> Self {
        let StandIns { clock, chain, target, facilitator, rpc } = StandIns::start().await;
        let dir = ScratchDir::new("paid-flow");
        let db = dir.join("store.sqlite3");
        let sqlite = SqliteStore::open(&db).expect("a fresh SQLite store");
        let store = PausingStore::new(sqlite);
        let control = store.control();
        let config = config(&facilitator, &rpc, StoreChoice::Embedded(db.clone()));
        let config = ServiceConfig { public_base_url: base.map(str::to_owned), ..config };
        let service = Service::new(config, &SEED, store, clock.function())
            .unwrap_or_else(|e| panic!("the service starts: {e}"));
        Self {
            service: Arc::new(service),
            store: control,
            target,
            facilitator,
            rpc,
            chain,
            clock,
            db,
            requests: AtomicUsize::new(0),
            _dir: dir,
        }
    }

    /// The service's clock.
    pub fn now(&self) -> UtcMillis {
        self.clock.now()
    }

    /// Moves the service's clock on.
    pub fn advance(&self, by: Duration) {
        self.clock.advance(by);
    }

    /// A paid-route request about the target, with a payment header when given.
    pub fn request(&self, path: &str, payment: Option<&Payment>) -> ApiRequest {
        self.request_about(path, payment, &self.target.url())
    }

    /// A paid-route request about `url`, with a payment header when given.
    pub fn request_about(&self, path: &str, payment: Option<&Payment>, url: &str) -> ApiRequest {
        self.request_via(Transport::Http, path, payment, url)
    }

    /// A paid request for the op of `path` (`/check`, `/memo`) about `url` over `transport`.
    pub fn request_via(
        &self,
        transport: Transport,
        path: &str,
        payment: Option<&Payment>,
        url: &str,
    ) -> ApiRequest {
        let n = self.requests.fetch_add(1, Ordering::SeqCst);
        let id = format!("paid-flow-{n}");
        match transport {
            Transport::Http => paid_request(path, payment, url, id),
            Transport::Mcp => mcp_request(path.trim_start_matches('/'), payment, url, n, id),
            Transport::A2a => a2a_request(path.trim_start_matches('/'), payment, url, n, id),
        }
    }

    /// `/check` about the target with `payment`, over `transport`.
    pub async fn buy(&self, transport: Transport, payment: &Payment) -> Answer {
        self.send(self.request_via(transport, CHECK, Some(payment), &self.target.url())).await
    }

    /// `wallet`'s proof answering a fresh challenge of `path` over `transport`.
    pub async fn proof_by(
        &self,
        transport: Transport,
        path: &str,
        wallet: &ed25519_dalek::SigningKey,
    ) -> String {
        let unpaid = self.request_via(transport, path, None, &self.target.url());
        let challenge = self.send(unpaid).await;
        assert_eq!(challenge.status, 402, "{transport:?}: an unpaid call gets a challenge");
        let header = challenge.header("payment-required").expect("a v2 challenge");
        sign_in::proof(header, wallet)
    }

    /// `/check` about the target with `payment`, signed in by the buyer, over `transport`.
    pub async fn buy_signed(&self, transport: Transport, payment: &Payment) -> Answer {
        let proof = self.proof_by(transport, CHECK, &sign_in::buyer()).await;
        let request = self.request_via(transport, CHECK, Some(payment), &self.target.url());
        self.send(with_proof(request, &proof)).await
    }

    /// `path` about the target with no payment, signed in by `wallet`, over `transport`.
    pub async fn collect_by(
        &self,
        transport: Transport,
        path: &str,
        wallet: &ed25519_dalek::SigningKey,
    ) -> Answer {
        let proof = self.proof_by(transport, path, wallet).await;
        let request = self.request_via(transport, path, None, &self.target.url());
        self.send(with_proof(request, &proof)).await
    }

    /// Sends one request and reads the answer (an MCP answer as [`mcp_answer`] reads it, an
    /// A2A answer as [`a2a_answer`] does).
    pub async fn send(&self, request: ApiRequest) -> Answer {
        let path = request.path.clone();
        match tokio::time::timeout(REQUEST_LIMIT, self.service.handle(request)).await {
            Ok(response) if path == MCP => mcp_answer(response.into_http()),
            Ok(response) if path == A2A => a2a_answer(response.into_http()),
            Ok(response) => Answer::from(response.into_http()),
            Err(_) => panic!("the service did not answer within {REQUEST_LIMIT:?}"),
        }
    }

    /// `POST /check` with a payment.
    pub async fn post_check(&self, payment: &Payment) -> Answer {
        self.send(self.request(CHECK, Some(payment))).await
    }

    /// `POST <path>` with a payment.
    pub async fn post(&self, path: &str, payment: &Payment) -> Answer {
        self.send(self.request(path, Some(payment))).await
    }

    /// `POST /check` without a payment: the service's own 402.
    pub async fn unpaid_402(&self) -> Answer {
        self.unpaid_402_for(CHECK).await
    }

    /// `POST <path>` without a payment.
    pub async fn unpaid_402_for(&self, path: &str) -> Answer {
        let answer = self.send(self.request(path, None)).await;
        assert_eq!(answer.status, 402, "an unpaid request gets a challenge: {answer}");
        answer
    }

    /// A fresh v2 payment answering this route's 402.
    pub async fn payment_for(&self, path: &str) -> Payment {
        let challenge = self.unpaid_402_for(path).await;
        let header = challenge.header("payment-required").expect("a PAYMENT-REQUIRED header");
        Payment::v2(header)
    }

    /// A fresh v2 payment for `/check`.
    pub async fn fresh_payment(&self) -> Payment {
        self.payment_for(CHECK).await
    }

    /// A fresh v2 payment for `/check`, answering the challenge `transport` serves.
    pub async fn fresh_payment_via(&self, transport: Transport) -> Payment {
        let unpaid = self.request_via(transport, CHECK, None, &self.target.url());
        let challenge = self.send(unpaid).await;
        assert_eq!(challenge.status, 402, "{transport:?}: an unpaid call gets a challenge");
        Payment::v2(challenge.header("payment-required").expect("a v2 challenge"))
    }

    /// Runs the request as its own task and aborts it where the store stops at `point`.
    pub async fn kill_at(&self, point: Point, request: ApiRequest) -> Interrupted {
        self.store.pause(point);
        let store = self.store.clone();
        let outcome = self.kill_when(async move { store.reached().await }, request).await;
        self.store.disarm();
        outcome
    }

    /// Runs the request as its own task and aborts it as soon as `signal` resolves.
    pub async fn kill_when(
        &self,
        signal: impl Future<Output = ()>,
        request: ApiRequest,
    ) -> Interrupted {
        let service = Arc::clone(&self.service);
        let mut task = tokio::spawn(async move { service.handle(request).await });
        tokio::select! {
            () = signal => {
                task.abort();
                let _ = (&mut task).await;
                Interrupted::Killed
            }
            joined = &mut task => {
                Interrupted::Finished(joined.expect("the request task ran").into_http().into())
            }
            () = tokio::time::sleep(KILL_WAIT) => {
                task.abort();
                panic!("the request neither reached its kill point nor answered in {KILL_WAIT:?}")
            }
        }
    }

    fn connection(&self) -> rusqlite::Connection {
        rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the store file opens read-only")
    }

    /// Every row of a table, each as column name -> value.
    fn rows(&self, table: &str) -> Vec<BTreeMap<String, SqlValue>> {
        let connection = self.connection();
        let mut statement =
            connection.prepare(&format!("SELECT * FROM {table}")).expect("the table exists");
        let names: Vec<String> = statement.column_names().into_iter().map(str::to_owned).collect();
        let rows = statement
            .query_map([], |row| {
                let mut map = BTreeMap::new();
                for (i, name) in names.iter().enumerate() {
                    map.insert(name.clone(), row.get::<_, SqlValue>(i)?);
                }
                Ok(map)
            })
            .expect("the table reads");
        rows.map(|row| row.expect("a row reads")).collect()
    }

    /// How many rows `table` holds.
    pub fn row_count(&self, table: &str) -> usize {
        self.rows(table).len()
    }

    /// The ledger's rows, by key.
    pub fn ledger(&self) -> Vec<LedgerRow> {
        let mut rows: Vec<LedgerRow> = self
            .rows("ledger")
            .iter()
            .map(|row| LedgerRow {
                key: text(row, "pk").expect("a ledger key"),
                payment_tx: text(row, "payment_tx"),
                payer_wallet: text(row, "payer_wallet"),
            })
            .collect();
        rows.sort_by(|a, b| a.key.cmp(&b.key));
        rows
    }

    /// The payment claims.
    pub fn claims(&self) -> Vec<ClaimRow> {
        self.rows("payments")
            .iter()
            .map(|row| ClaimRow {
                key: text(row, "pk").expect("a claim key"),
                op: text(row, "op"),
                marker: text(row, "marker"),
                payment_tx: text(row, "payment_tx"),
            })
            .collect()
    }

    /// The marker of the only claim (None when there is no claim; panics on several).
    pub fn marker(&self) -> Option<String> {
        let claims = self.claims();
        assert!(claims.len() <= 1, "one payment, at most one claim: {claims:?}");
        claims.into_iter().next().and_then(|claim| claim.marker)
    }

    /// Today's counters (the clock's UTC day).
    pub fn metrics_today(&self) -> BTreeMap<String, u64> {
        let today = UtcDay::of(self.now()).expect("a day");
        let connection = self.connection();
        let mut statement = connection
            .prepare("SELECT counter, count FROM metrics WHERE day = ?1")
            .expect("the metrics table exists");
        let rows = statement
            .query_map([today.as_str()], |row| Ok((row.get::<_, String>(0)?, row.get(1)?)))
            .expect("the metrics read");
        rows.map(|row| row.expect("a metrics row")).collect()
    }

    /// Today's paid verdicts (every `paid_check_*` and `paid_memo_*` counter).
    pub fn paid_today(&self) -> u64 {
        self.metrics_today()
            .iter()
            .filter(|(name, _)| name.starts_with("paid_check_") || name.starts_with("paid_memo_"))
            .map(|(_, count)| count)
            .sum()
    }
}

/// `request` signed in with `proof`: the `SIGN-IN-WITH-X` header over HTTP,
/// `_meta["sign-in-with-x"]` over MCP.
pub fn with_proof(mut request: ApiRequest, proof: &str) -> ApiRequest {
    if request.path == MCP {
        let mut body: Value = serde_json::from_slice(&request.body).expect("JSON-RPC");
        body["params"]["_meta"]["sign-in-with-x"] = proof.into();
        request.body = body.to_string().into_bytes();
    } else if request.path == A2A {
        let mut body: Value = serde_json::from_slice(&request.body).expect("JSON-RPC");
        body["params"]["message"]["metadata"]["sign-in-with-x"] = proof.into();
        request.body = body.to_string().into_bytes();
    } else {
        let value = HeaderValue::from_str(proof).expect("a header value");
        request.headers.insert("sign-in-with-x", value);
    }
    request
}

/// A text column of a row read by [`World::rows`].
fn text(row: &BTreeMap<String, SqlValue>, column: &str) -> Option<String> {
    match row.get(column) {
        Some(SqlValue::Text(text)) => Some(text.clone()),
        _ => None,
    }
}

/// `tools/call` of the paid tool `tool` about `url` (JSON-RPC id `id`) from loopback, with the
/// payment in `_meta["x402/payment"]` as the official Python client sends it (every absent
/// member an explicit null: `"extensions": null`).
pub fn mcp_request(
    tool: &str,
    payment: Option<&Payment>,
    url: &str,
    id: usize,
    request_id: String,
) -> ApiRequest {
    let mut params = json!({"name": tool, "arguments": {"url": url}});
    if let Some(payment) = payment {
        let mut payload = payment.payload();
        if payload.get("extensions").is_none() {
            payload["extensions"] = Value::Null;
        }
        params["_meta"] = json!({"x402/payment": payload});
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let headers = [("accept", "application/json, text/event-stream")];
    json_rpc_post(MCP, &headers, &body, request_id)
}

/// A JSON-RPC `POST` of `body` to `path` from loopback, with `headers` beside its content type.
fn json_rpc_post(
    path: &str,
    headers: &[(&'static str, &'static str)],
    body: &Value,
    request_id: String,
) -> ApiRequest {
    let mut map = HeaderMap::new();
    map.insert("content-type", HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        map.insert(*name, HeaderValue::from_static(value));
    }
    ApiRequest {
        method: Method::POST,
        path: path.to_owned(),
        query: None,
        headers: map,
        body: body.to_string().into_bytes(),
        source_ip: Some(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        public_base_url: None,
        request_id,
    }
}

/// An MCP tool result read as the HTTP answer it stands for, so that one set of assertions
/// holds for both transports: `structuredContent` as the body; the status 200 for a result,
/// 402 for a challenge (`accepts`), else the status of the error's rule; the challenge as
/// `PAYMENT-REQUIRED` and `_meta["x402/payment-response"]` as `PAYMENT-RESPONSE`, base64.
pub fn mcp_answer(response: http::Response<Vec<u8>>) -> Answer {
    assert_eq!(response.status(), 200, "MCP answers every request 200");
    let rpc: Value = serde_json::from_slice(response.body()).expect("a JSON-RPC answer");
    let result = &rpc["result"];
    assert!(result.is_object(), "a tool result, not a JSON-RPC error: {rpc}");
    let body = result["structuredContent"].clone();
    let text = result["content"][0]["text"].as_str().expect("one text item");
    assert_eq!(serde_json::from_str::<Value>(text).ok(), Some(body.clone()), "text = structured");
    let mut headers = HeaderMap::new();
    let encoded = |value: &Value| HeaderValue::from_str(&STANDARD.encode(value.to_string()));
    let status = if result["isError"] != true {
        200
    } else if body.get("accepts").is_some() {
        headers.insert("payment-required", encoded(&body).expect("base64"));
        402
    } else {
        let rule = body["error"]["rule"].as_str().expect("a closed-form error");
        let known = ApiError::all().into_iter().find(|e| e.rule() == rule);
        known.expect("one of our rules").status().as_u16()
    };
    if let Some(settlement) = result["_meta"].get("x402/payment-response") {
        headers.insert("payment-response", encoded(settlement).expect("base64"));
    }
    let bytes = body.to_string().into_bytes();
    Answer { status, headers, bytes, body }
}

/// `SendMessage` (A2A 1.0) calling the skill `skill` about `url` (JSON-RPC id `id`) from
/// loopback, the x402 extension activated, with the payment in the message's metadata as an
/// A2A 1.0 client sends it: a protobuf `Struct`, every number a double (`"x402Version": 2.0`).
pub fn a2a_request(
    skill: &str,
    payment: Option<&Payment>,
    url: &str,
    id: usize,
    request_id: String,
) -> ApiRequest {
    let mut message = json!({
        "messageId": format!("buyer-{id}"),
        "role": "ROLE_USER",
        "parts": [{"data": {"skill": skill, "url": url}, "mediaType": "application/json"}],
    });
    if let Some(payment) = payment {
        let payload = as_struct(payment.payload());
        message["metadata"] =
            json!({"x402.payment.status": "payment-submitted", "x402.payment.payload": payload});
    }
    let params = json!({"message": message, "configuration": {}});
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": params});
    let headers = [("a2a-version", "1.0"), ("a2a-extensions", X402_A2A_EXTENSION)];
    json_rpc_post(A2A, &headers, &body, request_id)
}

/// An A2A task (the result of `SendMessage`, A2A 1.0) read as the HTTP answer it stands for,
/// so that one set of assertions holds for every transport: a completed task's artifact as the
/// body with 200; a task waiting for a payment as 402 with `x402.payment.required` as the body
/// and as `PAYMENT-REQUIRED`; a failed or rejected task's closed-form error as the body with
/// its rule's status; `x402.payment.receipts[0]` as `PAYMENT-RESPONSE`, base64.
pub fn a2a_answer(response: http::Response<Vec<u8>>) -> Answer {
    assert_eq!(response.status(), 200, "A2A answers every request 200");
    let rpc: Value = serde_json::from_slice(response.body()).expect("a JSON-RPC answer");
    let task = &rpc["result"]["task"];
    assert!(task.is_object(), "a task, not a JSON-RPC error: {rpc}");
    let message = &task["status"]["message"];
    assert_eq!(message["taskId"], task["id"], "the status message names its task");
    let metadata = &message["metadata"];
    let mut headers = HeaderMap::new();
    let encoded = |value: &Value| HeaderValue::from_str(&STANDARD.encode(value.to_string()));
    let (status, body) = match task["status"]["state"].as_str() {
        Some("TASK_STATE_COMPLETED") => (200, task["artifacts"][0]["parts"][0]["data"].clone()),
        Some("TASK_STATE_INPUT_REQUIRED") => {
            assert_eq!(metadata["x402.payment.status"], "payment-required", "{rpc}");
            let required = metadata["x402.payment.required"].clone();
            headers.insert("payment-required", encoded(&required).expect("base64"));
            (402, required)
        }
        Some("TASK_STATE_FAILED" | "TASK_STATE_REJECTED") => {
            let body = message["parts"][1]["data"].clone();
            let rule = body["error"]["rule"].as_str().expect("a closed-form error");
            let known = ApiError::all().into_iter().find(|e| e.rule() == rule);
            (known.expect("one of our rules").status().as_u16(), body)
        }
        _ => panic!("a state this endpoint does not answer: {rpc}"),
    };
    if let Some(receipt) = metadata.get("x402.payment.receipts") {
        headers.insert("payment-response", encoded(&receipt[0]).expect("base64"));
    }
    let bytes = body.to_string().into_bytes();
    Answer { status, headers, bytes, body }
}

/// A paid-route request (`POST` with the JSON body `{"url"}`) from loopback, with a payment
/// header when given.
pub fn paid_request(
    path: &str,
    payment: Option<&Payment>,
    url: &str,
    request_id: String,
) -> ApiRequest {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    if let Some(payment) = payment {
        let (name, value) = payment.header();
        headers.insert(name, HeaderValue::from_str(&value).expect("a header value"));
    }
    ApiRequest {
        method: Method::POST,
        path: path.to_owned(),
        query: None,
        headers,
        body: json!({"url": url}).to_string().into_bytes(),
        source_ip: Some(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        public_base_url: None,
        request_id,
    }
}
