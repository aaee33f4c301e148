//! Where a purchase stops short of a verdict: a fresh challenge or a closed-form error, from
//! the closed lists in [`crate::rules`]. Each says only what is known about the money:
//! "nothing was settled" appears only where this service never called `/settle` for the
//! payment, or the chain proves it can never land.

use payability_core::challenge::OwnChallenge;
use payability_core::payment::x402::{SettlementResponse, X402Version};

use super::outcome::PurchaseOutcome;
use crate::rules::{ApiError, Refusal};
use crate::store::StoreError;

/// The `Err` of every step of a purchase: why it stops, and what it says of the settlement.
pub(in crate::api) struct Stop {
    /// The answer owed.
    reason: StopReason,
    /// The settlement answer of a payment that did not (or not knowingly) settle.
    settlement: Option<SettlementResponse>,
}

/// Why a purchase stops.
#[derive(Clone, Copy)]
enum StopReason {
    /// A fresh challenge, refusing the payment (or asking for one).
    Offer(Refusal),
    /// A closed-form error.
    Error(ApiError),
}

impl Stop {
    /// Stops with a fresh challenge carrying `refusal`.
    pub(super) fn offer(refusal: Refusal) -> Self {
        Self { reason: StopReason::Offer(refusal), settlement: None }
    }

    /// Stops with a closed-form error.
    pub(super) fn error(error: ApiError) -> Self {
        Self { reason: StopReason::Error(error), settlement: None }
    }

    /// Adds the settlement answer x402 clients read of a payment that did not (or not
    /// knowingly) settle: `success: false`, this stop's rule as `errorReason`.
    pub(super) fn with_failed_settlement(mut self, version: X402Version) -> Self {
        let rule = match self.reason {
            StopReason::Offer(refusal) => refusal.rule(),
            StopReason::Error(error) => error.rule(),
        };
        self.settlement = Some(SettlementResponse::failed(version, rule));
        self
    }

    /// The outcome: the error, or our challenge carrying the refusal, built by `challenge`.
    pub(super) fn answer(self, challenge: impl FnOnce(Refusal) -> OwnChallenge) -> PurchaseOutcome {
        let settlement = self.settlement;
        match self.reason {
            StopReason::Error(error) => PurchaseOutcome::Refused { error, settlement },
            StopReason::Offer(refusal) => {
                PurchaseOutcome::Offer { refusal, challenge: challenge(refusal), settlement }
            }
        }
    }
}

impl From<ApiError> for Stop {
    fn from(error: ApiError) -> Self {
        Self::error(error)
    }
}

/// 503: the store failed while a payment was being carried (before or after `/settle`: the
/// same payment, retried, resumes wherever it stands).
pub(super) fn store_failed(_: StoreError) -> Stop {
    Stop::error(ApiError::StoreUnavailable)
}
