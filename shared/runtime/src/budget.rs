//! One time budget per paid request. The request's deadline ends [`ANSWER_MARGIN`] before
//! the function's timeout (`template.yaml`; a test checks the sum), and every step takes its
//! bound from what is left:
//!
//! ```text
//! start ── verify, store reads ── | settle (SETTLE_TIMEOUT) | fetch | record | ── deadline
//!                                 | lease | fetch alongside |   (when the payer's lease is free)
//! ```
//!
//! `/settle` is called only when its whole bound, the fetch and the recording still fit:
//! otherwise the request stops before any money moves. The fetch runs alongside `/settle`
//! when the payer's early-fetch lease is had within [`EARLY_FETCH_LEASE_BOUND`], else after
//! it: the serial path is the longest, and it is the one reserved. After settlement nothing
//! is cut short by choice: the fetch has its own published bound, and the store writes after
//! it get what is left.

use std::future::Future;
use std::time::Duration;

use payability_core::op::PaidOp;
use tokio::time::Instant;

use crate::fetch::FETCH_DEADLINE;

/// Time between a paid request's deadline and its function's timeout: the answer, the
/// log line and the platform's own overhead.
pub const ANSWER_MARGIN: Duration = Duration::from_secs(3);
/// Time kept for the writes after the verdict (ledger, metrics, claim marker).
pub const RECORD_BOUND: Duration = Duration::from_secs(2);
/// The longest the Solana fee and CAD rate lookups may hold a response beyond the fetch.
pub const SIDE_LOOKUP_GRACE: Duration = Duration::from_millis(50);
/// How long the Solana fee lookup may run (alongside the fetch; it holds the answer at most
/// [`SIDE_LOOKUP_GRACE`] beyond it) before the ledger records it as pending.
pub const FEE_LOOKUP_BOUND: Duration = Duration::from_millis(1_500);

/// How long a payer's early-fetch lease holds when its request dies before giving it back:
/// longer than a settlement may take.
pub const EARLY_FETCH_LEASE: Duration = Duration::from_secs(10);
/// The longest the early-fetch lease is waited for before the fetch falls back to after the
/// settlement.
pub const EARLY_FETCH_LEASE_BOUND: Duration = Duration::from_millis(500);

const _: () = assert!(
    EARLY_FETCH_LEASE.as_millis() > crate::payment::facilitator::SETTLE_TIMEOUT.as_millis()
);

/// A paid route's deadline, from the request's start.
pub const fn paid_deadline(route: PaidOp) -> Duration {
    match route {
        PaidOp::Check => Duration::from_secs(26),
        PaidOp::Memo => Duration::from_secs(26),
    }
}

/// The longest a route's fetches take (memo fetches twice, one after the other).
pub const fn fetch_bound(route: PaidOp) -> Duration {
    match route {
        PaidOp::Check => FETCH_DEADLINE,
        PaidOp::Memo => Duration::from_millis(2 * FETCH_DEADLINE.as_millis() as u64),
    }
}

/// What is left of one request's time.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    deadline: Instant,
    route: PaidOp,
}

impl Budget {
    /// The budget of a paid request starting now.
    pub fn start(route: PaidOp) -> Self {
        Self { deadline: Instant::now() + paid_deadline(route), route }
    }

    /// Time left until the deadline.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Time the steps after a settlement need: the fetch, the side lookups' grace and the
    /// recording.
    fn after_settlement(&self) -> Duration {
        fetch_bound(self.route) + SIDE_LOOKUP_GRACE + RECORD_BOUND
    }

    /// A bound for a step before `/settle` (at most `cap`), leaving a whole settlement and
    /// everything after it; None when that no longer fits.
    pub fn before_settle(&self, cap: Duration) -> Option<Duration> {
        let reserved = crate::payment::facilitator::SETTLE_TIMEOUT + self.after_settlement();
        let room = self.remaining().checked_sub(reserved).filter(|room| !room.is_zero())?;
        Some(room.min(cap))
    }

    /// The settlement's bound (`cap`) when it and everything after it still fit; else None.
    pub fn settle(&self, cap: Duration) -> Option<Duration> {
        (self.remaining() >= cap + self.after_settlement()).then_some(cap)
    }

    /// Runs a step after the verdict within what is left; None when time ran out.
    pub async fn after_settle<T>(&self, step: impl Future<Output = T>) -> Option<T> {
        tokio::time::timeout(self.remaining(), step).await.ok()
    }
}

/// Runs `main` and `side` together; returns main's output and side's, if side finished by
/// the time main did or within `grace` after it.
pub async fn alongside<M: Future, S: Future>(
    main: M,
    side: S,
    grace: Duration,
) -> (M::Output, Option<S::Output>) {
    tokio::pin!(side);
    let mut side_output = None;
    let main_output = {
        tokio::pin!(main);
        loop {
            tokio::select! {
                biased;
                output = &mut main => break output,
                output = &mut side, if side_output.is_none() => side_output = Some(output),
            }
        }
    };
    if side_output.is_none() {
        side_output = tokio::time::timeout(grace, side).await.ok();
    }
    (main_output, side_output)
}
