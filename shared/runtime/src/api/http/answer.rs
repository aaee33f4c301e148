//! Our challenge and a purchase's outcome as HTTP: the status, the v1 body and the v2
//! `PAYMENT-REQUIRED` header, and the settlement answer in the response header of its version.

use payability_core::challenge::OwnChallenge;
use payability_core::payment::x402::SettlementResponse;

use crate::api::purchase::PurchaseOutcome;
use crate::api::respond::{ApiResponse, json_response_bytes};

/// Our challenge as HTTP: 402, the v1 body and the v2 `PAYMENT-REQUIRED` header.
pub(super) fn http_offer(challenge: OwnChallenge) -> ApiResponse {
    json_response_bytes(http::StatusCode::PAYMENT_REQUIRED, challenge.body)
        .with_header("payment-required", &challenge.payment_required)
}

/// A purchase's outcome as HTTP: 402 with our challenge, the closed-form error, or 200 with
/// the signed report; the settlement answer, when there is one, in the response header of
/// its version.
pub(super) fn http_answer(outcome: PurchaseOutcome) -> ApiResponse {
    match outcome.answer(http_offer) {
        (response, Some(settlement)) => with_settlement(response, &settlement),
        (response, None) => response,
    }
}

/// Adds a settlement answer, base64, in the response header of the payment's version.
fn with_settlement(response: ApiResponse, settlement: &SettlementResponse) -> ApiResponse {
    response.with_header(settlement.version().response_header(), &settlement.header_value())
}
