//! Paid end to end, loopback only: the official x402 Python SDK pays `payability serve`,
//! whose facilitator is a test fixture that really verifies the Solana transaction (or the
//! official @x402 facilitator) and whose RPC is a stub. Covers both ops, the legacy v1 path,
//! the self-check, the ledger, the abuse cases (each closed-form, nothing fetched, nothing
//! charged) and settlements whose outcome was lost, resolved on a retry of the same payment
//! signed in by its payer (x402 sign-in-with-x), on the embedded store and on DynamoDB (moto);
//! a buyer whose answer was lost gets its verdict back with the SDK's sign-in extension,
//! without paying again. The world (fixtures, serve, seller) is `support/world.rs`.
//!
//! Needs `scripts/test` (it installs the SDK, the official facilitator and moto, starts moto
//! and exports PAYABILITY_TEST_X402_PYTHON, PAYABILITY_TEST_E2E_DIR,
//! PAYABILITY_TEST_OFFICIAL_FACILITATOR_MODULES and PAYABILITY_TEST_DYNAMODB_ENDPOINTS).

use crate::support;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use payability_core::payment::x402::PaymentRefusal;
use payability_core::signing::{PublicKeyDescriptor, verify_signed};
use payability_runtime::payment::facilitator::FacilitatorReason;
use payability_runtime::rules::Refusal;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{Ledger, Payer};
use serde_json::{Value, json};
use support::trusted;
use support::world::{FacilitatorKind, StoreKind, World, third_party_verify};

/// The rule of an error body (`error.rule`), or the `error` text of a 402 challenge.
fn said(answer: &Value) -> String {
    let error = &answer["body"]["error"];
    error["rule"].as_str().or(error.as_str()).unwrap_or_default().to_owned()
}

/// Asserts `answer` is 503 `settlement_outcome_unknown` asking for a retry in 30 s.
fn assert_outcome_unknown(answer: &Value, case: &str) {
    assert_eq!(
        (answer["status"].as_u64(), said(answer), answer["retry_after"].as_str()),
        (Some(503), "settlement_outcome_unknown".to_owned(), Some("30")),
        "{case}: {answer}"
    );
}

/// Asserts `answer` is the sign-in challenge a payment sent to settlement before gets unsigned.
fn assert_sign_in_as_payer(answer: &Value, case: &str) {
    assert_eq!(
        (answer["status"].as_u64(), said(answer)),
        (Some(402), Refusal::SignInAsPayer.error_text()),
        "{case}: {answer}"
    );
    assert_eq!(answer["body"]["accepts"], json!([]), "{case}: no payment offered: {answer}");
}

/// Asserts `answer` is a 200 report that verifies against `keys` and returns the
/// settlement transaction its PAYMENT-RESPONSE names.
fn assert_verified_report(answer: &Value, keys: &[PublicKeyDescriptor], case: &str) -> Value {
    assert_eq!(answer["status"], 200, "{case}: {answer}");
    assert!(verify_signed(&answer["body"], keys).is_ok(), "{case}: the report verifies: {answer}");
    let settlement = &answer["payment_response_decoded"];
    assert_eq!(settlement["success"], true, "{case}: {answer}");
    settlement["transaction"].clone()
}

#[test]
fn the_official_client_pays_both_ops_and_gets_verified_reports_with_a_ledger_entry() {
    let world = World::start();
    let keys = trusted(&world.server);
    let saved = world.scratch_file("check-payment.json");
    let paid = world.buy("/check", &["--save-payment", &saved]);
    assert_eq!(paid["status"], 200, "{paid}");
    let report = &paid["body"];
    assert!(verify_signed(report, &keys).is_ok());
    assert_eq!(
        (report["op"].clone(), report["state"].clone(), report["house"].clone()),
        (json!("check"), json!("POPULATED"), json!(false))
    );
    assert_eq!(paid["payment_response_decoded"]["success"], true, "{paid}");
    assert_eq!(world.target.hits(), 1);

    assert_eq!(third_party_verify(report, &world.server), (true, keys[0].key_id.clone()));
    let mut altered = report.clone();
    altered["state"] = json!("NO-PAYMENT");
    assert!(!third_party_verify(&altered, &world.server).0, "an altered report does not verify");

    let memo = world.buy("/memo", &[]);
    assert_eq!(memo["status"], 200, "{memo}");
    assert!(verify_signed(&memo["body"], &keys).is_ok());
    assert_eq!(memo["body"]["state"], "MEMO-REUSED", "the target serves a static memo");
    assert_eq!(world.target.hits(), 3, "the memo op fetches twice");

    let legacy = world.buy("/check", &["--v1"]);
    assert_eq!(legacy["status"], 200, "{legacy}");
    assert!(legacy["payment_response"].is_string(), "X-PAYMENT-RESPONSE is set: {legacy}");

    let calls = world.fixture_calls();
    assert_eq!(calls["settled"], 3, "{calls}");
    let recent = calls["recent"].as_array().unwrap();
    let v2_memo_seen = recent.iter().any(|c| {
        c["summary"]["memos"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m.as_str().is_some_and(|m| m.starts_with("pvm_"))))
    });
    assert!(v2_memo_seen, "the v2 client put our extra.memo into a Memo instruction");

    let (_, metrics) = world.server.json("GET", "/metrics", &[], &Value::Null);
    assert_eq!(metrics["today"]["paid_check_populated"], 2, "{metrics}");
    assert_eq!(metrics["today"]["paid_memo_memo_reused"], 1, "{metrics}");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = SqliteStore::open(&world.server.store_path()).unwrap();
    let pending = runtime.block_on(store.cad_pending(10)).unwrap();
    assert_eq!(
        pending.len(),
        3,
        "the CAD rate source is down: every entry is pending, none guessed"
    );
    for entry in &pending {
        match &entry.payer {
            Payer::Paid { fee_lamports, wallet, .. } => {
                assert_eq!(*fee_lamports, Some(5000), "the fee came from getTransaction");
                assert!(wallet.is_some());
            }
            Payer::House { .. } => panic!("no house entry was expected"),
        }
    }
}

#[test]
fn abuse_cases_are_closed_form_fetch_nothing_and_charge_nothing() {
    let world = World::start();
    let saved = world.scratch_file("abuse-payment.json");
    let first = world.buy("/check", &["--save-payment", &saved]);
    assert_eq!(first["status"], 200, "{first}");
    let (hits, settled) = (world.target.hits(), world.fixture_calls()["settled"].clone());

    // The facilitator's reason is passed on when it is a listed code, dropped otherwise
    // (the fixture's `…_amount_insufficient` is not on the lists).
    let not_verified =
        |code: &str| json!(Refusal::NotVerified(FacilitatorReason::parse(code)).error_text());
    let replay = vec!["--replay-last", "--payment-file", &saved];
    let other_url = json!({"url": format!("{}?another", world.target.url)}).to_string();
    let elsewhere = vec!["--replay-last", "--payment-file", &saved, "--body", &other_url];
    let mut signed_elsewhere = elsewhere.clone();
    signed_elsewhere.push("--sign-in");
    let cases: Vec<(&str, &str, Vec<&str>, u64, Value)> = vec![
        (
            "payment replayed for another URL, unsigned",
            "/check",
            elsewhere,
            402,
            json!(Refusal::SignInAsPayer.error_text()),
        ),
        (
            "payment replayed for another URL, signed in by its payer",
            "/check",
            signed_elsewhere,
            409,
            json!("payment_already_used"),
        ),
        (
            "payment for another op",
            "/memo",
            replay,
            402,
            json!(Refusal::Terms(PaymentRefusal::MemoForged).error_text()),
        ),
        (
            "wrong amount",
            "/check",
            vec!["--hand", "--amount", "9999"],
            402,
            not_verified("invalid_exact_svm_payload_amount_insufficient"),
        ),
        (
            "wrong destination",
            "/check",
            vec!["--hand", "--destination", "So11111111111111111111111111111111111111112"],
            402,
            not_verified("invalid_exact_svm_payload_recipient_mismatch"),
        ),
        (
            "wrong memo in the transaction",
            "/check",
            vec!["--hand", "--memo", "pvm_not_the_challenge_memo"],
            402,
            not_verified("invalid_exact_svm_payload_memo_mismatch"),
        ),
    ];
    for (name, route, args, status, said) in cases {
        let answer = world.buy(route, &args);
        assert_eq!(answer["status"], status, "{name}: {answer}");
        let body = &answer["body"];
        let reason =
            if status == 402 { body["error"].clone() } else { body["error"]["rule"].clone() };
        assert_eq!(reason, said, "{name}: {body}");
        assert_eq!(world.target.hits(), hits, "{name}: nothing was fetched");
        assert_eq!(world.fixture_calls()["settled"], settled, "{name}: nothing was charged");
    }

    let malformed: Vec<(&str, String, u16, &str)> = vec![
        ("x-payment", "!!!not base64!!!".to_owned(), 400, "payment_header_malformed"),
        ("payment-signature", "e30".to_owned(), 400, "payment_"),
        ("x-payment", "A".repeat(20_000), 400, "payment_header_too_large"),
    ];
    for (name, value, status, rule) in malformed {
        let body = json!({"url": world.target.url}).to_string();
        let (got, _, bytes) =
            world.server.request("POST", "/check", &[(name, &value)], body.as_bytes());
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(got, status, "{name}: {answer}");
        assert!(answer["error"]["rule"].as_str().unwrap().starts_with(rule), "{name}: {answer}");
    }
    assert_eq!(world.target.hits(), hits, "malformed headers fetched nothing");

    // A facilitator whose settlement answer is forged: no report is released.
    world.fixture_mode(json!({"settle": "forged_network"}));
    let forged = world.buy("/check", &[]);
    assert_eq!(forged["status"], 503, "{forged}");
    assert!(forged["body"].get("signature").is_none(), "no report without a real settlement");
    world.fixture_mode(json!({"settle": "normal", "verify": "down"}));
    let down = world.buy("/check", &[]);
    assert_eq!(
        (down["status"].clone(), down["body"]["error"]["rule"].clone()),
        (json!(503), json!("facilitator_unavailable"))
    );
}

#[test]
fn concurrent_double_submissions_settle_once_and_count_one_verdict() {
    let world = World::start();
    let saved = world.scratch_file("double-payment.json");
    let built = world.buy("/check", &["--build-only", "--save-payment", &saved]);
    assert!(built["payment_header"].is_object(), "{built}");
    let world = Arc::new(world);
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let (world, saved) = (world.clone(), saved.clone());
            std::thread::spawn(move || {
                world.buy("/check", &["--replay-last", "--payment-file", &saved])
            })
        })
        .collect();
    let answers: Vec<Value> = runs.into_iter().map(|r| r.join().unwrap()).collect();
    let statuses: Vec<u64> = answers.iter().map(|a| a["status"].as_u64().unwrap()).collect();
    // One claim wins; a duplicate that comes while it is carried is 409 in flight, one that
    // comes once it was delivered (or reads no claim, then is refused by the facilitator once
    // it settled, and reads the claim again) gets the sign-in challenge: only its payer,
    // signed in, gets the verdict again. Never 402 payment_not_verified.
    for answer in answers.iter().filter(|a| a["status"] == 402) {
        assert_sign_in_as_payer(answer, "a duplicate once delivered");
    }
    assert!(statuses.iter().all(|s| [200, 402, 409].contains(s)), "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "{statuses:?}");
    assert_eq!(world.fixture_calls()["settled"], 1);
    assert_eq!(world.paid_checks_today(), 1, "one verdict bought and counted");
}

#[test]
fn the_service_checks_itself_populated_and_bound() {
    let world = World::start();
    for (op, state) in [("check", "POPULATED"), ("memo", "BOUND")] {
        let output = Command::new(env!("CARGO_BIN_EXE_payability"))
            .args([op, &format!("{}/{op}", world.server.base)])
            .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
            .env("PAYABILITY_SIGNING_KEY_FILE", scratch_key(&world))
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["state"], state, "{op}: {report}");
    }
}

fn scratch_key(world: &World) -> String {
    let path = world.scratch_file("self-check-seed");
    std::fs::write(&path, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=").unwrap();
    path
}

/// How long after its claim a payment is retried: a claim leaves flight after 30 s.
const REPLAY_AFTER: Duration = Duration::from_secs(31);

/// Runs `scenario` on the embedded store and on DynamoDB (moto) at once, a thread each, and
/// fails naming the stores it failed on.
fn on_both_stores(scenario: fn(StoreKind)) {
    std::thread::scope(|scope| {
        let runs: Vec<_> = [StoreKind::Embedded, StoreKind::DynamoDb]
            .into_iter()
            .map(|store| {
                let thread = std::thread::Builder::new().name(format!("{store:?}"));
                (store, thread.spawn_scoped(scope, move || scenario(store)))
            })
            .collect();
        let failed: Vec<StoreKind> = runs
            .into_iter()
            .filter_map(|(store, run)| run.unwrap().join().is_err().then_some(store))
            .collect();
        assert!(failed.is_empty(), "the scenario failed on {failed:?} (panics above)");
    });
}

#[test]
fn unclear_settlements_resolve_on_a_retry_of_the_same_payment_on_both_stores() {
    on_both_stores(unclear_settlements_resolve);
}

/// One store's scenario: three settlements whose outcome the service cannot know (a slow
/// `/settle`, a settlement whose answer is lost, an answer forged on another network), each
/// answered 503 and resolved by the chain when the same payment is retried 30 s later, signed
/// in by its payer (unsigned, the sign-in challenge); never a second `/settle`, never a second
/// verdict.
fn unclear_settlements_resolve(store: StoreKind) {
    let world = World::with(FacilitatorKind::Fixture, store);
    let keys = trusted(&world.server);
    let unclear = [
        ("slow", json!({"settle": "slow", "slow_seconds": 10})),
        ("settled_but_down", json!({"settle": "settled_but_down"})),
        ("forged_network", json!({"settle": "forged_network"})),
    ];
    let mut saved = Vec::new();
    for (mode, setting) in unclear {
        world.fixture_mode(setting);
        let file = world.scratch_file(&format!("unclear-{store:?}-{mode}.json"));
        let answer = world.buy("/check", &["--save-payment", &file]);
        assert_outcome_unknown(&answer, &format!("{store:?} {mode}"));
        // At most the fetch alongside the settlement; its capture was dropped unanswered.
        assert_eq!(world.target.hits(), saved.len() + 1, "{store:?} {mode}: one early fetch");
        assert!(answer["body"].get("signature").is_none(), "{store:?} {mode}: no report");
        saved.push(file);
    }
    // Each claim was made before its answer came back.
    let last_claim = Instant::now();
    let settles = world.fixture_calls()["settle"].clone();
    assert_eq!(settles, 3, "{store:?}: one /settle per payment");
    assert_eq!(world.paid_checks_today(), 0, "{store:?}: no verdict, no paid check counted");
    let no_second_settle = |case: &str| {
        assert_eq!(world.fixture_calls()["settle"], settles, "{store:?} {case}: no second /settle");
    };
    world.fixture_mode(json!({"settle": "normal"}));
    std::thread::sleep((last_claim + REPLAY_AFTER).saturating_duration_since(Instant::now()));
    let [slow, lost_answer, forged] = <[String; 3]>::try_from(saved).unwrap();

    let unsigned = world.replay("/check", &slow);
    assert_sign_in_as_payer(&unsigned, &format!("{store:?} slow, replayed unsigned"));
    assert_eq!(world.rpc_calls("getSignaturesForAddress"), 0, "{store:?}: no chain lookup for it");
    let resumed = world.replay_signed("/check", &slow);
    let tx = assert_verified_report(&resumed, &keys, &format!("{store:?} slow, replayed"));
    assert_eq!(tx, world.settled_in_mode("slow"), "{store:?}: the slow settlement's transaction");
    assert!(world.landed().contains(&tx), "{store:?}: {tx} landed");
    no_second_settle("slow, replayed");

    let resumed = world.replay_signed("/check", &lost_answer);
    let tx = assert_verified_report(&resumed, &keys, &format!("{store:?} settled_but_down"));
    assert_eq!(tx, world.settled_in_mode("settled_but_down"), "{store:?}: its transaction");
    no_second_settle("settled_but_down, replayed");
    assert_eq!(world.target.hits(), 3 + 2, "{store:?}: and one fetch per delivered verdict");

    let pending = world.replay_signed("/check", &forged);
    assert_outcome_unknown(&pending, &format!("{store:?} forged_network, blockhash valid"));
    no_second_settle("forged_network, replayed");
    world.expire_blockhashes();
    for attempt in ["first", "second"] {
        let never = world.replay_signed("/check", &forged);
        let case = format!("{store:?} forged_network, blockhash expired, {attempt} replay");
        assert_eq!(never["status"], 402, "{case}: {never}");
        assert!(said(&never).starts_with("payment_not_settled"), "{case}: {never}");
        no_second_settle(&case);
    }

    for (case, file) in [("slow", &slow), ("settled_but_down", &lost_answer)] {
        let again = world.replay_signed("/check", file);
        let case = format!("{store:?} {case}, delivered, replayed once more (answer lost?)");
        assert_verified_report(&again, &keys, &case);
    }
    no_second_settle("delivered payments replayed");
    assert_eq!(world.target.hits(), 3 + 4, "{store:?}: fetched again for each delivery");
    assert_eq!(world.paid_checks_today(), 2, "{store:?}: /metrics counts the two verdicts");
}

#[test]
fn the_official_facilitator_settles_what_the_official_client_pays_and_refuses_a_wrong_amount() {
    let world = World::with(FacilitatorKind::Official, StoreKind::Embedded);
    let keys = trusted(&world.server);
    let saved = world.scratch_file("official-check-payment.json");
    let payments: [(&str, &str, Vec<&str>); 5] = [
        ("v2 check", "/check", vec!["--save-payment", &saved]),
        ("v2 memo", "/memo", vec![]),
        ("v2 check, hand-built (as the wrong amount below)", "/check", vec!["--hand"]),
        ("v1 check, npm x402 0.x shape (no memo)", "/check", vec!["--v1"]),
        ("v1 check, the SDK's V1 scheme (a memo)", "/check", vec!["--sdk-v1"]),
    ];
    for (case, route, args) in payments {
        let paid = world.buy(route, &args);
        let tx = assert_verified_report(&paid, &keys, &format!("official facilitator, {case}"));
        assert!(world.landed().contains(&tx), "{case}: the settlement {tx} landed: {paid}");
    }
    assert_eq!(world.target.hits(), 6, "two v2 checks, memo (two fetches), two v1 checks");

    assert_sign_in_as_payer(&world.replay("/check", &saved), "delivered, replayed unsigned");
    let replayed = world.replay_signed("/check", &saved);
    let again = assert_verified_report(&replayed, &keys, "delivered, replayed: delivered again");
    assert_eq!(world.landed().iter().filter(|tx| **tx == again).count(), 1, "landed once");
    let wrong = world.buy("/check", &["--hand", "--amount", "9999"]);
    assert_eq!(
        (wrong["status"].as_u64(), said(&wrong)),
        (
            Some(402),
            Refusal::NotVerified(FacilitatorReason::parse(
                "invalid_exact_svm_payload_amount_mismatch"
            ))
            .error_text()
        ),
        "{wrong}"
    );
    assert_eq!(world.target.hits(), 7, "the replay fetched again, the wrong amount nothing");
}

#[test]
fn a_buyer_that_leaves_during_a_slow_settle_gets_its_verdict_by_signing_in_on_both_stores() {
    on_both_stores(answer_lost_then_signed_in);
}

/// The buyer's seed in the lost-answer scenario (a throwaway key; the RPC stub funds any).
const LEAVING_BUYER_SEED_HEX: &str =
    "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d";

/// The official client (with the SDK's sign-in-with-x client extension, its Solana keypair
/// the payer the facilitator fixture names) closes its connection 1.5 s into a 3 s
/// settlement; `serve` runs the flow to its end (settled, fetched, recorded, `delivered`).
/// The same client asks again: the 402 declares sign-in-with-x, it signs in and gets the
/// verdict, sending no payment; the chain's copy of the payment, re-sent unsigned, gets the
/// sign-in challenge for its URL and for another alike; signed for another URL, 409. One
/// settlement, one count.
fn answer_lost_then_signed_in(store: StoreKind) {
    let world = World::with(FacilitatorKind::Fixture, store);
    let keys = trusted(&world.server);
    world.fixture_mode(json!({"settle": "slow", "slow_seconds": 3}));
    let file = world.scratch_file(&format!("answer-lost-{store:?}.json"));
    let buyer = ["--siwx", "--keypair-seed-hex", LEAVING_BUYER_SEED_HEX];
    let mut leaving = buyer.to_vec();
    leaving.extend(["--save-payment", &file, "--timeout", "1.5"]);
    let left = world.buy("/check", &leaving);
    assert!(left["status"].is_null(), "{store:?}: the client left before the answer: {left}");
    assert!(left["payment_header"].is_object(), "{store:?}: it had sent its payment: {left}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while world.paid_checks_today() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(world.paid_checks_today(), 1, "{store:?}: the flow ran to its end");
    world.fixture_mode(json!({"settle": "normal"}));

    let signed_in = world.buy("/check", &buyer);
    let tx = assert_verified_report(&signed_in, &keys, &format!("{store:?} signed in"));
    assert_eq!(tx, world.settled_in_mode("slow"), "{store:?}: the slow settlement's transaction");
    assert_eq!(signed_in["signed_in"], true, "{store:?}: the SDK signed in: {signed_in}");
    assert!(signed_in["payment_header"].is_null(), "{store:?}: and paid nothing: {signed_in}");

    let other_url = json!({"url": format!("{}?another", world.target.url)}).to_string();
    for body in [None, Some(other_url.as_str())] {
        let mut replay = vec!["--replay-last", "--payment-file", &file];
        replay.extend(body.map(|body| ["--body", body]).into_iter().flatten());
        let unsigned = world.buy("/check", &replay);
        assert_sign_in_as_payer(&unsigned, &format!("{store:?} the chain's copy, {body:?}"));
    }
    let elsewhere = world.buy(
        "/check",
        &["--replay-last", "--payment-file", &file, "--body", &other_url, "--sign-in"],
    );
    assert_eq!(
        (elsewhere["status"].as_u64(), said(&elsewhere)),
        (Some(409), "payment_already_used".to_owned()),
        "{store:?}: the payer's payment presented for another URL: {elsewhere}"
    );
    assert_eq!(world.fixture_calls()["settle"], 1, "{store:?}: settled once");
    assert_eq!(world.target.hits(), 2, "{store:?}: fetched for each delivery only");
    assert_eq!(world.paid_checks_today(), 1, "{store:?}: counted once");
}

#[test]
fn the_official_client_sends_a_payment_identifier_and_a_re_signed_retry_is_409_never_settled() {
    let world = World::start();
    let keys = trusted(&world.server);
    let id = "pay_7d5d747be160e280504c099d984bcfe0";
    let first = world.buy("/check", &["--payment-id", id]);
    let noted = &first["payment_identifier"];
    assert_eq!(noted["declared"], noted["sdk_declaration"], "we declare what the SDK declares");
    assert_verified_report(&first, &keys, "a new id");
    let sent = first["payment_header"]["value"].as_str().unwrap();
    let sent = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, sent).unwrap();
    let sent: Value = serde_json::from_slice(&sent).unwrap();
    assert_eq!(sent["extensions"]["payment-identifier"]["info"]["id"], id, "the SDK sent the id");
    let calls = world.fixture_calls();

    // A client that re-signs on retry: a new 402, a new transaction, the same id: 409, the id
    // names one payment (as the extension says); nothing verified or settled.
    let re_signed = world.buy("/check", &["--payment-id", id]);
    assert_eq!(
        (re_signed["status"].as_u64(), said(&re_signed)),
        (Some(409), "payment_identifier_conflict".to_owned()),
        "{re_signed}"
    );
    let other_op = world.buy("/memo", &["--payment-id", id]);
    assert_eq!(
        (other_op["status"].as_u64(), said(&other_op)),
        (Some(409), "payment_identifier_conflict".to_owned()),
        "{other_op}"
    );
    let malformed = world.buy("/check", &["--hand", "--payment-id", "pay_7"]);
    assert_eq!(
        (malformed["status"].as_u64(), said(&malformed)),
        (Some(400), "payment_identifier_invalid".to_owned()),
        "{malformed}"
    );
    let now = world.fixture_calls();
    assert_eq!(
        (now["verify"].clone(), now["settle"].clone()),
        (calls["verify"].clone(), calls["settle"].clone()),
        "nothing else verified or settled"
    );
    assert_eq!(world.paid_checks_today(), 1, "one verdict counted");
    assert_eq!(world.target.hits(), 1, "fetched for the one delivery only");
}
