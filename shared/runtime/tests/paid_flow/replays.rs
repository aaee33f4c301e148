//! A payment presented again: after delivery, for the same op and URL (as is, or as a byte
//! variant of the same transaction message), its verdict is delivered again at most three
//! times (its answer may have been lost), then it is used; for the other op or another URL it
//! is used; the facilitator is never asked again. While its first request is still under way
//! (claim younger than 30 s) it is in flight.

use std::time::Duration;

use crate::chain::SettleMode;
use crate::expect;
use crate::pausing_store::Point;
use crate::payment::Payment;
use crate::world::{CHECK, Interrupted, MEMO, World};

/// One step past the in-flight window.
const PAST_IN_FLIGHT: Duration = Duration::from_secs(31);

#[tokio::test]
async fn five_replays_of_a_delivered_payment_get_its_verdict_three_times_then_409() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let first = world.post_check(&payment).await;
    assert!(first.is_verdict(), "{first}");
    let verifies = world.facilitator.verify_calls();
    let mut answers = vec![first];
    for n in 0..5 {
        let replay = world.post_check(&payment).await;
        if n < 3 {
            assert!(replay.is_verdict(), "replay {n}: delivered again: {replay}");
        } else {
            expect::conflict(&replay, "payment_already_used");
        }
        answers.push(replay);
    }
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    assert_eq!(world.target.hits(), 4, "fetched again for each delivery, never after");
    expect::paid_once(&world, &payment, &answers);
}

#[tokio::test]
async fn a_delivered_payment_presented_for_another_url_is_already_used() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let first = world.post_check(&payment).await;
    assert!(first.is_verdict(), "{first}");
    let mut answers = vec![first];
    for url in [format!("{}?other", world.target.url()), "http://127.0.0.1:9/x".to_owned()] {
        let other = world.send(world.request_about(CHECK, Some(&payment), &url)).await;
        expect::conflict(&other, "payment_already_used");
        answers.push(other);
    }
    assert_eq!(world.target.hits(), 1, "nothing fetched for another URL");
    let same = world.post_check(&payment).await;
    assert!(same.is_verdict(), "the same URL still gets its verdict again: {same}");
    answers.push(same);
    expect::paid_once(&world, &payment, &answers);
}

#[tokio::test]
async fn byte_variants_of_a_delivered_payment_are_the_same_payment() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let first = world.post_check(&payment).await;
    assert!(first.is_verdict(), "{first}");
    let verifies = world.facilitator.verify_calls();
    let variants = [
        ("another fee payer slot", payment.with_fee_payer_slot([9; 64])),
        ("a trailing byte", payment.with_trailing_byte()),
        ("unpadded base64", payment.unpadded()),
    ];
    let mut answers = vec![first];
    for (name, variant) in variants {
        assert_eq!(variant.message(), payment.message(), "{name}: one transaction message");
        assert_ne!(variant.header(), payment.header(), "{name}: other bytes");
        let answer = world.post_check(&variant).await;
        assert!(answer.is_verdict(), "{name}: the same payment, delivered again: {answer}");
        answers.push(answer);
    }
    let fourth = world.post_check(&payment.with_trailing_byte()).await;
    expect::conflict(&fourth, "payment_already_used");
    answers.push(fourth);
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    expect::paid_once(&world, &payment, &answers);
}

#[tokio::test]
async fn a_delivered_payment_presented_for_the_other_op_is_already_used() {
    let world = World::start().await;
    // v1: the service's own requirements apply and carry no route-bound memo, so the same
    // payment is well-formed for /memo too.
    let payment = Payment::v1();
    let first = world.post(CHECK, &payment).await;
    assert!(first.is_verdict(), "{first}");
    let verifies = world.facilitator.verify_calls();
    let other = world.post(MEMO, &payment).await;
    expect::conflict(&other, "payment_already_used");
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    assert_eq!(world.target.hits(), 1, "no memo fetches");
    expect::paid_once(&world, &payment, &[first, other]);
}

#[tokio::test]
async fn a_duplicate_while_the_first_request_settles_is_in_flight() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_settle_mode(SettleMode::Hold);
    let service = std::sync::Arc::clone(&world.service);
    let request = world.request(CHECK, Some(&payment));
    let first = tokio::spawn(async move { service.handle(request).await });
    tokio::time::timeout(Duration::from_secs(20), world.facilitator.settle_held())
        .await
        .expect("the first request reaches /settle");
    let verifies = world.facilitator.verify_calls();
    let duplicate = world.post_check(&payment).await;
    expect::conflict(&duplicate, "payment_in_flight");
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    world.facilitator.release_settle();
    let first = tokio::time::timeout(Duration::from_secs(20), first)
        .await
        .expect("the first request answers once released")
        .expect("the first request ran");
    let first = crate::world::Answer::from(first.into_http());
    assert!(first.is_verdict(), "{first}");
    expect::paid_once(&world, &payment, &[first, duplicate]);
}

#[tokio::test]
async fn a_young_undelivered_claim_is_in_flight_and_resumes_after_30_s() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let killed = world.kill_at(Point::AFTER_CLAIM, world.request(CHECK, Some(&payment))).await;
    assert!(matches!(killed, Interrupted::Killed), "killed after the claim: {killed:?}");
    assert_eq!(world.marker().as_deref(), Some("verified"));
    world.advance(Duration::from_secs(10));
    let verifies = world.facilitator.verify_calls();
    let young = world.post_check(&payment).await;
    expect::conflict(&young, "payment_in_flight");
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    assert_eq!(world.facilitator.settle_calls(), 0, "an in-flight answer settles nothing");
    world.advance(PAST_IN_FLIGHT - Duration::from_secs(10));
    let retry = world.post_check(&payment).await;
    assert!(retry.is_verdict(), "{retry}");
    expect::paid_once(&world, &payment, &[young, retry]);
}
