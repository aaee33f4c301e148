//! How a purchase ends ([`PurchaseOutcome`]): our challenge, a closed-form error or the
//! signed verdict, each with the settlement answer x402 clients read; and the outcome as one
//! JSON answer ([`PurchaseOutcome::answer`]), each transport choosing only how our offer is
//! carried.

use payability_core::challenge::OwnChallenge;
use payability_core::payment::x402::SettlementResponse;
use payability_core::report::SignedReport;

use crate::api::respond::{ApiResponse, error, json_response};
use crate::rules::{ApiError, Refusal};

/// How a purchase ends. `settlement` is the settlement answer x402 clients read, in the
/// version of the payment it answers; None where no payment was presented or nothing about
/// its settlement is said.
pub(in crate::api) enum PurchaseOutcome {
    /// Our challenge (HTTP 402): no payment, or a payment refused for `refusal`.
    Offer { refusal: Refusal, challenge: OwnChallenge, settlement: Option<SettlementResponse> },
    /// A closed-form error.
    Refused { error: ApiError, settlement: Option<SettlementResponse> },
    /// The signed verdict.
    Delivered { report: Box<SignedReport>, settlement: Option<SettlementResponse> },
}

impl PurchaseOutcome {
    /// A closed-form error that says nothing of a settlement.
    pub(in crate::api) fn error(error: ApiError) -> Self {
        Self::Refused { error, settlement: None }
    }

    /// The outcome as one JSON answer (our offer as `offer` carries the challenge, the
    /// closed-form error, or 200 with the signed report), with the settlement answer for the
    /// transport to carry its own way.
    pub(in crate::api) fn answer(
        self,
        offer: impl FnOnce(OwnChallenge) -> ApiResponse,
    ) -> (ApiResponse, Option<SettlementResponse>) {
        match self {
            Self::Offer { refusal, challenge, settlement } => {
                (offer(challenge).with_rule(refusal.rule()), settlement)
            }
            Self::Refused { error: refused, settlement } => (error(refused), settlement),
            Self::Delivered { report, settlement } => {
                let (state, house) = (report.report.state, report.report.house);
                let response = json_response(http::StatusCode::OK, &report);
                (response.with_verdict(state, house), settlement)
            }
        }
    }
}
