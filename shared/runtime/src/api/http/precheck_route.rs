//! The HTTP adapter of the `POST /precheck` route: the body and the `SIGN-IN-WITH-X` header
//! read into the transport-free pre-check ([`crate::api::precheck`]), its stop rendered as
//! HTTP: the sign-in challenge as a 402 in both legs, a spent allowance as the paid op's 402,
//! offered as a POST like the pre-check itself.

use http::StatusCode;
use payability_core::payment::siwx::{SIGN_IN_WITH_X, decode_proof_header};
use payability_core::payment::x402::X402Version;

use super::answer::{http_answer, http_offer};
use crate::api::call_style::CallStyle;
use crate::api::precheck::PrecheckStop;
use crate::api::purchase::Offer;
use crate::api::request::ApiRequest;
use crate::api::respond::{ApiResponse, error, json_response};
use crate::api::service::{Service, Stores};
use crate::rules::ApiError;

impl<S: Stores> Service<S> {
    /// `POST /precheck`: the signed answer, a closed-form error, (allowance spent) the paid
    /// op's 402, or the sign-in challenge.
    pub(in crate::api) async fn precheck(&self, request: &ApiRequest) -> ApiResponse {
        if X402Version::ALL.iter().any(|v| request.headers.contains_key(v.payment_header())) {
            return error(ApiError::PrecheckTakesNoPayment);
        }
        let body = match serde_json::from_slice(&request.body) {
            Ok(body) => body,
            Err(_) => return error(ApiError::BodyNotJson),
        };
        let proof =
            request.headers.get(SIGN_IN_WITH_X).map(|raw| decode_proof_header(raw.as_bytes()));
        match self.precheck_answer(body, proof, request).await {
            Ok(answer) => json_response(StatusCode::OK, &answer),
            Err(PrecheckStop::Error(refused)) => error(refused),
            Err(PrecheckStop::SignIn { refusal }) => {
                match self.precheck_sign_in(refusal, request) {
                    Ok(challenge) => http_offer(challenge).with_rule(refusal.rule()),
                    Err(refused) => error(refused),
                }
            }
            Err(PrecheckStop::Exhausted { op, refusal }) => {
                let resource_url = match self.route_url(op, request) {
                    Ok(url) => url,
                    Err(refused) => return error(refused),
                };
                match self.fee_payer().await {
                    Some(fee_payer) => {
                        let offer = Offer {
                            route: op,
                            resource_url: &resource_url,
                            fee_payer,
                            call: CallStyle::Body,
                            // The pre-check delivers no verdict: no receipt.
                            receipt_did: None,
                        };
                        http_answer(self.offered(&offer, refusal))
                    }
                    None => error(ApiError::PaymentsUnavailable),
                }
            }
        }
    }
}
