//! The grader is total: on arbitrary bytes it never panics and always yields exactly one of
//! the published states.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::capture::{
    BODY_CAP_BYTES, Capture, CapturedBody, CapturedHeader, FetchOutcome,
};
use payability_core::grade::{grade_check, grade_memo};
use proptest::prelude::*;

const CHECK_STATES: [&str; 6] = [
    "POPULATED",
    "AMOUNTS-ONLY",
    "UNCONFIGURED",
    "HEADER-MISSING",
    "RESOURCE-MISMATCH",
    "NOT-A-402",
];
const MEMO_STATES: [&str; 5] = ["BOUND", "MEMO-REUSED", "LEG-MISMATCH", "MEMO-ABSENT", "NOT-A-402"];
const URL: &str = "https://seller.example/api";

/// A realistic challenge body that mutations start from, so they reach deep rules.
fn seed_body() -> Vec<u8> {
    format!(
        r#"{{"x402Version":1,"memo":"pvm_top","accepts":[{{"scheme":"exact","amount":"10000","maxAmountRequired":"10000","resource":"{URL}","description":"d","payTo":"W","extra":{{"usdc_token_account":"T","memo":"pvm_abcdef12"}}}}]}}"#
    )
    .into_bytes()
}

fn seed_header() -> Vec<u8> {
    let json = format!(
        r#"{{"x402Version":2,"resource":{{"url":"{URL}"}},"accepts":[{{"amount":"10000","payTo":"W","extra":{{"memo":"pvm_abcdef12"}}}}]}}"#
    );
    STANDARD.encode(json).into_bytes()
}

/// Flips, deletes or inserts bytes of `base` at the given positions.
fn mutate(mut base: Vec<u8>, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    for &(at, kind, byte) in edits {
        if base.is_empty() {
            base.push(byte);
            continue;
        }
        let at = at % base.len();
        match kind % 3 {
            0 => base[at] = byte,
            1 => {
                base.remove(at);
            }
            _ => base.insert(at, byte),
        }
    }
    base
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..256),
        proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8)
            .prop_map(|edits| mutate(seed_body(), &edits)),
        proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8)
            .prop_map(|edits| mutate(seed_header(), &edits)),
    ]
}

fn outcome() -> impl Strategy<Value = FetchOutcome> {
    let body = prop_oneof![
        8 => bytes().prop_map(CapturedBody::Complete),
        1 => Just(CapturedBody::OverCap),
    ];
    let captured = (prop_oneof![Just(402u16), 100u16..600], proptest::option::of(bytes()), body)
        .prop_map(|(status, header, body)| {
            let payment_required = header.map(|h| CapturedHeader::of(&h));
            FetchOutcome::Captured(Capture { status, payment_required, body })
        });
    prop_oneof![8 => captured, 1 => Just(FetchOutcome::Failed), 1 => Just(FetchOutcome::TimedOut)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn check_grading_is_total(outcome in outcome()) {
        let verdict = grade_check(URL, &outcome);
        prop_assert!(CHECK_STATES.contains(&verdict.state.as_str()));
        prop_assert_eq!(verdict.factors.reason.is_some(), verdict.state.as_str() == "NOT-A-402");
    }

    #[test]
    fn memo_grading_is_total(first in outcome(), second in outcome()) {
        let verdict = grade_memo(&first, &second);
        prop_assert!(MEMO_STATES.contains(&verdict.state.as_str()));
    }
}

#[test]
fn body_at_and_past_the_cap_and_deep_nesting_never_panic() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes();
    // 6,000 levels in a header within its cap; the whole deep document is over it.
    let deep_header = format!("{}{}", "[".repeat(6_000), "]".repeat(6_000)).into_bytes();
    let headers = [STANDARD.encode(&deep_header), STANDARD.encode(&deep)];
    let bodies = [vec![b' '; BODY_CAP_BYTES], deep.clone(), vec![0xff; BODY_CAP_BYTES]];
    for body in bodies {
        for header in &headers {
            let outcome = FetchOutcome::Captured(Capture {
                status: 402,
                payment_required: Some(CapturedHeader::of(header.as_bytes())),
                body: CapturedBody::Complete(body.clone()),
            });
            assert_eq!(grade_check(URL, &outcome).state.as_str(), "HEADER-MISSING");
        }
    }
}
