//! The paid flow's answers, from the closed list in [`crate::api::errors`]. Each says only
//! what is known about the money: "nothing was settled" appears only where this service
//! never called `/settle` for the payment, or the chain proves it can never land.

use super::super::errors::ApiError;
use super::super::respond::{ApiResponse, error};
use crate::store::StoreError;

/// 503: the store failed while a payment was being carried (before or after `/settle`: the
/// same payment, retried, resumes wherever it stands).
pub(super) fn store_failed(_: StoreError) -> ApiResponse {
    error(ApiError::StoreUnavailable)
}
