//! The soak's service: the paid-flow stand-ins and one `Service` on a store (SQLite, or the
//! DynamoDB API on moto) behind the [`PausingStore`] the fault plan drives; a second handle on
//! the same store reads it back at the end. Requests are built here for each way a buyer
//! travels.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ed25519_dalek::SigningKey;
use http::{HeaderValue, Method};
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service, Stores};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{
    DayCounts, Metrics, PaymentClaims, PaymentId, StoredClaim, UtcDay, UtcMillis,
};
use payability_tests::endpoints::moto_sdk;
use payability_tests::scratch::ScratchDir;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::dice::Dice;
use super::faults::in_request;
use crate::paid_flow::chain::{Chain, Facilitator, Rpc};
use crate::paid_flow::clock::TestClock;
use crate::paid_flow::dynamodb::fresh_store;
use crate::paid_flow::pausing_store::{PauseControl, PausingStore};
use crate::paid_flow::payment::Payment;
use crate::paid_flow::sign_in;
use crate::paid_flow::target::Target;
use crate::paid_flow::world::{
    A2A, Answer, HOUSE_TOKEN, MCP, StandIns, a2a_answer, a2a_request, config, mcp_answer,
    mcp_request, paid_request, with_proof,
};

/// The longest one request may take before the soak calls it hung (a violation).
pub const REQUEST_LIMIT: Duration = Duration::from_secs(60);

/// The store a soak runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A temp SQLite file.
    Sqlite,
    /// Fresh tables on moto (the DynamoDB API with `TransactWriteItems`, which dynalite lacks).
    Moto,
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 2] = [Self::Sqlite, Self::Moto];

    /// Its name (`SOAK_STORE`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Moto => "moto",
        }
    }
}

/// How a buyer travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Route {
    /// `POST /check` or `/memo`, v2 `PAYMENT-SIGNATURE`.
    HttpPost,
    /// `GET /check?url=` or `/memo?url=`, v2.
    HttpGet,
    /// `POST`, v1 `X-PAYMENT`.
    HttpV1,
    /// MCP `tools/call`, the payment in `_meta`.
    Mcp,
    /// A2A `SendMessage`, the payment in the message's metadata.
    A2a,
}

/// The service, type-erased over its store.
type Handle = Arc<
    dyn Fn(ApiRequest) -> Pin<Box<dyn Future<Output = http::Response<Vec<u8>>> + Send>>
        + Send
        + Sync,
>;

fn handle_of<S: Stores + Send + Sync + 'static>(service: Service<S>) -> Handle {
    let service = Arc::new(service);
    Arc::new(move |request| {
        let service = Arc::clone(&service);
        Box::pin(async move { service.handle(request).await.into_http() })
    })
}

/// The store read back: its own handle for claims and metrics, and the ledger's table read
/// directly (every row, not only those the store's own reads select).
enum Readback {
    Sqlite(SqliteStore, PathBuf),
    Dynamo(DynamoStore, aws_sdk_dynamodb::Client, String),
}

/// What the store holds at the end.
#[derive(Debug, Default)]
pub struct StoreView {
    /// Each paid ledger entry's transaction and payer wallet.
    pub paid: Vec<(String, Option<String>)>,
    /// House entries.
    pub house: usize,
    /// The paid verdicts counted, over every day of the run.
    pub paid_counted: u64,
}

impl StoreView {
    /// The view of ledger rows (`payment_tx`, `payer_wallet`: a row without a transaction is a
    /// house entry) and of the metrics days.
    fn of(rows: Vec<(Option<String>, Option<String>)>, days: &[DayCounts]) -> Self {
        let mut view = StoreView::default();
        for (tx, wallet) in rows {
            match tx {
                Some(tx) => view.paid.push((tx, wallet)),
                None => view.house += 1,
            }
        }
        view.paid_counted = days
            .iter()
            .flat_map(|day| day.counts.iter())
            .filter(|(name, _)| name.starts_with("paid_check_") || name.starts_with("paid_memo_"))
            .map(|(_, count)| count)
            .sum();
        view
    }
}

/// Every ledger row of the SQLite file at `db`: its transaction and payer.
fn sqlite_ledger(db: &PathBuf) -> Vec<(Option<String>, Option<String>)> {
    let connection =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the store file opens read-only");
    let mut statement =
        connection.prepare("SELECT payment_tx, payer_wallet FROM ledger").expect("a ledger");
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).expect("it reads");
    rows.map(|row| row.expect("a row reads")).collect()
}

/// Every item of the DynamoDB ledger table: its transaction and payer.
async fn dynamo_ledger(
    client: &aws_sdk_dynamodb::Client,
    table: &str,
) -> Vec<(Option<String>, Option<String>)> {
    let mut pages = client.scan().table_name(table).consistent_read(true).into_paginator().send();
    let mut rows = Vec::new();
    while let Some(page) = pages.next().await {
        for item in page.expect("the ledger scans").items() {
            let text = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
            rows.push((text("payment_tx"), text("payer_wallet")));
        }
    }
    rows
}

/// The service under soak and everything around it.
pub struct Rig {
    handle: Handle,
    /// The fault switch of the service's store.
    pub store: PauseControl,
    /// The service's clock (still during the run; moved on between collection rounds).
    pub clock: TestClock,
    /// The chain the facilitator and the RPC share.
    pub chain: Arc<Chain>,
    /// The seller.
    pub target: Target,
    _facilitator: Facilitator,
    _rpc: Rpc,
    readback: Readback,
    started: UtcMillis,
    requests: AtomicUsize,
    _dir: ScratchDir,
}

impl Rig {
    /// Starts the stand-ins and the service on a fresh store of `backend`.
    pub async fn start(backend: Backend) -> Self {
        let StandIns { clock, chain, target, facilitator, rpc } = StandIns::start().await;
        let dir = ScratchDir::new("soak");
        let started = clock.now();
        let (handle, store, readback) = match backend {
            Backend::Sqlite => {
                let db = dir.join("store.sqlite3");
                let store = PausingStore::new(SqliteStore::open(&db).expect("a fresh store"));
                let control = store.control();
                let again = SqliteStore::open(&db).expect("it opens again");
                let readback = Readback::Sqlite(again, db.clone());
                let config = config(&facilitator, &rpc, StoreChoice::Embedded(db));
                (Self::serve(config, store, &clock), control, readback)
            }
            Backend::Moto => {
                let dynamo = fresh_store().await;
                let sdk = moto_sdk();
                let client = aws_sdk_dynamodb::Client::new(&sdk);
                let table = dynamo.tables().ledger.clone();
                let readback = Readback::Dynamo(
                    DynamoStore::new(&sdk, dynamo.tables().clone()),
                    client,
                    table,
                );
                let config =
                    config(&facilitator, &rpc, StoreChoice::DynamoDb(dynamo.tables().clone()));
                let store = PausingStore::new(dynamo);
                let control = store.control();
                (Self::serve(config, store, &clock), control, readback)
            }
        };
        Self {
            handle,
            store,
            clock,
            chain,
            target,
            _facilitator: facilitator,
            _rpc: rpc,
            readback,
            started,
            requests: AtomicUsize::new(0),
            _dir: dir,
        }
    }

    fn serve<S: Stores + Send + Sync + 'static>(
        config: ServiceConfig,
        store: PausingStore<S>,
        clock: &TestClock,
    ) -> Handle {
        let service = Service::new(config, &[7; 32], store, clock.function())
            .unwrap_or_else(|e| panic!("the service starts: {e}"));
        handle_of(service)
    }

    /// The request as a task of its own, its store faults chosen by `dice`; `leave`: the
    /// client goes away after that long (None when it answered first).
    pub async fn send(
        &self,
        request: ApiRequest,
        dice: Dice,
        leave: Option<Duration>,
    ) -> Option<Answer> {
        let path = request.path.clone();
        let mut task = tokio::spawn(in_request(dice, (self.handle)(request)));
        let leave = leave.unwrap_or(REQUEST_LIMIT);
        let response = tokio::select! {
            joined = &mut task => joined.expect("the request task ran"),
            () = tokio::time::sleep(leave) => {
                task.abort();
                let _ = (&mut task).await;
                assert!(leave < REQUEST_LIMIT, "a request did not answer within {REQUEST_LIMIT:?}");
                return None;
            }
        };
        Some(match path.as_str() {
            MCP => mcp_answer(response),
            A2A => a2a_answer(response),
            _ => Answer::from(response),
        })
    }

    fn next_id(&self) -> (usize, String) {
        let n = self.requests.fetch_add(1, Ordering::SeqCst);
        (n, format!("soak-{n}"))
    }

    /// A paid request for the op of `path` about `url`, over `route`, with `payment` if any.
    pub fn paid(
        &self,
        route: Route,
        path: &str,
        payment: Option<&Payment>,
        url: &str,
    ) -> ApiRequest {
        let (n, id) = self.next_id();
        match route {
            Route::HttpPost | Route::HttpV1 => paid_request(path, payment, url, id),
            Route::HttpGet => {
                let mut request = paid_request(path, payment, url, id);
                request.method = Method::GET;
                request.body = Vec::new();
                request.headers.remove("content-type");
                let query: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
                request.query = Some(format!("url={query}"));
                request
            }
            Route::Mcp => mcp_request(path.trim_start_matches('/'), payment, url, n, id),
            Route::A2a => a2a_request(path.trim_start_matches('/'), payment, url, n, id),
        }
    }

    /// A fresh challenge of `route` for the op of `path` about `url` (its `PAYMENT-REQUIRED`).
    pub async fn challenge(
        &self,
        route: Route,
        path: &str,
        url: &str,
        dice: &Dice,
    ) -> Option<String> {
        let answer = self.send(self.paid(route, path, None, url), dice.clone(), None).await?;
        (answer.status == 402).then(|| answer.header("payment-required").map(str::to_owned))?
    }

    /// `request` signed in by `wallet`, from a fresh challenge of the same route.
    pub async fn signed(
        &self,
        route: Route,
        path: &str,
        url: &str,
        request: ApiRequest,
        dice: &Dice,
        wallet: &SigningKey,
    ) -> Option<ApiRequest> {
        let challenge = self.challenge(route, path, url, dice).await?;
        Some(with_proof(request, &sign_in::proof(&challenge, wallet)))
    }

    /// A free pre-check of `url` from `source`.
    pub fn precheck(&self, url: &str, source: u8) -> ApiRequest {
        let mut request = paid_request("/precheck", None, url, self.next_id().1);
        request.source_ip = Some(IpAddr::V4(Ipv4Addr::new(127, 0, 1, source)));
        request.body = json!({"url": url, "op": "check"}).to_string().into_bytes();
        request
    }

    /// A house check of `url`.
    pub fn house(&self, url: &str) -> ApiRequest {
        let mut request = paid_request("/check", None, url, self.next_id().1);
        let bearer = HeaderValue::from_str(&format!("Bearer {HOUSE_TOKEN}")).expect("a header");
        request.headers.insert("authorization", bearer);
        request
    }

    /// The store read back: the ledger, and the paid verdicts counted.
    pub async fn view(&self) -> StoreView {
        let first = UtcDay::of(self.started).expect("a day");
        let last = UtcDay::of(self.clock.now()).expect("a day");
        match &self.readback {
            Readback::Sqlite(store, db) => {
                StoreView::of(sqlite_ledger(db), &store.days(&first, &last).await.expect("days"))
            }
            Readback::Dynamo(store, client, table) => {
                let days = store.days(&first, &last).await.expect("the metrics read back");
                StoreView::of(dynamo_ledger(client, table).await, &days)
            }
        }
    }

    /// The stored claim of the payment with this message.
    pub async fn claim(&self, message: &[u8]) -> Option<StoredClaim> {
        let id = PaymentId(Sha256::digest(message).into());
        let read = match &self.readback {
            Readback::Sqlite(store, _) => store.claim_of(&id).await,
            Readback::Dynamo(store, ..) => store.claim_of(&id).await,
        };
        read.expect("the claim reads back")
    }
}
