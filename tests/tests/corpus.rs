//! The corpus harness: every case of payability-corpus/v1 through the engine, 100% required,
//! and the corpus pin recomputed and matched against the criteria document.
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::criteria::{CORPUS_ID, CORPUS_SHA256, INTERPRETATIONS};
use payability_core::grade::{grade_check, grade_memo};
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::signing::canonical_bytes;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const CORPUS_PATH: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/payability-corpus-v1.json");

fn load_corpus() -> Value {
    let text = std::fs::read_to_string(CORPUS_PATH).expect("the corpus file is committed");
    serde_json::from_str(&text).expect("the corpus is JSON")
}

/// A corpus fetch as the capture the engine grades.
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
                let raw = body["base64"].as_str().expect("a body is text, base64 or over_cap");
                CapturedBody::Complete(STANDARD.decode(raw).expect("corpus base64 is valid"))
            };
            FetchOutcome::Captured(Capture {
                status: u16::try_from(fetch["status"].as_u64().expect("a status")).unwrap(),
                payment_required: fetch["payment_required"]
                    .as_str()
                    .map(|h| CapturedHeader::of(h.as_bytes())),
                body,
            })
        }
        other => panic!("unknown corpus outcome {other:?}"),
    }
}

/// The engine's `{state, factors, decided_by}` for one case.
fn grade(case: &Value) -> Value {
    let url = case["called_url"].as_str().expect("called_url");
    let fetches: Vec<FetchOutcome> =
        case["fetches"].as_array().expect("fetches").iter().map(outcome).collect();
    match (case["op"].as_str(), fetches.as_slice()) {
        (Some("check"), [only]) => {
            let v = grade_check(url, only);
            json!({"state": v.state.as_str(), "factors": v.factors, "decided_by": v.decided_by})
        }
        (Some("memo"), [first, second]) => {
            let v = grade_memo(first, second);
            json!({"state": v.state.as_str(), "factors": v.factors, "decided_by": v.decided_by})
        }
        _ => panic!("a case is a check with one fetch or a memo with two"),
    }
}

#[test]
fn every_corpus_case_grades_as_the_independent_generator_expects() {
    let corpus = load_corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let actual = grade(case);
            (actual != case["expected"]).then(|| {
                format!(
                    "FAIL {}\n  expected: {}\n  actual:   {}",
                    case["id"], case["expected"], actual
                )
            })
        })
        .collect();
    println!("corpus: {} of {} cases pass", cases.len() - failures.len(), cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 120, "the corpus must hold at least 120 cases");
}

#[test]
fn corpus_pin_is_recomputed_and_published() {
    let mut corpus = load_corpus();
    let object = corpus.as_object_mut().expect("the corpus is an object");
    let pinned = object.remove("sha256").expect("the corpus carries its pin");
    let digest = Sha256::digest(canonical_bytes(&corpus));
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(json!(hex), pinned, "the corpus file's pin does not match its content");
    assert_eq!(hex, CORPUS_SHA256, "the criteria document publishes another pin");
    assert_eq!(corpus["id"], CORPUS_ID);
}

#[test]
fn every_called_url_is_already_whatwg_serialised() {
    for case in load_corpus()["cases"].as_array().expect("cases") {
        let url = case["called_url"].as_str().expect("called_url");
        let vetted = vet_target_url(url, AddressRule::PublicOnly).expect("corpus URLs pass policy");
        assert_eq!(vetted.as_str(), url, "{}", case["id"]);
    }
}

#[test]
fn every_policy_case_is_vetted_as_the_generator_expects() {
    let corpus = load_corpus();
    let cases = corpus["policy_cases"].as_array().expect("policy_cases");
    assert!(!cases.is_empty(), "the corpus pins the submitted-URL refusals");
    for case in cases {
        let submitted = case["submitted"].as_str().expect("submitted");
        let actual = match vet_target_url(submitted, AddressRule::PublicOnly) {
            Ok(url) => json!({"called_url": url.as_str()}),
            Err(refusal) => json!({"refusal": refusal.rule()}),
        };
        assert_eq!(actual, case["expected"], "{}", case["id"]);
    }
}

#[test]
fn corpus_covers_every_state_of_both_ops_and_both_provenances() {
    let corpus = load_corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    let seen = |op: &str, state: &str| {
        cases.iter().any(|c| c["op"] == op && c["expected"]["state"] == state)
    };
    for state in [
        "POPULATED",
        "AMOUNTS-ONLY",
        "UNCONFIGURED",
        "HEADER-MISSING",
        "RESOURCE-MISMATCH",
        "NOT-A-402",
    ] {
        assert!(seen("check", state), "no check case for {state}");
    }
    for state in ["BOUND", "MEMO-REUSED", "LEG-MISMATCH", "MEMO-ABSENT", "NOT-A-402"] {
        assert!(seen("memo", state), "no memo case for {state}");
    }
    for provenance in ["synthetic", "constructed"] {
        assert!(cases.iter().any(|c| c["provenance"] == provenance), "no {provenance} case");
    }
}

#[test]
fn published_interpretations_match_the_text_the_generator_was_written_from() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/INTERPRETATIONS.md");
    let markdown = std::fs::read_to_string(path).expect("INTERPRETATIONS.md is committed");
    let (_, numbered) = markdown.split_once("\n1. ").expect("a numbered list");
    let items: Vec<String> = format!("1. {numbered}")
        .split('\n')
        .fold(Vec::<String>::new(), |mut items, line| {
            let starts_item = line.split_once(". ").is_some_and(|(n, _)| n.parse::<u32>().is_ok());
            match items.last_mut() {
                Some(last) if !starts_item => {
                    last.push(' ');
                    last.push_str(line.trim());
                }
                _ => items.push(line.split_once(". ").map_or(line, |(_, t)| t).to_owned()),
            }
            items
        })
        .into_iter()
        .map(|item| item.trim().to_owned())
        .collect();
    let published: Vec<&str> = INTERPRETATIONS.iter().map(|i| i.text).collect();
    assert_eq!(items, published);
}
