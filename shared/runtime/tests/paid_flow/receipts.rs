//! The signed receipt of every delivered verdict, over both transports: a JWS whose `kid` the
//! service's `/.well-known/did.json` resolves to the report key, verified here with
//! ed25519-dalek over `header.payload`; its payload states the purchase (and nothing fetched).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Verifier};
use http::Method;
use payability_core::signing::PublicKeyDescriptor;
use serde_json::{Value, json};

use crate::paid_flow::expect;
use crate::paid_flow::world::{PUBLIC_BASE_URL, Transport, World};

/// The service's DID document.
async fn did_document(world: &World) -> Value {
    let mut request = world.request("/.well-known/did.json", None);
    (request.method, request.body) = (Method::GET, Vec::new());
    let answer = world.send(request).await;
    assert_eq!(answer.status, 200, "{answer}");
    answer.body
}

#[tokio::test]
async fn every_delivered_verdict_carries_a_receipt_the_did_document_resolves() {
    for transport in Transport::ALL {
        let world = World::start().await;
        let payment = world.fresh_payment_via(transport).await;
        let paid = world.buy(transport, &payment).await;
        assert!(paid.is_verdict(), "{transport:?}: {paid}");
        let settlement = paid.settlement().expect("a settlement answer");
        let jws = settlement["extensions"]["offer-receipt"]["info"]["receipt"]["signature"]
            .as_str()
            .expect("a JWS receipt")
            .to_owned();
        let parts: Vec<&str> = jws.split('.').collect();
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["alg"], "EdDSA", "{header}");
        let kid = header["kid"].as_str().expect("a kid");

        let did = did_document(&world).await;
        assert_eq!(did["id"], "did:web:127.0.0.1%3A1", "the DID of the public base URL");
        assert!(kid.starts_with(&format!("{}#", did["id"].as_str().unwrap())), "{kid}");
        let methods = did["verificationMethod"].as_array().unwrap();
        let method = methods.iter().find(|m| m["id"] == kid).expect("the kid resolves");
        assert_eq!(did["assertionMethod"], json!([kid]), "{did}");
        let jwk = method["publicKeyJwk"].clone();
        let descriptor = PublicKeyDescriptor {
            jwk: serde_json::from_value(jwk).unwrap(),
            key_id: String::new(),
            fingerprint: String::new(),
        };
        let key = descriptor.verifying_key().expect("an Ed25519 key");
        let signature: [u8; 64] = URL_SAFE_NO_PAD.decode(parts[2]).unwrap().try_into().unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        let verified = key.verify(signed.as_bytes(), &Signature::from_bytes(&signature));
        assert!(verified.is_ok(), "{transport:?}: the receipt verifies with the DID's key");

        let payload = expect::receipt_payload(&settlement);
        let resource = match transport {
            Transport::Http => format!("{PUBLIC_BASE_URL}/check"),
            Transport::Mcp => format!("{PUBLIC_BASE_URL}/mcp"),
            Transport::A2a => format!("{PUBLIC_BASE_URL}/a2a"),
        };
        let keys: Vec<&str> = payload.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["issuedAt", "network", "payer", "resourceUrl", "transaction", "version"]);
        assert_eq!(payload["resourceUrl"], resource, "{transport:?}: {payload}");
        assert_eq!(payload["network"], "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
        assert_eq!(payload["transaction"], payment.landed_signature().as_str());
        expect::nothing_of_the_capture(&paid);
    }
}

/// A paid `GET /check?url=…`'s receipt names the route as the POST's, MCP's and A2A's name
/// theirs: scheme, host and path, never the query (the checked URL, which a shared receipt
/// would otherwise disclose).
#[tokio::test]
async fn a_get_form_receipt_names_the_route_without_the_checked_url() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let mut request = world.request(crate::paid_flow::world::CHECK, Some(&payment));
    (request.method, request.body) = (Method::GET, Vec::new());
    let encoded: String =
        url::form_urlencoded::byte_serialize(world.target.url().as_bytes()).collect();
    request.query = Some(format!("url={encoded}"));
    let paid = world.send(request).await;
    assert!(paid.is_verdict(), "{paid}");
    let payload = expect::receipt_payload(&paid.settlement().expect("a settlement answer"));
    assert_eq!(payload["resourceUrl"], format!("{PUBLIC_BASE_URL}/check"), "{payload}");
    assert!(!payload.to_string().contains(&encoded), "the checked URL is not in it: {payload}");
}
