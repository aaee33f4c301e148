use ed25519_dalek::{Signer, SigningKey};

use super::*;

const ISSUED: UtcMillis = UtcMillis(1_780_000_000_000);
const RESOURCE: &str = "https://api.example:8443/toll/payability/check?url=https%3A%2F%2Fs.example";

fn key() -> NonceKey {
    NonceKey::derive(&[7; 32])
}

fn scope() -> SignInScope {
    SignInScope::of(RESOURCE).unwrap()
}

fn wallet(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// The proof a wallet makes of the challenge `declaration` declares (as the SDKs build it).
fn proof_of(declared: &Value, signer: &SigningKey) -> SignInProof {
    let info = &declared["info"];
    let text = |name: &str| info[name].as_str().unwrap().to_owned();
    let mut proof = SignInProof {
        domain: text("domain"),
        address: bs58::encode(signer.verifying_key().as_bytes()).into_string(),
        uri: text("uri"),
        version: text("version"),
        chain_id: declared["supportedChains"][0]["chainId"].as_str().unwrap().to_owned(),
        kind: declared["supportedChains"][0]["type"].as_str().unwrap().to_owned(),
        nonce: text("nonce"),
        issued_at: text("issuedAt"),
        statement: Some(text("statement")),
        expiration_time: None,
        not_before: None,
        request_id: None,
        resources: None,
        signature: String::new(),
    };
    signed(&mut proof, signer);
    proof
}

fn signed(proof: &mut SignInProof, signer: &SigningKey) {
    let signature = signer.sign(siws_message(proof).as_bytes());
    proof.signature = bs58::encode(signature.to_bytes()).into_string();
}

fn declared() -> Value {
    let nonce = issue_nonce(&key(), ISSUED, [3; nonce::NONCE_RANDOM_BYTES]);
    declaration(&scope(), &nonce, ISSUED).unwrap()
}

#[test]
fn the_scope_is_the_host_with_its_port_and_the_url_without_its_query() {
    let scope = scope();
    assert_eq!(scope.domain, "api.example:8443");
    assert_eq!(scope.uri, "https://api.example:8443/toll/payability/check");
    assert_eq!(SignInScope::of("https://api.example/check").unwrap().domain, "api.example");
    assert_eq!(SignInScope::of("data:text/plain,x"), None);
}

#[test]
fn the_declaration_is_the_extension_shape_the_sdks_read() {
    let declared = declared();
    assert_eq!(
        declared,
        json!({
            "info": {
                "domain": "api.example:8443",
                "uri": "https://api.example:8443/toll/payability/check",
                "version": "1",
                "nonce": issue_nonce(&key(), ISSUED, [3; nonce::NONCE_RANDOM_BYTES]).as_str(),
                "issuedAt": "2026-05-28T20:26:40.000Z",
                "statement": STATEMENT,
            },
            "supportedChains": [{"chainId": Network::SolanaMainnet.caip2(), "type": "ed25519"}],
        })
    );
}

#[test]
fn a_proof_is_verified_or_refused_by_the_first_rule_it_breaks() {
    let signer = wallet(1);
    let good = proof_of(&declared(), &signer);
    let at = |ms: i64| UtcMillis(ISSUED.0 + ms);
    type Change = Box<dyn Fn(&mut SignInProof)>;
    let resigned = |change: Box<dyn Fn(&mut SignInProof)>| -> Change {
        Box::new(move |proof: &mut SignInProof| {
            change(proof);
            signed(proof, &wallet(1));
        })
    };
    let vectors: Vec<(&str, Change, UtcMillis, Result<(), SignInRefusal>)> = vec![
        ("as made", Box::new(|_| {}), at(1_000), Ok(())),
        ("at the end of its lifetime", Box::new(|_| {}), at(PROOF_LIFETIME_MS - 1), Ok(())),
        ("issued a little ahead of this clock", Box::new(|_| {}), at(-CLOCK_SKEW_MS), Ok(())),
        ("a query on the uri", resigned(Box::new(|p| p.uri.push_str("?url=x"))), at(0), Ok(())),
        (
            "an expirationTime ahead",
            resigned(Box::new(|p| p.expiration_time = Some("2026-05-28T20:30:00Z".into()))),
            at(0),
            Ok(()),
        ),
        (
            "version 2",
            resigned(Box::new(|p| p.version = "2".into())),
            at(0),
            Err(SignInRefusal::ChainUnsupported),
        ),
        (
            "devnet",
            resigned(Box::new(|p| p.chain_id = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1".into())),
            at(0),
            Err(SignInRefusal::ChainUnsupported),
        ),
        (
            "eip191",
            resigned(Box::new(|p| p.kind = "eip191".into())),
            at(0),
            Err(SignInRefusal::ChainUnsupported),
        ),
        (
            "another domain",
            resigned(Box::new(|p| p.domain = "api.example".into())),
            at(0),
            Err(SignInRefusal::DomainMismatch),
        ),
        (
            "another route",
            resigned(Box::new(|p| p.uri = "https://api.example:8443/toll/payability/memo".into())),
            at(0),
            Err(SignInRefusal::UriMismatch),
        ),
        (
            "another origin",
            resigned(Box::new(|p| p.uri = "https://evil.example/toll/payability/check".into())),
            at(0),
            Err(SignInRefusal::UriMismatch),
        ),
        (
            "not a URL",
            resigned(Box::new(|p| p.uri = "check".into())),
            at(0),
            Err(SignInRefusal::UriMismatch),
        ),
        (
            "another nonce",
            resigned(Box::new(|p| p.nonce = "0".repeat(32))),
            at(0),
            Err(SignInRefusal::NonceUnknown),
        ),
        (
            "issuedAt moved",
            resigned(Box::new(|p| p.issued_at = "2026-05-28T20:26:40.001Z".into())),
            at(0),
            Err(SignInRefusal::NonceUnknown),
        ),
        (
            "issuedAt not a time",
            resigned(Box::new(|p| p.issued_at = "yesterday".into())),
            at(0),
            Err(SignInRefusal::NonceUnknown),
        ),
        ("stale", Box::new(|_| {}), at(PROOF_LIFETIME_MS + 1), Err(SignInRefusal::Expired)),
        (
            "past its expirationTime",
            resigned(Box::new(|p| p.expiration_time = Some("2026-05-28T20:26:41.000Z".into()))),
            at(1_000),
            Err(SignInRefusal::Expired),
        ),
        (
            "from the future",
            Box::new(|_| {}),
            at(-CLOCK_SKEW_MS - 1),
            Err(SignInRefusal::NotYetValid),
        ),
        (
            "before its notBefore",
            resigned(Box::new(|p| p.not_before = Some("2026-05-28T20:26:42.000Z".into()))),
            at(1_000),
            Err(SignInRefusal::NotYetValid),
        ),
        (
            "expirationTime not a time",
            resigned(Box::new(|p| p.expiration_time = Some("soon".into()))),
            at(0),
            Err(SignInRefusal::HeaderMalformed),
        ),
        (
            "another wallet's signature",
            Box::new(|p| signed(p, &wallet(2))),
            at(0),
            Err(SignInRefusal::SignatureInvalid),
        ),
        (
            "another wallet's address",
            Box::new(|p| {
                p.address = bs58::encode(wallet(2).verifying_key().as_bytes()).into_string()
            }),
            at(0),
            Err(SignInRefusal::SignatureInvalid),
        ),
        (
            "a member changed after signing",
            Box::new(|p| p.statement = None),
            at(0),
            Err(SignInRefusal::SignatureInvalid),
        ),
        (
            "an address that is no key",
            Box::new(|p| p.address = "not-base58".into()),
            at(0),
            Err(SignInRefusal::SignatureInvalid),
        ),
        (
            "a signature that is no signature",
            Box::new(|p| p.signature = "111".into()),
            at(0),
            Err(SignInRefusal::SignatureInvalid),
        ),
    ];
    for (case, change, now, want) in vectors {
        let mut proof = good.clone();
        change(&mut proof);
        let verified = verify_proof(&proof, &scope(), now, &key());
        assert_eq!(verified.as_ref().map(drop).map_err(|r| *r), want, "{case}");
        if let Ok(proven) = verified {
            assert_eq!(proven.wallet.as_str(), good.address, "{case}");
            assert_eq!(proven.nonce.as_str(), good.nonce, "{case}");
            assert_eq!(proven.spend_until, UtcMillis(ISSUED.0 + PROOF_LIFETIME_MS + CLOCK_SKEW_MS));
        }
    }
}

#[test]
fn every_refusal_has_its_own_rule_and_only_header_faults_are_malformed() {
    let rules: std::collections::BTreeSet<&str> =
        SignInRefusal::ALL.iter().map(|r| r.rule()).collect();
    assert_eq!(rules.len(), SignInRefusal::ALL.len());
    let malformed: Vec<_> = SignInRefusal::ALL.into_iter().filter(|r| r.is_malformed()).collect();
    assert_eq!(malformed, [SignInRefusal::HeaderTooLarge, SignInRefusal::HeaderMalformed]);
}
