//! The payment adapters against a stub HTTP server on 127.0.0.1: the facilitator client
//! (`/supported`, `/verify`, `/settle`: happy paths, refusals, forged settlements, unreadable
//! answers, outages and the time bounds), the Solana fee lookup (`getTransaction`) and the
//! landing lookup (`getSignaturesForAddress`, `getTransaction`, `isBlockhashValid`).
//!
//! The stub (the shared loopback stand-in) answers by path with canned replies (JSON-RPC
//! replies also by method, and `getTransaction` by signature) and records every request; an
//! answer that is not HTTP at all comes from the fetcher tests' scripted server. No test
//! sends traffic anywhere but loopback.

#[allow(dead_code, reason = "the fetcher tests use the rest of the scripted server")]
use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use payability_core::payment::solana::{Base58Id, encode_pubkey};
use payability_core::payment::transaction::PaymentTransaction;
use payability_core::payment::x402::{
    Network, Requirements, RequirementsV2, SvmExtra, UsdcUnits, X402Version,
};
use payability_core::price::USDC_MINT;
use payability_core::report::UtcMillis;
use payability_runtime::payment::facilitator::{
    Facilitator, FacilitatorError, FacilitatorReason, REQUEST_TIMEOUT, SETTLE_TIMEOUT, Settled,
    Timeouts, Verified,
};
use payability_runtime::payment::solana_rpc::{
    BLOCK_TIME_SLACK_MS, LANDING_PAGE, LANDING_SEARCH_CAP, Landing, LatestBlockhash, RpcError,
    find_landing, latest_blockhash, transaction_fee,
};
use payability_tests::standin::{self, Recorded, StandIn, closed_port};
use serde_json::{Value, json};
use support::{Server, Step};

/// Solana mainnet as x402 v2 names it.
const NETWORK_V2: &str = Network::SolanaMainnet.caip2();
/// A real fee payer (the x402 v2 specification's `/supported` example signer).
const FEE_PAYER: &str = "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5";
/// A wallet (metaplex-foundation/Solana.Swift's ATA test owner).
const PAYER: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";

/// A base58 64-byte transaction signature.
fn signature() -> String {
    "5".repeat(87) + "1"
}

/// How the stub answers one path.
#[derive(Debug, Clone)]
enum Reply {
    /// A status and a JSON body.
    Body(u16, Vec<u8>),
    /// Read the request and say nothing until the stub dies.
    Silent,
    /// Any other answer of the stand-in (a redirect, a body cut short).
    Http(standin::Reply),
    /// A JSON-RPC endpoint: the reply under `"<method> <first param>"`, else under
    /// `"<method> @<params[1].commitment>"`, else under `"<method>"`, else 404.
    Rpc(Vec<(String, Reply)>),
    /// The first reply once (the flag is still false), the second ever after.
    Then(Arc<AtomicBool>, Box<Reply>, Box<Reply>),
}

impl Reply {
    /// The reply to `body` (a JSON-RPC request when this is an RPC reply).
    fn resolve(self, body: &[u8]) -> Option<Reply> {
        let methods = match self {
            Reply::Rpc(methods) => methods,
            Reply::Then(used, first, then) => {
                let next = if used.swap(true, Ordering::SeqCst) { then } else { first };
                return next.resolve(body);
            }
            other => return Some(other),
        };
        let request: Value = serde_json::from_slice(body).ok()?;
        let method = request.get("method")?.as_str()?;
        let first = request.pointer("/params/0").and_then(Value::as_str).unwrap_or_default();
        let commitment =
            request.pointer("/params/1/commitment").and_then(Value::as_str).unwrap_or_default();
        let find = |key: &str| methods.iter().find(|(k, _)| k == key).map(|(_, r)| r.clone());
        let before = request.pointer("/params/1/before").and_then(Value::as_str);
        let paged = before.and_then(|before| find(&format!("{method} before {before}")));
        paged
            .or_else(|| find(&format!("{method} {first}")))
            .or_else(|| find(&format!("{method} @{commitment}")))
            .or_else(|| find(method))?
            .resolve(body)
    }
}

fn json_reply(status: u16, value: Value) -> Reply {
    Reply::Body(status, value.to_string().into_bytes())
}

/// The JSON body of a request the stub saw.
fn json_of(request: &Recorded) -> Value {
    serde_json::from_slice(&request.body).expect("the client sends JSON")
}

/// The stand-in for the facilitator or the RPC: each path answered with its reply (any
/// number of times); dropping it stops it.
struct Stub(StandIn);

impl Stub {
    /// Starts a stub on 127.0.0.1 answering each path with its reply.
    async fn start(routes: Vec<(&'static str, Reply)>) -> Self {
        Self(StandIn::start(Arc::new(move |request: Recorded| {
            let reply = routes.iter().find(|(path, _)| *path == request.path);
            let answer = match reply.and_then(|(_, reply)| reply.clone().resolve(&request.body)) {
                Some(Reply::Body(status, body)) => standin::Reply::status(status)
                    .header("content-type", "application/json")
                    .body(body),
                Some(Reply::Http(reply)) => reply,
                Some(Reply::Silent) => return Box::pin(std::future::pending()),
                Some(Reply::Rpc(_) | Reply::Then(..)) => unreachable!("resolved"),
                None => standin::Reply::status(404),
            };
            Box::pin(async move { answer })
        })))
    }

    fn url(&self, path: &str) -> String {
        self.0.url(path)
    }

    fn seen(&self) -> Vec<Recorded> {
        self.0.requests()
    }
}

/// A v2 payment payload as a client sends it.
fn payment_payload() -> Value {
    json!({
        "x402Version": 2,
        "resource": {"url": "https://api.example/check"},
        "accepted": requirements(),
        "payload": {"transaction": "AQID"},
    })
}

/// The v2 requirements we would forward.
fn requirements() -> Requirements {
    Requirements::V2(RequirementsV2 {
        scheme: "exact".to_owned(),
        network: Network::SolanaMainnet,
        amount: UsdcUnits(10_000),
        asset: USDC_MINT.to_owned(),
        pay_to: PAYER.to_owned(),
        max_timeout_seconds: 60,
        extra: SvmExtra {
            fee_payer: FEE_PAYER.to_owned(),
            usdc_token_account: PAYER.to_owned(),
            memo: Some("pvm_abcdefgh".to_owned()),
        },
    })
}

/// The version of an x402 version number in a vector.
fn version_of(number: u8) -> X402Version {
    if number == 1 { X402Version::V1 } else { X402Version::V2 }
}

/// A facilitator client for the stub, mounted under a path prefix like real facilitators.
fn client_for(stub: &Stub) -> Facilitator {
    Facilitator::new(&stub.url("/facilitator/")).expect("a loopback URL is accepted")
}

/// A 200 whose head declares `declared` body bytes, of which only `sent` arrive.
fn cut_short(declared: usize, sent: &[u8]) -> Reply {
    Reply::Http(standin::Reply::CutShort { status: 200, declared, body: sent.to_vec() })
}

async fn fee_payer_from(answer: Reply) -> Result<Base58Id, FacilitatorError> {
    let stub = Stub::start(vec![("/facilitator/supported", answer)]).await;
    client_for(&stub).fee_payer().await
}

async fn verify_with(answer: Reply) -> Result<Verified, FacilitatorError> {
    let stub = Stub::start(vec![("/facilitator/verify", answer)]).await;
    client_for(&stub).verify(X402Version::V2, &payment_payload(), &requirements()).await
}

async fn settle_with(version: u8, answer: Reply) -> Result<Settled, FacilitatorError> {
    let stub = Stub::start(vec![("/facilitator/settle", answer)]).await;
    client_for(&stub).settle(version_of(version), &payment_payload(), &requirements()).await
}

fn settled_answer(network: &str) -> Value {
    json!({"success": true, "transaction": signature(), "network": network, "payer": PAYER})
}

#[tokio::test]
async fn fee_payer_is_read_from_supported_under_the_base_path() {
    let stub = Stub::start(vec![(
        "/facilitator/supported",
        json_reply(
            200,
            json!({"kinds": [], "extensions": [], "signers": {"solana:*": [FEE_PAYER]}}),
        ),
    )])
    .await;
    assert_eq!(client_for(&stub).fee_payer().await.as_ref().map(Base58Id::as_str), Ok(FEE_PAYER));
    let seen = stub.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("GET", "/facilitator/supported"));
}

#[tokio::test]
async fn fee_payer_vectors() {
    let other = "AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o";
    let kind = |version: u8, network: &str, payer: Value| json!({"x402Version": version, "scheme": "exact", "network": network, "extra": {"feePayer": payer}});
    let cases: Vec<(&str, Value, Result<&str, FacilitatorError>)> = vec![
        (
            "signers: the mainnet key wins over solana:*",
            json!({"kinds": [], "signers": {"solana:*": [other], NETWORK_V2: [FEE_PAYER, other]}}),
            Ok(FEE_PAYER),
        ),
        (
            "signers: an empty mainnet list falls back to solana:*",
            json!({"kinds": [], "signers": {NETWORK_V2: [], "solana:*": [FEE_PAYER]}}),
            Ok(FEE_PAYER),
        ),
        (
            "signers before kinds",
            json!({"kinds": [kind(2, NETWORK_V2, json!(other))], "signers": {"solana:*": [FEE_PAYER]}}),
            Ok(FEE_PAYER),
        ),
        (
            "kinds: v2 mainnet entry",
            json!({"kinds": [kind(2, "eip155:8453", json!(other)), kind(2, NETWORK_V2, json!(FEE_PAYER))], "signers": {"eip155:*": ["0x12"]}}),
            Ok(FEE_PAYER),
        ),
        (
            "kinds: v1 solana entry",
            json!({"kinds": [kind(1, "solana-devnet", json!(other)), kind(1, "solana", json!(FEE_PAYER))]}),
            Ok(FEE_PAYER),
        ),
        (
            "kinds: another scheme is skipped",
            json!({"kinds": [{"x402Version": 2, "scheme": "upto", "network": NETWORK_V2, "extra": {"feePayer": other}}, kind(2, NETWORK_V2, json!(FEE_PAYER))]}),
            Ok(FEE_PAYER),
        ),
        (
            "kinds: devnet only",
            json!({"kinds": [kind(2, "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", json!(FEE_PAYER))]}),
            Err(FacilitatorError::Malformed),
        ),
        (
            "kinds: no feePayer",
            json!({"kinds": [{"x402Version": 2, "scheme": "exact", "network": NETWORK_V2}]}),
            Err(FacilitatorError::Malformed),
        ),
        (
            "signer not base58",
            json!({"signers": {"solana:*": ["0xdeadbeef"]}}),
            Err(FacilitatorError::Malformed),
        ),
        (
            "signer too short",
            json!({"signers": {"solana:*": ["1111"]}}),
            Err(FacilitatorError::Malformed),
        ),
        (
            "feePayer a number",
            json!({"kinds": [kind(2, NETWORK_V2, json!(5))]}),
            Err(FacilitatorError::Malformed),
        ),
        ("empty object", json!({}), Err(FacilitatorError::Malformed)),
        ("an array", json!([FEE_PAYER]), Err(FacilitatorError::Malformed)),
    ];
    for (name, answer, want) in cases {
        let got = fee_payer_from(json_reply(200, answer)).await;
        assert_eq!(got.as_ref().map(Base58Id::as_str).map_err(|e| *e), want, "{name}");
    }
    let statuses = [
        (404, FacilitatorError::Malformed),
        (500, FacilitatorError::Unavailable),
        (503, FacilitatorError::Unavailable),
        (429, FacilitatorError::Unavailable),
    ];
    let good = json!({"signers": {"solana:*": [FEE_PAYER]}});
    for (status, want) in statuses {
        assert_eq!(fee_payer_from(json_reply(status, good.clone())).await, Err(want), "{status}");
    }
    assert_eq!(
        fee_payer_from(Reply::Body(200, b"<html>".to_vec())).await,
        Err(FacilitatorError::Malformed)
    );
}

#[tokio::test]
async fn verify_posts_the_x402_body_and_returns_the_payer() {
    let stub = Stub::start(vec![(
        "/facilitator/verify",
        json_reply(200, json!({"isValid": true, "payer": PAYER})),
    )])
    .await;
    let facilitator = client_for(&stub);
    let verified = facilitator.verify(X402Version::V2, &payment_payload(), &requirements()).await;
    assert_eq!(verified, Ok(Verified { payer: Base58Id::pubkey(PAYER) }));
    let seen = stub.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/facilitator/verify"));
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
    assert_eq!(
        json_of(&seen[0]),
        json!({"x402Version": 2, "paymentPayload": payment_payload(), "paymentRequirements": requirements()})
    );

    // v1 sends x402Version 1 with the same field names.
    let v1_payload = json!({"x402Version": 1, "scheme": "exact", "network": "solana", "payload": {"transaction": "AQID"}});
    assert!(facilitator.verify(X402Version::V1, &v1_payload, &requirements()).await.is_ok());
    assert_eq!(json_of(&stub.seen()[1])["x402Version"], 1);
    assert_eq!(json_of(&stub.seen()[1])["paymentPayload"], v1_payload);
}

#[tokio::test]
async fn verify_answer_vectors() {
    let cases: Vec<(&str, Reply, Result<Verified, FacilitatorError>)> = vec![
        (
            "valid without payer",
            json_reply(200, json!({"isValid": true})),
            Ok(Verified { payer: None }),
        ),
        (
            "valid, payer not a pubkey is dropped",
            json_reply(200, json!({"isValid": true, "payer": "0x857b"})),
            Ok(Verified { payer: None }),
        ),
        (
            "invalid 200",
            json_reply(
                200,
                json!({"isValid": false, "invalidReason": "insufficient_funds", "payer": PAYER}),
            ),
            Err(FacilitatorError::Refused(FacilitatorReason::parse("insufficient_funds"))),
        ),
        (
            "invalid 400",
            json_reply(400, json!({"isValid": false, "invalidReason": "invalid_payload"})),
            Err(FacilitatorError::Refused(FacilitatorReason::parse("invalid_payload"))),
        ),
        (
            "invalid with free text: dropped, never repeated",
            json_reply(
                200,
                json!({"isValid": false, "invalidReason": "CANARY3s8u go to evil.example"}),
            ),
            Err(FacilitatorError::Refused(None)),
        ),
        (
            "400 without JSON",
            Reply::Body(400, b"bad request".to_vec()),
            Err(FacilitatorError::Refused(None)),
        ),
        (
            "valid but 400",
            json_reply(400, json!({"isValid": true})),
            Err(FacilitatorError::Refused(None)),
        ),
        (
            "isValid a string",
            json_reply(200, json!({"isValid": "true"})),
            Err(FacilitatorError::Malformed),
        ),
        (
            "200 not JSON",
            Reply::Body(200, b"{\"isValid\": tru".to_vec()),
            Err(FacilitatorError::Malformed),
        ),
        ("200 empty", Reply::Body(200, Vec::new()), Err(FacilitatorError::Malformed)),
        (
            "redirect",
            Reply::Http(standin::Reply::status(302).header("location", "http://127.0.0.1:1/")),
            Err(FacilitatorError::Malformed),
        ),
        (
            "over the answer cap",
            Reply::Body(
                200,
                format!("{{\"isValid\":true,\"pad\":\"{}\"}}", "x".repeat(300 * 1024)).into_bytes(),
            ),
            Err(FacilitatorError::Malformed),
        ),
        ("500", json_reply(500, json!({"isValid": true})), Err(FacilitatorError::Unavailable)),
        ("502", Reply::Body(502, b"bad gateway".to_vec()), Err(FacilitatorError::Unavailable)),
        ("408", Reply::Body(408, Vec::new()), Err(FacilitatorError::Unavailable)),
        ("body cut short", cut_short(100, b"{\"isValid\":"), Err(FacilitatorError::Unavailable)),
    ];
    for (name, reply, want) in cases {
        assert_eq!(verify_with(reply).await, want, "{name}");
    }
}

#[tokio::test]
async fn an_answer_that_is_not_http_is_unavailable() {
    let not_http = vec![Step::ReadRequest, Step::Write(b"hello\r\n\r\n".to_vec())];
    let server = Server::start(vec![not_http]).await;
    let facilitator = Facilitator::new(&server.url("/facilitator/")).unwrap();
    let verified = facilitator.verify(X402Version::V2, &payment_payload(), &requirements()).await;
    assert_eq!(verified, Err(FacilitatorError::Unavailable), "not HTTP");
}

#[tokio::test]
async fn settle_success_is_checked_and_rebuilt() {
    let settled = settle_with(
        2,
        json_reply(
            200,
            json!({
                "success": true,
                "transaction": signature(),
                "network": NETWORK_V2,
                "payer": PAYER,
                "errorReason": "ignored text from the facilitator",
                "extensions": {"anything": true},
            }),
        ),
    )
    .await
    .expect("a checked settlement");
    assert_eq!(settled.transaction.as_str(), signature());
    assert_eq!(json!(settled.response)["network"], NETWORK_V2);
    assert_eq!(settled.payer.as_ref().map(Base58Id::as_str), Some(PAYER));
    assert_eq!(json!(settled.response), settled_answer(NETWORK_V2));

    let v1 = settle_with(
        1,
        json_reply(200, json!({"success": true, "transaction": signature(), "network": "solana"})),
    )
    .await
    .expect("a v1 settlement");
    assert_eq!(json!(v1.response)["network"], "solana");
    assert_eq!(v1.payer, None);
    assert_eq!(
        json!(v1.response),
        json!({"success": true, "transaction": signature(), "network": "solana"})
    );
}

#[tokio::test]
async fn settle_posts_the_x402_body() {
    let stub =
        Stub::start(vec![("/facilitator/settle", json_reply(200, settled_answer(NETWORK_V2)))])
            .await;
    client_for(&stub).settle(X402Version::V2, &payment_payload(), &requirements()).await.unwrap();
    let seen = stub.seen();
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/facilitator/settle"));
    assert_eq!(
        json_of(&seen[0]),
        json!({"x402Version": 2, "paymentPayload": payment_payload(), "paymentRequirements": requirements()})
    );
}

#[tokio::test]
async fn forged_settlement_vectors() {
    let with = |field: &str, value: Value| {
        let mut answer = settled_answer(NETWORK_V2);
        answer[field] = value;
        answer
    };
    let without = |field: &str| {
        let mut answer = settled_answer(NETWORK_V2);
        answer.as_object_mut().unwrap().remove(field);
        answer
    };
    let cases: Vec<(&str, u8, Value)> = vec![
        (
            "evm hash",
            2,
            with(
                "transaction",
                json!("0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef"),
            ),
        ),
        ("empty transaction", 2, with("transaction", json!(""))),
        ("missing transaction", 2, without("transaction")),
        ("32-byte transaction", 2, with("transaction", json!(PAYER))),
        (
            "65-byte transaction",
            2,
            with("transaction", json!(bs58::encode([9u8; 65]).into_string())),
        ),
        ("transaction a number", 2, with("transaction", json!(7))),
        ("devnet", 2, with("network", json!("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"))),
        ("v1 name on v2", 2, with("network", json!("solana"))),
        ("v2 name on v1", 1, settled_answer(NETWORK_V2)),
        ("missing network", 2, without("network")),
        ("base", 2, with("network", json!("eip155:8453"))),
        (
            "payer not a pubkey",
            2,
            with("payer", json!("0x857b06519E91e3A54538791bDbb0E22373e36b66")),
        ),
        ("payer a number", 2, with("payer", json!(1))),
    ];
    for (name, version, answer) in cases {
        assert_eq!(
            settle_with(version, json_reply(200, answer)).await.map(|s| s.transaction),
            Err(FacilitatorError::Forged),
            "{name}"
        );
    }
}

#[tokio::test]
async fn settle_refusal_and_unreadable_vectors() {
    let cases: Vec<(&str, Reply, FacilitatorError)> = vec![
        (
            "success false",
            json_reply(
                200,
                json!({"success": false, "errorReason": "insufficient_funds", "transaction": "", "network": NETWORK_V2}),
            ),
            FacilitatorError::Refused(FacilitatorReason::parse("insufficient_funds")),
        ),
        (
            "success false on 400",
            json_reply(400, json!({"success": false})),
            FacilitatorError::Refused(None),
        ),
        ("400 not JSON", Reply::Body(400, b"nope".to_vec()), FacilitatorError::Refused(None)),
        (
            "success true on 400",
            json_reply(400, settled_answer(NETWORK_V2)),
            FacilitatorError::Refused(None),
        ),
        (
            "success missing",
            json_reply(200, json!({"transaction": signature(), "network": NETWORK_V2})),
            FacilitatorError::Malformed,
        ),
        ("not JSON", Reply::Body(200, b"settled!".to_vec()), FacilitatorError::Malformed),
        (
            "JSON array",
            json_reply(200, json!([settled_answer(NETWORK_V2)])),
            FacilitatorError::Malformed,
        ),
        ("503", json_reply(503, settled_answer(NETWORK_V2)), FacilitatorError::Unavailable),
    ];
    for (name, reply, want) in cases {
        assert_eq!(settle_with(2, reply).await.map(|s| s.transaction), Err(want), "{name}");
    }
}

#[tokio::test]
async fn a_refused_port_is_unavailable_at_once() {
    let port = closed_port();
    let facilitator = Facilitator::new(&format!("http://127.0.0.1:{port}")).unwrap();
    let started = Instant::now();
    assert_eq!(facilitator.fee_payer().await, Err(FacilitatorError::Unavailable));
    assert_eq!(
        facilitator.verify(X402Version::V2, &payment_payload(), &requirements()).await,
        Err(FacilitatorError::Unavailable)
    );
    assert_eq!(
        facilitator
            .settle(X402Version::V2, &payment_payload(), &requirements())
            .await
            .map(|s| s.transaction),
        Err(FacilitatorError::Unavailable)
    );
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_silent_facilitator_is_unavailable_within_the_published_bounds() {
    let stub = Stub::start(vec![
        ("/facilitator/supported", Reply::Silent),
        ("/facilitator/verify", Reply::Silent),
        ("/facilitator/settle", Reply::Silent),
    ])
    .await;
    let facilitator = client_for(&stub);
    let timed = async |bound: Duration,
                       call: std::pin::Pin<
        Box<dyn Future<Output = Option<FacilitatorError>> + '_>,
    >| {
        let started = Instant::now();
        (call.await, bound, started.elapsed())
    };
    let (supported, verify, settle) = tokio::join!(
        timed(REQUEST_TIMEOUT, Box::pin(async { facilitator.fee_payer().await.err() })),
        timed(
            REQUEST_TIMEOUT,
            Box::pin(async {
                facilitator.verify(X402Version::V2, &payment_payload(), &requirements()).await.err()
            })
        ),
        timed(
            SETTLE_TIMEOUT,
            Box::pin(async {
                facilitator.settle(X402Version::V2, &payment_payload(), &requirements()).await.err()
            })
        ),
    );
    assert_eq!(REQUEST_TIMEOUT, Duration::from_secs(4));
    assert_eq!(SETTLE_TIMEOUT, Duration::from_secs(8));
    for (name, (error, bound, elapsed)) in
        [("supported", supported), ("verify", verify), ("settle", settle)]
    {
        assert_eq!(error, Some(FacilitatorError::Unavailable), "{name}");
        assert!(elapsed >= bound - Duration::from_millis(50), "{name} gave up early: {elapsed:?}");
        assert!(elapsed < bound + Duration::from_millis(1_500), "{name} overran: {elapsed:?}");
    }
}

#[tokio::test]
async fn shorter_bounds_apply_to_a_body_that_never_finishes() {
    // Headers arrive, the body never completes: the whole exchange is bounded, not just the
    // wait for headers.
    let stub = Stub::start(vec![("/facilitator/settle", cut_short(1000, b"{\"success\":"))]).await;
    let timeouts = Timeouts {
        connect: Duration::from_millis(500),
        request: Duration::from_millis(300),
        settle: Duration::from_millis(600),
    };
    let facilitator = Facilitator::with_timeouts(&stub.url("/facilitator"), timeouts).unwrap();
    let started = Instant::now();
    let result = facilitator.settle(X402Version::V2, &payment_payload(), &requirements()).await;
    // The stub closes after writing, so this is either a broken body or the bound: both are
    // Unavailable, and both well within the settle bound.
    assert_eq!(result.map(|s| s.transaction), Err(FacilitatorError::Unavailable));
    assert!(started.elapsed() < Duration::from_millis(1_500));
}

#[test]
fn bad_facilitator_urls_are_refused_at_build_time() {
    for url in [
        "",
        "facilitator",
        "ftp://127.0.0.1/",
        "http://",
        "http://127.0.0.1/?key=1",
        "http://127.0.0.1/#x",
    ] {
        assert_eq!(Facilitator::new(url).map(|_| ()), Err(FacilitatorError::Malformed), "{url:?}");
    }
    for url in
        ["http://127.0.0.1:9", "https://facilitator.example/x402/", "https://x402.org/facilitator"]
    {
        assert!(Facilitator::new(url).is_ok(), "{url}");
    }
    assert_eq!(
        format!("{:?}", Facilitator::new("https://user:secret@f.example/").unwrap()),
        "Facilitator { .. }"
    );
}

#[test]
fn facilitator_errors_are_closed_form() {
    let all = [
        FacilitatorError::Unavailable,
        FacilitatorError::Refused(None),
        FacilitatorError::Forged,
        FacilitatorError::Malformed,
    ];
    let rules: Vec<&str> = all.iter().map(|e| e.rule()).collect();
    assert_eq!(
        rules,
        [
            "facilitator_unavailable",
            "facilitator_refused",
            "facilitator_forged",
            "facilitator_malformed"
        ]
    );
    for error in all {
        assert_eq!(error.to_string(), error.message());
    }
    assert!(FacilitatorError::Unavailable.message().contains("do not pay"));
}

// ---- A recent blockhash (the web page's payment) -------------------------------------------

/// `getLatestBlockhash` answered by `reply`: what it reads, and what the stand-in was sent.
async fn blockhash_from(reply: Reply) -> (Result<LatestBlockhash, RpcError>, Vec<Recorded>) {
    let stub = Stub::start(vec![("/rpc", reply)]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let read = latest_blockhash(&client, &stub.url("/rpc"), Duration::from_secs(2)).await;
    (read, stub.seen())
}

#[tokio::test]
async fn a_recent_blockhash_is_read_strictly_from_get_latest_blockhash() {
    let hash = encode_pubkey(&[9; 32]);
    let answer = |value: Value| json!({"jsonrpc": "2.0", "id": 1, "result": value});
    let good =
        json!({"context": {"slot": 7}, "value": {"blockhash": hash, "lastValidBlockHeight": 150}});
    let (read, seen) = blockhash_from(json_reply(200, answer(good))).await;
    let want = LatestBlockhash { slot: 7, blockhash: hash.clone(), last_valid_block_height: 150 };
    assert_eq!(read, Ok(want));
    let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "getLatestBlockhash", "params": [{"commitment": "confirmed"}]});
    assert_eq!(json_of(&seen[0]), sent);
    // the answer => what it reads as
    let vectors: Vec<(&str, Reply, RpcError)> = vec![
        (
            "a blockhash of 31 bytes",
            json_reply(
                200,
                answer(
                    json!({"context": {"slot": 7}, "value": {"blockhash": encode_pubkey(&[9; 32])[..40], "lastValidBlockHeight": 150}}),
                ),
            ),
            RpcError::Malformed,
        ),
        (
            "no height",
            json_reply(200, answer(json!({"context": {"slot": 7}, "value": {"blockhash": hash}}))),
            RpcError::Malformed,
        ),
        (
            "a negative slot",
            json_reply(
                200,
                answer(
                    json!({"context": {"slot": -1}, "value": {"blockhash": hash, "lastValidBlockHeight": 1}}),
                ),
            ),
            RpcError::Malformed,
        ),
        (
            "an RPC error",
            json_reply(
                200,
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32005, "message": "busy"}}),
            ),
            RpcError::Unavailable,
        ),
        ("a 503", json_reply(503, json!({})), RpcError::Unavailable),
    ];
    for (what, reply, error) in vectors {
        assert_eq!(blockhash_from(reply).await.0, Err(error), "{what}");
    }
}

// ---- Solana fee lookup -------------------------------------------------------------------

async fn fee_from(reply: Reply) -> (Option<u64>, Vec<Recorded>) {
    let stub = Stub::start(vec![("/rpc", reply)]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let fee =
        transaction_fee(&client, &stub.url("/rpc"), &signature(), Duration::from_secs(2)).await;
    (fee, stub.seen())
}

#[tokio::test]
async fn transaction_fee_reads_meta_fee_of_get_transaction() {
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"slot": 5, "meta": {"err": null, "fee": 5000}, "transaction": {}}});
    let (fee, seen) = fee_from(json_reply(200, answer)).await;
    assert_eq!(fee, Some(5000));
    assert_eq!(seen.len(), 1);
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/rpc"));
    assert_eq!(
        json_of(&seen[0]),
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "getTransaction",
            "params": [signature(), {"encoding": "json", "maxSupportedTransactionVersion": 0, "commitment": "confirmed"}],
        })
    );
}

#[tokio::test]
async fn transaction_fee_is_none_on_anything_else() {
    let cases: Vec<(&str, Reply)> = vec![
        ("not yet confirmed", json_reply(200, json!({"jsonrpc": "2.0", "id": 1, "result": null}))),
        (
            "rpc error",
            json_reply(
                200,
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid param"}}),
            ),
        ),
        (
            "fee a string",
            json_reply(
                200,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"meta": {"fee": "5000"}}}),
            ),
        ),
        (
            "fee negative",
            json_reply(200, json!({"jsonrpc": "2.0", "id": 1, "result": {"meta": {"fee": -1}}})),
        ),
        (
            "meta null",
            json_reply(200, json!({"jsonrpc": "2.0", "id": 1, "result": {"meta": null}})),
        ),
        ("no jsonrpc member", json_reply(200, json!({"id": 1, "result": {"meta": {"fee": 5000}}}))),
        (
            "500",
            json_reply(500, json!({"jsonrpc": "2.0", "id": 1, "result": {"meta": {"fee": 5000}}})),
        ),
        ("429", json_reply(429, json!({}))),
        ("not JSON", Reply::Body(200, b"fee=5000".to_vec())),
        (
            "over the cap",
            Reply::Body(
                200,
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"result\":{{\"meta\":{{\"fee\":1}}}},\"pad\":\"{}\"}}",
                    "x".repeat(300 * 1024)
                )
                .into_bytes(),
            ),
        ),
        ("cut short", cut_short(500, b"{\"jsonrpc\":")),
    ];
    for (name, reply) in cases {
        assert_eq!(fee_from(reply).await.0, None, "{name}");
    }
}

#[tokio::test]
async fn transaction_fee_is_none_within_the_bound_when_the_rpc_is_silent() {
    let stub = Stub::start(vec![("/rpc", Reply::Silent)]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let bound = Duration::from_millis(400);
    let started = Instant::now();
    assert_eq!(transaction_fee(&client, &stub.url("/rpc"), &signature(), bound).await, None);
    let elapsed = started.elapsed();
    assert!(elapsed >= bound - Duration::from_millis(20), "{elapsed:?}");
    assert!(elapsed < bound + Duration::from_millis(500), "{elapsed:?}");
}

#[tokio::test]
async fn transaction_fee_never_sends_a_malformed_signature() {
    let stub = Stub::start(vec![(
        "/rpc",
        json_reply(200, json!({"jsonrpc": "2.0", "result": {"meta": {"fee": 1}}})),
    )])
    .await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    for bad in ["", "0x12", PAYER, "\"]}", &"1".repeat(65)] {
        assert_eq!(
            transaction_fee(&client, &stub.url("/rpc"), bad, Duration::from_secs(1)).await,
            None,
            "{bad}"
        );
    }
    assert!(stub.seen().is_empty());
    let refused = format!("http://127.0.0.1:{}/rpc", closed_port());
    assert_eq!(
        transaction_fee(&client, &refused, &signature(), Duration::from_secs(1)).await,
        None
    );
}

// ---- Landing lookup ---------------------------------------------------------------------

/// The buyer's key in [`payment_tx`].
const BUYER: [u8; 32] = [0xb0; 32];
/// The recent blockhash in [`payment_tx`].
const BLOCKHASH: [u8; 32] = [0x42; 32];

/// A legacy payment wire transaction: 2 signers [fee payer, buyer] and the token program,
/// [`BLOCKHASH`], one instruction moving `amount`; `fee_payer_slot` in signature slot 0.
fn payment_tx(fee_payer_slot: [u8; 64], amount: u64) -> Vec<u8> {
    let mut bytes = vec![2];
    bytes.extend(fee_payer_slot);
    bytes.extend([0xab; 64]);
    bytes.extend([2, 0, 1, 3]); // header, then 3 static keys
    bytes.extend([0xfe; 32]);
    bytes.extend(BUYER);
    bytes.extend([0x70; 32]);
    bytes.extend(BLOCKHASH);
    bytes.extend([1, 2, 2, 1, 0, 9, 3]); // 1 instruction: program 2, accounts [1, 0], 9 bytes
    bytes.extend(amount.to_le_bytes());
    bytes
}

/// The payment as the buyer presents it (fee-payer slot empty).
fn presented() -> PaymentTransaction {
    PaymentTransaction::parse(payment_tx([0; 64], 10_000)).unwrap()
}

/// A base58 transaction signature.
fn sig(n: u8) -> String {
    bs58::encode([n; 64]).into_string()
}

fn rpc_result(result: Value) -> Reply {
    json_reply(200, json!({"jsonrpc": "2.0", "id": 1, "result": result}))
}

/// When the payment was claimed: the landing lookup's `since`.
const CLAIMED: UtcMillis = UtcMillis(1_760_000_000_000);

/// `getSignaturesForAddress` answering `signatures`, newest first, each at the claim's time.
fn listing(signatures: &[String]) -> Reply {
    let at_the_claim: Vec<(String, Value)> =
        signatures.iter().map(|s| (s.clone(), json!(CLAIMED.0 / 1_000))).collect();
    timed_listing(&at_the_claim)
}

/// `getSignaturesForAddress` answering `entries` (signature, `blockTime`), newest first.
fn timed_listing(entries: &[(String, Value)]) -> Reply {
    let entries: Vec<Value> = entries
        .iter()
        .map(|(s, time)| json!({"signature": s, "slot": 9, "err": null, "blockTime": time, "confirmationStatus": "confirmed"}))
        .collect();
    rpc_result(json!(entries))
}

/// `getTransaction` of `bytes` (base64 encoding) with `err` as `meta.err`.
fn on_chain(bytes: &[u8], err: Value) -> Reply {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    rpc_result(json!({
        "slot": 9,
        "blockTime": 1_760_000_000,
        "meta": {"err": err, "fee": 5000},
        "transaction": [b64, "base64"],
        "version": "legacy",
    }))
}

fn blockhash_valid(valid: bool) -> Reply {
    rpc_result(json!({"context": {"slot": 10}, "value": valid}))
}

/// The landed transaction: the presented one with the fee payer's signature filled in.
fn landed_tx() -> Vec<u8> {
    payment_tx([0x11; 64], 10_000)
}

/// Another transfer of the buyer's (another amount).
fn other_tx() -> Vec<u8> {
    payment_tx([0x11; 64], 1)
}

/// A JSON-RPC stub's replies by method (see [`Reply::Rpc`]).
type RpcMethods = Vec<(String, Reply)>;

async fn landing_with(methods: RpcMethods) -> (Result<Landing, RpcError>, Vec<Recorded>) {
    let stub = Stub::start(vec![("/rpc", Reply::Rpc(methods))]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let landing =
        find_landing(&client, &stub.url("/rpc"), &presented(), CLAIMED, Duration::from_secs(3))
            .await;
    (landing, stub.seen())
}

/// Each request's `"<method> <first param or commitment>"`.
fn calls(seen: &[Recorded]) -> Vec<String> {
    seen.iter()
        .map(|s| {
            let body = json_of(s);
            let method = body["method"].as_str().unwrap().to_owned();
            match method.as_str() {
                "isBlockhashValid" => format!("{method} {}", body["params"][1]["commitment"]),
                _ => format!("{method} {}", body["params"][0].as_str().unwrap()),
            }
        })
        .collect()
}

#[tokio::test]
async fn landing_is_found_among_the_buyers_signatures() {
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[sig(1), sig(2), sig(3)])),
        (format!("getTransaction {}", sig(1)), on_chain(&other_tx(), Value::Null)),
        (format!("getTransaction {}", sig(2)), on_chain(&landed_tx(), Value::Null)),
        (format!("getTransaction {}", sig(3)), on_chain(&landed_tx(), Value::Null)),
    ])
    .await;
    assert_eq!(
        landing,
        Ok(Landing::Landed { signature: Base58Id::signature(&sig(2)).unwrap(), failed: false })
    );
    let buyer = encode_pubkey(&BUYER);
    assert_eq!(
        calls(&seen),
        [
            format!("getSignaturesForAddress {buyer}"),
            format!("getTransaction {}", sig(1)),
            format!("getTransaction {}", sig(2)),
        ],
        "newest first, stopping at the first match"
    );
    assert_eq!(
        json_of(&seen[0]),
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "getSignaturesForAddress",
            "params": [buyer, {"limit": LANDING_PAGE, "commitment": "confirmed"}],
        })
    );
    assert_eq!(
        json_of(&seen[1])["params"],
        json!([sig(1), {"encoding": "base64", "commitment": "confirmed", "maxSupportedTransactionVersion": 0}])
    );
    assert!(seen.iter().all(|s| s.method == "POST" && s.path == "/rpc"));
    assert!(seen.iter().all(|s| s.header("content-type") == Some("application/json")));
}

#[tokio::test]
async fn a_landed_transaction_that_failed_says_so() {
    let (landing, _) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[sig(4)])),
        (
            format!("getTransaction {}", sig(4)),
            on_chain(&landed_tx(), json!({"InstructionError": [0, {"Custom": 1}]})),
        ),
    ])
    .await;
    assert_eq!(
        landing,
        Ok(Landing::Landed { signature: Base58Id::signature(&sig(4)).unwrap(), failed: true })
    );
}

#[tokio::test]
async fn a_payment_whose_blockhash_expired_never_lands() {
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[sig(1)])),
        (format!("getTransaction {}", sig(1)), on_chain(&other_tx(), Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(false)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NeverLands));
    let buyer = encode_pubkey(&BUYER);
    assert_eq!(
        calls(&seen),
        [
            format!("getSignaturesForAddress {buyer}"),
            format!("getTransaction {}", sig(1)),
            "isBlockhashValid \"finalized\"".to_owned(),
            "isBlockhashValid \"confirmed\"".to_owned(),
            format!("getSignaturesForAddress {buyer}"),
        ],
        "the listing is read again once the blockhash has expired; known signatures are not"
    );
    assert_eq!(
        json_of(&seen[2])["params"],
        json!([encode_pubkey(&BLOCKHASH), {"commitment": "finalized"}])
    );
}

#[tokio::test]
async fn a_payment_confirmed_during_the_lookup_is_landed_not_never() {
    let listings = Reply::Then(
        Arc::new(AtomicBool::new(false)),
        Box::new(listing(&[])),
        Box::new(listing(&[sig(5)])),
    );
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listings),
        (format!("getTransaction {}", sig(5)), on_chain(&landed_tx(), Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(false)),
    ])
    .await;
    assert_eq!(
        landing,
        Ok(Landing::Landed { signature: Base58Id::signature(&sig(5)).unwrap(), failed: false })
    );
    assert_eq!(seen.len(), 5);
}

#[tokio::test]
async fn a_payment_with_a_valid_blockhash_may_still_land() {
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[])),
        ("isBlockhashValid".into(), blockhash_valid(true)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NotYet));
    assert_eq!(calls(&seen)[1..], ["isBlockhashValid \"finalized\"".to_owned()]);

    // A blockhash newer than the finalized slot is unknown there but valid when confirmed.
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[])),
        ("isBlockhashValid @finalized".into(), blockhash_valid(false)),
        ("isBlockhashValid @confirmed".into(), blockhash_valid(true)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NotYet));
    assert_eq!(seen.len(), 3);

    // A signature the RPC no longer has (`result: null`) is not a match.
    let (landing, _) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&[sig(6)])),
        (format!("getTransaction {}", sig(6)), rpc_result(Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(true)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NotYet));
}

/// `count` distinct signatures from `first` on (a page of the buyer's history).
fn signatures_from(first: u8, count: usize) -> Vec<String> {
    (0..count).map(|n| sig(first + u8::try_from(n).unwrap())).collect()
}

#[tokio::test]
async fn a_busy_buyers_payment_is_found_pages_back() {
    // A full page of the buyer's later transactions, then the payment on the next page.
    let page = signatures_from(1, LANDING_PAGE);
    let last = page.last().unwrap().clone();
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&page)),
        (format!("getSignaturesForAddress before {last}"), listing(&[sig(200)])),
        (format!("getTransaction {}", sig(200)), on_chain(&landed_tx(), Value::Null)),
        ("getTransaction".into(), on_chain(&other_tx(), Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(false)),
    ])
    .await;
    assert_eq!(
        landing,
        Ok(Landing::Landed { signature: Base58Id::signature(&sig(200)).unwrap(), failed: false })
    );
    let listings: Vec<Value> = seen
        .iter()
        .map(json_of)
        .filter(|body| body["method"] == "getSignaturesForAddress")
        .map(|body| body["params"][1].clone())
        .collect();
    assert_eq!(
        listings,
        [
            json!({"limit": LANDING_PAGE, "commitment": "confirmed"}),
            json!({"limit": LANDING_PAGE, "commitment": "confirmed", "before": last}),
        ]
    );
    assert_eq!(seen.len(), 2 + LANDING_PAGE + 1, "each signature looked at once");
}

#[tokio::test]
async fn the_search_stops_at_a_signature_older_than_the_claim() {
    let slack_s = BLOCK_TIME_SLACK_MS / 1_000;
    let at = |seconds_before_the_claim: i64| json!(CLAIMED.0 / 1_000 - seconds_before_the_claim);
    let (landing, seen) = landing_with(vec![
        (
            "getSignaturesForAddress".into(),
            timed_listing(&[
                (sig(1), Value::Null),
                (sig(2), at(slack_s)),
                (sig(3), at(slack_s + 1)),
                (sig(4), at(0)),
            ]),
        ),
        ("getTransaction".into(), on_chain(&other_tx(), Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(false)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NeverLands), "nothing before the claim is the payment");
    let buyer = encode_pubkey(&BUYER);
    assert_eq!(
        calls(&seen),
        [
            format!("getSignaturesForAddress {buyer}"),
            format!("getTransaction {}", sig(1)),
            format!("getTransaction {}", sig(2)),
            "isBlockhashValid \"finalized\"".to_owned(),
            "isBlockhashValid \"confirmed\"".to_owned(),
            format!("getSignaturesForAddress {buyer}"),
        ],
        "no block time, or one within the slack, is looked at; the first older one ends it"
    );
}

#[tokio::test]
async fn a_search_cut_by_the_cap_never_says_never() {
    // Every page full, and none reaches back to the claim: the payment may be further back.
    let (landing, seen) = landing_with(vec![
        ("getSignaturesForAddress".into(), listing(&signatures_from(1, LANDING_PAGE))),
        ("getTransaction".into(), on_chain(&other_tx(), Value::Null)),
        ("isBlockhashValid".into(), blockhash_valid(false)),
    ])
    .await;
    assert_eq!(landing, Ok(Landing::NotYet));
    let listings = calls(&seen).iter().filter(|c| c.starts_with("getSignaturesForAddress")).count();
    assert_eq!(listings, 2 * LANDING_SEARCH_CAP / LANDING_PAGE, "two searches, each to the cap");
}

#[tokio::test]
async fn landing_lookup_failures_are_unavailable_or_malformed() {
    let good_listing = || ("getSignaturesForAddress".to_owned(), listing(&[sig(1)]));
    let cases: Vec<(&str, RpcMethods, RpcError)> = vec![
        (
            "RPC 500",
            vec![("getSignaturesForAddress".into(), json_reply(500, json!({})))],
            RpcError::Unavailable,
        ),
        (
            "RPC 500 on getTransaction",
            vec![good_listing(), ("getTransaction".into(), json_reply(500, json!({})))],
            RpcError::Unavailable,
        ),
        (
            "JSON-RPC error",
            vec![(
                "getSignaturesForAddress".into(),
                json_reply(
                    200,
                    json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32005, "message": "Node is behind"}}),
                ),
            )],
            RpcError::Unavailable,
        ),
        (
            "cut short",
            vec![("getSignaturesForAddress".into(), cut_short(500, b"{\"jsonrpc\":"))],
            RpcError::Unavailable,
        ),
        (
            "garbage JSON",
            vec![(
                "getSignaturesForAddress".into(),
                Reply::Body(200, b"{\"jsonrpc\": 2.0,".to_vec()),
            )],
            RpcError::Malformed,
        ),
        (
            "no jsonrpc member",
            vec![(
                "getSignaturesForAddress".into(),
                json_reply(200, json!({"id": 1, "result": []})),
            )],
            RpcError::Malformed,
        ),
        (
            "listing not an array",
            vec![("getSignaturesForAddress".into(), rpc_result(json!({"signature": sig(1)})))],
            RpcError::Malformed,
        ),
        (
            "listed signature not base58 of 64 bytes",
            vec![("getSignaturesForAddress".into(), listing(&[encode_pubkey(&BUYER)]))],
            RpcError::Malformed,
        ),
        (
            "transaction not base64",
            vec![
                good_listing(),
                (
                    "getTransaction".into(),
                    rpc_result(json!({"meta": {"err": null}, "transaction": ["%%", "base64"]})),
                ),
            ],
            RpcError::Malformed,
        ),
        (
            "transaction in json encoding",
            vec![
                good_listing(),
                (
                    "getTransaction".into(),
                    rpc_result(
                        json!({"meta": {"err": null}, "transaction": {"signatures": [sig(1)]}}),
                    ),
                ),
            ],
            RpcError::Malformed,
        ),
        (
            "transaction not a Solana transaction",
            vec![good_listing(), ("getTransaction".into(), on_chain(&[1; 300], Value::Null))],
            RpcError::Malformed,
        ),
        (
            "matching transaction without meta",
            vec![
                good_listing(),
                ("getTransaction".into(), {
                    use base64::Engine;
                    let b64 = base64::engine::general_purpose::STANDARD.encode(landed_tx());
                    rpc_result(json!({"transaction": [b64, "base64"]}))
                }),
            ],
            RpcError::Malformed,
        ),
        (
            "blockhash answer without value",
            vec![
                ("getSignaturesForAddress".into(), listing(&[])),
                ("isBlockhashValid".into(), rpc_result(json!({"context": {"slot": 1}}))),
            ],
            RpcError::Malformed,
        ),
        (
            "block time not an integer",
            vec![(
                "getSignaturesForAddress".into(),
                timed_listing(&[(sig(1), json!("yesterday"))]),
            )],
            RpcError::Malformed,
        ),
        (
            "over the cap",
            vec![(
                "getSignaturesForAddress".into(),
                rpc_result(json!([{"signature": sig(1), "memo": "x".repeat(300 * 1024)}])),
            )],
            RpcError::Malformed,
        ),
    ];
    for (name, methods, want) in cases {
        assert_eq!(landing_with(methods).await.0, Err(want), "{name}");
    }
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let refused = format!("http://127.0.0.1:{}/rpc", closed_port());
    assert_eq!(
        find_landing(&client, &refused, &presented(), CLAIMED, Duration::from_secs(1)).await,
        Err(RpcError::Unavailable)
    );
}

#[tokio::test]
async fn a_silent_rpc_is_unavailable_within_the_bound() {
    let stub = Stub::start(vec![("/rpc", Reply::Silent)]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let bound = Duration::from_millis(400);
    let started = Instant::now();
    let landing = find_landing(&client, &stub.url("/rpc"), &presented(), CLAIMED, bound).await;
    let elapsed = started.elapsed();
    assert_eq!(landing, Err(RpcError::Unavailable));
    assert!(elapsed >= bound - Duration::from_millis(20), "{elapsed:?}");
    assert!(elapsed < bound + Duration::from_millis(500), "{elapsed:?}");

    // One deadline over all calls: a slow but answering RPC does not get `bound` per call.
    let stub = Stub::start(vec![(
        "/rpc",
        Reply::Rpc(vec![
            ("getSignaturesForAddress".into(), listing(&[sig(1), sig(2)])),
            (format!("getTransaction {}", sig(1)), on_chain(&other_tx(), Value::Null)),
            (format!("getTransaction {}", sig(2)), Reply::Silent),
        ]),
    )])
    .await;
    let started = Instant::now();
    let landing = find_landing(&client, &stub.url("/rpc"), &presented(), CLAIMED, bound).await;
    let elapsed = started.elapsed();
    assert_eq!(landing, Err(RpcError::Unavailable));
    assert!(elapsed < bound + Duration::from_millis(500), "{elapsed:?}");
}

#[tokio::test]
async fn a_payment_without_a_buyer_is_malformed_without_a_call() {
    let stub = Stub::start(vec![("/rpc", listing(&[]))]).await;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut lone = payment_tx([0; 64], 10_000);
    lone.drain(65..129); // one signature
    lone[0] = 1;
    lone[65] = 1; // one required signer: the fee payer alone
    let lone = PaymentTransaction::parse(lone).unwrap();
    assert_eq!(lone.buyer(), None);
    let landing =
        find_landing(&client, &stub.url("/rpc"), &lone, CLAIMED, Duration::from_secs(1)).await;
    assert_eq!(landing, Err(RpcError::Malformed));
    assert!(stub.seen().is_empty());
}
