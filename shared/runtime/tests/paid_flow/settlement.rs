//! `/settle` answered with anything but a clean success after the transaction landed: the
//! outcome is unknown (503, retry the same payment, do not pay again), the target is hit at
//! most once (the fetch alongside the settlement, whose capture is dropped unanswered), and a
//! retry past the in-flight window, signed in by the payer, finds the landed transaction and
//! delivers without a second settlement (unsigned, it is asked to sign in: the transaction is
//! public on chain once it landed).

use std::time::Duration;

use payability_runtime::payment::facilitator::SETTLE_TIMEOUT;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::expect;
use crate::paid_flow::pausing_store::{StoreFault, StoreFaults};
use crate::paid_flow::payment::Payment;
use crate::paid_flow::world::{Answer, Transport, World};

/// One step past the in-flight window.
const PAST_IN_FLIGHT: Duration = Duration::from_secs(31);

async fn unknown_then_delivered(mode: SettleMode) {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_settle_mode(mode);
    let first = world.post_check(&payment).await;
    expect::outcome_unknown(&first);
    assert!(world.target.hits() <= 1, "{mode:?}: at most the early fetch");
    expect::nothing_of_the_capture(&first);
    assert_eq!(world.marker().as_deref(), Some("settling"), "{mode:?}");
    assert!(world.ledger().is_empty(), "{mode:?}");
    assert_eq!(world.paid_today(), 0, "{mode:?}");
    world.facilitator.set_settle_mode(SettleMode::Normal);

    world.advance(PAST_IN_FLIGHT);
    let unsigned = world.post_check(&payment).await;
    expect::sign_in_as_payer(&unsigned);
    let retry = world.buy_signed(Transport::Http, &payment).await;
    assert!(retry.is_verdict(), "{mode:?}: the landed payment buys its verdict: {retry}");
    expect::paid_once(&world, &payment, &[first, unsigned, retry]);
}

macro_rules! unknown_outcome_tests {
    ($($(#[$attr:meta])* $name:ident => $mode:expr,)*) => {$(
        #[tokio::test]
        $(#[$attr])*
        async fn $name() {
            unknown_then_delivered($mode).await;
        }
    )*};
}

unknown_outcome_tests! {
    settle_answer_lost_after_landing => SettleMode::LandThenDrop,
    settle_500_after_landing => SettleMode::LandThen500,
    settle_success_on_another_network => SettleMode::LandWrongNetwork,
    // Waits out the real 8 s SETTLE_TIMEOUT: the bound itself is what is tested.
    settle_slower_than_its_bound => SettleMode::SlowThenSettle(SETTLE_TIMEOUT + Duration::from_secs(2)),
}

/// A fresh payment bought over HTTP whose `/settle` landed and whose answer was lost: its
/// first answer (outcome unknown); the facilitator answers normally again after it.
async fn landed_with_its_answer_lost(world: &World) -> (Payment, Answer) {
    let payment = world.fresh_payment().await;
    world.facilitator.set_settle_mode(SettleMode::LandThenDrop);
    let first = world.post_check(&payment).await;
    expect::outcome_unknown(&first);
    world.facilitator.set_settle_mode(SettleMode::Normal);
    (payment, first)
}

#[tokio::test]
async fn a_settling_claim_younger_than_30_s_is_in_flight() {
    let world = World::start().await;
    let (payment, first) = landed_with_its_answer_lost(&world).await;
    world.advance(Duration::from_secs(5));
    let verifies = world.facilitator.verify_calls();
    let young = world.post_check(&payment).await;
    expect::conflict(&young, "payment_in_flight");
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    world.advance(PAST_IN_FLIGHT);
    let retry = world.buy_signed(Transport::Http, &payment).await;
    assert!(retry.is_verdict(), "{retry}");
    expect::paid_once(&world, &payment, &[first, young, retry]);
}

/// Found by the soak: a payment whose settle answer was lost, behind more of its buyer's later
/// transactions than one page of the buyer's signatures, was read as never landing once its
/// blockhash expired (402 `payment_not_settled`, after the money moved). The search pages back
/// to the claim instead.
#[tokio::test]
async fn a_landed_payment_behind_a_page_of_its_buyers_later_transactions_is_found() {
    let world = World::start().await;
    let (payment, _) = landed_with_its_answer_lost(&world).await;
    for n in 0..30 {
        let later = world.post_check(&world.fresh_payment().await).await;
        assert!(later.is_verdict(), "later purchase {n}: {later}");
    }
    world.advance(PAST_IN_FLIGHT);
    world.rpc.expire_blockhashes();
    let retry = world.buy_signed(Transport::Http, &payment).await;
    assert!(retry.is_verdict(), "the payment landed: its verdict, not {retry}");
    let settled = retry.settlement().expect("a settlement answer");
    assert_eq!(settled["transaction"].as_str(), Some(payment.landed_signature().as_str()));
    assert_eq!(world.facilitator.settle_calls(), 31, "no second /settle");
}

/// The first call of one store operation meets `fault`; every other call runs.
struct FirstCallFails {
    operation: &'static str,
    fault: StoreFault,
    met: AtomicBool,
}

impl StoreFaults for FirstCallFails {
    fn choose(&self, operation: &'static str) -> StoreFault {
        if operation == self.operation && !self.met.swap(true, Ordering::SeqCst) {
            self.fault
        } else {
            StoreFault::None
        }
    }
}

/// Found by the soak: a settled payment's ledger write that failed once left the delivered
/// verdict with no ledger row (nor its count). Money moved, so the write is tried again; one
/// whose answer was lost after it landed is found written, and is this request's own.
#[tokio::test]
async fn a_ledger_write_that_fails_once_is_written_again() {
    for fault in [StoreFault::FailBefore, StoreFault::FailAfter] {
        let world = World::start().await;
        let payment = world.fresh_payment().await;
        let faults = FirstCallFails { operation: "record", fault, met: AtomicBool::new(false) };
        world.store.set_faults(Some(Arc::new(faults)));
        let bought = world.post_check(&payment).await;
        assert!(bought.is_verdict(), "{fault:?}: {bought}");
        expect::paid_once(&world, &payment, &[bought]);
    }
}
