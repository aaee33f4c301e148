//! One verdict from a target, the one pipeline every caller uses (paid and house requests, the
//! command line): fetch (once for check, twice back to back for memo), grade, assemble the
//! unsigned report. What was fetched lives in memory only until it is graded.

use payability_core::capture::FetchOutcome;
use payability_core::grade::{grade_check, grade_memo};
use payability_core::op::PaidOp;
use payability_core::policy::TargetUrl;
use payability_core::report::{UnsignedReport, UtcMillis};

use crate::fetch::Fetcher;
use crate::store::LedgerVerdict;

/// What the target answered, in memory only until graded (never logged, never stored).
pub enum Fetched {
    /// The check's one fetch.
    Check(FetchOutcome),
    /// The memo check's two fetches, back to back.
    Memo([FetchOutcome; 2]),
}

impl Fetched {
    /// Fetches the target: once for check, twice back to back for memo.
    pub async fn fetch(fetcher: &Fetcher, op: PaidOp, target: &TargetUrl) -> Self {
        match op {
            PaidOp::Check => Self::Check(fetcher.fetch(target).await),
            PaidOp::Memo => Self::Memo(fetcher.fetch_twice(target).await),
        }
    }

    /// Every fetch, in order, for a pure reader beside the grade (the command line's
    /// `--expect`); nothing leaves but what that reader returns.
    pub fn outcomes(&self) -> &[FetchOutcome] {
        match self {
            Self::Check(outcome) => std::slice::from_ref(outcome),
            Self::Memo(outcomes) => outcomes,
        }
    }
}

/// A graded verdict: the unsigned report, its time and what the ledger records of it.
pub struct Verdict {
    /// The report, ready to sign.
    pub report: UnsignedReport,
    /// When the check ended (the report's time).
    pub at: UtcMillis,
    /// The ledger's closed fields of this verdict.
    pub recorded: LedgerVerdict,
}

/// Grades what was fetched and assembles the unsigned report at `at` (the check's end); None
/// only when `at` is outside the years a report can carry.
pub fn graded(target: &TargetUrl, fetched: Fetched, at: UtcMillis, house: bool) -> Option<Verdict> {
    match fetched {
        Fetched::Check(outcome) => {
            let graded = grade_check(target.as_str(), &outcome);
            let recorded = LedgerVerdict::Check {
                state: graded.state,
                description_overlong: graded.factors.description_overlong,
            };
            let report = UnsignedReport::of(target, graded, at, house).ok()?;
            Some(Verdict { report, at, recorded })
        }
        Fetched::Memo([first, second]) => {
            let graded = grade_memo(&first, &second);
            let recorded = LedgerVerdict::Memo { state: graded.state };
            let report = UnsignedReport::of(target, graded, at, house).ok()?;
            Some(Verdict { report, at, recorded })
        }
    }
}

/// Fetches and grades one verdict, its time read from `clock` once the fetches are done.
pub async fn fetch_and_grade(
    fetcher: &Fetcher,
    op: PaidOp,
    target: &TargetUrl,
    clock: fn() -> UtcMillis,
    house: bool,
) -> Option<Verdict> {
    let fetched = Fetched::fetch(fetcher, op, target).await;
    graded(target, fetched, clock(), house)
}
