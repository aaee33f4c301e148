//! The `check` op: six states over one capture, first match wins.

use serde::{Deserialize, Serialize};

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
    pub fetch_ok: bool,
    pub status: Option<u16>,
    pub body_over_cap: bool,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<NotA402Reason>,
    pub body_parseable: bool,
    pub header_present: bool,
    pub header_over_cap: bool,
    pub header_decodable: bool,
    pub recipient_present: bool,
    pub token_account_present: bool,
    pub memo_present: bool,
    pub amounts_present: bool,
    pub amounts_consistent: bool,
    pub resource_present: bool,
    pub resource_equal: Option<bool>,
    pub memo_equal: Option<bool>,
    pub amount_equal: Option<bool>,
    pub pay_to_equal: Option<bool>,
    pub description_overlong: bool,
    pub description_length: Option<usize>,
}

/// A graded check: exactly one state and its factors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckVerdict {
    /// The state decided by the first matching rule.
    pub state: CheckState,
    /// Every factor the state was decided from.
    pub factors: CheckFactors,
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
    CheckVerdict { state: check_state(&factors), factors }
}

/// The published state rule over the factors, first match wins.
fn check_state(f: &CheckFactors) -> CheckState {
    let core_fields =
        [f.recipient_present, f.token_account_present, f.memo_present, f.resource_present];
    let equalities = [f.memo_equal, f.amount_equal, f.pay_to_equal];
    if f.reason.is_some() {
        CheckState::NotA402
    } else if f.resource_equal == Some(false) {
        CheckState::ResourceMismatch
    } else if !f.header_present || !f.header_decodable {
        CheckState::HeaderMissing
    } else if f.amounts_consistent
        && !f.recipient_present
        && !f.token_account_present
        && !f.memo_present
    {
        CheckState::AmountsOnly
    } else if !f.amounts_consistent
        || core_fields.contains(&false)
        || equalities.contains(&Some(false))
        || !f.body_parseable
    {
        CheckState::Unconfigured
    } else {
        CheckState::Populated
    }
}
