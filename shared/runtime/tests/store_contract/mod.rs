//! The store contract: one suite every backend passes. A backend test file provides a
//! [`Fixture`] and calls [`run_all`].

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::{CheckState, MemoState, grade_check, grade_memo};
use payability_runtime::store::*;
use serde_json::json;

/// A backend under test.
pub trait Fixture: Send + Sync + 'static {
    /// The backend: one value implementing every capability.
    type Store: Ledger + PaymentClaims + FreeTier + Metrics + ProofNonces + RateCache + 'static;

    /// A fresh, empty store.
    fn fresh(&self) -> impl Future<Output = Self::Store> + Send;

    /// Another handle on the same data, as a second process (or Lambda instance) would open.
    fn another_handle(&self, store: &Self::Store) -> impl Future<Output = Self::Store> + Send;

    /// Every stored byte, for custody scans (table scans, or the database file).
    fn stored_bytes(&self, store: &Self::Store) -> impl Future<Output = Vec<u8>> + Send;

    /// Whether the backend runs multi-item transactions, which `Ledger::record` is (dynalite
    /// 4.0 has no `TransactWriteItems`: the ledger contract runs on moto and SQLite).
    fn transactions(&self) -> bool {
        true
    }
}

/// 2026-11-29T10:00:00.000Z
pub const T0: UtcMillis = UtcMillis(1_795_946_400_000);

fn at(offset_ms: i64) -> UtcMillis {
    UtcMillis(T0.0 + offset_ms)
}

fn wallet(n: u8) -> Base58Id {
    Base58Id::parse(&format!("Wa11et{}", "1".repeat(30 + usize::from(n % 10)))).unwrap()
}

fn tx(n: u32) -> Base58Id {
    let digits: String = n.to_string().chars().map(|c| if c == '0' { 'z' } else { c }).collect();
    Base58Id::parse(&format!("Tx{digits}{}", "K".repeat(80 - digits.len()))).unwrap()
}

fn paid_entry(n: u32, verdict: LedgerVerdict, rate: Option<CadRate>) -> LedgerEntry {
    LedgerEntry {
        payer: Payer::Paid { wallet: Some(wallet(1)), tx: tx(n), fee_lamports: Some(5000) },
        at: at(i64::from(n)),
        price_usdc_units: 10_000,
        cad: CadBlock { rate, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict,
    }
}

fn check_verdict(state: CheckState) -> LedgerVerdict {
    LedgerVerdict::Check { state, description_overlong: false }
}

/// The called-URL binding most claims of the suite are made with.
pub const URL: UrlBinding = UrlBinding([0xa1; 32]);

/// A claim for `op` bound to [`URL`], with no payer named.
pub fn bare(id: PaymentId, op: PaidOp) -> NewClaim {
    NewClaim { id, op, url: URL, payer: None, identifier: None }
}

/// The move to `settled` with `tx`, mapping no purchase.
fn settled(tx: &Base58Id) -> Transition {
    Transition::Settled { tx: tx.clone(), purchase: None }
}

fn day(text: &str) -> UtcDay {
    UtcDay::parse(text).unwrap()
}

/// Runs every contract test against fresh stores of the fixture.
pub async fn run_all<F: Fixture>(fixture: Arc<F>) {
    if fixture.transactions() {
        ledger_records_each_key_once_and_counts_it_once(&*fixture).await;
        ledger_fills_a_pending_cad_block_once(&*fixture).await;
        ledger_marks_only_an_unrefunded_paid_entry_refunded(&*fixture).await;
        twenty_concurrent_refunds_of_one_entry_yield_one(fixture.clone()).await;
        twenty_concurrent_records_of_one_entry_count_once(fixture.clone()).await;
        concurrent_records_and_increments_of_one_day_sum_exactly(fixture.clone()).await;
        no_challenge_value_reaches_any_stored_byte(&*fixture).await;
        an_identifier_names_the_payment_first_claimed_with_it(&*fixture).await;
        twenty_concurrent_claims_of_one_identifier_yield_one(fixture.clone()).await;
        a_settlement_maps_the_payers_latest_purchase(&*fixture).await;
    }
    payment_is_claimed_once_and_markers_move_forward_only(&*fixture).await;
    verified_marker_resume_is_bounded(&*fixture).await;
    a_delivered_verdict_is_delivered_again_for_its_op_and_url_only(&*fixture).await;
    a_payer_holds_one_early_fetch_lease_at_a_time(&*fixture).await;
    fifty_concurrent_claims_of_one_payment_yield_one(fixture.clone()).await;
    free_tier_enforces_interval_and_daily_cap(&*fixture).await;
    two_hundred_concurrent_prechecks_yield_one(fixture.clone()).await;
    metrics_counts_are_exact_under_concurrency(fixture.clone()).await;
    metrics_read_at_most_the_last_366_days(&*fixture).await;
    day0_is_written_once_and_never_counted(&*fixture).await;
    twenty_concurrent_day0_writers_leave_one_value(fixture.clone()).await;
    a_sign_in_nonce_is_spent_once_until_its_proof_expires(&*fixture).await;
    twenty_concurrent_spends_of_one_nonce_yield_one(fixture.clone()).await;
    a_signed_precheck_spends_its_wallet_then_its_sources_signed_allowance(&*fixture).await;
    one_source_gets_its_unsigned_allowance_and_its_signed_one(&*fixture).await;
    concurrent_signed_prechecks_of_one_source_are_never_too_soon(fixture.clone()).await;
    an_ipv6_source_counts_as_its_64(&*fixture).await;
    rate_cache_keeps_the_first_rate(&*fixture).await;
}

async fn ledger_records_each_key_once_and_counts_it_once<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let check = paid_entry(1, check_verdict(CheckState::Populated), None);
    let memo = paid_entry(1, LedgerVerdict::Memo { state: MemoState::Bound }, None);
    assert_eq!(store.record(&check).await, Ok(AppendOutcome::Appended));
    assert_eq!(store.record(&check).await, Ok(AppendOutcome::AlreadyRecorded));
    assert_eq!(store.record(&memo).await, Ok(AppendOutcome::Appended), "memo ledger is separate");
    let today = UtcDay::of(check.at).unwrap();
    let counted = store.days(&today, &today).await.unwrap();
    let counts = &counted[0].counts;
    assert_eq!(counts.get(check.counter().name()), Some(&1), "counted once: {counts:?}");
    assert_eq!(counts.get(memo.counter().name()), Some(&1), "counted once: {counts:?}");
    assert_eq!(counts.len(), 2, "nothing else counted: {counts:?}");
    assert!(memo.key().as_str().starts_with("pvm:ledger:"));
    assert!(check.key().as_str().starts_with("pvc:ledger:"));
    let mut pending = store.cad_pending(10).await.unwrap();
    pending.sort_by_key(|e| e.key().as_str().to_owned());
    assert_eq!(pending, vec![check, memo], "entries read back field for field");
}

async fn ledger_fills_a_pending_cad_block_once<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let rate = CadRate::new("1.3971", day("2026-11-27")).unwrap();
    let settled = paid_entry(2, check_verdict(CheckState::NotA402), Some(rate.clone()));
    let pending = paid_entry(3, check_verdict(CheckState::Unconfigured), None);
    let house = LedgerEntry {
        payer: Payer::House { id: HouseId::parse("0123456789abcdef0123456789abcdef").unwrap() },
        ..paid_entry(
            4,
            LedgerVerdict::Check { state: CheckState::Populated, description_overlong: true },
            None,
        )
    };
    for entry in [&settled, &pending, &house] {
        assert_eq!(store.record(entry).await, Ok(AppendOutcome::Appended));
    }
    let listed = store.cad_pending(10).await.unwrap();
    assert_eq!(listed.len(), 2, "only entries without a rate are pending");
    assert_eq!(store.cad_pending(1).await.unwrap().len(), 1, "the limit is honoured");
    assert_eq!(store.fill_cad(&pending.key(), &rate).await, Ok(FillOutcome::Filled));
    assert_eq!(store.fill_cad(&pending.key(), &rate).await, Ok(FillOutcome::NotPending));
    assert_eq!(store.fill_cad(&settled.key(), &rate).await, Ok(FillOutcome::NotPending));
    let missing = paid_entry(99, check_verdict(CheckState::Populated), None).key();
    assert_eq!(store.fill_cad(&missing, &rate).await, Ok(FillOutcome::NotPending));
    assert_eq!(store.cad_pending(10).await.unwrap(), vec![house]);
}

async fn ledger_marks_only_an_unrefunded_paid_entry_refunded<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let check = paid_entry(41, check_verdict(CheckState::Populated), None);
    let memo = paid_entry(42, LedgerVerdict::Memo { state: MemoState::Bound }, None);
    let house = LedgerEntry {
        payer: Payer::House { id: HouseId::parse("fedcba9876543210fedcba9876543210").unwrap() },
        ..paid_entry(43, check_verdict(CheckState::Populated), None)
    };
    for entry in [&check, &memo, &house] {
        assert_eq!(store.record(entry).await, Ok(AppendOutcome::Appended));
    }
    assert_eq!(LedgerKey::paid(PaidOp::Check, &tx(41)), check.key(), "the operator's name");
    assert_eq!(LedgerKey::paid(PaidOp::Memo, &tx(42)), memo.key(), "the operator's name");
    let (refunded, not_refundable) = (RefundOutcome::Refunded, RefundOutcome::NotRefundable);
    let cases = [
        ("a paid check", check.key(), refunded),
        ("the same check again", check.key(), not_refundable),
        ("a house entry", house.key(), not_refundable),
        ("an unknown transaction", LedgerKey::paid(PaidOp::Check, &tx(49)), not_refundable),
        (
            "a memo entry under the check key",
            LedgerKey::paid(PaidOp::Check, &tx(42)),
            not_refundable,
        ),
        ("a paid memo", memo.key(), refunded),
    ];
    for (case, key, want) in cases {
        assert_eq!(store.mark_refunded(&key).await, Ok(want), "{case}");
    }
    // Read back field for field (all three are CAD-pending): only the refund flags moved,
    // no entry was created, and the items still hold only the closed attribute list.
    let mut listed = store.cad_pending(10).await.unwrap();
    listed.sort_by_key(|e| e.key().as_str().to_owned());
    let as_refunded = |entry: &LedgerEntry| LedgerEntry {
        cad: CadBlock { refund: true, ..entry.cad.clone() },
        ..entry.clone()
    };
    let mut want = vec![as_refunded(&check), house, as_refunded(&memo)];
    want.sort_by_key(|e| e.key().as_str().to_owned());
    assert_eq!(listed, want);
}

async fn twenty_concurrent_refunds_of_one_entry_yield_one<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let entry = paid_entry(44, check_verdict(CheckState::AmountsOnly), None);
    assert_eq!(first.record(&entry).await, Ok(AppendOutcome::Appended));
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            let key = entry.key();
            tokio::spawn(async move { store.mark_refunded(&key).await })
        })
        .collect();
    let mut refunded = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(RefundOutcome::Refunded) => refunded += 1,
            Ok(RefundOutcome::NotRefundable) => {}
            Err(e) => panic!("a refund failed: {e}"),
        }
    }
    assert_eq!(refunded, 1, "exactly one of 20 concurrent refunds of one entry wins");
    assert!(first.cad_pending(10).await.unwrap()[0].cad.refund, "the flag is set");
}

async fn twenty_concurrent_records_of_one_entry_count_once<F: Fixture>(fixture: Arc<F>) {
    let first = Arc::new(fixture.fresh().await);
    let entry = paid_entry(40, check_verdict(CheckState::NotA402), None);
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let (store, entry) = (first.clone(), entry.clone());
            tokio::spawn(async move { store.record(&entry).await })
        })
        .collect();
    let mut appended = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(AppendOutcome::Appended) => appended += 1,
            Ok(AppendOutcome::AlreadyRecorded) => {}
            Err(e) => panic!("a record failed: {e}"),
        }
    }
    assert_eq!(appended, 1, "exactly one of 20 concurrent records of one entry wins");
    let today = UtcDay::of(entry.at).unwrap();
    let counted = first.days(&today, &today).await.unwrap();
    assert_eq!(counted[0].counts.get(entry.counter().name()), Some(&1), "and counts it");
}

async fn payment_is_claimed_once_and_markers_move_forward_only<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let id = PaymentId([7; 32]);
    let other = PaymentId([9; 32]);
    assert_eq!(store.claim_of(&id).await, Ok(None));
    assert_eq!(store.claim(&bare(id, PaidOp::Check), T0).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.claim(&bare(id, PaidOp::Check), T0).await, Ok(ClaimOutcome::AlreadyClaimed));
    assert_eq!(store.claim(&bare(id, PaidOp::Memo), T0).await, Ok(ClaimOutcome::AlreadyClaimed));
    assert_eq!(store.claim(&bare(other, PaidOp::Memo), T0).await, Ok(ClaimOutcome::Claimed));
    let claim = |marker, tx: Option<Base58Id>| StoredClaim {
        op: PaidOp::Check,
        marker,
        claimed_at: T0,
        resumes: 0,
        tx,
        url: Some(URL),
        payer: None,
    };
    assert_eq!(store.claim_of(&id).await, Ok(Some(claim(ClaimMarker::Verified, None))));
    // Each move once, from its own marker only: (move, outcome, marker after).
    let settle_tx = tx(70);
    let to_settled = settled(&settle_tx);
    let moves = [
        (Transition::Deliver, AdvanceOutcome::NotAtMarker, ClaimMarker::Verified),
        (to_settled.clone(), AdvanceOutcome::NotAtMarker, ClaimMarker::Verified),
        (Transition::Settle, AdvanceOutcome::Advanced, ClaimMarker::Settling),
        (Transition::Settle, AdvanceOutcome::NotAtMarker, ClaimMarker::Settling),
        (to_settled.clone(), AdvanceOutcome::Advanced, ClaimMarker::Settled),
        (Transition::NeverSettled, AdvanceOutcome::NotAtMarker, ClaimMarker::Settled),
        (to_settled.clone(), AdvanceOutcome::NotAtMarker, ClaimMarker::Settled),
        (Transition::Deliver, AdvanceOutcome::Advanced, ClaimMarker::Delivered),
        (Transition::Deliver, AdvanceOutcome::NotAtMarker, ClaimMarker::Delivered),
        (Transition::Settle, AdvanceOutcome::NotAtMarker, ClaimMarker::Delivered),
    ];
    for (n, (transition, outcome, marker)) in moves.into_iter().enumerate() {
        assert_eq!(store.advance(&id, &transition).await, Ok(outcome), "move {n}");
        let stored = store.claim_of(&id).await.unwrap().unwrap();
        assert_eq!(stored.marker, marker, "marker after move {n}");
    }
    assert_eq!(
        store.claim_of(&id).await,
        Ok(Some(claim(ClaimMarker::Delivered, Some(settle_tx.clone())))),
        "the settlement transaction is kept"
    );
    let elsewhere = UrlBinding([0xc3; 32]);
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Check, url: elsewhere }, T0).await,
        Ok(ResumeOutcome::Refused)
    );
    // settling -> not_settled is final.
    store.advance(&other, &Transition::Settle).await.unwrap();
    assert_eq!(
        store.advance(&other, &Transition::NeverSettled).await,
        Ok(AdvanceOutcome::Advanced)
    );
    assert_eq!(store.advance(&other, &to_settled).await, Ok(AdvanceOutcome::NotAtMarker));
    let unknown = PaymentId([8; 32]);
    assert_eq!(store.advance(&unknown, &Transition::Settle).await, Ok(AdvanceOutcome::NotAtMarker));
}

/// Claims a payment and moves it to `settled` with `tx`.
async fn settled_claim(store: &impl PaymentClaims, id: &PaymentId, op: PaidOp, tx: &Base58Id) {
    store.claim(&bare(*id, op), T0).await.unwrap();
    store.advance(id, &Transition::Settle).await.unwrap();
    assert_eq!(store.advance(id, &settled(tx)).await, Ok(AdvanceOutcome::Advanced));
}

async fn verified_marker_resume_is_bounded<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let id = PaymentId([11; 32]);
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Check, url: URL }, T0).await,
        Ok(ResumeOutcome::Refused),
        "unclaimed"
    );
    store.claim(&bare(id, PaidOp::Check), T0).await.unwrap();
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Check, url: URL }, at(IN_FLIGHT_MS + 1)).await,
        Ok(ResumeOutcome::Refused),
        "verified but not settled: nothing to deliver"
    );
    let settle_tx = tx(110);
    store.advance(&id, &Transition::Settle).await.unwrap();
    store.advance(&id, &settled(&settle_tx)).await.unwrap();
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Check, url: URL }, at(IN_FLIGHT_MS - 1)).await,
        Ok(ResumeOutcome::Refused),
        "settled moments ago: maybe still delivering, not resumed"
    );
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Memo, url: URL }, at(IN_FLIGHT_MS + 2)).await,
        Ok(ResumeOutcome::Refused),
        "other op"
    );
    for _ in 0..MAX_RESUMES {
        assert_eq!(
            store.resume(&Retry { id, op: PaidOp::Check, url: URL }, at(IN_FLIGHT_MS + 3)).await,
            Ok(ResumeOutcome::Resumed { tx: settle_tx.clone(), payer: None })
        );
    }
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Check, url: URL }, at(IN_FLIGHT_MS + 4)).await,
        Ok(ResumeOutcome::Refused),
        "bounded"
    );

    let expiring = PaymentId([12; 32]);
    settled_claim(&store, &expiring, PaidOp::Memo, &settle_tx).await;
    assert_eq!(
        store.resume(&Retry { id: expiring, op: PaidOp::Memo, url: URL }, at(CLAIM_TTL_MS)).await,
        Ok(ResumeOutcome::Refused),
        "expired"
    );
    assert_eq!(
        store.claim(&bare(expiring, PaidOp::Memo), at(CLAIM_TTL_MS)).await,
        Ok(ClaimOutcome::AlreadyClaimed),
        "an expired claim still blocks reuse"
    );
}

async fn a_delivered_verdict_is_delivered_again_for_its_op_and_url_only<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let id = PaymentId([14; 32]);
    let payer = wallet(3);
    let claim =
        NewClaim { id, op: PaidOp::Memo, url: URL, payer: Some(payer.clone()), identifier: None };
    assert_eq!(store.claim(&claim, T0).await, Ok(ClaimOutcome::Claimed));
    let stored = store.claim_of(&id).await.unwrap().unwrap();
    assert_eq!((stored.url, stored.payer), (Some(URL), Some(payer.clone())), "kept on the claim");
    let settle_tx = tx(140);
    store.advance(&id, &Transition::Settle).await.unwrap();
    store.advance(&id, &settled(&settle_tx)).await.unwrap();
    store.advance(&id, &Transition::Deliver).await.unwrap();
    let other_url = UrlBinding([0xb2; 32]);
    let refused = [
        (PaidOp::Memo, other_url, at(1), "another URL"),
        (PaidOp::Check, URL, at(1), "the other op"),
        (PaidOp::Memo, URL, at(CLAIM_TTL_MS), "expired"),
    ];
    for (op, url, now, case) in refused {
        assert_eq!(
            store.resume(&Retry { id, op, url }, now).await,
            Ok(ResumeOutcome::Refused),
            "{case}"
        );
    }
    let again = ResumeOutcome::Resumed { tx: settle_tx, payer: Some(payer) };
    for n in 0..MAX_RESUMES {
        // Delivered: its first request ended, so no in-flight wait.
        let now = at(i64::from(n) + 1);
        assert_eq!(
            store.resume(&Retry { id, op: PaidOp::Memo, url: URL }, now).await,
            Ok(again.clone()),
            "{n}"
        );
    }
    assert_eq!(
        store.resume(&Retry { id, op: PaidOp::Memo, url: URL }, at(5)).await,
        Ok(ResumeOutcome::Refused),
        "at most MAX_RESUMES deliveries again"
    );
    let stored = store.claim_of(&id).await.unwrap().unwrap();
    assert_eq!((stored.marker, stored.resumes), (ClaimMarker::Delivered, MAX_RESUMES));
}

async fn a_payer_holds_one_early_fetch_lease_at_a_time<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let (payer, other_payer) = (wallet(6), wallet(7));
    let (first, second) = (PaymentId([61; 32]), PaymentId([62; 32]));
    let until = at(10_000);
    let of = |payer: &Base58Id, holder| EarlyFetchLease { payer: payer.clone(), holder, until };
    let (mine, theirs, elsewhere) =
        (of(&payer, first), of(&payer, second), of(&other_payer, second));
    assert_eq!(store.lease_early_fetch(&mine, T0).await, Ok(true), "a free lease");
    assert_eq!(store.lease_early_fetch(&mine, at(1)).await, Ok(true), "its holder takes it again");
    assert_eq!(
        store.lease_early_fetch(&theirs, at(2)).await,
        Ok(false),
        "held for another payment"
    );
    assert_eq!(store.lease_early_fetch(&elsewhere, at(2)).await, Ok(true), "one lease per payer");
    assert_eq!(store.release_early_fetch(&theirs).await, Ok(()), "not its holder");
    assert_eq!(store.lease_early_fetch(&theirs, at(3)).await, Ok(false), "still held");
    assert_eq!(store.release_early_fetch(&mine).await, Ok(()));
    assert_eq!(store.lease_early_fetch(&theirs, at(4)).await, Ok(true), "given back");
    let renewed = EarlyFetchLease { until: at(20_000), ..mine.clone() };
    let later = store.lease_early_fetch(&renewed, until).await;
    assert_eq!(later, Ok(true), "an expired lease (its request died) is free");
    let unknown = of(&wallet(8), first);
    assert_eq!(store.release_early_fetch(&unknown).await, Ok(()), "nothing to give back");
}

/// A claim with a `payment-identifier` id binding (a multi-item transaction on DynamoDB).
fn identified_claim(id: PaymentId, identifier: u8) -> NewClaim {
    NewClaim { identifier: Some(IdentifierBinding([identifier; 32])), ..bare(id, PaidOp::Check) }
}

async fn an_identifier_names_the_payment_first_claimed_with_it<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let (first, second, third) = (PaymentId([41; 32]), PaymentId([42; 32]), PaymentId([43; 32]));
    let identifier = IdentifierBinding([40; 32]);
    assert_eq!(store.identified(&identifier, T0).await, Ok(None), "a new id");
    assert_eq!(store.claim(&identified_claim(first, 40), T0).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.identified(&identifier, at(1)).await, Ok(Some(first)));
    assert_eq!(
        store.claim(&identified_claim(second, 40), at(2)).await,
        Ok(ClaimOutcome::IdentifierTaken),
        "another payment with the same id"
    );
    assert_eq!(store.claim_of(&second).await, Ok(None), "both or neither: no claim written");
    assert_eq!(
        store.claim(&identified_claim(first, 40), at(3)).await,
        Ok(ClaimOutcome::AlreadyClaimed),
        "the first payment again"
    );
    assert_eq!(
        store.identified(&identifier, at(CLAIM_TTL_MS)).await,
        Ok(None),
        "a mapping lives 24 h"
    );
    assert_eq!(
        store.claim(&identified_claim(third, 40), at(CLAIM_TTL_MS)).await,
        Ok(ClaimOutcome::Claimed),
        "an expired mapping names the next payment claimed with its id"
    );
    assert_eq!(store.identified(&identifier, at(CLAIM_TTL_MS + 1)).await, Ok(Some(third)));
    assert_eq!(
        store.claim_of(&first).await.unwrap().map(|c| c.marker),
        Some(ClaimMarker::Verified)
    );
}

async fn twenty_concurrent_claims_of_one_identifier_yield_one<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..20u8)
        .map(|n| {
            let store = handles[usize::from(n) % handles.len()].clone();
            let id = PaymentId([100 + n; 32]);
            tokio::spawn(async move { (id, store.claim(&identified_claim(id, 50), T0).await) })
        })
        .collect();
    let mut claimed = Vec::new();
    for task in tasks {
        let (id, outcome) = task.await.unwrap();
        match outcome {
            Ok(ClaimOutcome::Claimed) => claimed.push(id),
            // A transaction that lost a conflict on DynamoDB is unavailable: it wrote nothing.
            Ok(ClaimOutcome::IdentifierTaken) | Err(StoreError::Unavailable) => {
                assert_eq!(first.claim_of(&id).await, Ok(None), "a refused claim wrote nothing");
            }
            other => panic!("a claim of a new payment with a taken id: {other:?}"),
        }
    }
    assert_eq!(claimed.len(), 1, "exactly one of 20 payments with one id is claimed");
    assert_eq!(first.identified(&IdentifierBinding([50; 32]), T0).await, Ok(Some(claimed[0])));
}

async fn a_settlement_maps_the_payers_latest_purchase<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let purchase = PurchaseBinding([0x5a; 32]);
    let another = PurchaseBinding([0x5b; 32]);
    let (first, second, stray) = (PaymentId([31; 32]), PaymentId([32; 32]), PaymentId([33; 32]));
    let settling = async |id: PaymentId| {
        store.claim(&bare(id, PaidOp::Check), T0).await.unwrap();
        store.advance(&id, &Transition::Settle).await.unwrap();
    };
    let mapping = |at| Some(SettledPurchase { binding: purchase, at });
    assert_eq!(store.purchase_of(&purchase, T0).await, Ok(None), "nothing settled");
    settling(first).await;
    let move_first = Transition::Settled { tx: tx(31), purchase: mapping(at(10)) };
    assert_eq!(store.advance(&first, &move_first).await, Ok(AdvanceOutcome::Advanced));
    assert_eq!(store.purchase_of(&purchase, at(11)).await, Ok(Some(first)));
    assert_eq!(store.purchase_of(&another, at(11)).await, Ok(None), "per purchase");
    settling(second).await;
    let move_second = Transition::Settled { tx: tx(32), purchase: mapping(at(20)) };
    assert_eq!(store.advance(&second, &move_second).await, Ok(AdvanceOutcome::Advanced));
    assert_eq!(store.purchase_of(&purchase, at(21)).await, Ok(Some(second)), "the latest");
    // A move refused by its marker maps nothing.
    store.claim(&bare(stray, PaidOp::Check), T0).await.unwrap();
    let move_stray = Transition::Settled { tx: tx(33), purchase: mapping(at(30)) };
    assert_eq!(store.advance(&stray, &move_stray).await, Ok(AdvanceOutcome::NotAtMarker));
    assert_eq!(store.purchase_of(&purchase, at(31)).await, Ok(Some(second)));
    let another_handle = fixture.another_handle(&store).await;
    assert_eq!(another_handle.purchase_of(&purchase, at(31)).await, Ok(Some(second)));
    assert_eq!(
        store.purchase_of(&purchase, at(20 + CLAIM_TTL_MS)).await,
        Ok(None),
        "a mapping lives 24 h from its settlement"
    );
}

/// A sign-in nonce (32 hex digits, as the core issues them).
fn nonce(n: u8) -> payability_core::payment::siwx::ProofNonce {
    use payability_core::payment::siwx::{NonceKey, issue_nonce};
    issue_nonce(&NonceKey::derive(&[n; 32]), T0, [n; 8])
}

async fn a_sign_in_nonce_is_spent_once_until_its_proof_expires<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let until = at(300_000);
    assert_eq!(store.spend_nonce(&nonce(1), until, T0).await, Ok(NonceSpend::Spent));
    assert_eq!(store.spend_nonce(&nonce(1), until, at(1)).await, Ok(NonceSpend::AlreadySpent));
    let another_handle = fixture.another_handle(&store).await;
    assert_eq!(
        another_handle.spend_nonce(&nonce(1), until, at(2)).await,
        Ok(NonceSpend::AlreadySpent),
        "one spend for every handle"
    );
    assert_eq!(store.spend_nonce(&nonce(2), until, at(3)).await, Ok(NonceSpend::Spent));
    assert_eq!(
        store.spend_nonce(&nonce(1), until, until).await,
        Ok(NonceSpend::AlreadySpent),
        "spent up to its proof's end"
    );
    assert_eq!(
        store.spend_nonce(&nonce(1), at(600_000), at(300_001)).await,
        Ok(NonceSpend::Spent),
        "a spend whose proof could no longer be presented holds nothing"
    );
}

async fn twenty_concurrent_spends_of_one_nonce_yield_one<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            tokio::spawn(async move { store.spend_nonce(&nonce(3), at(300_000), T0).await })
        })
        .collect();
    let mut spent = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(NonceSpend::Spent) => spent += 1,
            Ok(NonceSpend::AlreadySpent) => {}
            Err(e) => panic!("a spend failed: {e}"),
        }
    }
    assert_eq!(spent, 1, "exactly one of 20 concurrent spends of one nonce");
}

async fn fifty_concurrent_claims_of_one_payment_yield_one<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..5 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let id = PaymentId([21; 32]);
    let tasks: Vec<_> = (0..50)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            tokio::spawn(async move { store.claim(&bare(id, PaidOp::Check), T0).await })
        })
        .collect();
    let mut claimed = 0;
    for task in tasks {
        if task.await.unwrap() == Ok(ClaimOutcome::Claimed) {
            claimed += 1;
        }
    }
    assert_eq!(claimed, 1, "exactly one of 50 concurrent claims wins");
}

async fn free_tier_enforces_interval_and_daily_cap<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let caller = CallerKey::Wallet(wallet(2));
    assert_eq!(store.try_use(&caller, T0).await, Ok(FreeTierDecision::Allowed { used: 1 }));
    assert_eq!(
        store.try_use(&caller, at(FREE_MIN_INTERVAL_MS - 1)).await,
        Ok(FreeTierDecision::TooSoon)
    );
    assert_eq!(
        store.try_use(&caller, at(FREE_MIN_INTERVAL_MS)).await,
        Ok(FreeTierDecision::Allowed { used: 2 })
    );
    let ip = CallerKey::SourceIp(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)));
    assert_eq!(
        store.try_use(&ip, at(1)).await,
        Ok(FreeTierDecision::Allowed { used: 1 }),
        "callers are apart"
    );

    let spaced = CallerKey::Wallet(wallet(3));
    let mut allowed = 0;
    for n in 0..=i64::from(FREE_PER_DAY) {
        match store.try_use(&spaced, at(n * FREE_MIN_INTERVAL_MS)).await.unwrap() {
            FreeTierDecision::Allowed { used } => {
                allowed += 1;
                assert_eq!(used, allowed);
            }
            decision => assert_eq!(decision, FreeTierDecision::DailyCapReached),
        }
    }
    assert_eq!(allowed, FREE_PER_DAY, "exactly 100 of 101 spaced pre-checks");
    let next_day = at(24 * 60 * 60 * 1000);
    assert_eq!(store.try_use(&spaced, next_day).await, Ok(FreeTierDecision::Allowed { used: 1 }));
}

async fn two_hundred_concurrent_prechecks_yield_one<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let caller = CallerKey::Wallet(wallet(4));
    let tasks: Vec<_> = (0..200)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            let caller = caller.clone();
            // All within one second.
            let now = at(i64::try_from(n).unwrap() * 4);
            tokio::spawn(async move { store.try_use(&caller, now).await })
        })
        .collect();
    let mut allowed = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(FreeTierDecision::Allowed { .. }) => allowed += 1,
            Ok(_) => {}
            Err(e) => panic!("a pre-check failed: {e}"),
        }
    }
    assert_eq!(allowed, 1, "exactly one of 200 concurrent pre-checks within a second");
}

async fn metrics_counts_are_exact_under_concurrency<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let counters = [
        Counter::Precheck,
        Counter::PaidCheck(CheckState::Populated),
        Counter::PaidMemo(MemoState::NotA402),
    ];
    let tasks: Vec<_> = (0..120)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            let counter = counters[n % counters.len()];
            tokio::spawn(async move { store.increment(counter, T0).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    first.increment(Counter::Refund, at(24 * 60 * 60 * 1000)).await.unwrap();
    let days = first.days(&day("2026-11-28"), &day("2026-11-30")).await.unwrap();
    assert_eq!(days.len(), 2, "days without counts are omitted");
    assert_eq!(days[0].day, day("2026-11-29"));
    let counts = &days[0].counts;
    for counter in counters {
        assert_eq!(counts.get(counter.name()), Some(&40), "{}", counter.name());
    }
    assert_eq!(days[1].counts.get("refund"), Some(&1));
    assert!(first.days(&day("2026-11-01"), &day("2026-11-02")).await.unwrap().is_empty());
}

async fn concurrent_records_and_increments_of_one_day_sum_exactly<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..3 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..60u32)
        .map(|n| {
            let store = handles[n as usize % handles.len()].clone();
            tokio::spawn(async move {
                if n % 2 == 0 {
                    let entry = paid_entry(n + 1, check_verdict(CheckState::Populated), None);
                    assert_eq!(store.record(&entry).await, Ok(AppendOutcome::Appended));
                } else {
                    store.increment(Counter::PaidCheck(CheckState::Populated), T0).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let today = UtcDay::of(T0).unwrap();
    let days = first.days(&today, &today).await.unwrap();
    assert_eq!(days.len(), 1);
    let counts = &days[0].counts;
    assert_eq!(counts.get("paid_check_populated"), Some(&60), "{counts:?}");
    assert_eq!(counts.len(), 1, "{counts:?}");
}

async fn metrics_read_at_most_the_last_366_days<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let vectors = [(0, true), (MAX_METRICS_DAYS - 1, true), (MAX_METRICS_DAYS, false)];
    for (days_before, _) in vectors {
        store.increment(Counter::Refund, UtcMillis(T0.0 - days_before * DAY_MS)).await.unwrap();
    }
    let today = UtcDay::of(T0).unwrap();
    let read = store.days(&today.shifted(-3650).unwrap(), &today).await.unwrap();
    for (days_before, included) in vectors {
        let day = today.shifted(-days_before).unwrap();
        assert_eq!(read.iter().any(|c| c.day == day), included, "{days_before} days before");
    }
}

async fn day0_is_written_once_and_never_counted<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    assert_eq!(store.day0().await, Ok(None), "no Day-0 on a fresh store");
    store.increment(Counter::Precheck, T0).await.unwrap();
    assert_eq!(store.record_day0(at(7)).await, Ok(Day0Outcome::Recorded));
    assert_eq!(store.record_day0(at(3)).await, Ok(Day0Outcome::AlreadyRecorded), "first wins");
    assert_eq!(store.record_day0(at(9)).await, Ok(Day0Outcome::AlreadyRecorded));
    assert_eq!(store.day0().await, Ok(Some(at(7))));
    let other = fixture.another_handle(&store).await;
    assert_eq!(other.day0().await, Ok(Some(at(7))), "another handle reads it");
    let today = UtcDay::of(T0).unwrap();
    let days = store.days(&today.shifted(-300).unwrap(), &today.shifted(60).unwrap()).await;
    let days = days.unwrap();
    assert_eq!(days.len(), 1, "Day-0 is no day of counts: {days:?}");
    assert_eq!(days[0].counts, std::collections::BTreeMap::from([("precheck".to_owned(), 1)]));
}

async fn twenty_concurrent_day0_writers_leave_one_value<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..20)
        .map(|n| {
            let store = handles[n % handles.len()].clone();
            let when = at(i64::try_from(n).unwrap() * 1_000);
            tokio::spawn(async move { (when, store.record_day0(when).await) })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            (when, Ok(Day0Outcome::Recorded)) => winners.push(when),
            (_, Ok(Day0Outcome::AlreadyRecorded)) => {}
            (_, Err(e)) => panic!("a Day-0 write failed: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one of 20 concurrent Day-0 writes: {winners:?}");
    for handle in &handles {
        assert_eq!(handle.day0().await, Ok(Some(winners[0])), "every handle reads the winner");
    }
}

fn source(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(198, 51, 100, n))
}

async fn a_signed_precheck_spends_its_wallet_then_its_sources_signed_allowance<F: Fixture>(
    fixture: &F,
) {
    let store = fixture.fresh().await;
    let wallet_of = |n| CallerKey::Wallet(wallet(n));
    // A signed pre-check from source 1: the wallet's allowance, then source 1's signed ones.
    let signed = FreeCaller::signed(wallet(6), source(1));
    assert_eq!(store.try_use_both(&signed, at(0)).await, Ok(FreeTierDecision::Allowed { used: 1 }));
    // The same wallet 1 ms later, from source 2: its own interval refuses; source 2 untouched.
    let elsewhere = FreeCaller::signed(wallet(6), source(2));
    assert_eq!(store.try_use_both(&elsewhere, at(1)).await, Ok(FreeTierDecision::TooSoon));
    assert_eq!(
        store.try_use(&CallerKey::SignedSourceIp(source(2)), at(2)).await,
        Ok(FreeTierDecision::Allowed { used: 1 }),
        "a wallet's refusal did not spend the source's signed allowance"
    );
    // Unsigned pre-checks of a source never touch a wallet, and signed ones never the source's
    // unsigned allowance.
    let unsigned = FreeCaller::unsigned(source(1));
    assert_eq!(
        store.try_use_both(&unsigned, at(3)).await,
        Ok(FreeTierDecision::Allowed { used: 1 })
    );
    assert_eq!(store.try_use_both(&unsigned, at(4)).await, Ok(FreeTierDecision::TooSoon));
    assert_eq!(
        store.try_use(&wallet_of(6), at(FREE_MIN_INTERVAL_MS)).await,
        Ok(FreeTierDecision::Allowed { used: 2 }),
        "the wallet's count is its own signed pre-checks"
    );
    // A source whose signed pre-checks are used up refuses, and gives the wallet's use back.
    let spent = source(4);
    for n in 0..i64::from(FREE_SIGNED_PER_SOURCE_PER_DAY) {
        let decision = store.try_use(&CallerKey::SignedSourceIp(spent), at(n)).await;
        assert!(matches!(decision, Ok(FreeTierDecision::Allowed { .. })), "{n}: {decision:?}");
    }
    let later = at(i64::from(FREE_SIGNED_PER_SOURCE_PER_DAY));
    let fresh = FreeCaller::signed(wallet(9), spent);
    assert_eq!(store.try_use_both(&fresh, later).await, Ok(FreeTierDecision::DailyCapReached));
    assert_eq!(
        store.try_use(&wallet_of(9), later).await,
        Ok(FreeTierDecision::Allowed { used: 1 }),
        "the refused source gave the wallet's use back (count and interval)"
    );
}

/// The signed-source counter has no interval: a use whose `now` predates one already
/// committed (read early, written late) is allowed, never `TooSoon`, whatever the order.
async fn concurrent_signed_prechecks_of_one_source_are_never_too_soon<F: Fixture>(fixture: Arc<F>) {
    let first = fixture.fresh().await;
    let shared = source(60);
    let signed = CallerKey::SignedSourceIp(shared);
    assert_eq!(first.try_use(&signed, at(10)).await, Ok(FreeTierDecision::Allowed { used: 1 }));
    assert_eq!(
        first.try_use(&signed, at(5)).await,
        Ok(FreeTierDecision::Allowed { used: 2 }),
        "a use read at an earlier instant than the committed one"
    );
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(Arc::new(fixture.another_handle(&first).await));
    }
    let tasks: Vec<_> = (0..60u32)
        .map(|n| {
            let store = handles[usize::try_from(n).unwrap() % handles.len()].clone();
            let caller = FreeCaller::signed(rotating_wallet(n + 5_000), shared);
            // Later tasks carry earlier instants: each one's `now` predates others' writes.
            tokio::spawn(async move { store.try_use_both(&caller, at(70 - i64::from(n))).await })
        })
        .collect();
    for (n, task) in tasks.into_iter().enumerate() {
        assert!(
            matches!(task.await.unwrap(), Ok(FreeTierDecision::Allowed { .. })),
            "concurrent signed pre-check {n} of one source was refused"
        );
    }
}

/// A random-looking base58 wallet string per n.
fn rotating_wallet(n: u32) -> Base58Id {
    const ALPHABET: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let mut state = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let text: String = (0..44)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(ALPHABET[usize::try_from(state % 58).unwrap()])
        })
        .collect();
    Base58Id::parse(&text).unwrap()
}

async fn one_source_gets_its_unsigned_allowance_and_its_signed_one<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let farm = source(50);
    // 300 unsigned pre-checks, 5 s apart (the interval never refuses): the day's cap does.
    let mut allowed = 0;
    for n in 0..300u32 {
        let now = at(i64::from(n) * FREE_SOURCE_MIN_INTERVAL_MS);
        let decision = store.try_use_both(&FreeCaller::unsigned(farm), now).await.unwrap();
        if let FreeTierDecision::Allowed { .. } = decision {
            allowed += 1;
        }
    }
    assert_eq!(allowed, FREE_PER_SOURCE_PER_DAY, "one source, 300 unsigned: its allowance");
    // Fresh wallets signing from one source, one a millisecond: the source's signed cap.
    let mut allowed = 0;
    for n in 0..FREE_SIGNED_PER_SOURCE_PER_DAY + 10 {
        let caller = FreeCaller::signed(rotating_wallet(n), farm);
        if let FreeTierDecision::Allowed { .. } =
            store.try_use_both(&caller, at(i64::from(n))).await.unwrap()
        {
            allowed += 1;
        }
    }
    assert_eq!(allowed, FREE_SIGNED_PER_SOURCE_PER_DAY, "new wallets buy no more than the cap");
    // 300 unsigned at once from another source: the interval allows one.
    let burst = source(51);
    let mut allowed = 0;
    for _ in 0..300u32 {
        let decision = store.try_use_both(&FreeCaller::unsigned(burst), at(1)).await.unwrap();
        if let FreeTierDecision::Allowed { .. } = decision {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 1, "300 within one millisecond from one source");
}

async fn an_ipv6_source_counts_as_its_64<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let address =
        |last: u16| IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 1, 2, 0, 0, 0, last));
    let caller = |last: u16| FreeCaller::unsigned(address(last));
    assert_eq!(
        store.try_use_both(&caller(1), at(0)).await,
        Ok(FreeTierDecision::Allowed { used: 1 })
    );
    assert_eq!(
        store.try_use_both(&caller(2), at(1)).await,
        Ok(FreeTierDecision::TooSoon),
        "same /64"
    );
    let other =
        FreeCaller::unsigned(IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 1, 3, 0, 0, 0, 1)));
    assert_eq!(
        store.try_use_both(&other, at(2)).await,
        Ok(FreeTierDecision::Allowed { used: 1 }),
        "another /64"
    );
    let mapped = FreeCaller::unsigned("::ffff:198.51.100.77".parse().unwrap());
    assert_eq!(store.try_use_both(&mapped, at(0)).await, Ok(FreeTierDecision::Allowed { used: 1 }));
    let plain = FreeCaller::unsigned(source(77));
    assert_eq!(
        store.try_use_both(&plain, at(1)).await,
        Ok(FreeTierDecision::TooSoon),
        "mapped IPv4 is the IPv4"
    );
}

async fn rate_cache_keeps_the_first_rate<F: Fixture>(fixture: &F) {
    let store = fixture.fresh().await;
    let date = day("2026-11-28");
    assert_eq!(store.get(&date).await, Ok(None));
    let friday = CadRate::new("1.4012", day("2026-11-27")).unwrap();
    store.put(&date, &friday).await.unwrap();
    store.put(&date, &CadRate::new("9.9", day("2026-11-28")).unwrap()).await.unwrap();
    assert_eq!(store.get(&date).await, Ok(Some(friday)));
}

/// A full check and memo check of a canary challenge, recorded in every capability.
async fn no_challenge_value_reaches_any_stored_byte<F: Fixture>(fixture: &F) {
    const CANARY: &str = "CANARY9h4v";
    let url = "https://seller.example/api";
    let offer = json!({"scheme": CANARY, "network": CANARY, "amount": "10000", "resource": url,
        "description": CANARY, "payTo": CANARY, "asset": CANARY,
        "extra": {"usdc_token_account": CANARY, "memo": CANARY, "feePayer": CANARY}});
    let header = json!({"resource": {"url": url}, "accepts": [{"amount": "10000", "payTo": CANARY, "extra": {"memo": CANARY}}]});
    let outcome = FetchOutcome::Captured(Capture {
        status: 402,
        payment_required: Some(CapturedHeader::of(STANDARD.encode(header.to_string()).as_bytes())),
        body: CapturedBody::Complete(
            json!({"accepts": [offer], "memo": CANARY}).to_string().into_bytes(),
        ),
    });
    let check = grade_check(url, &outcome);
    let memo = grade_memo(&outcome, &outcome);
    let store = fixture.fresh().await;
    let entries = [
        paid_entry(
            31,
            LedgerVerdict::Check {
                state: check.state,
                description_overlong: check.factors.description_overlong,
            },
            None,
        ),
        paid_entry(32, LedgerVerdict::Memo { state: memo.state }, None),
    ];
    for entry in &entries {
        store.record(entry).await.unwrap();
    }
    // A refunded entry still holds only the closed attribute list.
    assert_eq!(store.mark_refunded(&entries[0].key()).await, Ok(RefundOutcome::Refunded));
    // Every free-text-looking value is a validated type: a URL or canary cannot be one.
    assert!(HouseId::parse(&format!("{CANARY}{url}")).is_none());
    assert!(Base58Id::parse(&format!("{CANARY}{url}")).is_none());
    assert!(CriteriaVersion::parse(&format!("payability/v1@{CANARY}")).is_none());
    store.claim(&bare(PaymentId([31; 32]), PaidOp::Check), T0).await.unwrap();
    store.try_use(&CallerKey::Wallet(wallet(5)), T0).await.unwrap();
    store.increment(Counter::PaidCheck(check.state), T0).await.unwrap();
    let bytes = fixture.stored_bytes(&store).await;
    assert!(!bytes.is_empty(), "the custody scan read something");
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("pvc:ledger:"), "the custody scan sees the ledger");
    assert!(!text.contains(CANARY), "a challenge value reached the store");
    assert!(!text.contains("seller.example"), "the called URL reached the store");
}
