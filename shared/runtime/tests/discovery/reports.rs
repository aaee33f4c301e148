//! Real answers against the schemas OpenAPI publishes for them: reports the core assembles
//! for every corpus case (every state of both ops), reports of house checks through the
//! service, pre-check answers, errors and the 402 body. Key for key: every key of an answer
//! is in its schema (`additionalProperties: false`), every required key is in the answer,
//! and every key a schema declares appears in some answer.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::Method;
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::criteria::published;
use payability_core::grade::{grade_check, grade_memo};
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::report::{UnsignedReport, UtcMillis};
use payability_core::signing::ReportSigner;
use serde_json::{Value, json};

use crate::discovery::requests::{FEE_PAYER, Seller};
use crate::discovery::schema::{assert_valid, declared};
use crate::paid_flow::sign_in;
use crate::paid_flow::world::World;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/payability-corpus-v1.json");

fn component(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A corpus fetch as a capture.
fn outcome(fetch: &Value) -> FetchOutcome {
    match fetch["outcome"].as_str() {
        Some("fetch_failed") => FetchOutcome::Failed,
        Some("timeout") => FetchOutcome::TimedOut,
        Some("response") => {
            let body = &fetch["body"];
            let body = if body["over_cap"] == json!(true) {
                CapturedBody::OverCap
            } else if let Some(text) = body["text"].as_str() {
                CapturedBody::Complete(text.as_bytes().to_vec())
            } else {
                CapturedBody::Complete(STANDARD.decode(body["base64"].as_str().unwrap()).unwrap())
            };
            FetchOutcome::Captured(Capture {
                status: u16::try_from(fetch["status"].as_u64().unwrap()).unwrap(),
                payment_required: fetch["payment_required"]
                    .as_str()
                    .map(|h| CapturedHeader::of(h.as_bytes())),
                body,
            })
        }
        other => panic!("unknown corpus outcome {other:?}"),
    }
}

/// Every key path seen in a value (`factors.fetches[].status`, ...).
fn key_paths(value: &Value, at: &str, seen: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (name, member) in map {
                let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
                seen.insert(path.clone());
                key_paths(member, &path, seen);
            }
        }
        Value::Array(items) => {
            items.iter().for_each(|item| key_paths(item, &format!("{at}[]"), seen))
        }
        _ => {}
    }
}

/// Every key path a schema declares (through `$ref`, into `items`), for `properties` only.
fn schema_paths(root: &Value, schema: &Value, at: &str, found: &mut BTreeSet<String>) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => crate::discovery::schema::resolve(root, reference),
        None => schema,
    };
    if let Some(items) = schema.get("items") {
        schema_paths(root, items, &format!("{at}[]"), found);
    }
    for name in declared(root, schema) {
        let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
        found.insert(path.clone());
        schema_paths(root, &schema["properties"][&name], &path, found);
    }
}

#[tokio::test]
async fn every_report_the_core_assembles_matches_its_schema_key_for_key() {
    let document = World::start().await.openapi().await;
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(CORPUS).unwrap()).unwrap();
    let signer = ReportSigner::from_seed(&[3; 32]);
    let mut seen = [BTreeSet::new(), BTreeSet::new()];
    let mut states = [BTreeSet::new(), BTreeSet::new()];
    for case in corpus["cases"].as_array().unwrap() {
        let url =
            vet_target_url(case["called_url"].as_str().unwrap(), AddressRule::PublicOnly).unwrap();
        let fetches: Vec<FetchOutcome> =
            case["fetches"].as_array().unwrap().iter().map(outcome).collect();
        let at = UtcMillis(1_772_452_800_123);
        let (op, report) = match (case["op"].as_str().unwrap(), fetches.as_slice()) {
            ("check", [only]) => {
                (0, UnsignedReport::of(&url, grade_check(url.as_str(), only), at, false))
            }
            ("memo", [first, second]) => {
                (1, UnsignedReport::of(&url, grade_memo(first, second), at, true))
            }
            _ => panic!("a case is a check with one fetch or a memo with two"),
        };
        let report = serde_json::to_value(report.unwrap().sign(&signer)).unwrap();
        let name = ["CheckReport", "MemoReport"][op];
        assert_valid(&document, &component(name), &report, &format!("{name} of {}", case["id"]));
        key_paths(&report, "", &mut seen[op]);
        states[op].insert(report["state"].as_str().unwrap().to_owned());
    }
    let texts = published();
    assert_eq!(states[0], texts.states.iter().cloned().collect(), "every check state is exercised");
    assert_eq!(
        states[1],
        texts.memo_op.states.iter().cloned().collect(),
        "every memo state is exercised"
    );
    for (op, name) in ["CheckReport", "MemoReport"].into_iter().enumerate() {
        let mut declared_paths = BTreeSet::new();
        schema_paths(&document, &component(name), "", &mut declared_paths);
        let unused: Vec<_> = declared_paths.difference(&seen[op]).collect();
        assert!(unused.is_empty(), "{name} declares keys no report carries: {unused:?}");
    }
}

#[tokio::test]
async fn house_checks_through_the_service_match_the_report_schemas() {
    let world = World::start().await;
    let document = world.openapi().await;
    let seller = Seller::start().await;
    for (path, name, state) in
        [("/check", "CheckReport", "POPULATED"), ("/memo", "MemoReport", "BOUND")]
    {
        let answer = world.house(path, &seller.url()).await;
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        assert_eq!(answer.body["state"], state, "{path}: {}", answer.body);
        assert_eq!(answer.body["house"], true);
        assert_valid(&document, &component(name), &answer.body, path);
    }
}

#[tokio::test]
async fn precheck_answers_errors_and_the_402_body_match_their_schemas() {
    let world = World::start().await;
    let document = world.openapi().await;
    for (url, wallet, in_policy) in [
        ("https://seller.example/api", sign_in::buyer(), true),
        ("ftp://seller.example/api", sign_in::stranger(), false),
    ] {
        let unsigned = world.precheck(json!({"url": url, "op": "memo"})).await;
        assert_eq!(unsigned.status, 200, "{}", unsigned.body);
        assert_valid(&document, &component("PrecheckAnswer"), &unsigned.body, url);
        let answer = world.signed_precheck(json!({"url": url, "op": "memo"}), &wallet).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["in_policy"], in_policy);
        assert_valid(&document, &component("PrecheckAnswer"), &answer.body, url);
    }

    let mut not_json = World::bare(Method::POST, "/check");
    not_json.body = b"{".to_vec();
    let errors = [
        world.send(not_json).await,
        world.call(Method::POST, "/check", Some("ftp://seller.example/api")).await,
        world.get("/nowhere").await,
        world.send(World::bare(Method::DELETE, "/check")).await,
        world.send(World::bare(Method::POST, "/nowhere")).await,
    ];
    let mut rules = BTreeSet::new();
    for answer in errors {
        assert!(answer.status >= 400, "{}", answer.body);
        assert_valid(&document, &component("Error"), &answer.body, &answer.status.to_string());
        rules.insert(answer.body["error"]["rule"].as_str().unwrap().to_owned());
    }
    let listed: BTreeSet<String> = document["x-error-rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap().to_owned())
        .collect();
    assert!(rules.is_subset(&listed), "{rules:?} all in x-error-rules");

    let challenge = world.get("/check").await;
    assert_eq!(challenge.status, 402);
    assert_valid(&document, &component("PaymentRequiredV1"), &challenge.body, "402 body");
    let named =
        world.precheck(json!({"url": "https://seller.example/api", "caller": FEE_PAYER})).await;
    assert_eq!((named.status, named.rule()), (402, Some("sign_in_as_caller")), "{}", named.body);
    assert_valid(&document, &component("PaymentRequiredV1"), &named.body, "sign-in 402 body");
}
