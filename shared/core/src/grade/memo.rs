//! The `memo` op: five memo-binding states over two back-to-back captures, first match wins.

use serde::{Deserialize, Serialize};

use super::decided::{Condition, DecidedBy, holding};
use super::legs::{BodyLeg, HeaderLeg, leg_equality};
use crate::capture::{CapturedBody, FetchOutcome};

/// The five published memo-binding states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemoState {
    /// Fresh, unique, leg-consistent body memos in both fetches.
    #[serde(rename = "BOUND")]
    Bound,
    /// Both fetches carry the same body memo.
    #[serde(rename = "MEMO-REUSED")]
    MemoReused,
    /// Header and body memos disagree in a fetch.
    #[serde(rename = "LEG-MISMATCH")]
    LegMismatch,
    /// The body leg carries no memo (in either fetch, or by completion in one).
    #[serde(rename = "MEMO-ABSENT")]
    MemoAbsent,
    /// Either fetch is not a 402 within the deadline and the body cap.
    #[serde(rename = "NOT-A-402")]
    NotA402,
}

impl MemoState {
    /// The state as printed in the verdict line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bound => "BOUND",
            Self::MemoReused => "MEMO-REUSED",
            Self::LegMismatch => "LEG-MISMATCH",
            Self::MemoAbsent => "MEMO-ABSENT",
            Self::NotA402 => "NOT-A-402",
        }
    }
}

/// The completion rule that decided a state the five steps left ungraded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionReason {
    /// The body memo is present in exactly one fetch.
    MemoAbsentOneFetch,
    /// Body memos present and unique, but header equality is not true in both fetches.
    MemoBindingNotEstablished,
}

/// Freshness of one leg's memo across the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreshnessClass {
    /// Both fetches carry a memo and they differ.
    Regenerated,
    /// Both fetches carry a memo and they are identical.
    Static,
    /// Not both fetches carry a memo.
    NotGradable,
}

/// Structural format class of one memo string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormatClass {
    /// No memo carried.
    Absent,
    /// Under 8 characters.
    Short,
    /// `^[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9_-]+$`, prefix of 2 or more, length 8 or more.
    PrefixedOpaque,
    /// Any other memo.
    Opaque,
}

/// Factors of one of the two fetches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchFactors {
    /// A response arrived (false on failure or timeout).
    pub fetch_ok: bool,
    /// HTTP status, null when nothing arrived.
    pub status: Option<u16>,
    /// The status is 402.
    pub is_402: bool,
    /// The body exceeded 65,536 bytes.
    pub body_over_cap: bool,
    /// The body parses as JSON.
    pub body_parseable: bool,
    /// The body leg exists: an object `accepts[0]` in a JSON body.
    pub body_leg_present: bool,
    /// A `PAYMENT-REQUIRED` header is present.
    pub header_present: bool,
    /// Its value was longer than 16,384 bytes (not kept, not decoded).
    pub header_over_cap: bool,
    /// It decodes as forgiving base64 then JSON.
    pub header_decodable: bool,
    /// The body leg carries a memo (with the top-level fallback).
    pub body_memo_present: bool,
    /// The header leg carries a memo.
    pub header_memo_present: bool,
}

/// Field names (never values) per leg of one fetch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegCensus {
    /// Sorted names of the body's accepts[0] and accepts[0].extra.
    pub body: Vec<String>,
    /// Sorted names of the decoded header's accepts[0] and accepts[0].extra.
    pub header: Vec<String>,
}

/// Correlation census of both fetches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrelationCensus {
    /// The first fetch.
    pub fetch1: LegCensus,
    /// The second fetch.
    pub fetch2: LegCensus,
}

/// Every factor of a memo report, in the report contract's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoFactors {
    /// Per-fetch factors, first fetch first.
    pub fetches: [FetchFactors; 2],
    /// Header-to-body memo equality in fetch 1 (A1 semantics).
    pub memo_equality_fetch1: Option<bool>,
    /// Header-to-body memo equality in fetch 2 (A1 semantics).
    pub memo_equality_fetch2: Option<bool>,
    /// Body memos differ across the pair (null unless both carry one).
    pub body_memos_unique: Option<bool>,
    /// Header memos differ across the pair (null unless both carry one).
    pub header_memos_unique: Option<bool>,
    /// Freshness of the body memo.
    pub body_freshness_class: FreshnessClass,
    /// Freshness of the header memo.
    pub header_freshness_class: FreshnessClass,
    /// Format class of the body memo in fetch 1.
    pub body_memo_format_fetch1: FormatClass,
    /// Format class of the body memo in fetch 2.
    pub body_memo_format_fetch2: FormatClass,
    /// Format class of the header memo in fetch 1.
    pub header_memo_format_fetch1: FormatClass,
    /// Format class of the header memo in fetch 2.
    pub header_memo_format_fetch2: FormatClass,
    /// Field names per fetch and leg.
    pub correlation_census: CorrelationCensus,
    /// The completion rule, when one decided the state.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<CompletionReason>,
}

/// A graded memo check: exactly one state and its factors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoVerdict {
    /// The state decided by the first matching rule or a completion rule.
    pub state: MemoState,
    /// Every factor the state was decided from.
    pub factors: MemoFactors,
    /// The step that matched and the factors that decided it.
    pub decided_by: DecidedBy,
}

/// One fetch, decoded: its factors, its memos and its census.
struct GradedFetch<'a> {
    factors: FetchFactors,
    body_memo: Option<&'a str>,
    header_memo: Option<&'a str>,
}

fn graded_fetch<'a>(
    outcome: &FetchOutcome,
    body: &'a BodyLeg,
    header: &'a HeaderLeg,
) -> GradedFetch<'a> {
    let capture = outcome.capture();
    let body_memo = body.memo();
    let header_memo = header.memo();
    GradedFetch {
        factors: FetchFactors {
            fetch_ok: capture.is_some(),
            status: capture.map(|c| c.status),
            is_402: capture.is_some_and(|c| c.status == 402),
            body_over_cap: capture.is_some_and(|c| c.body == CapturedBody::OverCap),
            body_parseable: body.parseable(),
            body_leg_present: body.exists(),
            header_present: header.present,
            header_over_cap: header.over_cap,
            header_decodable: header.decodable(),
            body_memo_present: body_memo.is_some(),
            header_memo_present: header_memo.is_some(),
        },
        body_memo,
        header_memo,
    }
}

/// Uniqueness across the pair: null unless both fetches carry a memo on the leg.
fn uniqueness(first: Option<&str>, second: Option<&str>) -> Option<bool> {
    Some(first? != second?)
}

fn freshness(first: Option<&str>, second: Option<&str>) -> FreshnessClass {
    match uniqueness(first, second) {
        Some(true) => FreshnessClass::Regenerated,
        Some(false) => FreshnessClass::Static,
        None => FreshnessClass::NotGradable,
    }
}

/// The structural format class of one memo, lengths in Unicode scalar values.
pub fn format_class(memo: Option<&str>) -> FormatClass {
    let Some(memo) = memo else {
        return FormatClass::Absent;
    };
    if memo.chars().count() < 8 {
        return FormatClass::Short;
    }
    let Some(separator) = memo.find(['-', '_']) else {
        return FormatClass::Opaque;
    };
    let (prefix, rest) = memo.split_at(separator);
    let prefix_ok = prefix.len() >= 2
        && prefix.starts_with(|c: char| c.is_ascii_alphabetic())
        && prefix.chars().all(|c| c.is_ascii_alphanumeric());
    let rest_ok =
        rest.len() >= 2 && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if prefix_ok && rest_ok { FormatClass::PrefixedOpaque } else { FormatClass::Opaque }
}

/// Grades two back-to-back fetches by the `memo` state rule and its completion rules.
pub fn grade_memo(first: &FetchOutcome, second: &FetchOutcome) -> MemoVerdict {
    let bodies = [first, second].map(|o| BodyLeg::from_capture(o.capture()));
    let headers = [first, second].map(|o| HeaderLeg::from_capture(o.capture()));
    let f1 = graded_fetch(first, &bodies[0], &headers[0]);
    let f2 = graded_fetch(second, &bodies[1], &headers[1]);

    let eq1 = leg_equality(f1.header_memo, f1.body_memo);
    let eq2 = leg_equality(f2.header_memo, f2.body_memo);
    let body_unique = uniqueness(f1.body_memo, f2.body_memo);
    let (state, reason, decided_by) =
        memo_state(&[&f1.factors, &f2.factors], eq1, eq2, body_unique);

    let factors = MemoFactors {
        memo_equality_fetch1: eq1,
        memo_equality_fetch2: eq2,
        body_memos_unique: body_unique,
        header_memos_unique: uniqueness(f1.header_memo, f2.header_memo),
        body_freshness_class: freshness(f1.body_memo, f2.body_memo),
        header_freshness_class: freshness(f1.header_memo, f2.header_memo),
        body_memo_format_fetch1: format_class(f1.body_memo),
        body_memo_format_fetch2: format_class(f2.body_memo),
        header_memo_format_fetch1: format_class(f1.header_memo),
        header_memo_format_fetch2: format_class(f2.header_memo),
        correlation_census: CorrelationCensus {
            fetch1: LegCensus { body: bodies[0].census(), header: headers[0].census() },
            fetch2: LegCensus { body: bodies[1].census(), header: headers[1].census() },
        },
        reason,
        fetches: [f1.factors, f2.factors],
    };
    MemoVerdict { state, factors, decided_by }
}

/// The published memo state rule, first match wins, then its completion rules, with what
/// decided it (interpretations `memo_state` and `decided_by`: each step's conditions, in
/// factor order, fetch 1 before fetch 2).
fn memo_state(
    fetches: &[&FetchFactors; 2],
    eq1: Option<bool>,
    eq2: Option<bool>,
    body_unique: Option<bool>,
) -> (MemoState, Option<CompletionReason>, DecidedBy) {
    let numbered = || fetches.iter().zip(1u8..);
    let not_a_402 = holding(numbered().flat_map(|(f, n)| {
        [
            Condition::of_fetch(n, "fetch_ok", f.fetch_ok, !f.fetch_ok),
            Condition::of_fetch(n, "is_402", f.is_402, !f.is_402),
            Condition::of_fetch(n, "body_over_cap", f.body_over_cap, f.body_over_cap),
        ]
    }));
    // The body leg's absence is listed where it explains an absent body memo.
    let body_memo_absent = |(f, n): (&&FetchFactors, u8)| {
        [
            Condition::of_fetch(n, "body_leg_present", f.body_leg_present, !f.body_leg_present),
            Condition::of_fetch(n, "body_memo_present", f.body_memo_present, !f.body_memo_present),
        ]
    };
    let equalities = [("memo_equality_fetch1", eq1), ("memo_equality_fetch2", eq2)];
    let body_memos = [fetches[0].body_memo_present, fetches[1].body_memo_present];

    let (state, step, reason, factors) = if !not_a_402.is_empty() {
        (MemoState::NotA402, 1, None, not_a_402)
    } else if body_memos == [false, false] {
        (MemoState::MemoAbsent, 2, None, holding(numbered().flat_map(body_memo_absent)))
    } else if eq1 == Some(false) || eq2 == Some(false) {
        let mismatched = equalities.map(|(name, eq)| Condition::of(name, eq, eq == Some(false)));
        (MemoState::LegMismatch, 3, None, holding(mismatched))
    } else if body_unique == Some(false) {
        let reused = Condition::of("body_memos_unique", body_unique, true);
        (MemoState::MemoReused, 4, None, holding([reused]))
    } else if body_unique == Some(true) && eq1 == Some(true) && eq2 == Some(true) {
        let bound = equalities.map(|(name, eq)| Condition::of(name, eq, true));
        let unique = Condition::of("body_memos_unique", body_unique, true);
        (MemoState::Bound, 5, None, holding(bound.into_iter().chain([unique])))
    } else if body_memos[0] != body_memos[1] {
        let reason = Some(CompletionReason::MemoAbsentOneFetch);
        (MemoState::MemoAbsent, 6, reason, holding(numbered().flat_map(body_memo_absent)))
    } else {
        let unproven = equalities.map(|(name, eq)| Condition::of(name, eq, eq != Some(true)));
        let reason = Some(CompletionReason::MemoBindingNotEstablished);
        (MemoState::LegMismatch, 7, reason, holding(unproven))
    };
    (state, reason, DecidedBy { step, factors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_class_vectors() {
        let vectors: [(Option<&str>, FormatClass); 14] = [
            (None, FormatClass::Absent),
            (Some("abc"), FormatClass::Short),
            (Some("pvm_abc"), FormatClass::Short),
            (Some("pvm_abcd"), FormatClass::PrefixedOpaque),
            (Some("pvm-ab_c-d"), FormatClass::PrefixedOpaque),
            (Some("a-bcdefgh"), FormatClass::Opaque),
            (Some("1pvm_abcdef"), FormatClass::Opaque),
            (Some("pvm.abcdef"), FormatClass::Opaque),
            (Some("pvm_abc.def"), FormatClass::Opaque),
            (Some("pvmabcdefgh"), FormatClass::Opaque),
            (Some("pvm_abcdef\n"), FormatClass::Opaque),
            (Some("pvm_"), FormatClass::Short),
            (Some("pvmabcde_"), FormatClass::Opaque),
            (Some("ab_日本語テキスト"), FormatClass::Opaque),
        ];
        for (memo, want) in vectors {
            assert_eq!(format_class(memo), want, "{memo:?}");
        }
    }
}
