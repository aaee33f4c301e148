//! The cost of one sign-in proof as a request pays it: the `SIGN-IN-WITH-X` value decoded and
//! the proof verified (chain, domain, URI, nonce, time window, strict Ed25519 over the rebuilt
//! message). `scripts/bench-sign-in` runs it beside the official Python SDK's parse, validate
//! and verify of an equivalent proof and prints the ratio.
#![allow(missing_docs, reason = "criterion_group! writes the undocumented entry point")]

use std::hint::black_box;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use criterion::{Criterion, criterion_group, criterion_main};
use ed25519_dalek::{Signer, SigningKey};
use payability_core::payment::siwx::{
    NonceKey, SignInProof, SignInScope, declaration, decode_proof_header, issue_nonce,
    siws_message, verify_proof,
};
use payability_core::report::UtcMillis;

const RESOURCE: &str = "https://api.example/toll/payability/check";
const ISSUED: UtcMillis = UtcMillis(1_780_000_000_000);

/// A proof of our own challenge by a fixed wallet, as the header carries it.
fn header(key: &NonceKey, scope: &SignInScope) -> String {
    let nonce = issue_nonce(key, ISSUED, [9; 8]);
    let declared = declaration(scope, &nonce, ISSUED).expect("a declaration");
    let wallet = SigningKey::from_bytes(&[0x42; 32]);
    let mut proof = declared["info"].clone();
    proof["address"] = bs58::encode(wallet.verifying_key().as_bytes()).into_string().into();
    proof["chainId"] = declared["supportedChains"][0]["chainId"].clone();
    proof["type"] = declared["supportedChains"][0]["type"].clone();
    proof["signature"] = "".into();
    let unsigned: SignInProof = serde_json::from_value(proof.clone()).expect("a proof");
    let signature = wallet.sign(siws_message(&unsigned).as_bytes());
    proof["signature"] = bs58::encode(signature.to_bytes()).into_string().into();
    STANDARD.encode(proof.to_string())
}

fn bench(c: &mut Criterion) {
    let key = NonceKey::derive(&[7; 32]);
    let scope = SignInScope::of(RESOURCE).expect("a scope");
    let header = header(&key, &scope);
    let now = UtcMillis(ISSUED.0 + 1_000);
    let verified =
        decode_proof_header(header.as_bytes()).map(|p| verify_proof(&p, &scope, now, &key));
    assert!(matches!(verified, Ok(Ok(_))), "the bench verifies a valid proof");
    c.bench_function("sign_in_decode_and_verify", |b| {
        b.iter(|| {
            let proof = decode_proof_header(black_box(header.as_bytes())).expect("decodes");
            black_box(verify_proof(&proof, &scope, now, &key)).expect("verifies")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
