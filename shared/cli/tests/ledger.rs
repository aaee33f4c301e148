//! `payability ledger backfill-cad` on the embedded store against a loopback stand-in for the
//! Bank of Canada Valet API: pending entries get the published rate, never a guessed one.

use std::process::Command;

use payability_core::grade::CheckState;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::*;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};

/// 2026-11-28T10:00:00.000Z (a Saturday: no publication that day).
const SATURDAY: UtcMillis = UtcMillis(1_795_860_000_000);

/// A Valet stand-in answering each request with the same observations.
struct Valet {
    stand_in: StandIn,
    connections: usize,
}

impl Valet {
    /// The request lines it got, after asserting there were `connections` of them.
    fn join(self) -> Vec<String> {
        let requests = self.stand_in.requests();
        assert_eq!(requests.len(), self.connections, "the Valet stand-in's requests");
        requests.iter().map(Recorded::line).collect()
    }
}

/// A Valet stand-in answering each request with the same observations, `connections` times.
fn valet(observations: Value, connections: usize) -> (String, Valet) {
    let answer = Reply::json(200, &json!({"observations": observations}));
    let stand_in = StandIn::canned(vec![answer; connections]);
    (stand_in.origin(), Valet { stand_in, connections })
}

fn pending_entry(tx_digit: char) -> LedgerEntry {
    LedgerEntry {
        payer: Payer::Paid {
            wallet: Base58Id::parse(&"W".repeat(44)),
            tx: Base58Id::parse(&tx_digit.to_string().repeat(88)).unwrap(),
            fee_lamports: None,
        },
        at: SATURDAY,
        price_usdc_units: 10_000,
        cad: CadBlock { rate: None, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict: LedgerVerdict::Check { state: CheckState::Populated, description_overlong: false },
    }
}

fn backfill(store_path: &std::path::Path, origin: &str) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(["ledger", "backfill-cad"])
        .env("PAYABILITY_STORE", store_path)
        .env("PAYABILITY_BOC_VALET_ORIGIN", origin)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test]
async fn pending_entries_are_filled_only_once_the_rate_is_established() {
    let dir = ScratchDir::new("ledger");
    let path = dir.join("store.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    for digit in ['2', '3'] {
        assert_eq!(store.record(&pending_entry(digit)).await, Ok(AppendOutcome::Appended));
    }

    // Friday's rate is out but nothing after Saturday yet: Saturday's rate is not established.
    let friday = json!([{"d": "2026-11-27", "FXUSDCAD": {"v": "1.4012"}}]);
    let (origin, valet_thread) = valet(friday.clone(), 2);
    let summary = backfill(&path, &origin);
    assert_eq!(summary, json!({"examined": 2, "filled": 0, "still_pending": 2}));
    let requests = valet_thread.join();
    assert!(requests[0].starts_with(
        "GET /valet/observations/FXUSDCAD/json?start_date=2026-11-18&end_date=2026-12-08 "
    ));

    // Monday's publication proves the weekend had none: Friday's rate applies, once fetched.
    let monday = json!([{"d": "2026-11-27", "FXUSDCAD": {"v": "1.4012"}}, {"d": "2026-11-30", "FXUSDCAD": {"v": "1.4050"}}]);
    let (origin, valet_thread) = valet(monday, 1);
    assert_eq!(backfill(&path, &origin), json!({"examined": 2, "filled": 2, "still_pending": 0}));
    assert_eq!(valet_thread.join().len(), 1, "the second entry used the cached rate");

    assert_eq!(store.cad_pending(10).await, Ok(Vec::new()));
    let (origin, _) = valet(friday, 0);
    assert_eq!(backfill(&path, &origin), json!({"examined": 0, "filled": 0, "still_pending": 0}));
}

#[test]
fn an_unreachable_rate_source_leaves_entries_pending() {
    let dir = ScratchDir::new("ledger-down");
    let path = dir.join("store.sqlite3");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = SqliteStore::open(&path).unwrap();
    runtime.block_on(store.record(&pending_entry('4'))).unwrap();
    let summary = backfill(&path, &format!("http://127.0.0.1:{}", closed_port()));
    assert_eq!(summary, json!({"examined": 1, "filled": 0, "still_pending": 1}));
}

/// Runs `payability ledger refund --op <op> <tx>` on the embedded store at `store_path`.
fn refund(store_path: &std::path::Path, op: &str, tx: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_payability"))
        .args(["ledger", "refund", "--op", op, tx])
        .env("PAYABILITY_STORE", store_path)
        .output()
        .unwrap()
}

/// The refunds counted around today (the command counts on the UTC day it runs).
async fn refunds_counted(store: &SqliteStore) -> u64 {
    let today = UtcDay::of(payability_runtime::clock::now()).unwrap();
    let days = store.days(&today.shifted(-1).unwrap(), &today.shifted(1).unwrap()).await.unwrap();
    days.iter().filter_map(|day| day.counts.get(Counter::Refund.name())).sum()
}

#[tokio::test]
async fn a_refund_is_recorded_and_counted_once() {
    let dir = ScratchDir::new("refund");
    let path = dir.join("store.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    let entry = pending_entry('5');
    let tx = "5".repeat(88);
    assert_eq!(store.record(&entry).await, Ok(AppendOutcome::Appended));

    let output = refund(&path, "check", &tx);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed, json!({"refunded": true, "key": format!("pvc:ledger:{tx}")}));
    assert_eq!(refunds_counted(&store).await, 1);
    let pending = store.cad_pending(10).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert!(pending[0].cad.refund, "the entry is marked refunded");

    // Again: not refundable, nothing counted.
    let not_refundable = json!({"refunded": false, "reason": "no paid entry with this transaction, or already refunded"});
    let again = refund(&path, "check", &tx);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(serde_json::from_slice::<Value>(&again.stdout).unwrap(), not_refundable);
    assert_eq!(refunds_counted(&store).await, 1, "a second run counts nothing");

    // The same transaction under the other op names no entry.
    let memo = refund(&path, "memo", &tx);
    assert_eq!(memo.status.code(), Some(1));
    assert_eq!(serde_json::from_slice::<Value>(&memo.stdout).unwrap(), not_refundable);
    assert_eq!(refunds_counted(&store).await, 1);
}

#[test]
fn a_malformed_transaction_is_refused_before_the_store_is_opened() {
    let dir = ScratchDir::new("refund-bad");
    let path = dir.join("store.sqlite3");
    for tx in ["0OIl".repeat(11), "short".to_owned(), format!("{}/", "5".repeat(60))] {
        let output = refund(&path, "check", &tx);
        assert_eq!(output.status.code(), Some(2), "{tx}");
        assert!(output.stdout.is_empty(), "{tx}");
        let error: Value = serde_json::from_slice(&output.stderr).unwrap();
        assert_eq!(error["error"]["rule"], "tx_not_base58", "{tx}");
        assert!(!error.to_string().contains(&tx), "the input is not echoed");
    }
    assert!(!path.exists(), "no store was created");
}
