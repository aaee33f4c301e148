//! The closed-form answers of the paid flow. Each says only what is known about the money:
//! "nothing was settled" appears only where this service never called `/settle` for the
//! payment, or the chain proves it can never land.

use http::StatusCode;

use super::super::respond::{ApiResponse, error, unavailable};
use super::super::service::{Offer, Service, Stores};
use crate::store::StoreError;

/// Seconds a buyer is asked to wait before retrying the same payment (a claim leaves
/// flight after [`crate::store::IN_FLIGHT_MS`]).
pub(super) const RETRY_AFTER_SECONDS: &str = "30";

/// 409: the payment already bought its verdict (or was presented for the other op).
pub(super) fn already_used() -> ApiResponse {
    error(
        StatusCode::CONFLICT,
        "payment_already_used",
        "this payment was already used; a payment buys one verdict",
    )
}

/// 409: another request is carrying this payment right now.
pub(super) fn in_flight() -> ApiResponse {
    error(
        StatusCode::CONFLICT,
        "payment_in_flight",
        "this payment is being processed by another request; retry this same payment in 30 seconds; do not pay again",
    )
    .with_header("retry-after", RETRY_AFTER_SECONDS)
}

/// 503: `/settle` was called and did not answer a clean success; only the chain can tell.
pub(super) fn outcome_unknown() -> ApiResponse {
    unavailable(
        "settlement_outcome_unknown",
        "whether this payment settled is not known yet; retry this same payment (do not pay again) in 30 seconds to receive its verdict if it settled, or a final answer if it did not",
    )
    .with_header("retry-after", RETRY_AFTER_SECONDS)
}

/// 503 before `/settle` was called: this request ran out of time; the claim stays
/// `verified`, so the same payment can be retried.
pub(super) fn out_of_time() -> ApiResponse {
    unavailable(
        "payment_not_started",
        "this request ran out of time before settlement; this service did not settle the payment; retry this same payment in 30 seconds",
    )
    .with_header("retry-after", RETRY_AFTER_SECONDS)
}

/// 503: the facilitator cannot be reached for `/verify`; `/settle` was never called.
pub(super) fn facilitator_unavailable() -> ApiResponse {
    unavailable(
        "facilitator_unavailable",
        "the payment facilitator cannot be reached; this service did not settle the payment; retry later",
    )
}

/// 503: no facilitator or fee payer is configured or reachable; nothing can be paid.
pub(super) fn payments_unavailable() -> ApiResponse {
    unavailable(
        "payments_unavailable",
        "payments are not configured or the facilitator cannot be reached; do not pay",
    )
}

/// 503: the store cannot be reached.
pub(super) fn store_unavailable() -> ApiResponse {
    unavailable("store_unavailable", "the service's store cannot be reached; do not pay")
}

/// 503: the store failed while a payment was being carried (before or after `/settle`: the
/// same payment, retried, resumes wherever it stands).
pub(super) fn store_failed(_: StoreError) -> ApiResponse {
    unavailable(
        "store_unavailable",
        "the service's store cannot be reached; retry this same payment later; do not pay again",
    )
    .with_header("retry-after", RETRY_AFTER_SECONDS)
}

/// 503: the service clock is outside the years a report can carry.
pub(super) fn clock_out_of_range() -> ApiResponse {
    unavailable("clock_out_of_range", "the service clock is out of range; do not pay")
}

/// 502: the facilitator named a settlement that already bought a verdict.
pub(super) fn settlement_reused() -> ApiResponse {
    error(
        StatusCode::BAD_GATEWAY,
        "settlement_already_recorded",
        "the facilitator named a settlement that already bought a verdict; no second verdict is released",
    )
}

impl<S: Stores> Service<S> {
    /// 402: the chain proves this payment never settled and never can; a new challenge.
    pub(super) fn not_settled(&self, offer: &Offer<'_>) -> ApiResponse {
        self.challenge_response(
            offer,
            "payment_not_settled: this payment did not settle and its transaction can no longer land; nothing was charged; pay again with this challenge",
        )
    }
}
