//! The free tier through `POST /precheck`: an unsigned pre-check spends its source's allowance
//! (100 a day, 5,000 ms apart); one that names a wallet without that wallet's signature spends
//! nothing and gets the sign-in challenge; one the wallet signed (x402 sign-in-with-x) spends
//! the wallet's allowance, which nobody else can touch.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use ed25519_dalek::SigningKey;
use http::Method;
use payability_runtime::store::{FREE_PER_SOURCE_PER_DAY, FREE_SOURCE_MIN_INTERVAL_MS};
use serde_json::{Value, json};

use crate::paid_flow::expect;
use crate::paid_flow::sign_in::{self, address};
use crate::paid_flow::world::{Answer, MCP, World, mcp_answer, mcp_request, with_proof};

/// A pre-check of the target from `source` with `body` besides the URL.
async fn precheck(
    world: &World,
    source: IpAddr,
    proof: Option<&str>,
    caller: Option<&str>,
) -> Answer {
    let mut request = world.request("/precheck", None);
    request.method = Method::POST;
    request.source_ip = Some(source);
    let mut body = json!({"url": world.target.url()});
    if let Some(caller) = caller {
        body["caller"] = Value::from(caller);
    }
    request.body = body.to_string().into_bytes();
    if let Some(proof) = proof {
        request = with_proof(request, proof);
    }
    world.send(request).await
}

/// A pre-check `wallet` signs, from `source`: the unsigned one naming it gets the sign-in
/// challenge, which the wallet signs for the retry.
async fn signed_precheck(world: &World, source: IpAddr, wallet: &SigningKey) -> Answer {
    let caller = address(wallet);
    let challenge = precheck(world, source, None, Some(&caller)).await;
    expect::sign_in_challenge(&challenge, "sign_in_as_caller");
    let proof = sign_in::proof(challenge.header("payment-required").unwrap(), wallet);
    precheck(world, source, Some(&proof), Some(&caller)).await
}

fn source(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(203, 0, 113, last))
}

fn interval() -> Duration {
    Duration::from_millis(u64::try_from(FREE_SOURCE_MIN_INTERVAL_MS).unwrap())
}

#[tokio::test]
async fn one_source_gets_100_unsigned_prechecks_and_naming_wallets_unsigned_spends_nothing() {
    let world = World::start().await;
    let farm = source(9);
    let mut ok = 0;
    for n in 0..300 {
        let wallet = address(&SigningKey::from_bytes(&[n as u8; 32]));
        let named = precheck(&world, farm, None, Some(&wallet)).await;
        expect::sign_in_challenge(&named, "sign_in_as_caller");
        let answer = precheck(&world, farm, None, None).await;
        match answer.status {
            200 => ok += 1,
            402 => assert_eq!(answer.rule(), Some("free_precheck_daily_cap"), "{answer}"),
            _ => panic!("{answer}"),
        }
        world.advance(interval());
    }
    assert_eq!(ok, FREE_PER_SOURCE_PER_DAY, "300 from one source, naming a wallet or not");
    let burst = source(10);
    let mut ok = 0;
    for _ in 0..40 {
        if precheck(&world, burst, None, None).await.status == 200 {
            ok += 1;
        }
    }
    assert_eq!(ok, 1, "40 at once from one source");
}

#[tokio::test]
async fn a_signed_precheck_is_answered_while_a_stranger_keeps_naming_the_wallet() {
    let world = World::start().await;
    let owner = sign_in::buyer();
    let stranger = source(66);
    for round in 0..3 {
        for _ in 0..3 {
            let named = precheck(&world, stranger, None, Some(&address(&owner))).await;
            expect::sign_in_challenge(&named, "sign_in_as_caller");
        }
        let own = signed_precheck(&world, source(44), &owner).await;
        assert_eq!(own.status, 200, "round {round}: the owner's signed pre-check: {own}");
        assert_eq!(own.body["in_policy"], true, "{own}");
        world.advance(interval());
    }
    // The stranger signing with its own wallet cannot name the owner's.
    let challenge = precheck(&world, stranger, None, Some(&address(&owner))).await;
    let theirs =
        sign_in::proof(challenge.header("payment-required").unwrap(), &sign_in::stranger());
    let named = precheck(&world, stranger, Some(&theirs), Some(&address(&owner))).await;
    assert_eq!((named.status, named.rule()), (400, Some("caller_not_the_signer")), "{named}");
    // A proof spent once spends nothing again.
    let challenge = precheck(&world, source(44), None, Some(&address(&owner))).await;
    let proof = sign_in::proof(challenge.header("payment-required").unwrap(), &owner);
    let first = precheck(&world, source(44), Some(&proof), None).await;
    assert_eq!(first.status, 200, "a signed pre-check may leave caller out: {first}");
    world.advance(interval());
    let replayed = precheck(&world, stranger, Some(&proof), None).await;
    expect::sign_in_challenge(&replayed, "sign_in_nonce_used");
    // The owner's interval is its own: 5 s after its last, it is allowed again.
    let again = signed_precheck(&world, source(45), &owner).await;
    assert_eq!(again.status, 200, "{again}");
    assert_eq!(world.facilitator.verify_calls(), 0, "a pre-check never pays");
}

/// A proof whose pre-check the allowance refuses writes nothing: its nonce stays unspent (the
/// same proof is answered once the wallet's interval has passed), and a flood of refused
/// proofs leaves no rows.
#[tokio::test]
async fn a_refused_signed_precheck_spends_no_nonce() {
    let world = World::start().await;
    let owner = sign_in::buyer();
    let first = signed_precheck(&world, source(30), &owner).await;
    assert_eq!(first.status, 200, "{first}");
    assert_eq!(world.row_count("sign_in_nonces"), 1, "the granted pre-check spent its nonce");
    let mut refused_proof = None;
    for _ in 0..20 {
        let challenge = precheck(&world, source(30), None, Some(&address(&owner))).await;
        let proof = sign_in::proof(challenge.header("payment-required").unwrap(), &owner);
        let refused = precheck(&world, source(30), Some(&proof), None).await;
        assert_eq!(refused.rule(), Some("free_precheck_too_soon"), "{refused}");
        refused_proof = Some(proof);
    }
    assert_eq!(world.row_count("sign_in_nonces"), 1, "20 refused proofs wrote no nonce");
    world.advance(interval());
    let proof = refused_proof.unwrap();
    let again = precheck(&world, source(30), Some(&proof), None).await;
    assert_eq!(again.status, 200, "a refused proof was not spent: {again}");
    assert_eq!(world.row_count("sign_in_nonces"), 2);
}

#[tokio::test]
async fn an_mcp_precheck_is_signed_in_its_meta_and_spends_the_wallets_allowance() {
    let world = World::start().await;
    let owner = sign_in::buyer();
    let precheck = |proof: Option<&str>| {
        let mut request =
            mcp_request("precheck", None, &world.target.url(), 7, "mcp-precheck".into());
        let mut body: Value = serde_json::from_slice(&request.body).unwrap();
        body["params"]["arguments"]["caller"] = address(&owner).into();
        request.body = body.to_string().into_bytes();
        assert_eq!(request.path, MCP);
        match proof {
            Some(proof) => with_proof(request, proof),
            None => request,
        }
    };
    let send = async |request| mcp_answer(world.service.handle(request).await.into_http());
    let challenge = send(precheck(None)).await;
    expect::sign_in_challenge(&challenge, "sign_in_as_caller");
    let proof = sign_in::proof(challenge.header("payment-required").unwrap(), &owner);
    let signed = send(precheck(Some(&proof))).await;
    assert_eq!((signed.status, &signed.body["kind"]), (200, &Value::from("precheck")), "{signed}");
    // The allowance is asked first (a refused proof spends no nonce): past the interval, the
    // replay is refused for its spent nonce.
    world.advance(interval());
    let replayed = send(precheck(Some(&proof))).await;
    expect::sign_in_challenge(&replayed, "sign_in_nonce_used");
}
