//! The straight paths: an unpaid request, a payment that buys its verdict (v2, v1, memo), and
//! payments the facilitator will not verify.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::x402::Network;
use serde_json::Value;

use crate::paid_flow::chain::VerifyMode;
use crate::paid_flow::expect;
use crate::paid_flow::payment::{BUYER, FEE_PAYER, Payment};
use crate::paid_flow::world::{CHECK, MEMO, OPERATOR_WALLET, World};

#[tokio::test]
async fn an_unpaid_request_gets_our_challenge_and_touches_nothing() {
    let world = World::start().await;
    let answer = world.unpaid_402().await;
    let header = answer.header("payment-required").expect("a PAYMENT-REQUIRED header");
    let challenge: Value = serde_json::from_slice(&STANDARD.decode(header).unwrap()).unwrap();
    let accepted = &challenge["accepts"][0];
    assert_eq!(accepted["network"], Network::SolanaMainnet.caip2());
    assert_eq!(accepted["payTo"], OPERATOR_WALLET);
    assert_eq!(accepted["extra"]["feePayer"], FEE_PAYER, "the fee payer from /supported");
    assert_eq!(world.target.hits(), 0);
    assert_eq!(world.facilitator.verify_calls(), 0);
    assert!(world.claims().is_empty());
}

#[tokio::test]
async fn a_v2_payment_buys_one_verdict_with_its_payment_response() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let answer = world.post_check(&payment).await;
    assert!(answer.is_verdict(), "{answer}");
    assert_eq!(answer.body["state"], "POPULATED", "the seller stand-in is a plausible 402");
    let settlement = answer.settlement().expect("a PAYMENT-RESPONSE header");
    assert_eq!(settlement["success"], true);
    assert_eq!(settlement["transaction"], payment.landed_signature().as_str());
    assert_eq!(settlement["network"], Network::SolanaMainnet.caip2());
    assert_eq!(world.facilitator.verify_calls(), 1);
    assert_eq!(world.target.hits(), 1);
    let ledger = world.ledger();
    assert_eq!(ledger.first().and_then(|r| r.payer_wallet.as_deref()), Some(BUYER));
    expect::paid_once(&world, &payment, &[answer]);
}

#[tokio::test]
async fn a_v1_payment_buys_one_verdict_with_its_x_payment_response() {
    let world = World::start().await;
    let payment = Payment::v1();
    let answer = world.post_check(&payment).await;
    assert!(answer.is_verdict(), "{answer}");
    assert!(answer.header("payment-response").is_none(), "v1 answers with X-PAYMENT-RESPONSE");
    let settlement = answer.settlement().expect("an X-PAYMENT-RESPONSE header");
    assert_eq!(settlement["transaction"], payment.landed_signature().as_str());
    assert_eq!(settlement["network"], Network::SolanaMainnet.v1_name());
    expect::paid_once(&world, &payment, &[answer]);
}

#[tokio::test]
async fn a_memo_payment_buys_one_memo_verdict() {
    let world = World::start().await;
    let payment = world.payment_for(MEMO).await;
    let answer = world.post(MEMO, &payment).await;
    assert!(answer.is_verdict(), "{answer}");
    assert_eq!(answer.body["op"], "memo");
    assert_eq!(answer.body["state"], "BOUND", "the seller issues a fresh memo per 402");
    assert_eq!(world.target.hits(), 2, "two back-to-back fetches");
    expect::paid_once_under(&world, &payment, &[answer], "pvm:ledger:");
}

#[tokio::test]
async fn a_payment_the_facilitator_refuses_gets_a_challenge_and_nothing_else() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_verify_mode(VerifyMode::Refuse);
    let answer = world.post_check(&payment).await;
    assert_eq!(answer.status, 402, "{answer}");
    assert!(answer.header("payment-required").is_some(), "a fresh challenge: {answer}");
    assert_eq!(world.facilitator.verify_calls(), 1);
    assert_eq!(world.facilitator.settle_calls(), 0);
    assert_eq!(world.target.hits(), 0, "the target is not hit");
    assert!(world.claims().is_empty(), "no claim: {:?}", world.claims());
    expect::nothing_taken(&world, &[answer]);
}

#[tokio::test]
async fn a_facilitator_that_cannot_verify_takes_nothing() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_verify_mode(VerifyMode::Down);
    let answer = world.post(CHECK, &payment).await;
    assert_eq!(answer.status, 503, "{answer}");
    assert_eq!(world.facilitator.settle_calls(), 0);
    assert_eq!(world.target.hits(), 0, "the target is not hit");
    assert!(world.claims().is_empty(), "no claim: {:?}", world.claims());
    expect::nothing_taken(&world, &[answer]);
}
