//! The request killed at each point of the paid flow (or run to its end with its answer
//! lost), then the same payment retried past the in-flight window, over each transport (HTTP
//! and MCP): whatever the point, the money moves at most once and, once it moved, buys one
//! verdict (delivered again, at most three times and only to its payer signed in, when its
//! answer may have been lost), one ledger row and one paid count. Then the kill points of a
//! re-delivery by signing in: after its nonce was spent, after the purchase was read.

use std::time::Duration;

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::expect;
use crate::paid_flow::pausing_store::Point;
use crate::paid_flow::sign_in;
use crate::paid_flow::world::{CHECK, Interrupted, Transport, World, with_proof};

/// One step past the in-flight window.
const PAST_IN_FLIGHT: Duration = Duration::from_secs(31);

/// Where the first request dies.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// At a store operation.
    Store(Point),
    /// While the target holds the fetch, the payment settled.
    DuringFetch,
    /// While the target holds the fetch alongside a `/settle` the facilitator holds (the
    /// transaction has landed).
    DuringEarlyFetch,
    /// While the facilitator holds `/settle` (the transaction has landed).
    DuringSettle,
    /// Right after the payer's early-fetch lease was taken, while the facilitator holds
    /// `/settle` (the transaction has landed): the lease is left to expire.
    AfterTheLease,
    /// Never: the request runs to its end (claim `delivered`) and its answer is lost.
    AnswerLost,
}

/// [`killed_then_retried_via`] over each transport.
async fn killed_then_retried(cut: Cut, marker: Option<&str>) {
    for transport in Transport::ALL {
        killed_then_retried_via(transport, cut, marker).await;
    }
}

/// Kills the first request at `cut` (leaving its claim at `marker`), retries past the
/// in-flight window, and checks that the payment bought exactly one verdict and was settled
/// once; every request over `transport`.
async fn killed_then_retried_via(transport: Transport, cut: Cut, marker: Option<&str>) {
    let world = World::start().await;
    let payment = world.fresh_payment_via(transport).await;
    let target = world.target.url();
    let request = world.request_via(transport, CHECK, Some(&payment), &target);
    let case = format!("{transport:?}, {cut:?}");
    let killed = match cut {
        Cut::Store(point) => world.kill_at(point, request).await,
        Cut::DuringFetch => {
            world.target.hold_next();
            let settled = async {
                world.target.held().await;
                while world.marker().as_deref() != Some("settled") {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            };
            world.kill_when(settled, request).await
        }
        Cut::DuringEarlyFetch => {
            world.target.hold_next();
            world.facilitator.set_settle_mode(SettleMode::Hold);
            let both = async {
                tokio::join!(world.target.held(), world.facilitator.settle_held());
            };
            world.kill_when(both, request).await
        }
        Cut::DuringSettle => {
            world.facilitator.set_settle_mode(SettleMode::Hold);
            world.kill_when(world.facilitator.settle_held(), request).await
        }
        Cut::AfterTheLease => {
            world.facilitator.set_settle_mode(SettleMode::Hold);
            world.store.pause(Point::After("lease_early_fetch"));
            let store = world.store.clone();
            let both = async {
                tokio::join!(store.reached(), world.facilitator.settle_held());
            };
            let killed = world.kill_when(both, request).await;
            world.store.disarm();
            killed
        }
        Cut::AnswerLost => {
            let lost = world.send(request).await;
            assert!(lost.is_verdict(), "the first request delivered: {lost}");
            Interrupted::Killed
        }
    };
    assert!(matches!(killed, Interrupted::Killed), "{case}: the request died there: {killed:?}");
    assert_eq!(world.marker().as_deref(), marker, "{case}: where the claim was left");
    world.target.release();
    world.facilitator.release_settle();
    world.facilitator.set_settle_mode(SettleMode::Normal);
    assert!(world.facilitator.settle_calls() <= 1, "{case}");

    world.advance(PAST_IN_FLIGHT);
    let mut answers = Vec::new();
    if marker.is_some_and(|marker| marker != "verified") {
        // Sent to /settle: the transaction may be public on chain. Unsigned, for its URL or
        // another, it gets the same sign-in challenge, and nothing moves.
        for url in [target.as_str(), OTHER_URL] {
            let bare = world.send(world.request_via(transport, CHECK, Some(&payment), url)).await;
            expect::sign_in_as_payer(&bare);
            answers.push(bare);
        }
        assert!(world.facilitator.settle_calls() <= 1, "{case}: nothing settled for them");
    }
    let retry = world.buy_signed(transport, &payment).await;
    assert!(retry.is_verdict(), "{case}: the retry gets the verdict: {retry}");
    let settlement = retry.settlement().expect("a PAYMENT-RESPONSE header");
    assert_eq!(settlement["transaction"], payment.landed_signature().as_str(), "{case}");
    let again = world.buy_signed(transport, &payment).await;
    assert!(again.is_verdict(), "{case}: delivered, presented again: {again}");
    let proof = world.proof_by(transport, CHECK, &sign_in::buyer()).await;
    let elsewhere = world.request_via(transport, CHECK, Some(&payment), OTHER_URL);
    let elsewhere = world.send(with_proof(elsewhere, &proof)).await;
    expect::conflict(&elsewhere, "payment_already_used");
    answers.extend([retry, again, elsewhere]);
    expect::paid_once(&world, &payment, &answers);
}

/// A URL the payment was not presented for.
const OTHER_URL: &str = "http://127.0.0.1:9/another";

macro_rules! kill_point_tests {
    ($($name:ident => $cut:expr, $marker:expr;)*) => {$(
        #[tokio::test]
        async fn $name() {
            killed_then_retried($cut, $marker).await;
        }
    )*};
}

// test name => where the first request dies, the claim's marker it leaves behind.
kill_point_tests! {
    killed_after_verify_before_the_claim => Cut::Store(Point::BEFORE_CLAIM), None;
    killed_after_the_claim => Cut::Store(Point::AFTER_CLAIM), Some("verified");
    killed_during_settle_after_landing => Cut::DuringSettle, Some("settling");
    killed_during_the_fetch => Cut::DuringFetch, Some("settled");
    killed_during_the_early_fetch_while_settling => Cut::DuringEarlyFetch, Some("settling");
    killed_after_the_early_fetch_lease_while_settling => Cut::AfterTheLease, Some("settling");
    killed_after_settle_before_the_ledger => Cut::Store(Point::BEFORE_RECORD), Some("settled");
    killed_after_the_ledger_before_the_answer => Cut::Store(Point::AFTER_RECORD), Some("settled");
    delivered_and_its_answer_lost => Cut::AnswerLost, Some("delivered");
}

#[tokio::test]
async fn a_settled_undelivered_payment_resumes_at_most_three_times() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let first = world.kill_at(Point::BEFORE_RECORD, world.request(CHECK, Some(&payment))).await;
    assert!(matches!(first, Interrupted::Killed), "settled, then killed: {first:?}");
    for resume in 1..=3 {
        world.advance(PAST_IN_FLIGHT);
        let proof = world.proof_by(Transport::Http, CHECK, &sign_in::buyer()).await;
        let signed = with_proof(world.request(CHECK, Some(&payment)), &proof);
        let again = world.kill_at(Point::BEFORE_RECORD, signed).await;
        assert!(matches!(again, Interrupted::Killed), "resume {resume} is let through: {again:?}");
    }
    world.advance(PAST_IN_FLIGHT);
    let fourth = world.buy_signed(Transport::Http, &payment).await;
    assert_eq!(fourth.status, 409, "a fourth resume is refused: {fourth}");
    assert_eq!(world.facilitator.settle_calls(), 1, "never settled again");
    assert!(world.ledger().is_empty(), "every resume died before the ledger");
}

/// Where a re-delivery by signing in (no payment) dies.
#[derive(Debug, Clone, Copy)]
enum SignInCut {
    /// Its nonce was spent; nothing was resumed yet.
    AfterTheNonce,
    /// The payer's purchase was read; nothing was written yet.
    AfterThePurchaseRead,
}

#[tokio::test]
async fn a_re_delivery_by_signing_in_killed_after_the_nonce_or_the_read_is_never_lost() {
    for transport in Transport::ALL {
        for cut in [SignInCut::AfterTheNonce, SignInCut::AfterThePurchaseRead] {
            killed_re_delivery_via(transport, cut).await;
        }
    }
}

/// Delivers a verdict, then kills its re-delivery by signing in at `cut`; the same proof
/// retried is refused once its nonce was spent (a fresh one gets the verdict), and gets the
/// verdict when it was not; never a second settlement, a lost resume or a second row.
async fn killed_re_delivery_via(transport: Transport, cut: SignInCut) {
    let world = World::start().await;
    let case = format!("{transport:?}, {cut:?}");
    let payment = world.fresh_payment_via(transport).await;
    let bought = world.buy(transport, &payment).await;
    assert!(bought.is_verdict(), "{case}: {bought}");
    let proof = world.proof_by(transport, CHECK, &sign_in::buyer()).await;
    let collect =
        || with_proof(world.request_via(transport, CHECK, None, &world.target.url()), &proof);
    let point = match cut {
        SignInCut::AfterTheNonce => Point::After("spend_nonce"),
        SignInCut::AfterThePurchaseRead => Point::After("purchase_of"),
    };
    let killed = world.kill_at(point, collect()).await;
    assert!(matches!(killed, Interrupted::Killed), "{case}: killed there: {killed:?}");
    let retried = world.send(collect()).await;
    let mut answers = vec![bought];
    match cut {
        SignInCut::AfterTheNonce => {
            let rule = (retried.status, retried.rule());
            assert_eq!(rule, (402, Some("sign_in_nonce_used")), "{case}: {retried}");
            let fresh = world.collect_by(transport, CHECK, &sign_in::buyer()).await;
            assert!(fresh.is_verdict(), "{case}: a fresh proof gets the verdict: {fresh}");
            answers.extend([retried, fresh]);
        }
        SignInCut::AfterThePurchaseRead => {
            assert!(retried.is_verdict(), "{case}: the proof was not spent: {retried}");
            answers.push(retried);
        }
    }
    for n in 0..2 {
        let more = world.collect_by(transport, CHECK, &sign_in::buyer()).await;
        assert!(more.is_verdict(), "{case}: the kill cost no resume ({n}): {more}");
        answers.push(more);
    }
    let fourth = world.collect_by(transport, CHECK, &sign_in::buyer()).await;
    expect::conflict(&fourth, "payment_already_used");
    answers.push(fourth);
    expect::paid_once(&world, &payment, &answers);
}

#[tokio::test]
async fn a_settle_that_never_lands_is_not_settled_once_its_blockhash_expires() {
    for transport in Transport::ALL {
        a_settle_that_never_lands_via(transport).await;
    }
}

/// The settle answer is never a clean success, over `transport`: the outcome is unknown (retry
/// the same payment) until the chain says the transaction can no longer land.
async fn a_settle_that_never_lands_via(transport: Transport) {
    let world = World::start().await;
    let payment = world.fresh_payment_via(transport).await;
    world.facilitator.set_settle_mode(SettleMode::Refuse);
    let first = world.buy(transport, &payment).await;
    expect::outcome_unknown(&first);
    assert_eq!(world.marker().as_deref(), Some("settling"));
    world.facilitator.set_settle_mode(SettleMode::Normal);

    world.advance(PAST_IN_FLIGHT);
    let unsigned = world.buy(transport, &payment).await;
    expect::sign_in_as_payer(&unsigned);
    assert_eq!(world.rpc.calls("isBlockhashValid"), 0, "the chain is asked for the payer only");
    let unknown = world.buy_signed(transport, &payment).await;
    expect::outcome_unknown(&unknown);
    assert_eq!(world.marker().as_deref(), Some("settling"), "still maybe landing");

    assert!(world.rpc.calls("isBlockhashValid") >= 1, "the chain was asked");
    world.rpc.expire_blockhashes();
    let not_settled = world.buy_signed(transport, &payment).await;
    assert_eq!((not_settled.status, not_settled.rule()), (402, Some("payment_not_settled")));
    assert_eq!(world.marker().as_deref(), Some("not_settled"));
    let again = world.buy(transport, &payment).await;
    assert_eq!((again.status, again.rule()), (402, Some("payment_not_settled")), "{again}");

    assert_eq!(world.facilitator.settle_calls(), 1, "settled (tried) once");
    assert!(world.target.hits() <= 1, "at most the early fetch, whose capture is dropped");
    for answer in [&first, &unsigned, &unknown, &not_settled, &again] {
        expect::nothing_of_the_capture(answer);
    }
    expect::nothing_taken(&world, &[first, unsigned, unknown, not_settled, again]);
}
