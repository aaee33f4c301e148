//! The x402 `payment-identifier` extension: an id names one payment. The same id with another
//! payment (a client that re-signs on retry, or anyone who learnt the id) is 409
//! `payment_identifier_conflict`, never verified nor settled, whatever the first purchase's
//! state; the first payment, retried, gets what its state allows, and its payer collects the
//! verdict again by signing in. A malformed id is 400 before `/verify`.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::expect;
use crate::paid_flow::pausing_store::Point;
use crate::paid_flow::payment::Payment;
use crate::paid_flow::sign_in;
use crate::paid_flow::world::{Answer, CHECK, Interrupted, MEMO, Transport, World};

/// The id every purchase of these tests is made with.
const ID: &str = "pay_7d5d747be160e280504c099d984bcfe0";
/// One step past the in-flight window.
const PAST_IN_FLIGHT: Duration = Duration::from_secs(31);

/// A new payment (a fresh 402, a new transaction) for `/check` carrying [`ID`].
async fn re_signed(world: &World) -> Payment {
    world.fresh_payment().await.with_identifier(ID)
}

/// 409 `payment_identifier_conflict`: never "nothing settled", no retry asked of this payment.
fn conflict(answer: &Answer) {
    expect::conflict(answer, "payment_identifier_conflict");
    assert!(!answer.message().contains("nothing was settled"), "{answer}");
}

#[tokio::test]
async fn every_paid_402_declares_the_extension_in_its_v2_header() {
    let world = World::start().await;
    for path in [CHECK, MEMO] {
        let challenge = world.unpaid_402_for(path).await;
        let header = challenge.header("payment-required").expect("a PAYMENT-REQUIRED header");
        let decoded: Value = serde_json::from_slice(&STANDARD.decode(header).unwrap()).unwrap();
        let declared = &decoded["extensions"]["payment-identifier"];
        assert_eq!(declared["info"], serde_json::json!({"required": false}), "{path}: {decoded}");
        let id = &declared["schema"]["properties"]["id"];
        assert_eq!((id["minLength"].as_u64(), id["maxLength"].as_u64()), (Some(16), Some(128)));
        assert!(decoded["extensions"]["bazaar"].is_object(), "{path}: beside the bazaar");
    }
}

#[tokio::test]
async fn a_re_signed_payment_with_the_first_ones_id_is_409_and_the_payer_signs_in_instead() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    let bought = world.post_check(&first).await;
    assert!(bought.is_verdict(), "a new id is processed normally: {bought}");
    let verifies = world.facilitator.verify_calls();
    let mut answers = vec![bought];
    for _ in 0..2 {
        let again = world.post_check(&re_signed(&world).await).await;
        conflict(&again);
        answers.push(again);
    }
    let collected = world.collect_by(Transport::Http, CHECK, &sign_in::buyer()).await;
    assert!(collected.is_verdict(), "the payer signs in for the verdict again: {collected}");
    answers.push(collected);
    assert_eq!(world.facilitator.verify_calls(), verifies, "no re-signed payment was verified");
    assert_eq!(world.target.hits(), 2, "fetched for each delivery");
    expect::paid_once(&world, &first, &answers);
}

#[tokio::test]
async fn the_same_id_for_another_url_or_the_other_op_is_409_and_never_verified() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    let bought = world.post_check(&first).await;
    assert!(bought.is_verdict(), "{bought}");
    let verifies = world.facilitator.verify_calls();
    let elsewhere = format!("{}?other", world.target.url());
    let other_url =
        world.send(world.request_about(CHECK, Some(&re_signed(&world).await), &elsewhere)).await;
    expect::conflict(&other_url, "payment_identifier_conflict");
    let memo = world.payment_for(MEMO).await.with_identifier(ID);
    let other_op = world.post(MEMO, &memo).await;
    expect::conflict(&other_op, "payment_identifier_conflict");
    assert_eq!(world.facilitator.verify_calls(), verifies, "neither was verified");
    assert_eq!(world.target.hits(), 1, "nothing fetched for them");
    expect::paid_once(&world, &first, &[bought, other_url, other_op]);
}

#[tokio::test]
async fn ids_that_are_not_16_to_128_of_the_alphabet_are_400_before_verify() {
    let world = World::start().await;
    let ids =
        ["pay_7".to_owned(), "a".repeat(15), "a".repeat(129), format!("{ID}!"), format!("{ID} x")];
    let mut answers = Vec::new();
    for id in ids {
        let answer = world.post_check(&world.fresh_payment().await.with_identifier(&id)).await;
        assert_eq!(
            (answer.status, answer.rule()),
            (400, Some("payment_identifier_invalid")),
            "{id}: {answer}"
        );
        assert!(!answer.body.to_string().contains(&id), "{id}: the id is never echoed");
        answers.push(answer);
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "nothing was verified");
    assert!(world.claims().is_empty(), "nothing was claimed");
    expect::nothing_taken(&world, &answers);
}

#[tokio::test]
async fn a_re_signed_payment_while_the_first_settles_is_409_and_stays_409() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    world.facilitator.set_settle_mode(SettleMode::Hold);
    let service = Arc::clone(&world.service);
    let request = world.request(CHECK, Some(&first));
    let carried = tokio::spawn(async move { service.handle(request).await });
    tokio::time::timeout(Duration::from_secs(20), world.facilitator.settle_held())
        .await
        .expect("the first payment reaches /settle");
    let verifies = world.facilitator.verify_calls();
    let second = re_signed(&world).await;
    let meanwhile = world.post_check(&second).await;
    conflict(&meanwhile);
    assert_eq!(world.facilitator.verify_calls(), verifies, "the re-signed payment is not verified");
    world.facilitator.release_settle();
    let carried = tokio::time::timeout(Duration::from_secs(20), carried)
        .await
        .expect("the first request answers once released")
        .expect("the first request ran");
    let carried = Answer::from(carried.into_http());
    assert!(carried.is_verdict(), "{carried}");
    let after = world.post_check(&second).await;
    conflict(&after);
    expect::paid_once(&world, &first, &[carried, meanwhile, after]);
}

#[tokio::test]
async fn killed_after_the_claim_a_re_signed_retry_is_409_and_the_first_payment_settles_once() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    let killed = world.kill_at(Point::AFTER_CLAIM, world.request(CHECK, Some(&first))).await;
    assert!(matches!(killed, Interrupted::Killed), "{killed:?}");
    world.advance(PAST_IN_FLIGHT);
    let second = re_signed(&world).await;
    let refused = world.post_check(&second).await;
    conflict(&refused);
    assert_eq!(world.facilitator.settle_calls(), 0, "the first payment is not settled for it");
    let resumed = world.post_check(&first).await;
    assert!(resumed.is_verdict(), "the first payment settles once: {resumed}");
    assert_eq!(world.facilitator.verify_calls(), 1, "only the first payment was verified");
    expect::paid_once(&world, &first, &[refused, resumed]);
}

#[tokio::test]
async fn killed_before_the_claim_the_re_signed_retry_is_the_purchase_and_the_first_is_409() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    let killed = world.kill_at(Point::BEFORE_CLAIM, world.request(CHECK, Some(&first))).await;
    assert!(matches!(killed, Interrupted::Killed), "{killed:?}");
    let second = re_signed(&world).await;
    let bought = world.post_check(&second).await;
    assert!(bought.is_verdict(), "the id was never claimed: the retry is the purchase: {bought}");
    let first_again = world.post_check(&first).await;
    conflict(&first_again);
    assert_eq!(world.facilitator.verify_calls(), 2, "the first (killed) and the second");
    expect::paid_once(&world, &second, &[bought, first_again]);
}

#[tokio::test]
async fn a_re_signed_payment_after_the_first_provably_never_settled_is_409() {
    let world = World::start().await;
    let first = re_signed(&world).await;
    world.facilitator.set_settle_mode(SettleMode::Refuse);
    let unknown = world.post_check(&first).await;
    expect::outcome_unknown(&unknown);
    world.facilitator.set_settle_mode(SettleMode::Normal);
    world.advance(PAST_IN_FLIGHT);
    let second = re_signed(&world).await;
    let meanwhile = world.post_check(&second).await;
    conflict(&meanwhile);
    world.rpc.expire_blockhashes();
    let never = world.buy_signed(Transport::Http, &first).await;
    assert_eq!((never.status, never.rule()), (402, Some("payment_not_settled")), "{never}");
    let re_signed_after = world.post_check(&second).await;
    conflict(&re_signed_after);
    assert_eq!(world.facilitator.verify_calls(), 1, "the re-signed payment was never verified");
    assert_eq!(world.facilitator.settle_calls(), 1, "settle tried once, for the first");
    expect::nothing_taken(&world, &[unknown, meanwhile, never, re_signed_after]);
}
