//! Hostile sign-in proofs: each one a closed-form refusal, before any call to the facilitator
//! and with nothing fetched, settled or spent: on a paid route (with the payer's own payment,
//! over both transports) and on the pre-check.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::SigningKey;
use serde_json::Value;

use crate::paid_flow::expect;
use crate::paid_flow::sign_in::{self, proof, proof_with};
use crate::paid_flow::world::{Answer, CHECK, Transport, World, with_proof};

/// How a hostile proof is made from a fresh challenge (its `PAYMENT-REQUIRED` value) and the
/// payer's key.
type Forge = fn(&str, &SigningKey) -> String;

/// The proofs, each with the status and rule it must get.
const HOSTILE: [(&str, Forge, u16, &str); 8] = [
    (
        "a wrong domain",
        |c, k| proof_with(c, k, |p| p["domain"] = "evil.example".into()),
        402,
        "sign_in_domain_mismatch",
    ),
    (
        "another route",
        |c, k| proof_with(c, k, |p| p["uri"] = "http://127.0.0.1:1/memo".into()),
        402,
        "sign_in_uri_mismatch",
    ),
    (
        "a nonce we never issued",
        |c, k| proof_with(c, k, |p| p["nonce"] = "0".repeat(32).into()),
        402,
        "sign_in_nonce_unknown",
    ),
    (
        "another wallet's signature",
        |c, k| {
            let theirs = proof(c, &sign_in::stranger());
            let mut forged = decoded(&theirs);
            forged["address"] = sign_in::address(k).into();
            STANDARD.encode(forged.to_string())
        },
        402,
        "sign_in_signature_invalid",
    ),
    (
        "devnet",
        |c, k| {
            proof_with(c, k, |p| p["chainId"] = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1".into())
        },
        402,
        "sign_in_chain_unsupported",
    ),
    (
        "a truncated header",
        |c, k| {
            let whole = proof(c, k);
            whole[..whole.len() / 2].to_owned()
        },
        400,
        "sign_in_header_malformed",
    ),
    (
        "a header over the 16,384-byte cap",
        |c, k| {
            let mut padded = decoded(&proof(c, k));
            padded["requestId"] = "x".repeat(13_000).into();
            STANDARD.encode(padded.to_string())
        },
        400,
        "sign_in_header_too_large",
    ),
    ("not base64", |_, _| "!!!".to_owned(), 400, "sign_in_header_malformed"),
];

fn decoded(proof: &str) -> Value {
    serde_json::from_slice(&STANDARD.decode(proof).unwrap()).unwrap()
}

/// The refusal `rule` with `status`: 402 with a fresh sign-in challenge, or a 400 error.
fn refused(answer: &Answer, status: u16, rule: &str, case: &str) {
    assert_eq!((answer.status, answer.rule()), (status, Some(rule)), "{case}: {answer}");
    if status == 402 {
        let fresh = sign_in::declared(answer.header("payment-required").expect("a challenge"));
        assert!(fresh["info"]["nonce"].is_string(), "{case}: a fresh challenge to sign");
    }
}

#[tokio::test]
async fn hostile_proofs_with_a_delivered_payment_are_refused_before_the_facilitator() {
    for transport in Transport::ALL {
        let world = World::start().await;
        let payment = world.fresh_payment_via(transport).await;
        let bought = world.buy(transport, &payment).await;
        assert!(bought.is_verdict(), "{transport:?}: {bought}");
        let calls = (world.facilitator.verify_calls(), world.facilitator.settle_calls());
        let hits = world.target.hits();
        let mut answers = vec![bought];
        for (case, forge, status, rule) in HOSTILE {
            let case = format!("{transport:?}, {case}");
            let challenge =
                world.send(world.request_via(transport, CHECK, None, &world.target.url())).await;
            let forged = forge(challenge.header("payment-required").unwrap(), &sign_in::buyer());
            let request = world.request_via(transport, CHECK, Some(&payment), &world.target.url());
            let answer = world.send(with_proof(request, &forged)).await;
            refused(&answer, status, rule, &case);
            answers.push(answer);
        }
        // A stale proof (its challenge issued more than 5 minutes ago), and one used twice.
        let stale = world.proof_by(transport, CHECK, &sign_in::buyer()).await;
        world.advance(Duration::from_secs(301));
        let request = world.request_via(transport, CHECK, Some(&payment), &world.target.url());
        let answer = world.send(with_proof(request, &stale)).await;
        refused(&answer, 402, "sign_in_expired", &format!("{transport:?}, a stale issuedAt"));
        answers.push(answer);
        let once = world.proof_by(transport, CHECK, &sign_in::buyer()).await;
        let request = || world.request_via(transport, CHECK, Some(&payment), &world.target.url());
        let first = world.send(with_proof(request(), &once)).await;
        assert!(first.is_verdict(), "{transport:?}: the payer's proof, once: {first}");
        let reused = world.send(with_proof(request(), &once)).await;
        refused(&reused, 402, "sign_in_nonce_used", &format!("{transport:?}, a reused nonce"));
        answers.extend([first, reused]);
        assert_eq!(
            (world.facilitator.verify_calls(), world.facilitator.settle_calls()),
            calls,
            "{transport:?}: no proof reached the facilitator"
        );
        assert_eq!(world.target.hits(), hits + 1, "{transport:?}: fetched for the one delivery");
        for answer in &answers {
            expect::nothing_of_the_capture(answer);
        }
        expect::paid_once(&world, &payment, &answers);
    }
}

#[tokio::test]
async fn hostile_proofs_on_a_fresh_payment_are_refused_before_it_is_verified() {
    let world = World::start().await;
    let mut answers = Vec::new();
    for (case, forge, status, rule) in HOSTILE {
        let payment = world.fresh_payment().await;
        let challenge = world.unpaid_402().await;
        let forged = forge(challenge.header("payment-required").unwrap(), &sign_in::buyer());
        let answer = world.send(with_proof(world.request(CHECK, Some(&payment)), &forged)).await;
        refused(&answer, status, rule, case);
        answers.push(answer);
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "no payment was verified");
    assert!(world.claims().is_empty(), "nothing claimed");
    expect::nothing_taken(&world, &answers);
}
