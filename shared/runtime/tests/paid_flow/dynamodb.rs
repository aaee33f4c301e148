//! The delivered verdict whose answer was lost, on DynamoDB (moto, named by
//! PAYABILITY_TEST_DYNAMODB_ENDPOINTS, which `scripts/test` sets): the same payment for the
//! same op and URL, signed in by its payer, gets its verdict again, at most three times,
//! settled once, one ledger entry with the payer's wallet, one paid count; unsigned it is
//! asked to sign in; signed, another URL or the other op is 409.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::{DynamoStore, TableNames, create_tables};
use payability_runtime::store::{
    ClaimMarker, Ledger, Metrics, Payer, PaymentClaims, PaymentId, UtcDay,
};
use payability_tests::endpoints::moto_sdk;
use sha2::{Digest, Sha256};

use crate::paid_flow::expect;
use crate::paid_flow::payment::{BUYER, Payment};
use crate::paid_flow::sign_in;
use crate::paid_flow::world::{Answer, MEMO, StandIns, config, paid_request, with_proof};

/// A fresh set of tables on moto.
pub async fn fresh_store() -> DynamoStore {
    let started = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros();
    let tables = TableNames::with_prefix(&format!("pf-{}-{started}-", std::process::id()));
    let store = DynamoStore::new(&moto_sdk(), tables);
    create_tables(store.client(), store.tables()).await.expect("tables created");
    store
}

/// A paid-route request of this scenario.
fn request(path: &str, payment: Option<&Payment>, url: &str) -> ApiRequest {
    paid_request(path, payment, url, "paid-flow-dynamodb".to_owned())
}

#[tokio::test]
async fn a_delivered_verdict_whose_answer_was_lost_is_delivered_again_on_dynamodb() {
    let StandIns { clock, target, facilitator, rpc, .. } = StandIns::start().await;
    let store = fresh_store().await;
    let readback = DynamoStore::new(&moto_sdk(), store.tables().clone());
    let tables = StoreChoice::DynamoDb(store.tables().clone());
    let config = ServiceConfig { house_token: None, ..config(&facilitator, &rpc, tables) };
    let service = Service::new(config, &[7; 32], store, clock.function()).expect("starts");
    let send = async |request: ApiRequest| -> Answer {
        let answer = tokio::time::timeout(Duration::from_secs(30), service.handle(request));
        answer.await.expect("answers in time").into_http().into()
    };
    let url = target.url();
    let challenge = send(request("/check", None, &url)).await;
    let payment = Payment::v2(challenge.header("payment-required").expect("a challenge"));

    // The payment with the buyer's proof of `challenge` (a fresh 402 of `path`).
    let signed = |challenge: Answer, path: &str, url: &str| {
        let header = challenge.header("payment-required").expect("a challenge");
        with_proof(request(path, Some(&payment), url), &sign_in::proof(header, &sign_in::buyer()))
    };

    let lost = send(request("/check", Some(&payment), &url)).await;
    assert!(lost.is_verdict(), "the first request delivered (its answer is then lost): {lost}");
    let unsigned = send(request("/check", Some(&payment), &url)).await;
    expect::sign_in_as_payer(&unsigned);
    let other_url = format!("{url}?other");
    let challenge = send(request("/check", None, &other_url)).await;
    let elsewhere = send(signed(challenge, "/check", &other_url)).await;
    expect::conflict(&elsewhere, "payment_already_used");
    let challenge = send(request(MEMO, None, &url)).await;
    let other_op = send(signed(challenge, MEMO, &url)).await;
    assert_ne!(other_op.status, 200, "never a memo verdict for a check payment: {other_op}");
    clock.advance(Duration::from_secs(31));
    for n in 0..3 {
        let challenge = send(request("/check", None, &url)).await;
        let again = send(signed(challenge, "/check", &url)).await;
        assert!(again.is_verdict(), "delivery {n} again: {again}");
        let settlement = again.settlement().expect("a PAYMENT-RESPONSE header");
        assert_eq!(settlement["transaction"], payment.landed_signature().as_str());
    }
    let challenge = send(request("/check", None, &url)).await;
    let fourth = send(signed(challenge, "/check", &url)).await;
    expect::conflict(&fourth, "payment_already_used");

    assert_eq!(facilitator.settle_calls(), 1, "settled once");
    assert_eq!(target.hits(), 4, "fetched for each delivery, never for another URL or op");
    let id = PaymentId(Sha256::digest(payment.message()).into());
    let claim = readback.claim_of(&id).await.unwrap().expect("the claim");
    assert_eq!((claim.marker, claim.resumes), (ClaimMarker::Delivered, 3));
    let ledger = readback.cad_pending(10).await.unwrap();
    assert_eq!(ledger.len(), 1, "one ledger entry: {ledger:?}");
    let Payer::Paid { wallet, tx, .. } = &ledger[0].payer else { panic!("a paid entry") };
    assert_eq!(
        (wallet.as_ref().map(|w| w.as_str()), tx.as_str()),
        (Some(BUYER), payment.landed_signature().as_str())
    );
    let today = UtcDay::of(clock.now()).unwrap();
    let days = readback.days(&today, &today).await.unwrap();
    let paid: u64 =
        days[0].counts.iter().filter(|(n, _)| n.starts_with("paid_")).map(|(_, c)| c).sum();
    assert_eq!(paid, 1, "counted once: {days:?}");
}
