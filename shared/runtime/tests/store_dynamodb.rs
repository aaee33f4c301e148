//! The DynamoDB backend: the store contract against every local DynamoDB-API server that
//! `scripts/test` starts on loopback (dynalite and moto_server), and the time bound on an
//! endpoint that is down or never answers.

use crate::store_contract;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use aws_config::SdkConfig;
use aws_sdk_dynamodb::types::AttributeValue;
use payability_core::grade::CheckState;
use payability_runtime::store::dynamodb::{
    DynamoStore, METRICS_SHARDS, RequestBounds, TableNames, create_tables,
};
use payability_runtime::store::*;
use payability_tests::endpoints::{dynamodb_endpoints, local_sdk_config};
use payability_tests::standin::closed_port;
use store_contract::{Fixture, T0, URL, bare, run_all};
use tokio::net::TcpListener;

/// How long a store may take to say it is unavailable (the service's bound is 4 s).
const FAULT_BOUND: Duration = Duration::from_secs(10);
/// The contract checks semantics, not speed. moto (run serially by `scripts/test`) answers a
/// burst (the 200 concurrent pre-checks are about 400 requests) one at a time, past the
/// service's 1.5 s per attempt, and its listen backlog (128) drops some of 200 simultaneous
/// connects, which Linux retries after 1 s, the service's connect bound. The fault tests
/// hold the service's own bounds.
const LOCAL_SERVER_BOUNDS: RequestBounds = RequestBounds {
    connect: Duration::from_secs(5),
    attempt: Duration::from_secs(10),
    operation: Duration::from_secs(30),
    ..RequestBounds::SERVICE
};

/// Fresh tables per store, named apart by a per-run prefix and a counter.
struct DynamoFixture {
    sdk_config: SdkConfig,
    run: String,
    stores_made: AtomicU32,
    transactions: bool,
}

impl DynamoFixture {
    /// A fixture on a local server; `name` tells whether it runs `TransactWriteItems`.
    fn new(name: &str, endpoint: &str) -> Self {
        let started = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros();
        Self {
            sdk_config: local_sdk_config(endpoint),
            run: format!("pv-{}-{started}", std::process::id()),
            stores_made: AtomicU32::new(0),
            transactions: name != "dynalite",
        }
    }
}

impl Fixture for DynamoFixture {
    type Store = DynamoStore;

    fn transactions(&self) -> bool {
        self.transactions
    }

    async fn fresh(&self) -> DynamoStore {
        let n = self.stores_made.fetch_add(1, Ordering::Relaxed);
        let tables = TableNames::with_prefix(&format!("{}-{n}-", self.run));
        let store = DynamoStore::with_bounds(&self.sdk_config, tables, LOCAL_SERVER_BOUNDS);
        create_tables(store.client(), store.tables()).await.expect("tables created");
        store
    }

    async fn another_handle(&self, store: &DynamoStore) -> DynamoStore {
        DynamoStore::with_bounds(&self.sdk_config, store.tables().clone(), LOCAL_SERVER_BOUNDS)
    }

    /// Every attribute name and value of every item of the five tables.
    async fn stored_bytes(&self, store: &DynamoStore) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (table, _) in store.tables().all() {
            let mut pages = store
                .client()
                .scan()
                .table_name(table)
                .consistent_read(true)
                .into_paginator()
                .send();
            while let Some(page) = pages.next().await {
                for item in page.expect("table scanned").items() {
                    let sorted: std::collections::BTreeMap<_, _> = item.iter().collect();
                    bytes.extend(format!("{table}: {sorted:?}\n").into_bytes());
                }
            }
        }
        bytes
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_holds_on_every_local_server() {
    let mut failed = Vec::new();
    for (name, endpoint) in dynamodb_endpoints() {
        let started = Instant::now();
        let passed =
            tokio::spawn(run_all(Arc::new(DynamoFixture::new(&name, &endpoint)))).await.is_ok();
        eprintln!(
            "store contract against {name} at {endpoint}: passed {passed} in {:?}",
            started.elapsed()
        );
        if !passed {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "the store contract failed against {failed:?} (panics above)");
}

/// Local runs call `create_tables` at every start: tables (and TTL) that exist are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_the_tables_again_keeps_them() {
    for (name, endpoint) in dynamodb_endpoints() {
        let fixture = DynamoFixture::new(&name, &endpoint);
        let store = fixture.fresh().await;
        store.claim(&bare(PaymentId([1; 32]), PaidOp::Memo), T0).await.unwrap();
        assert_eq!(create_tables(store.client(), store.tables()).await, Ok(()), "{name}");
        let again = store.claim(&bare(PaymentId([1; 32]), PaidOp::Memo), T0).await;
        assert_eq!(again, Ok(ClaimOutcome::AlreadyClaimed), "{name}: the claim survived");
    }
}

/// One operation of each capability, as a boxed future of its outcome.
type Operation = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send>>;

fn every_operation(store: &Arc<DynamoStore>) -> Vec<(&'static str, Operation)> {
    let entry = LedgerEntry {
        payer: Payer::House { id: HouseId::parse("0123456789abcdef0123456789abcdef").unwrap() },
        at: T0,
        price_usdc_units: 10_000,
        cad: CadBlock { rate: None, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict: LedgerVerdict::Check { state: CheckState::Populated, description_overlong: false },
    };
    let day = UtcDay::of(T0).unwrap();
    let rate = CadRate::new("1.3971", day.clone()).unwrap();
    let payment = PaymentId([7; 32]);
    let caller = CallerKey::Wallet(Base58Id::parse(&"W".repeat(44)).unwrap());
    let s = |store: &Arc<DynamoStore>| store.clone();
    vec![
        (
            "append",
            Box::pin({
                let (store, entry) = (s(store), entry.clone());
                async move { store.record(&entry).await.map(drop) }
            }),
        ),
        (
            "cad_pending",
            Box::pin({
                let store = s(store);
                async move { store.cad_pending(10).await.map(drop) }
            }),
        ),
        (
            "mark_refunded",
            Box::pin({
                let (store, key) = (s(store), entry.key());
                async move { store.mark_refunded(&key).await.map(drop) }
            }),
        ),
        (
            "fill_cad",
            Box::pin({
                let (store, rate) = (s(store), rate.clone());
                async move { store.fill_cad(&entry.key(), &rate).await.map(drop) }
            }),
        ),
        (
            "claim",
            Box::pin({
                let (store, payment) = (s(store), payment);
                async move { store.claim(&bare(payment, PaidOp::Check), T0).await.map(drop) }
            }),
        ),
        (
            "advance",
            Box::pin({
                let (store, payment) = (s(store), payment);
                async move { store.advance(&payment, &Transition::Settle).await.map(drop) }
            }),
        ),
        (
            "resume",
            Box::pin({
                let store = s(store);
                async move {
                    store
                        .resume(&Retry { id: payment, op: PaidOp::Check, url: URL }, T0)
                        .await
                        .map(drop)
                }
            }),
        ),
        (
            "try_use",
            Box::pin({
                let store = s(store);
                async move { store.try_use(&caller, T0).await.map(drop) }
            }),
        ),
        (
            "increment",
            Box::pin({
                let store = s(store);
                async move { store.increment(Counter::Precheck, T0).await }
            }),
        ),
        (
            "days",
            Box::pin({
                let (store, day) = (s(store), day.clone());
                async move { store.days(&day, &day).await.map(drop) }
            }),
        ),
        (
            "rate get",
            Box::pin({
                let (store, day) = (s(store), day.clone());
                async move { store.get(&day).await.map(drop) }
            }),
        ),
        (
            "rate put",
            Box::pin({
                let store = s(store);
                async move { store.put(&day, &rate).await }
            }),
        ),
    ]
}

/// Runs every operation at once against `endpoint`: each must be `Unavailable` in time.
async fn every_operation_is_unavailable_within_the_bound(endpoint: &str) {
    let store =
        Arc::new(DynamoStore::new(&local_sdk_config(endpoint), TableNames::with_prefix("fault-")));
    let started = Instant::now();
    let tasks: Vec<_> =
        every_operation(&store).into_iter().map(|(name, op)| (name, tokio::spawn(op))).collect();
    for (name, task) in tasks {
        assert_eq!(task.await.expect("no panic"), Err(StoreError::Unavailable), "{name}");
    }
    let elapsed = started.elapsed();
    assert!(elapsed < FAULT_BOUND, "took {elapsed:?}");
    eprintln!("every operation unavailable after {elapsed:?}");
}

/// Nothing listens on the port: connections are refused, retried, then `Unavailable`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoint_down_is_unavailable_within_the_bound() {
    let endpoint = format!("http://127.0.0.1:{}", closed_port());
    every_operation_is_unavailable_within_the_bound(&endpoint).await;
}

/// The server accepts every connection and never answers: the attempt and operation
/// timeouts end each request. It holds no data, so nothing can have been written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoint_that_never_answers_is_unavailable_within_the_bound() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    let server = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::Relaxed);
            held.push(socket);
        }
    });
    every_operation_is_unavailable_within_the_bound(&endpoint).await;
    server.abort();
    assert!(accepted.load(Ordering::Relaxed) > 0, "the requests reached the silent server");
}

/// Calls an operation `runs` times in sequence and returns each call's duration, sorted.
async fn timed<Op: Future<Output = ()>>(runs: u32, mut op: impl FnMut(u32) -> Op) -> Vec<Duration> {
    let mut durations = Vec::new();
    for n in 0..runs {
        let started = Instant::now();
        op(n).await;
        durations.push(started.elapsed());
    }
    durations.sort();
    durations
}

/// A distinct payment (ledger key, claim) per number.
fn tx_of(n: u32) -> Base58Id {
    let digits: String = n.to_string().chars().map(|c| if c == '0' { 'z' } else { c }).collect();
    Base58Id::parse(&format!("Tx{digits}{}", "K".repeat(80 - digits.len()))).unwrap()
}

/// Per-operation latency on loopback, median and 90th percentile of 300 sequential calls
/// each: `scripts/test -p payability-runtime --test integration store_dynamodb:: -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn latency_per_operation() {
    const RUNS: u32 = 300;
    let day = &UtcDay::of(T0).unwrap();
    let rate = &CadRate::new("1.3971", day.clone()).unwrap();
    let entry = |n: u32| LedgerEntry {
        payer: Payer::Paid {
            wallet: Base58Id::parse(&"W".repeat(44)),
            tx: tx_of(n),
            fee_lamports: Some(5000),
        },
        at: T0,
        price_usdc_units: 10_000,
        cad: CadBlock { rate: None, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict: LedgerVerdict::Check { state: CheckState::Populated, description_overlong: false },
    };
    let ip_caller = |n: u32| CallerKey::SourceIp(std::net::Ipv4Addr::from(0x0a00_0000 + n).into());
    for (server, endpoint) in dynamodb_endpoints() {
        let store = &DynamoFixture::new(&server, &endpoint).fresh().await;
        store.put(day, rate).await.unwrap();
        let rows = [
            (
                "append",
                timed(RUNS, |n| async move {
                    assert_eq!(store.record(&entry(n)).await, Ok(AppendOutcome::Appended))
                })
                .await,
            ),
            (
                "claim",
                timed(RUNS, |n| async move {
                    let id = payment_id(n);
                    assert_eq!(
                        store.claim(&bare(id, PaidOp::Check), T0).await,
                        Ok(ClaimOutcome::Claimed)
                    );
                })
                .await,
            ),
            (
                "try_use (allowed)",
                timed(RUNS, |n| async move {
                    assert_eq!(
                        store.try_use(&ip_caller(n), T0).await,
                        Ok(FreeTierDecision::Allowed { used: 1 })
                    );
                })
                .await,
            ),
            (
                "try_use (too soon)",
                timed(RUNS, |_| async move {
                    assert_eq!(
                        store.try_use(&ip_caller(0), T0).await,
                        Ok(FreeTierDecision::TooSoon)
                    );
                })
                .await,
            ),
            (
                "increment",
                timed(
                    RUNS,
                    |_| async move { store.increment(Counter::Precheck, T0).await.unwrap() },
                )
                .await,
            ),
            (
                "rate get",
                timed(RUNS, |_| async move { assert!(store.get(day).await.unwrap().is_some()) })
                    .await,
            ),
        ];
        for (op, durations) in rows {
            let at = |q: usize| durations[durations.len() * q / 100].as_secs_f64() * 1000.0;
            println!(
                "{server:<9} {op:<19} median {:>6.2} ms   p90 {:>6.2} ms   ({RUNS} calls)",
                at(50),
                at(90)
            );
        }
    }
}

/// A distinct payment id per number.
fn payment_id(n: u32) -> PaymentId {
    let mut id = [0; 32];
    id[..4].copy_from_slice(&n.to_le_bytes());
    PaymentId(id)
}

/// Every item of the metrics table, by key.
async fn metrics_items(
    store: &DynamoStore,
) -> std::collections::BTreeMap<String, std::collections::HashMap<String, AttributeValue>> {
    let mut items = std::collections::BTreeMap::new();
    let mut pages = store
        .client()
        .scan()
        .table_name(&store.tables().metrics)
        .consistent_read(true)
        .into_paginator()
        .send();
    while let Some(page) = pages.next().await {
        for item in page.expect("metrics scanned").items() {
            let Some(AttributeValue::S(key)) = item.get("pk") else { panic!("no key: {item:?}") };
            items.insert(key.clone(), item.clone());
        }
    }
    items
}

/// A day's counts are written to random shards (`metrics:<day>#<shard>`), the ledger's
/// count too, and a read sums every shard and an unsharded item written before sharding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_writes_spread_over_shards_and_reads_sum_them() {
    const WRITES: u64 = 64;
    for (server, endpoint) in dynamodb_endpoints() {
        let fixture = DynamoFixture::new(&server, &endpoint);
        let store = fixture.fresh().await;
        let today = UtcDay::of(T0).unwrap();
        for _ in 0..WRITES {
            store.increment(Counter::Precheck, T0).await.unwrap();
        }
        let recorded = if fixture.transactions {
            let entry = LedgerEntry {
                payer: Payer::Paid { wallet: None, tx: tx_of(1), fee_lamports: None },
                at: T0,
                price_usdc_units: 10_000,
                cad: CadBlock { rate: None, refund: false },
                criteria_version: CriteriaVersion::current(),
                verdict: LedgerVerdict::Check {
                    state: CheckState::Populated,
                    description_overlong: false,
                },
            };
            assert_eq!(store.record(&entry).await, Ok(AppendOutcome::Appended));
            1
        } else {
            0
        };
        let items = metrics_items(&store).await;
        let mut sums = std::collections::BTreeMap::<String, u64>::new();
        for (key, item) in &items {
            let shard = key
                .strip_prefix(&format!("metrics:{}#", today.as_str()))
                .and_then(|shard| shard.parse::<u32>().ok())
                .unwrap_or_else(|| panic!("{server}: not a shard of today: {key}"));
            assert!(shard < METRICS_SHARDS, "{server}: {key}");
            for (name, value) in item.iter().filter(|(name, _)| name.as_str() != "pk") {
                let AttributeValue::N(count) = value else { panic!("{server}: {item:?}") };
                *sums.entry(name.clone()).or_default() += count.parse::<u64>().unwrap();
            }
        }
        assert!(items.len() > 1, "{server}: {WRITES} writes landed on one shard: {items:?}");
        assert_eq!(sums.get("precheck"), Some(&WRITES), "{server}");
        assert_eq!(sums.get("paid_check_populated").copied().unwrap_or(0), recorded, "{server}");

        store
            .client()
            .put_item()
            .table_name(&store.tables().metrics)
            .item("pk", AttributeValue::S(format!("metrics:{}", today.as_str())))
            .item("precheck", AttributeValue::N("5".to_owned()))
            .item("refund", AttributeValue::N("2".to_owned()))
            .send()
            .await
            .unwrap();
        let days = store.days(&today.shifted(-3).unwrap(), &today).await.unwrap();
        assert_eq!(days.len(), 1, "{server}: {days:?}");
        assert_eq!(days[0].day, today);
        assert_eq!(days[0].counts.get("precheck"), Some(&(WRITES + 5)), "{server}");
        assert_eq!(days[0].counts.get("refund"), Some(&2), "{server}");
    }
}

/// The time of the widest metrics read (366 days, every shard of every day written) on
/// loopback: `scripts/test -p payability-runtime --test integration store_dynamodb:: -- --ignored
/// --nocapture metrics_read`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn metrics_read_of_366_days() {
    const RUNS: u32 = 10;
    let today = &UtcDay::of(T0).unwrap();
    let first = &today.shifted(1 - MAX_METRICS_DAYS).unwrap();
    for (server, endpoint) in dynamodb_endpoints() {
        let store = &DynamoFixture::new(&server, &endpoint).fresh().await;
        let only_today = timed(RUNS, |_| async move {
            assert!(store.days(first, today).await.unwrap().is_empty());
        })
        .await;
        let mut puts = Vec::new();
        for days_before in 0..MAX_METRICS_DAYS {
            let day = today.shifted(-days_before).unwrap();
            for shard in 0..METRICS_SHARDS {
                puts.push(
                    aws_sdk_dynamodb::types::WriteRequest::builder()
                        .put_request(
                            aws_sdk_dynamodb::types::PutRequest::builder()
                                .item(
                                    "pk",
                                    AttributeValue::S(format!("metrics:{}#{shard}", day.as_str())),
                                )
                                .item("precheck", AttributeValue::N("3".to_owned()))
                                .item("paid_check_populated", AttributeValue::N("1".to_owned()))
                                .build()
                                .unwrap(),
                        )
                        .build(),
                );
            }
        }
        for chunk in puts.chunks(25) {
            let mut pending = chunk.to_vec();
            while !pending.is_empty() {
                let written = store
                    .client()
                    .batch_write_item()
                    .request_items(&store.tables().metrics, pending)
                    .send()
                    .await
                    .unwrap();
                pending = written
                    .unprocessed_items()
                    .and_then(|left| left.get(&store.tables().metrics))
                    .cloned()
                    .unwrap_or_default();
            }
        }
        let full = timed(RUNS, |_| async move {
            let days = store.days(first, today).await.unwrap();
            assert_eq!(days.len(), MAX_METRICS_DAYS as usize);
            let per_day = u64::from(METRICS_SHARDS) * 3;
            assert!(days.iter().all(|d| d.counts.get("precheck") == Some(&per_day)));
        })
        .await;
        for (what, durations) in [("empty", only_today), ("every shard written", full)] {
            let at = |q: usize| durations[durations.len() * q / 100].as_secs_f64() * 1000.0;
            println!(
                "{server:<9} days(366) {what:<20} median {:>8.1} ms   max {:>8.1} ms   ({RUNS} reads)",
                at(50),
                durations[durations.len() - 1].as_secs_f64() * 1000.0
            );
        }
    }
}

/// Once a handle has seen Day-0 recorded, its later `record_day0` calls write nothing: the
/// item removed behind its back stays removed, while a fresh handle writes it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handle_that_saw_day0_writes_it_no_more() {
    for (server, endpoint) in dynamodb_endpoints() {
        let fixture = DynamoFixture::new(&server, &endpoint);
        let store = fixture.fresh().await;
        let other = fixture.another_handle(&store).await;
        assert_eq!(store.record_day0(T0).await, Ok(Day0Outcome::Recorded), "{server}");
        assert_eq!(other.record_day0(T0).await, Ok(Day0Outcome::AlreadyRecorded), "{server}");
        store
            .client()
            .delete_item()
            .table_name(&store.tables().metrics)
            .key("pk", AttributeValue::S(DAY0_KEY.to_owned()))
            .send()
            .await
            .unwrap();
        for handle in [&store, &store.clone(), &other] {
            assert_eq!(handle.record_day0(T0).await, Ok(Day0Outcome::AlreadyRecorded));
        }
        assert_eq!(store.day0().await, Ok(None), "{server}: no write after Day-0 was seen");
        let fresh = fixture.another_handle(&store).await;
        assert_eq!(fresh.record_day0(T0).await, Ok(Day0Outcome::Recorded), "{server}");
        assert_eq!(store.day0().await, Ok(Some(T0)), "{server}");
    }
}
