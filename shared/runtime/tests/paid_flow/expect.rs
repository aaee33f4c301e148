//! The outcomes every scenario ends in: the money moved once and bought exactly one verdict,
//! or it did not move and nothing was delivered, recorded or counted.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use payability_runtime::store::MAX_RESUMES;
use serde_json::Value;

use crate::paid_flow::payment::{BUYER, Payment};
use crate::paid_flow::world::{Answer, World};

/// The answers, one per line, for assertion messages.
pub fn list(answers: &[Answer]) -> String {
    answers.iter().map(|a| format!("\n  {a}")).collect()
}

/// The payment landed once (one `/settle` call), at least one answer and at most
/// 1 + MAX_RESUMES answers are 200 verdicts naming its transaction (a verdict delivered again
/// is the same purchase), the ledger has exactly one row, for that transaction, under
/// `prefix` (`pvc:ledger:` / `pvm:ledger:`), with the payer's wallet, today's paid count is
/// 1, and the claim is `delivered`. Each 200's settlement answer carries a receipt stating that
/// transaction and that payer.
pub fn paid_once_under(world: &World, payment: &Payment, answers: &[Answer], prefix: &str) {
    let ok: Vec<&Answer> = answers.iter().filter(|a| a.status == 200).collect();
    let most = 1 + MAX_RESUMES as usize;
    assert!((1..=most).contains(&ok.len()), "1 to {most} 200s for one payment:{}", list(answers));
    let tx = payment.landed_signature();
    for answer in &ok {
        assert!(answer.is_verdict(), "the 200 carries a signed verdict: {answer}");
        let settlement = answer.settlement().expect("a PAYMENT-RESPONSE header");
        assert_eq!(settlement["transaction"], tx.as_str(), "each 200 names the one settlement");
        let receipt = receipt_payload(&settlement);
        assert_eq!(
            (receipt["transaction"].as_str(), receipt["payer"].as_str()),
            (Some(tx.as_str()), Some(BUYER))
        );
    }
    assert_eq!(world.facilitator.settle_calls(), 1, "one /settle call in total");
    assert_eq!(world.chain.landed(), vec![tx.clone()], "the payment landed once");
    let ledger = world.ledger();
    assert_eq!(ledger.len(), 1, "one ledger row: {ledger:?}");
    assert_eq!(ledger[0].key, format!("{prefix}{tx}"), "the row is keyed by the landed tx");
    assert_eq!(ledger[0].payment_tx.as_deref(), Some(tx.as_str()));
    assert_eq!(ledger[0].payer_wallet.as_deref(), Some(BUYER), "the payer is recorded");
    assert_eq!(world.paid_today(), 1, "one paid verdict counted: {:?}", world.metrics_today());
    assert_eq!(world.marker().as_deref(), Some("delivered"), "the claim ends delivered");
}

/// [`paid_once_under`] for `/check`.
pub fn paid_once(world: &World, payment: &Payment, answers: &[Answer]) {
    paid_once_under(world, payment, answers, "pvc:ledger:");
}

/// No answer is a 200, nothing landed, the ledger is empty and nothing was counted as paid.
pub fn nothing_taken(world: &World, answers: &[Answer]) {
    assert!(answers.iter().all(|a| a.status != 200), "no verdict without money:{}", list(answers));
    assert!(world.chain.landed().is_empty(), "nothing landed");
    assert!(world.ledger().is_empty(), "no ledger row: {:?}", world.ledger());
    assert_eq!(world.paid_today(), 0, "nothing counted as paid: {:?}", world.metrics_today());
}

/// 503 `settlement_outcome_unknown`, worded "retry the same payment, do not pay again" and
/// never "nothing was settled".
pub fn outcome_unknown(answer: &Answer) {
    assert_eq!(answer.status, 503, "{answer}");
    assert_eq!(answer.rule(), Some("settlement_outcome_unknown"), "{answer}");
    let message = answer.message().to_lowercase();
    assert!(message.contains("same payment"), "says to retry the same payment: {answer}");
    assert!(message.contains("again"), "says not to pay again: {answer}");
    assert!(!message.contains("nothing was settled"), "never says nothing was settled: {answer}");
}

/// 402 `sign_in_as_payer`: a sign-in challenge that offers no payment (`accepts` empty in both
/// legs), declares sign-in-with-x and never says nothing was settled.
pub fn sign_in_as_payer(answer: &Answer) {
    sign_in_challenge(answer, "sign_in_as_payer");
}

/// A 402 sign-in challenge carrying `rule`: no payment offered, sign-in-with-x declared, and
/// no word that nothing was settled or charged.
pub fn sign_in_challenge(answer: &Answer, rule: &str) {
    assert_eq!((answer.status, answer.rule()), (402, Some(rule)), "{answer}");
    let challenge = answer.payment_required();
    assert_eq!(challenge["accepts"], serde_json::json!([]), "no payment offered: {challenge}");
    assert!(challenge["extensions"]["sign-in-with-x"]["info"]["nonce"].is_string(), "{challenge}");
    assert_eq!(answer.body["accepts"], serde_json::json!([]), "neither does the body: {answer}");
    let error = answer.body["error"].as_str().expect("the challenge's error text");
    for said in ["nothing was settled", "nothing was charged"] {
        assert!(!error.contains(said), "says nothing of money: {answer}");
    }
}

/// A 409 with this rule.
pub fn conflict(answer: &Answer, rule: &str) {
    assert_eq!((answer.status, answer.rule()), (409, Some(rule)), "{answer}");
}

/// Custody: nothing the seller answered (its memo, `seller-memo-…`, a canary) is in the answer,
/// its headers included.
pub fn nothing_of_the_capture(answer: &Answer) {
    let seen = format!("{answer} {:?}", answer.headers);
    assert!(!seen.contains("seller-memo"), "a captured value reached the answer: {seen}");
}

/// The payload of the JWS receipt in a settlement answer
/// (`extensions["offer-receipt"].info.receipt`), unverified (`receipts.rs` verifies).
pub fn receipt_payload(settlement: &Value) -> Value {
    let receipt = &settlement["extensions"]["offer-receipt"]["info"]["receipt"];
    assert_eq!(receipt["format"], "jws", "a JWS receipt: {settlement}");
    let jws = receipt["signature"].as_str().expect("a JWS");
    let payload = jws.split('.').nth(1).expect("three parts");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON")
}
