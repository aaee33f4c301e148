//! `decode_proof_header` then `verify_proof` (the `SIGN-IN-WITH-X` header, and MCP's
//! `_meta["sign-in-with-x"]`, which carries the same text) on arbitrary bytes: closed-form
//! refusals; past the cap always `HeaderTooLarge`, never decoded; a decoded proof, re-encoded
//! as standard base64 JSON, decodes to an equal proof; and a proof verifies only if its address
//! and sign-in message are exactly those of the fixture wallet's signed proof (nothing else
//! forges an Ed25519 signature).
//!
//! Input: the raw header value.

use std::sync::LazyLock;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signer, SigningKey};
use payability_core::payment::siwx::nonce::NONCE_RANDOM_BYTES;
use payability_core::payment::siwx::{
    MAX_PROOF_HEADER_BYTES, NonceKey, ProvenWallet, SignInProof, SignInRefusal, SignInScope,
    declaration, decode_proof_header, issue_nonce, siws_message, verify_proof,
};
use payability_core::report::UtcMillis;
use serde_json::{Value, json};

/// One byte over the header cap.
pub const MAX_LEN: usize = MAX_PROOF_HEADER_BYTES + 1;

/// When the fixture challenge was issued, and when proofs are verified (a second later).
const ISSUED: UtcMillis = UtcMillis(1_780_000_000_000);
const NOW: UtcMillis = UtcMillis(ISSUED.0 + 1_000);

/// The route the proofs are sent to.
const RESOURCE: &str = "https://api.example/check";

/// The nonce key of the fixture service.
fn key() -> NonceKey {
    NonceKey::derive(&[7; 32])
}

/// The fixture wallet's proof of the fixture challenge, signed.
pub static SIGNED: LazyLock<SignInProof> = LazyLock::new(signed_proof);

/// Signs the fixture challenge with the fixture wallet, as the official SDKs build the proof.
fn signed_proof() -> SignInProof {
    let scope = SignInScope::of(RESOURCE).expect("a URL with a host");
    let nonce = issue_nonce(&key(), ISSUED, [3; NONCE_RANDOM_BYTES]);
    let declared = declaration(&scope, &nonce, ISSUED).expect("in range");
    let info = &declared["info"];
    let text = |name: &str| info[name].as_str().expect("a declared member").to_owned();
    let wallet = SigningKey::from_bytes(&[9; 32]);
    let mut proof = SignInProof {
        domain: text("domain"),
        address: bs58::encode(wallet.verifying_key().as_bytes()).into_string(),
        uri: text("uri"),
        version: text("version"),
        chain_id: declared["supportedChains"][0]["chainId"].as_str().expect("a chain").to_owned(),
        kind: declared["supportedChains"][0]["type"].as_str().expect("a type").to_owned(),
        nonce: text("nonce"),
        issued_at: text("issuedAt"),
        statement: Some(text("statement")),
        expiration_time: None,
        not_before: None,
        request_id: None,
        resources: None,
        signature: String::new(),
    };
    let signature = wallet.sign(siws_message(&proof).as_bytes());
    proof.signature = bs58::encode(signature.to_bytes()).into_string();
    proof
}

/// A proof as the JSON object the header carries (absent members as null).
pub fn as_json(proof: &SignInProof) -> Value {
    json!({
        "domain": proof.domain, "address": proof.address, "uri": proof.uri,
        "version": proof.version, "chainId": proof.chain_id, "type": proof.kind,
        "nonce": proof.nonce, "issuedAt": proof.issued_at, "statement": proof.statement,
        "expirationTime": proof.expiration_time, "notBefore": proof.not_before,
        "requestId": proof.request_id, "resources": proof.resources,
        "signature": proof.signature,
    })
}

/// The header value of a proof: standard base64 of its JSON.
pub fn header_of(proof: &SignInProof) -> Vec<u8> {
    STANDARD.encode(as_json(proof).to_string()).into_bytes()
}

/// A proof verified as the fixture service verifies it, a second after issuing the fixture
/// challenge.
fn verify(proof: &SignInProof) -> Result<ProvenWallet, SignInRefusal> {
    let scope = SignInScope::of(RESOURCE).expect("a URL with a host");
    verify_proof(proof, &scope, NOW, &key())
}

/// A header decoded, then verified as [`verify`] does.
pub fn verify_header(data: &[u8]) -> Result<ProvenWallet, SignInRefusal> {
    verify(&decode_proof_header(data)?)
}

pub fn run(data: &[u8]) {
    let decoded = decode_proof_header(data);
    if data.len() > MAX_PROOF_HEADER_BYTES {
        assert_eq!(decoded, Err(SignInRefusal::HeaderTooLarge));
        return;
    }
    let proof = match decoded {
        Ok(proof) => proof,
        Err(refusal) => {
            assert!(refusal.is_malformed(), "decoding refuses only as malformed: {refusal:?}");
            return;
        }
    };
    let again = decode_proof_header(&header_of(&proof));
    assert_eq!(again.as_ref(), Ok(&proof), "a re-encoded proof decodes to itself");

    match verify(&proof) {
        Ok(proven) => {
            let original = &*SIGNED;
            assert_eq!(proof.address, original.address, "another wallet's proof verified");
            assert_eq!(siws_message(&proof), siws_message(original), "a changed message verified");
            assert_eq!(proven.wallet.as_str(), original.address);
            assert_eq!(proven.nonce.as_str(), original.nonce);
        }
        Err(refusal) => {
            assert!(SignInRefusal::ALL.contains(&refusal));
            assert!(!refusal.message().is_empty());
        }
    }
}
