//! A payment presented again: after delivery, its transaction is public on chain, so unsigned
//! it gets the sign-in challenge (402 `sign_in_as_payer`, whatever op and URL it names, no new
//! payment offered); signed in by its payer, for the same op and URL (as is, or as a byte
//! variant of the same transaction message), its verdict is delivered again at most three
//! times (its answer may have been lost), then it is used; for the other op or another URL it
//! is used; the facilitator is never asked again. While its first request is still under way
//! (claim younger than 30 s) it is in flight.

use std::time::Duration;

use crate::paid_flow::chain::SettleMode;
use crate::paid_flow::expect;
use crate::paid_flow::pausing_store::Point;
use crate::paid_flow::payment::Payment;
use crate::paid_flow::sign_in;
use crate::paid_flow::world::{CHECK, Interrupted, MEMO, Transport, World, with_proof};

/// One step past the in-flight window.
const PAST_IN_FLIGHT: Duration = Duration::from_secs(31);

#[tokio::test]
async fn five_replays_of_a_delivered_payment_get_its_verdict_three_times_then_409() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let first = world.post_check(&payment).await;
    assert!(first.is_verdict(), "{first}");
    let verifies = world.facilitator.verify_calls();
    let unsigned = world.post_check(&payment).await;
    expect::sign_in_as_payer(&unsigned);
    let stranger = world.proof_by(Transport::Http, CHECK, &sign_in::stranger()).await;
    let signed_by_another =
        world.send(with_proof(world.request(CHECK, Some(&payment)), &stranger)).await;
    expect::sign_in_as_payer(&signed_by_another);
    let mut answers = vec![first, unsigned, signed_by_another];
    for n in 0..5 {
        let replay = world.buy_signed(Transport::Http, &payment).await;
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
        let unsigned = world.send(world.request_about(CHECK, Some(&payment), &url)).await;
        expect::sign_in_as_payer(&unsigned);
        let proof = world.proof_by(Transport::Http, CHECK, &sign_in::buyer()).await;
        let signed = with_proof(world.request_about(CHECK, Some(&payment), &url), &proof);
        let other = world.send(signed).await;
        expect::conflict(&other, "payment_already_used");
        answers.extend([unsigned, other]);
    }
    assert_eq!(world.target.hits(), 1, "nothing fetched for another URL");
    let same = world.buy_signed(Transport::Http, &payment).await;
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
        let answer = world.buy_signed(Transport::Http, &variant).await;
        assert!(answer.is_verdict(), "{name}: the same payment, delivered again: {answer}");
        answers.push(answer);
    }
    let fourth = world.buy_signed(Transport::Http, &payment.with_trailing_byte()).await;
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
    let unsigned = world.post(MEMO, &payment).await;
    expect::sign_in_as_payer(&unsigned);
    let proof = world.proof_by(Transport::Http, MEMO, &sign_in::buyer()).await;
    let other = world.send(with_proof(world.request(MEMO, Some(&payment)), &proof)).await;
    expect::conflict(&other, "payment_already_used");
    assert_eq!(world.facilitator.verify_calls(), verifies, "no /verify for a known payment");
    assert_eq!(world.target.hits(), 1, "no memo fetches");
    expect::paid_once(&world, &payment, &[first, unsigned, other]);
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
    let first = crate::paid_flow::world::Answer::from(first.into_http());
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

#[tokio::test]
async fn a_duplicate_that_read_no_claim_before_the_first_settled_is_in_flight_never_refused() {
    for transport in Transport::ALL {
        for signed in [false, true] {
            duplicate_racing_the_first(transport, signed).await;
        }
    }
}

/// The race seen under load: a duplicate of a payment reads "no claim" before the first request
/// claims it, and calls `/verify` only after the first delivered, which the facilitator
/// refuses (`duplicate_settlement`). It reads the claim again and answers as the known
/// payment: unsigned, the sign-in challenge; signed in by the payer, its verdict again; never
/// 402 `payment_not_verified`, never a second settlement.
async fn duplicate_racing_the_first(transport: Transport, signed: bool) {
    let world = World::start().await;
    let case = format!("{transport:?}, signed: {signed}");
    let payment = world.fresh_payment_via(transport).await;
    let mut duplicate = world.request_via(transport, CHECK, Some(&payment), &world.target.url());
    if signed {
        duplicate =
            with_proof(duplicate, &world.proof_by(transport, CHECK, &sign_in::buyer()).await);
    }
    world.store.hold(Point::After("claim_of"));
    let service = std::sync::Arc::clone(&world.service);
    let held = tokio::spawn(async move { service.handle(duplicate).await });
    tokio::time::timeout(Duration::from_secs(20), world.store.reached())
        .await
        .expect("the duplicate read no claim");
    let first = world.buy(transport, &payment).await;
    assert!(first.is_verdict(), "{case}: the first request delivered: {first}");
    world.store.release();
    let raced = tokio::time::timeout(Duration::from_secs(20), held)
        .await
        .expect("the duplicate answers once released")
        .expect("the duplicate ran");
    let raced = match transport {
        Transport::Http => crate::paid_flow::world::Answer::from(raced.into_http()),
        Transport::Mcp => crate::paid_flow::world::mcp_answer(raced.into_http()),
        Transport::A2a => crate::paid_flow::world::a2a_answer(raced.into_http()),
    };
    assert_eq!(world.facilitator.verify_calls(), 2, "{case}: the duplicate's /verify was refused");
    match signed {
        false => expect::sign_in_as_payer(&raced),
        true => assert!(raced.is_verdict(), "{case}: its payer's verdict again: {raced}"),
    }
    expect::paid_once(&world, &payment, &[first, raced]);
}
