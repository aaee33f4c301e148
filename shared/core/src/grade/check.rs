//! The `check` op: six states over one capture, first match wins.

use serde::{Deserialize, Serialize};

use super::decided::{Condition, DecidedBy, holding};
use super::legs::{BodyLeg, HeaderLeg, leg_equality};
use crate::capture::{CapturedBody, FetchOutcome};

/// Description length above which `description_overlong` is true (Unicode scalar values).
pub const DESCRIPTION_THRESHOLD_CHARS: usize = 500;

/// The six published check states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CheckState {
    /// Every field check passes.
    #[serde(rename = "POPULATED")]
    Populated,
    /// Amounts present and consistent; recipient, token account and memo all absent.
    #[serde(rename = "AMOUNTS-ONLY")]
    AmountsOnly,
    /// A core field is absent, amounts are absent or inconsistent, or an equality fails.
    #[serde(rename = "UNCONFIGURED")]
    Unconfigured,
    /// The `PAYMENT-REQUIRED` header is absent, over its cap, or cannot be decoded.
    #[serde(rename = "HEADER-MISSING")]
    HeaderMissing,
    /// A present resource is not equal to the called URL.
    #[serde(rename = "RESOURCE-MISMATCH")]
    ResourceMismatch,
    /// No 402 within the deadline and the body cap.
    #[serde(rename = "NOT-A-402")]
    NotA402,
}

impl CheckState {
    /// The state as printed in the verdict line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Populated => "POPULATED",
            Self::AmountsOnly => "AMOUNTS-ONLY",
            Self::Unconfigured => "UNCONFIGURED",
            Self::HeaderMissing => "HEADER-MISSING",
            Self::ResourceMismatch => "RESOURCE-MISMATCH",
            Self::NotA402 => "NOT-A-402",
        }
    }
}

/// Why a check is NOT-A-402.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotA402Reason {
    /// The fetch failed (refused, reset, unresolvable, or a refused address).
    FetchFailed,
    /// The 5,000 ms deadline passed.
    Timeout,
    /// The response status is not 402.
    #[serde(rename = "status_not_402")]
    StatusNot402,
    /// The body exceeded 65,536 bytes.
    BodyOverCap,
}

/// Every factor of a check report, in the report contract's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckFactors {
    /// The fetch got an answer (no connection failure, no timeout).
    pub fetch_ok: bool,
    /// The answer's HTTP status; null when there was none.
    pub status: Option<u16>,
    /// The body passed the 65,536-byte cap (not kept).
    pub body_over_cap: bool,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    /// Why the answer is not a gradable 402; printed only when it is not.
    pub reason: Option<NotA402Reason>,
    /// The body parses as JSON.
    pub body_parseable: bool,
    /// The body carries a payment-requirements entry (the body leg).
    pub body_leg_present: bool,
    /// The answer carries a `PAYMENT-REQUIRED` header.
    pub header_present: bool,
    /// That header passed the 16,384-byte cap (present, not kept, not decodable).
    pub header_over_cap: bool,
    /// That header decodes (base64, then JSON) to a challenge (the header leg).
    pub header_decodable: bool,
    /// The body leg names a recipient (`payTo`).
    pub recipient_present: bool,
    /// The body leg names the recipient's token account.
    pub token_account_present: bool,
    /// The body leg carries a memo.
    pub memo_present: bool,
    /// The body leg states an amount.
    pub amounts_present: bool,
    /// That amount agrees with the body's `maxAmountRequired` and the header's amount, where stated.
    pub amounts_consistent: bool,
    /// The body leg names its resource.
    pub resource_present: bool,
    /// Every resource the legs name is the checked URL; null when neither names one.
    pub resource_equal: Option<bool>,
    /// The legs' memos are equal; null when neither carries one.
    pub memo_equal: Option<bool>,
    /// The legs' amounts are equal; null when neither states one.
    pub amount_equal: Option<bool>,
    /// The legs' recipients are equal; null when neither names one.
    pub pay_to_equal: Option<bool>,
    /// The body's description is longer than the flag's threshold.
    pub description_overlong: bool,
    /// The body's description length in characters; null when it has none.
    pub description_length: Option<usize>,
}

/// A graded check: exactly one state and its factors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckVerdict {
    /// The state decided by the first matching rule.
    pub state: CheckState,
    /// Every factor the state was decided from.
    pub factors: CheckFactors,
    /// The step that matched and the factors that decided it.
    pub decided_by: DecidedBy,
}

/// Grades one fetch of `called_url` by the `check` state rule.
pub fn grade_check(called_url: &str, outcome: &FetchOutcome) -> CheckVerdict {
    let capture = outcome.capture();
    let body = BodyLeg::from_capture(capture);
    let header = HeaderLeg::from_capture(capture);

    let body_over_cap = capture.is_some_and(|c| c.body == CapturedBody::OverCap);
    let status = capture.map(|c| c.status);
    let not_a_402 = match outcome {
        FetchOutcome::Failed => Some(NotA402Reason::FetchFailed),
        FetchOutcome::TimedOut => Some(NotA402Reason::Timeout),
        FetchOutcome::Captured(c) if c.status != 402 => Some(NotA402Reason::StatusNot402),
        FetchOutcome::Captured(_) if body_over_cap => Some(NotA402Reason::BodyOverCap),
        FetchOutcome::Captured(_) => None,
    };

    let amount = body.amount();
    let amounts_consistent = amount.is_some()
        && body.max_amount_required().is_none_or(|max| Some(max) == amount)
        && header.amount().is_none_or(|h| Some(h) == amount);
    let resources = [body.resource(), header.resource_url()];
    let resource_equal = if resources.iter().all(Option::is_none) {
        None
    } else {
        Some(resources.iter().flatten().all(|r| *r == called_url))
    };
    let description_length = body.description_length();

    let factors = CheckFactors {
        fetch_ok: capture.is_some(),
        status,
        body_over_cap,
        reason: not_a_402,
        body_parseable: body.parseable(),
        body_leg_present: body.exists(),
        header_present: header.present,
        header_over_cap: header.over_cap,
        header_decodable: header.decodable(),
        recipient_present: body.recipient().is_some(),
        token_account_present: body.token_account().is_some(),
        memo_present: body.memo().is_some(),
        amounts_present: amount.is_some(),
        amounts_consistent,
        resource_present: body.resource().is_some(),
        resource_equal,
        memo_equal: leg_equality(header.memo(), body.memo()),
        amount_equal: leg_equality(header.amount(), amount),
        pay_to_equal: leg_equality(header.pay_to(), body.recipient()),
        description_overlong: description_length.is_some_and(|n| n > DESCRIPTION_THRESHOLD_CHARS),
        description_length,
    };
    let (state, decided_by) = check_state(&factors);
    CheckVerdict { state, factors, decided_by }
}

/// The published state rule over the factors, first match wins, with what decided it
/// (interpretations `check_state` and `decided_by`: each step's conditions, in factor order).
fn check_state(f: &CheckFactors) -> (CheckState, DecidedBy) {
    let not_a_402 = holding([
        Condition::of("fetch_ok", f.fetch_ok, !f.fetch_ok),
        Condition::of("status", f.status, f.status != Some(402)),
        Condition::of("body_over_cap", f.body_over_cap, f.body_over_cap),
    ]);
    let header_missing = holding([
        Condition::of("header_present", f.header_present, !f.header_present),
        Condition::of("header_over_cap", f.header_over_cap, f.header_over_cap),
        Condition::of("header_decodable", f.header_decodable, !f.header_decodable),
    ]);
    let amounts_only = [
        Condition::of("recipient_present", f.recipient_present, !f.recipient_present),
        Condition::of("token_account_present", f.token_account_present, !f.token_account_present),
        Condition::of("memo_present", f.memo_present, !f.memo_present),
        Condition::of("amounts_present", f.amounts_present, f.amounts_present),
        Condition::of("amounts_consistent", f.amounts_consistent, f.amounts_consistent),
    ];
    let unconfigured = holding([
        Condition::of("body_parseable", f.body_parseable, !f.body_parseable),
        Condition::of("body_leg_present", f.body_leg_present, !f.body_leg_present),
        Condition::of("recipient_present", f.recipient_present, !f.recipient_present),
        Condition::of("token_account_present", f.token_account_present, !f.token_account_present),
        Condition::of("memo_present", f.memo_present, !f.memo_present),
        Condition::of("amounts_present", f.amounts_present, !f.amounts_present),
        Condition::of("amounts_consistent", f.amounts_consistent, !f.amounts_consistent),
        Condition::of("resource_present", f.resource_present, !f.resource_present),
        Condition::of("memo_equal", f.memo_equal, f.memo_equal == Some(false)),
        Condition::of("amount_equal", f.amount_equal, f.amount_equal == Some(false)),
        Condition::of("pay_to_equal", f.pay_to_equal, f.pay_to_equal == Some(false)),
    ]);
    let (state, step, factors) = if !not_a_402.is_empty() {
        (CheckState::NotA402, 1, not_a_402)
    } else if f.resource_equal == Some(false) {
        (
            CheckState::ResourceMismatch,
            2,
            holding([Condition::of("resource_equal", f.resource_equal, true)]),
        )
    } else if !header_missing.is_empty() {
        (CheckState::HeaderMissing, 3, header_missing)
    } else if amounts_only.iter().all(Condition::holds) {
        (CheckState::AmountsOnly, 4, holding(amounts_only))
    } else if !unconfigured.is_empty() {
        (CheckState::Unconfigured, 5, unconfigured)
    } else {
        (CheckState::Populated, 6, Vec::new())
    };
    (state, DecidedBy { step, factors })
}
