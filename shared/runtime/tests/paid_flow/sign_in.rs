//! Wallets signing in (x402 sign-in-with-x) as the official clients do: a wallet takes the
//! `extensions["sign-in-with-x"]` of a 402, adds its address and the chain it matched, signs
//! the Sign-In With Solana message (written out here as the SDKs write it, apart from the
//! service's own code) and sends the proof as base64 JSON.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::Value;

/// The buyer's wallet seed: its public key is [`crate::paid_flow::payment::BUYER`], the payer the
/// facilitator stand-in names.
const BUYER_SEED: [u8; 32] = [0x42; 32];

/// The buyer's wallet.
pub fn buyer() -> SigningKey {
    SigningKey::from_bytes(&BUYER_SEED)
}

/// A wallet that paid for nothing.
pub fn stranger() -> SigningKey {
    SigningKey::from_bytes(&[0x24; 32])
}

/// A wallet's base58 address.
pub fn address(wallet: &SigningKey) -> String {
    bs58::encode(wallet.verifying_key().as_bytes()).into_string()
}

/// The sign-in challenge a `PAYMENT-REQUIRED` value declares.
pub fn declared(payment_required: &str) -> Value {
    let decoded = STANDARD.decode(payment_required).expect("PAYMENT-REQUIRED is base64");
    let challenge: Value = serde_json::from_slice(&decoded).expect("PAYMENT-REQUIRED is JSON");
    let declared = challenge["extensions"]["sign-in-with-x"].clone();
    assert!(declared["info"].is_object(), "the 402 declares sign-in-with-x: {challenge}");
    declared
}

/// The `SIGN-IN-WITH-X` value `wallet` makes of the challenge in `payment_required`.
pub fn proof(payment_required: &str, wallet: &SigningKey) -> String {
    proof_with(payment_required, wallet, |_| {})
}

/// The same, with `change` made to the proof's members before it is signed.
pub fn proof_with(
    payment_required: &str,
    wallet: &SigningKey,
    change: impl FnOnce(&mut Value),
) -> String {
    let declared = declared(payment_required);
    let chain = &declared["supportedChains"][0];
    let mut proof = declared["info"].clone();
    proof["address"] = address(wallet).into();
    proof["chainId"] = chain["chainId"].clone();
    proof["type"] = chain["type"].clone();
    change(&mut proof);
    let signature = wallet.sign(message(&proof).as_bytes());
    proof["signature"] = bs58::encode(signature.to_bytes()).into_string().into();
    STANDARD.encode(proof.to_string())
}

/// The Sign-In With Solana message of a proof's members.
fn message(proof: &Value) -> String {
    let member = |name: &str| proof[name].as_str().filter(|text| !text.is_empty());
    let text = |name: &str| member(name).unwrap_or_default();
    let chain = text("chainId").split_once(':').map_or("", |(_, reference)| reference);
    let mut lines = vec![
        format!("{} wants you to sign in with your Solana account:", text("domain")),
        text("address").to_owned(),
        String::new(),
    ];
    if let Some(statement) = member("statement") {
        lines.extend([statement.to_owned(), String::new()]);
    }
    lines.extend([
        format!("URI: {}", text("uri")),
        format!("Version: {}", text("version")),
        format!("Chain ID: {chain}"),
        format!("Nonce: {}", text("nonce")),
        format!("Issued At: {}", text("issuedAt")),
    ]);
    if let Some(expiration) = member("expirationTime") {
        lines.push(format!("Expiration Time: {expiration}"));
    }
    lines.join("\n")
}

#[test]
fn the_buyer_is_the_payer_the_facilitator_names() {
    assert_eq!(address(&buyer()), crate::paid_flow::payment::BUYER);
}
