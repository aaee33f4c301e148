//! The routes a browser reaches: `POST /rpc`'s blockhash reuse (2,000 relays, 16 at a time,
//! against a loopback Solana RPC that counts what it is asked), the `Origin` rule of `/a2a`,
//! `/precheck` and `/rpc` (the one `/mcp` keeps), and the CORS preflight's allowed headers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::{HeaderMap, Method};
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::sqlite::SqliteStore;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Reply, StandIn};
use serde_json::{Value, json};

use crate::paid_flow::mcp::ORIGIN_VECTORS;
use crate::paid_flow::pausing_store::PausingStore;
use crate::paid_flow::world::{StandIns, World, config};

/// The relay's service's signing seed.
const SEED: [u8; 32] = [9; 32];
/// Relays sent by the measurement.
const RELAYS: usize = 2_000;
/// Relays in flight at once.
const PARALLEL: usize = 16;
/// How far the service's clock moves between two rounds of [`PARALLEL`] relays: the 2,000
/// relays span 6 s of the service's time.
const ROUND_STEP: Duration = Duration::from_millis(48);

/// A request of `method` to `path` carrying `body`, from loopback, with this `Origin`.
fn request(method: Method, path: &str, body: &Value, origin: Option<&str>) -> ApiRequest {
    let mut headers = HeaderMap::new();
    headers.insert("content-type", "application/json".parse().unwrap());
    if let Some(origin) = origin {
        headers.insert("origin", origin.parse().unwrap());
    }
    ApiRequest {
        method,
        path: path.to_owned(),
        query: None,
        headers,
        body: body.to_string().into_bytes(),
        source_ip: Some("127.0.0.1".parse().unwrap()),
        public_base_url: Some("https://abc123.execute-api.us-east-1.amazonaws.com/v1".to_owned()),
        request_id: "browser-routes-test".to_owned(),
    }
}

/// `getLatestBlockhash` as the x402 Solana client asks it of `/rpc`.
fn latest_blockhash_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "getLatestBlockhash",
           "params": [{"commitment": "confirmed"}]})
}

/// The service the relay tests send to: a fresh SQLite store in `dir`, the stand-ins' clock and
/// facilitator, and `rpc` as the Solana RPC its page relays to.
fn relaying_to(
    rpc: &StandIn,
    stand_ins: &StandIns,
    dir: &ScratchDir,
) -> Arc<Service<PausingStore<SqliteStore>>> {
    let db = dir.join("store.sqlite3");
    let store = PausingStore::new(SqliteStore::open(&db).expect("a fresh SQLite store"));
    let base = config(&stand_ins.facilitator, &stand_ins.rpc, StoreChoice::Embedded(db));
    let config = ServiceConfig { solana_rpc_url: Some(rpc.url("/")), ..base };
    Arc::new(Service::new(config, &SEED, store, stand_ins.clock.function()).expect("the service"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rpc_relay_reuses_a_blockhash_for_two_seconds_and_asks_once_for_concurrent_misses() {
    let upstream = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&upstream);
    let rpc = StandIn::replying(move |_| {
        let n = counted.fetch_add(1, Ordering::SeqCst);
        Reply::json(
            200,
            &json!({"jsonrpc": "2.0", "id": 1, "result": {
                "context": {"slot": 100 + n},
                "value": {"blockhash": "11111111111111111111111111111111",
                          "lastValidBlockHeight": 200 + n},
            }}),
        )
    });
    let stand_ins = StandIns::start().await;
    let dir = ScratchDir::new("browser-routes");
    let service = relaying_to(&rpc, &stand_ins, &dir);
    let (mut from_cache, mut from_upstream) = (0, 0);
    for _ in 0..RELAYS / PARALLEL {
        let mut round = tokio::task::JoinSet::new();
        for _ in 0..PARALLEL {
            let service = Arc::clone(&service);
            round.spawn(async move {
                let call = latest_blockhash_call();
                service.handle(request(Method::POST, "/rpc", &call, None)).await
            });
        }
        while let Some(answer) = round.join_next().await {
            let answer = answer.expect("a relay");
            let body: Value = serde_json::from_slice(answer.body()).expect("a JSON-RPC answer");
            assert_eq!(
                body["result"]["value"]["blockhash"], "11111111111111111111111111111111",
                "{body}"
            );
            match answer.telemetry().relay.map(|relay| relay.name()) {
                Some("cache") => from_cache += 1,
                Some("upstream") => from_upstream += 1,
                other => panic!("a relay answer says where it came from: {other:?}"),
            }
        }
        stand_ins.clock.advance(ROUND_STEP);
    }
    let calls = upstream.load(Ordering::SeqCst);
    println!("{RELAYS} relays, {PARALLEL} in parallel, over 6 s: {calls} upstream calls");
    // A miss at 0 s, 2.016 s and 4.032 s (the first round after each 2 s).
    assert_eq!(calls, 3, "one upstream call per 2 s, one for concurrent misses");
    assert_eq!((from_upstream, from_cache), (3, RELAYS - 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_waiting_behind_a_hanging_rpc_share_its_failure_and_the_next_one_asks_again() {
    // An RPC that accepts and never answers: each read fails at the service's bound.
    let rpc = StandIn::start(Arc::new(|_| Box::pin(std::future::pending())));
    let stand_ins = StandIns::start().await;
    let dir = ScratchDir::new("browser-routes-hanging");
    let service = relaying_to(&rpc, &stand_ins, &dir);
    let mut waiting = tokio::task::JoinSet::new();
    for _ in 0..30 {
        waiting.spawn(unavailable_relay(Arc::clone(&service)));
    }
    while let Some(done) = waiting.join_next().await {
        done.expect("a relay");
    }
    assert_eq!(rpc.accepted(), 1, "30 concurrent misses, one read: its failure answers all");
    unavailable_relay(Arc::clone(&service)).await;
    assert_eq!(rpc.accepted(), 2, "a request after the failure asks again");
}

/// One `getLatestBlockhash` relay, which must be answered "try again" (-32005).
async fn unavailable_relay<S: payability_runtime::api::Stores>(service: Arc<Service<S>>) {
    let answer =
        service.handle(request(Method::POST, "/rpc", &latest_blockhash_call(), None)).await;
    let body: Value = serde_json::from_slice(answer.body()).expect("a JSON-RPC answer");
    assert_eq!(body["error"]["code"], -32005, "try again: {body}");
}

#[tokio::test]
async fn a2a_precheck_and_rpc_keep_the_origin_rule_of_mcp() {
    let world = World::start().await;
    let usdc = payability_core::price::USDC_MINT;
    let calls = [
        ("/a2a", json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}})),
        ("/rpc", json!({"jsonrpc": "2.0", "id": 1, "method": "getAccountInfo", "params": [usdc]})),
        ("/precheck", json!({"url": world.target.url()})),
    ];
    for (path, body) in &calls {
        for (origin, served) in ORIGIN_VECTORS {
            let response = world.service.handle(request(Method::POST, path, body, origin)).await;
            let answer: Value = serde_json::from_slice(response.body()).expect("a JSON answer");
            let status = response.status().as_u16();
            match served {
                true => assert_ne!(status, 403, "{path} {origin:?}: {answer}"),
                false => assert_eq!(
                    (status, answer["error"]["rule"].as_str()),
                    (403, Some("origin_forbidden")),
                    "{path} {origin:?}: {answer}"
                ),
            }
        }
    }
}

#[tokio::test]
async fn the_preflight_allows_every_request_header_a_transport_reads() {
    let world = World::start().await;
    let read = [
        "content-type",
        "authorization",
        "payment-signature",
        "x-payment",
        "sign-in-with-x",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "a2a-extensions",
        "x-a2a-extensions",
        "a2a-version",
    ];
    for path in ["/check", "/memo", "/precheck", "/mcp", "/a2a", "/rpc"] {
        let preflight = request(Method::OPTIONS, path, &Value::Null, Some("https://any.example"));
        let response = world.service.handle(preflight).await.into_http();
        assert_eq!(response.status(), 204, "{path}");
        let allowed = response
            .headers()
            .get("access-control-allow-headers")
            .and_then(|value| value.to_str().ok())
            .expect("access-control-allow-headers");
        let allowed: Vec<&str> = allowed.split(',').map(str::trim).collect();
        for header in read {
            assert!(allowed.contains(&header), "{path}: {header} not in {allowed:?}");
        }
    }
}
