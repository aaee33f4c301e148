//! Per-day metrics counters, their day counts and Day-0.

use std::collections::BTreeMap;
use std::future::Future;

use payability_core::grade::{CheckState, MemoState};

use super::common::{PaidOp, StoreError, UtcDay, UtcMillis};

/// The key of the Day-0 item in the metrics store: the UTC instant of the first outside paid
/// ledger entry (written once, first write wins; house entries never write it).
pub const DAY0_KEY: &str = "day0";
/// Most days one metrics read covers (the last ones of the asked range).
pub const MAX_METRICS_DAYS: i64 = 366;

/// Atomic per-day counts for `/metrics`: counts only, no content, no wallet.
pub trait Metrics: Send + Sync {
    /// Adds one to a counter of the UTC day of `now`.
    fn increment(
        &self,
        counter: Counter,
        now: UtcMillis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The counts of each UTC day from `first_day` to `last_day` inclusive (days with no
    /// count are omitted). At most the last [`MAX_METRICS_DAYS`] days of the range
    /// are read.
    fn days(
        &self,
        first_day: &UtcDay,
        last_day: &UtcDay,
    ) -> impl Future<Output = Result<Vec<DayCounts>, StoreError>> + Send;

    /// Records Day-0, the instant of the first outside paid ledger entry, with one
    /// conditional write: first write wins, a later one writes nothing. Called only after a
    /// paid (never a house) entry was appended.
    fn record_day0(
        &self,
        at: UtcMillis,
    ) -> impl Future<Output = Result<Day0Outcome, StoreError>> + Send;

    /// Day-0, once recorded (a strongly consistent read).
    fn day0(&self) -> impl Future<Output = Result<Option<UtcMillis>, StoreError>> + Send;
}

/// The outcome of recording Day-0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Day0Outcome {
    /// This write set Day-0.
    Recorded,
    /// Day-0 was set before; nothing was written.
    AlreadyRecorded,
}

/// A metrics counter: a closed set of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// A free pre-check answered.
    Precheck,
    /// A free pre-check refused for the allowance.
    FreeTierRefusal,
    /// A paid check delivered, by state.
    PaidCheck(CheckState),
    /// A paid memo check delivered, by state.
    PaidMemo(MemoState),
    /// A house check or memo check delivered.
    House(PaidOp),
    /// A payment that failed verification or settlement.
    PaymentFailure,
    /// A refund.
    Refund,
}

impl Counter {
    /// The counter's stored name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Precheck => "precheck",
            Self::FreeTierRefusal => "free_tier_refusal",
            Self::PaidCheck(state) => match state {
                CheckState::Populated => "paid_check_populated",
                CheckState::AmountsOnly => "paid_check_amounts_only",
                CheckState::Unconfigured => "paid_check_unconfigured",
                CheckState::HeaderMissing => "paid_check_header_missing",
                CheckState::ResourceMismatch => "paid_check_resource_mismatch",
                CheckState::NotA402 => "paid_check_not_a_402",
            },
            Self::PaidMemo(state) => match state {
                MemoState::Bound => "paid_memo_bound",
                MemoState::MemoReused => "paid_memo_memo_reused",
                MemoState::LegMismatch => "paid_memo_leg_mismatch",
                MemoState::MemoAbsent => "paid_memo_memo_absent",
                MemoState::NotA402 => "paid_memo_not_a_402",
            },
            Self::House(PaidOp::Check) => "house_check",
            Self::House(PaidOp::Memo) => "house_memo",
            Self::PaymentFailure => "payment_failure",
            Self::Refund => "refund",
        }
    }
}

/// The counts of one UTC day, by counter name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCounts {
    /// The day.
    pub day: UtcDay,
    /// Count per counter name (names from [`Counter::name`] only).
    pub counts: BTreeMap<String, u64>,
}
