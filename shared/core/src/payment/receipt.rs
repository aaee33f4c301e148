//! Signed receipts (x402's offer-receipt extension, coinbase/x402
//! `specs/extensions/extension-offer-and-receipt.md`, JWS format): what a delivered verdict's
//! settlement answer says was bought, signed with the report key, and the `did:web` DID
//! document that resolves the key. Pure: the time, the key and the URLs come in.

use serde_json::{Value, json};
use url::Url;

use super::x402::Network;
use crate::criteria::SigningKeyEntry;
use crate::signing::ReportSigner;

/// The receipt payload's schema version.
const RECEIPT_VERSION: u64 = 1;

/// What a receipt states: who paid, for which URL, settled by which transaction, when.
#[derive(Debug, Clone, Copy)]
pub struct ReceiptClaims<'a> {
    /// The paid resource's URL (the request's public URL, as the challenge named it).
    pub resource_url: &'a str,
    /// The payer's wallet.
    pub payer: &'a str,
    /// The settlement transaction.
    pub transaction: &'a str,
    /// When the receipt is issued, in Unix seconds.
    pub issued_at_s: i64,
}

/// The `did:web` DID of the service at `base_url` (its public origin and path prefix): the
/// host (a port percent-encoded), the path's segments and `.well-known`, so that it resolves
/// to `<base>/.well-known/did.json`, the document this service serves. None for a base URL
/// with no host.
pub fn did_web(base_url: &str) -> Option<String> {
    let url = Url::parse(base_url).ok()?;
    let mut did = format!("did:web:{}", url.host_str()?);
    if let Some(port) = url.port() {
        did.push_str(&format!("%3A{port}"));
    }
    let segments = url.path_segments().into_iter().flatten().filter(|s| !s.is_empty());
    for segment in segments {
        did.push(':');
        did.push_str(segment);
    }
    if url.path() != "/" {
        did.push_str(":.well-known");
    }
    Some(did)
}

/// The DID URL of a key: the DID and the key id as its fragment (a JWS `kid`).
pub fn key_url(did: &str, key_id: &str) -> String {
    format!("{did}#{key_id}")
}

/// The signed receipt: `{"format": "jws", "signature": <JWS compact>}`, its payload
/// `{version, network (CAIP-2), resourceUrl, payer, issuedAt, transaction}`, its `kid` the
/// signing key's DID URL under `did`.
pub fn signed_receipt(signer: &ReportSigner, did: &str, claims: &ReceiptClaims<'_>) -> Value {
    let payload = json!({
        "version": RECEIPT_VERSION,
        "network": Network::SolanaMainnet.caip2(),
        "resourceUrl": claims.resource_url,
        "payer": claims.payer,
        "issuedAt": claims.issued_at_s,
        "transaction": claims.transaction,
    });
    let kid = key_url(did, &signer.descriptor().key_id);
    json!({"format": "jws", "signature": signer.sign_jws(&kid, &payload)})
}

/// The DID document of `did`: every published key (current and retired) as a
/// `JsonWebKey2020` verification method, each one an assertion method.
pub fn did_document(did: &str, keys: &[SigningKeyEntry]) -> Value {
    let methods: Vec<Value> = keys
        .iter()
        .map(|key| {
            json!({
                "id": key_url(did, &key.descriptor.key_id),
                "type": "JsonWebKey2020",
                "controller": did,
                "publicKeyJwk": key.descriptor.jwk,
            })
        })
        .collect();
    let ids: Vec<Value> = methods.iter().map(|method| method["id"].clone()).collect();
    json!({
        "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
        "id": did,
        "verificationMethod": methods,
        "assertionMethod": ids,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use ed25519_dalek::{Signature, Verifier};

    #[test]
    fn a_did_resolves_to_the_well_known_document_under_the_base() {
        // base URL => its DID (did:web resolves host:path to https://host/path/did.json)
        let vectors = [
            ("https://api.example", "did:web:api.example"),
            ("https://api.example/", "did:web:api.example"),
            ("http://127.0.0.1:8080", "did:web:127.0.0.1%3A8080"),
            ("https://api.example/prod", "did:web:api.example:prod:.well-known"),
            (
                "https://api.example/toll/payability",
                "did:web:api.example:toll:payability:.well-known",
            ),
        ];
        for (base, did) in vectors {
            assert_eq!(did_web(base).as_deref(), Some(did), "{base}");
        }
        assert_eq!(did_web("not a url"), None);
    }

    #[test]
    fn a_receipt_is_a_jws_the_published_key_verifies() {
        let signer = ReportSigner::from_seed(&[7; 32]);
        let claims = ReceiptClaims {
            resource_url: "https://api.example/check",
            payer: "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG",
            transaction: "5tx",
            issued_at_s: 1_767_225_600,
        };
        let receipt = signed_receipt(&signer, "did:web:api.example", &claims);
        assert_eq!(receipt["format"], "jws");
        let jws = receipt["signature"].as_str().unwrap();
        let parts: Vec<&str> = jws.split('.').collect();
        assert_eq!(parts.len(), 3);
        let decode = |part: &str| -> Value {
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
        };
        let kid = format!("did:web:api.example#{}", signer.descriptor().key_id);
        assert_eq!(decode(parts[0]), json!({"alg": "EdDSA", "kid": kid}));
        let payload = decode(parts[1]);
        assert_eq!(payload["network"], Network::SolanaMainnet.caip2());
        assert_eq!(payload["issuedAt"], 1_767_225_600);
        assert_eq!(payload["transaction"], "5tx");
        let signature: [u8; 64] = URL_SAFE_NO_PAD.decode(parts[2]).unwrap().try_into().unwrap();
        let key = signer.descriptor().verifying_key().unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        assert!(key.verify(input.as_bytes(), &Signature::from_bytes(&signature)).is_ok());
        let entry = SigningKeyEntry {
            descriptor: signer.descriptor().clone(),
            valid_from: None,
            valid_until: None,
        };
        let document = did_document("did:web:api.example", &[entry]);
        assert_eq!(document["verificationMethod"][0]["id"], kid);
        assert_eq!(document["assertionMethod"][0], kid);
    }
}
