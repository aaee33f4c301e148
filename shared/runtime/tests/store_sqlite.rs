//! The embedded SQLite store: the contract suite on fresh files (a second handle is a second
//! connection, as another process would open), then what only SQLite has: the schema and
//! its version, functions opening a new file together, real processes sharing one file, the
//! busy timeout, corrupt rows, and per-operation latency (ignored; run by hand).

use crate::store_contract;

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use payability_core::grade::{CheckState, MemoState};
use payability_runtime::store::ledger_record::LEDGER_ATTRIBUTES;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::*;
use payability_tests::rerun::test_name;
use payability_tests::scratch::ScratchDir;
use store_contract::{Fixture, T0, URL, bare, run_all};

/// Fresh stores on fresh files; the files go when the fixture does.
#[derive(Default)]
struct SqliteFixture {
    /// Every directory handed out so far.
    dirs: Mutex<Vec<ScratchDir>>,
}

impl SqliteFixture {
    /// A path for a new database file, removed with the fixture.
    fn new_database(&self) -> PathBuf {
        let dir = ScratchDir::new("store-sqlite");
        let path = dir.join("store.db");
        self.dirs.lock().expect("fixture lock").push(dir);
        path
    }
}

impl Fixture for SqliteFixture {
    type Store = SqliteStore;

    async fn fresh(&self) -> SqliteStore {
        SqliteStore::open(&self.new_database()).expect("a fresh database opens")
    }

    async fn another_handle(&self, store: &SqliteStore) -> SqliteStore {
        SqliteStore::open(store.path()).expect("a second handle opens")
    }

    async fn stored_bytes(&self, store: &SqliteStore) -> Vec<u8> {
        let mut bytes = std::fs::read(store.path()).expect("the database file reads");
        bytes.extend(std::fs::read(wal_path(store.path())).unwrap_or_default());
        bytes
    }
}

/// The write-ahead log beside a database file.
fn wal_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_passes_the_contract() {
    run_all(Arc::new(SqliteFixture::default())).await;
}

/// A base58 id from a number (`0` is not base58, so it is written `z`).
fn id(prefix: &str, n: u32) -> Base58Id {
    let digits: String = n.to_string().chars().map(|c| if c == '0' { 'z' } else { c }).collect();
    Base58Id::parse(&format!("{prefix}{digits}{}", "K".repeat(40 - digits.len())))
        .expect("a valid base58 id")
}

/// A paid, CAD-pending check entry with its own transaction id.
fn pending_entry(n: u32) -> LedgerEntry {
    LedgerEntry {
        payer: Payer::Paid { wallet: None, tx: id("Tx", n), fee_lamports: None },
        at: UtcMillis(T0.0 + i64::from(n)),
        price_usdc_units: 10_000,
        cad: CadBlock { rate: None, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict: LedgerVerdict::Check { state: CheckState::Populated, description_overlong: false },
    }
}

fn day(text: &str) -> UtcDay {
    UtcDay::parse(text).expect("a valid day")
}

fn rate() -> CadRate {
    CadRate::new("1.3971", day("2026-11-27")).expect("a valid rate")
}

#[tokio::test]
async fn ledger_table_has_exactly_the_closed_attribute_list() {
    let fixture = SqliteFixture::default();
    let store = fixture.fresh().await;
    let connection = rusqlite::Connection::open(store.path()).expect("opens");
    let mut statement = connection.prepare("SELECT name FROM pragma_table_info('ledger')").unwrap();
    let columns: Vec<String> =
        statement.query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    let mut want = vec!["pk"];
    want.extend(LEDGER_ATTRIBUTES);
    assert_eq!(columns, want);
}

#[tokio::test]
async fn schema_version_is_recorded_and_a_newer_one_is_refused() {
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    drop(SqliteStore::open(&path).expect("creates the schema"));
    drop(SqliteStore::open(&path).expect("reopens the current schema"));
    let connection = rusqlite::Connection::open(&path).expect("opens");
    let version: i64 =
        connection.pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(version, 6);
    connection.pragma_update(None, "user_version", 7).unwrap();
    assert!(matches!(SqliteStore::open(&path), Err(StoreError::Corrupt)), "a newer schema");
}

#[tokio::test]
async fn a_version_1_file_gains_the_day0_table_and_keeps_its_rows() {
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    let store = SqliteStore::open(&path).expect("creates the schema");
    store.increment(Counter::Precheck, T0).await.unwrap();
    drop(store);
    {
        let connection = rusqlite::Connection::open(&path).expect("opens");
        connection
            .execute_batch(&format!(
                "DROP TABLE day0; {VERSION_3_COLUMNS_DROPPED} PRAGMA user_version = 1;"
            ))
            .unwrap();
    }
    let store = SqliteStore::open(&path).expect("migrates version 1");
    assert_eq!(store.day0().await, Ok(None));
    assert_eq!(store.record_day0(T0).await, Ok(Day0Outcome::Recorded));
    assert_eq!(store.day0().await, Ok(Some(T0)));
    let today = UtcDay::of(T0).unwrap();
    assert_eq!(store.days(&today, &today).await.unwrap()[0].counts.get("precheck"), Some(&1));
}

#[tokio::test]
async fn a_version_5_file_gains_the_sign_in_tables_and_keeps_its_claims() {
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    let store = SqliteStore::open(&path).expect("creates the schema");
    store.claim(&bare(payment_id(5), PaidOp::Check), T0).await.unwrap();
    drop(store);
    {
        let connection = rusqlite::Connection::open(&path).expect("opens");
        connection
            .execute_batch(
                "DROP TABLE purchases; DROP TABLE sign_in_nonces; PRAGMA user_version = 5;",
            )
            .unwrap();
    }
    let store = SqliteStore::open(&path).expect("migrates version 5");
    assert!(store.claim_of(&payment_id(5)).await.unwrap().is_some(), "the claim is kept");
    let nonce = payability_core::payment::siwx::issue_nonce(
        &payability_core::payment::siwx::NonceKey::derive(&[5; 32]),
        T0,
        [5; 8],
    );
    let until = UtcMillis(T0.0 + 300_000);
    assert_eq!(store.spend_nonce(&nonce, until, T0).await, Ok(NonceSpend::Spent));
    assert_eq!(store.purchase_of(&PurchaseBinding([5; 32]), T0).await, Ok(None));
}

/// Takes a file back to the payments table of version 2 (no URL binding, no payer).
const VERSION_3_COLUMNS_DROPPED: &str =
    "ALTER TABLE payments DROP COLUMN url_binding; ALTER TABLE payments DROP COLUMN payer_wallet;";

#[tokio::test]
async fn a_version_2_file_keeps_its_claims_and_resumes_an_unbound_one_only_while_settled() {
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    let (settled, delivered) = (payment_id(1), payment_id(2));
    let tx = Base58Id::parse(&"5".repeat(88)).unwrap();
    let store = SqliteStore::open(&path).expect("creates the schema");
    for claimed in [&settled, &delivered] {
        store.claim(&bare(*claimed, PaidOp::Check), T0).await.unwrap();
        store.advance(claimed, &Transition::Settle).await.unwrap();
        let settled = Transition::Settled { tx: tx.clone(), purchase: None };
        store.advance(claimed, &settled).await.unwrap();
    }
    store.advance(&delivered, &Transition::Deliver).await.unwrap();
    drop(store);
    {
        let connection = rusqlite::Connection::open(&path).expect("opens");
        connection
            .execute_batch(&format!("{VERSION_3_COLUMNS_DROPPED} PRAGMA user_version = 2;"))
            .unwrap();
    }
    let store = SqliteStore::open(&path).expect("migrates version 2");
    let claim = store.claim_of(&settled).await.unwrap().expect("the claim is kept");
    assert_eq!((claim.marker, claim.url, claim.payer), (ClaimMarker::Settled, None, None));
    let later = UtcMillis(T0.0 + IN_FLIGHT_MS);
    let other_url = UrlBinding([0xee; 32]);
    assert_eq!(
        store.resume(&Retry { id: settled, op: PaidOp::Check, url: other_url }, later).await,
        Ok(ResumeOutcome::Resumed { tx, payer: None }),
        "an unbound settled claim resumes as before bindings were kept"
    );
    assert_eq!(
        store.resume(&Retry { id: delivered, op: PaidOp::Check, url: URL }, later).await,
        Ok(ResumeOutcome::Refused),
        "an unbound delivered claim is never delivered again: its URL is not known"
    );
}

#[test]
fn functions_starting_together_on_a_new_file_all_open_it() {
    const FUNCTIONS: usize = 8;
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    let start = std::sync::Barrier::new(FUNCTIONS);
    std::thread::scope(|scope| {
        let opens: Vec<_> = (0..FUNCTIONS)
            .map(|_| {
                scope.spawn(|| {
                    start.wait();
                    SqliteStore::open(&path).map(drop)
                })
            })
            .collect();
        for open in opens {
            assert_eq!(open.join().expect("no panic"), Ok(()));
        }
    });
}

/// Set in a child process of `processes_sharing_one_file_keep_every_invariant`: its file.
const SHARED_FILE_VAR: &str = "PAYABILITY_SQLITE_SHARED_FILE";

/// Payments, pre-checks and increments each process attempts.
const ATTEMPTS_PER_PROCESS: u32 = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_sharing_one_file_keep_every_invariant() {
    if let Some(path) = std::env::var_os(SHARED_FILE_VAR) {
        let (claimed, allowed) = contend(&SqliteStore::open(Path::new(&path)).unwrap()).await;
        println!("contended claimed={claimed} allowed={allowed}");
        return;
    }
    const PROCESSES: u32 = 4;
    let fixture = SqliteFixture::default();
    let store = fixture.fresh().await;
    let test_binary = std::env::current_exe().expect("the test binary");
    let test = test_name(module_path!(), "processes_sharing_one_file_keep_every_invariant");
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            std::process::Command::new(&test_binary)
                .args([test.as_str(), "--exact", "--nocapture"])
                .env(SHARED_FILE_VAR, store.path())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("a child process starts")
        })
        .collect();
    let (mut claimed, mut allowed) = (0, 0);
    for child in children {
        let output = child.wait_with_output().expect("the child finishes");
        assert!(output.status.success(), "a child process failed");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line =
            stdout.lines().find_map(|line| line.strip_prefix("contended ")).expect("a report");
        for part in line.split(' ') {
            match part.split_once('=') {
                Some(("claimed", n)) => claimed += n.parse::<u32>().unwrap(),
                Some(("allowed", n)) => allowed += n.parse::<u32>().unwrap(),
                _ => panic!("an unexpected report"),
            }
        }
    }
    assert_eq!(claimed, ATTEMPTS_PER_PROCESS, "each payment is claimed by one process");
    assert_eq!(allowed, ATTEMPTS_PER_PROCESS, "each new caller is allowed in one process");
    let days = store.days(&day("2026-11-29"), &day("2026-11-29")).await.unwrap();
    let increments = u64::from(PROCESSES * ATTEMPTS_PER_PROCESS);
    assert_eq!(days[0].counts.get("precheck"), Some(&increments), "no increment lost");
}

/// One process's share of the contention: the same payments and the same new callers as
/// every other process (read-then-write), and increments; returns (claimed, allowed).
async fn contend(store: &SqliteStore) -> (u32, u32) {
    let (mut claimed, mut allowed) = (0, 0);
    for n in 0..ATTEMPTS_PER_PROCESS {
        let payment = payment_id(n);
        if store.claim(&bare(payment, PaidOp::Check), T0).await.unwrap() == ClaimOutcome::Claimed {
            claimed += 1;
        }
        let caller = CallerKey::SourceIp(IpAddr::V4(Ipv4Addr::from(n)));
        if let FreeTierDecision::Allowed { .. } = store.try_use(&caller, T0).await.unwrap() {
            allowed += 1;
        }
        store.increment(Counter::Precheck, T0).await.unwrap();
    }
    (claimed, allowed)
}

/// Every call that takes the write lock.
#[derive(Debug, Clone, Copy)]
enum WriteCall {
    Append,
    FillCad,
    MarkRefunded,
    Claim,
    Advance,
    Resume,
    TryUse,
    SpendNonce,
    Increment,
    PutRate,
}

impl WriteCall {
    const ALL: [Self; 10] = [
        Self::Append,
        Self::FillCad,
        Self::MarkRefunded,
        Self::Claim,
        Self::Advance,
        Self::Resume,
        Self::TryUse,
        Self::SpendNonce,
        Self::Increment,
        Self::PutRate,
    ];
}

/// Makes the call (each one would write if it could), keeping only whether it answered.
async fn write_call(store: &SqliteStore, call: WriteCall) -> Result<(), StoreError> {
    let claimed = payment_id(100);
    let caller = CallerKey::Wallet(id("Wa", 2));
    match call {
        WriteCall::Append => store.record(&pending_entry(2)).await.map(drop),
        WriteCall::FillCad => store.fill_cad(&pending_entry(1).key(), &rate()).await.map(drop),
        WriteCall::MarkRefunded => store.mark_refunded(&pending_entry(1).key()).await.map(drop),
        WriteCall::Claim => {
            store.claim(&bare(PaymentId([7; 32]), PaidOp::Memo), T0).await.map(drop)
        }
        WriteCall::Advance => store.advance(&claimed, &Transition::Settle).await.map(drop),
        WriteCall::Resume => {
            store.resume(&Retry { id: claimed, op: PaidOp::Check, url: URL }, T0).await.map(drop)
        }
        WriteCall::TryUse => store.try_use(&caller, T0).await.map(drop),
        WriteCall::SpendNonce => {
            let key = payability_core::payment::siwx::NonceKey::derive(&[9; 32]);
            let nonce = payability_core::payment::siwx::issue_nonce(&key, T0, [9; 8]);
            store.spend_nonce(&nonce, UtcMillis(T0.0 + 300_000), T0).await.map(drop)
        }
        WriteCall::Increment => store.increment(Counter::Precheck, T0).await,
        WriteCall::PutRate => store.put(&day("2026-11-28"), &rate()).await,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_locked_database_answers_unavailable_in_bounded_time_and_writes_nothing() {
    let fixture = SqliteFixture::default();
    let path = fixture.new_database();
    let store = SqliteStore::open_with_busy_timeout(&path, Duration::from_millis(100)).unwrap();
    let claimed = payment_id(100);
    store.record(&pending_entry(1)).await.unwrap();
    store.claim(&bare(claimed, PaidOp::Check), T0).await.unwrap();

    let counted = store.days(&day("2026-11-29"), &day("2026-11-29")).await;
    let locker = rusqlite::Connection::open(&path).expect("opens");
    locker.execute_batch("BEGIN EXCLUSIVE").expect("takes the write lock");
    for call in WriteCall::ALL {
        let started = Instant::now();
        assert_eq!(write_call(&store, call).await, Err(StoreError::Unavailable), "{call:?}");
        assert!(started.elapsed() < Duration::from_secs(2), "{call:?} waited too long");
    }
    assert_eq!(store.cad_pending(10).await, Ok(vec![pending_entry(1)]), "readers are not blocked");
    locker.execute_batch("ROLLBACK").expect("releases the lock");

    assert_eq!(store.cad_pending(10).await, Ok(vec![pending_entry(1)]), "no append, no fill");
    assert_eq!(
        store.claim(&bare(PaymentId([7; 32]), PaidOp::Memo), T0).await,
        Ok(ClaimOutcome::Claimed)
    );
    assert_eq!(store.advance(&claimed, &Transition::Settle).await, Ok(AdvanceOutcome::Advanced));
    let tx = Base58Id::parse(&"5".repeat(88)).unwrap();
    let settled = Transition::Settled { tx, purchase: None };
    assert_eq!(store.advance(&claimed, &settled).await, Ok(AdvanceOutcome::Advanced));
    for _ in 0..MAX_RESUMES {
        let resumed = store
            .resume(
                &Retry { id: claimed, op: PaidOp::Check, url: URL },
                UtcMillis(T0.0 + IN_FLIGHT_MS),
            )
            .await;
        assert_eq!(
            resumed,
            Ok(ResumeOutcome::Resumed {
                tx: Base58Id::parse(&"5".repeat(88)).unwrap(),
                payer: None
            }),
            "no resume counted"
        );
    }
    let caller = CallerKey::Wallet(id("Wa", 2));
    assert_eq!(store.try_use(&caller, T0).await, Ok(FreeTierDecision::Allowed { used: 1 }));
    assert_eq!(store.days(&day("2026-11-29"), &day("2026-11-29")).await, counted, "no count");
    assert_eq!(store.get(&day("2026-11-28")).await, Ok(None));
}

/// A read that must notice a stored value it did not write.
#[derive(Debug, Clone, Copy)]
enum Probe {
    PendingLedger,
    Rate,
    Metrics,
    FreeTier,
}

async fn probe(store: &SqliteStore, probe: Probe) -> Result<(), StoreError> {
    match probe {
        Probe::PendingLedger => store.cad_pending(10).await.map(drop),
        Probe::Rate => store.get(&day("2026-11-28")).await.map(drop),
        Probe::Metrics => store.days(&day("2026-11-29"), &day("2026-11-29")).await.map(drop),
        Probe::FreeTier => store.try_use(&CallerKey::Wallet(id("Wa", 3)), T0).await.map(drop),
    }
}

#[tokio::test]
async fn a_stored_value_of_the_wrong_shape_is_corrupt() {
    let cases = [
        ("UPDATE ledger SET timestamp = 'soon'", Probe::PendingLedger),
        ("UPDATE ledger SET criteria_version = 'payability/v0'", Probe::PendingLedger),
        ("UPDATE ledger SET payment_tx = 'not base58!'", Probe::PendingLedger),
        ("INSERT INTO fx VALUES ('2026-11-28', 'abc', '2026-11-27')", Probe::Rate),
        ("INSERT INTO fx VALUES ('2026-11-28', '1.4', 'friday')", Probe::Rate),
        ("INSERT INTO metrics VALUES ('2026-11-29', 'precheck', -1)", Probe::Metrics),
        ("UPDATE free_tier SET used = -1", Probe::FreeTier),
    ];
    let fixture = SqliteFixture::default();
    for (plant, read) in cases {
        let store = fixture.fresh().await;
        store.record(&pending_entry(1)).await.unwrap();
        assert_eq!(probe(&store, read).await, Ok(()), "{read:?} before planting");
        rusqlite::Connection::open(store.path()).unwrap().execute_batch(plant).unwrap();
        assert_eq!(probe(&store, read).await, Err(StoreError::Corrupt), "{plant}");
    }
}

/// The median and 90th percentile of some durations, in microseconds.
fn median_and_p90(mut samples: Vec<Duration>) -> (u128, u128) {
    samples.sort();
    let at = |q: usize| samples[(samples.len() - 1) * q / 100].as_micros();
    (at(50), at(90))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "measures this machine; run with --ignored --nocapture"]
async fn per_operation_latency_medians() {
    const RUNS: u32 = 500;
    let fixture = SqliteFixture::default();
    let store = fixture.fresh().await;
    store.put(&day("2026-11-28"), &rate()).await.unwrap();
    let operations = ["append", "claim", "advance", "resume", "try_use", "increment", "rate get"];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); operations.len()];
    for n in 0..RUNS {
        let payment = payment_id(n);
        let caller = CallerKey::SourceIp(IpAddr::V4(Ipv4Addr::from(n)));
        let counter = Counter::PaidMemo(MemoState::Bound);
        let timings = [
            timed(store.record(&pending_entry(n))).await,
            timed(store.claim(&bare(payment, PaidOp::Check), T0)).await,
            timed(store.advance(&payment, &Transition::Settle)).await,
            timed(store.resume(&Retry { id: payment, op: PaidOp::Check, url: URL }, T0)).await,
            timed(store.try_use(&caller, T0)).await,
            timed(store.increment(counter, T0)).await,
            timed(store.get(&day("2026-11-28"))).await,
        ];
        for (series, timing) in samples.iter_mut().zip(timings) {
            series.push(timing);
        }
    }
    for (operation, series) in operations.iter().zip(samples) {
        let (median, p90) = median_and_p90(series);
        println!("sqlite {operation:<10} median {median:>6} µs  p90 {p90:>6} µs  ({RUNS} runs)");
    }
}

/// How long one store call took; it must succeed.
async fn timed<T, F>(call: F) -> Duration
where
    F: std::future::Future<Output = Result<T, StoreError>>,
{
    let started = Instant::now();
    assert!(call.await.is_ok(), "a measured call failed");
    started.elapsed()
}

/// A distinct payment id per number.
fn payment_id(n: u32) -> PaymentId {
    let mut id = [0; 32];
    id[..4].copy_from_slice(&n.to_le_bytes());
    PaymentId(id)
}

/// A row count of one table, read on its own connection.
fn row_count(path: &Path, table: &str) -> i64 {
    let connection = rusqlite::Connection::open(path).expect("opens");
    connection.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap()
}

/// A flood of 2,000 sign-in nonce spends and free-tier uses (a fresh source each), one every
/// 5 minutes of a moving clock (about a week): expired rows are swept, so each table holds
/// about what is still alive (nonces: minutes; free-tier counters: their day and 48 h).
#[tokio::test]
async fn expired_rows_are_swept_under_a_flood() {
    use payability_core::payment::siwx::{NonceKey, issue_nonce};
    const STEP_MS: i64 = 5 * 60 * 1000;
    let fixture = SqliteFixture::default();
    let store = fixture.fresh().await;
    let key = NonceKey::derive(&[7; 32]);
    for n in 0..2_000u32 {
        let now = UtcMillis(T0.0 + i64::from(n) * STEP_MS);
        let mut random = [0; 8];
        random[..4].copy_from_slice(&n.to_le_bytes());
        let nonce = issue_nonce(&key, now, random);
        let until = UtcMillis(now.0 + 305_000);
        assert_eq!(store.spend_nonce(&nonce, until, now).await, Ok(NonceSpend::Spent));
        let [a, b, c, d] = n.to_be_bytes();
        let source = IpAddr::V4(Ipv4Addr::new(10, b ^ a, c, d));
        let used = store.try_use_both(&FreeCaller::unsigned(source), now).await;
        assert_eq!(used, Ok(FreeTierDecision::Allowed { used: 1 }), "{n}");
    }
    let path = store.path().to_owned();
    let (nonces, counters) = (row_count(&path, "sign_in_nonces"), row_count(&path, "free_tier"));
    let pages: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA page_count", [], |row| row.get(0))
        .unwrap();
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(wal_path(&path)).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "after the flood: {nonces} nonces, {counters} counters, {pages} pages, {bytes} bytes"
    );
    assert!(nonces <= 5, "spent nonces are swept once their proofs expire: {nonces}");
    // Alive: up to 72 h of counters at one a 5 minutes (864), plus one sweep's lag.
    assert!(counters <= 900, "day counters are swept 48 h after their day: {counters}");
}
