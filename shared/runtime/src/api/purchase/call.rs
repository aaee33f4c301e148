//! The seam where every transport meets the purchase. A transport reads a [`PaidCall`] from
//! its own request (the op, the endpoint as submitted, how it names it, the payment and the
//! sign-in proof decoded from its own encoding) and hands it to [`Service::buy`], which vets
//! the endpoint free, names the called URL and carries the purchase. The transport then
//! renders the [`PurchaseOutcome`]: a JSON transport through [`PurchaseOutcome::answer`],
//! choosing only how our offer is carried.

use payability_core::challenge::OwnChallenge;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SignInProof, SignInRefusal};
use payability_core::payment::x402::{DecodedPayment, PaymentRefusal, SettlementResponse};
use payability_core::policy::vet_target_url;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{PurchaseOutcome, PurchaseRequest};
use crate::api::respond::{ApiResponse, error, json_response};
use crate::api::service::{Service, Stores};
use crate::api::{ApiRequest, MAX_GET_RESOURCE_URL_BYTES};
use crate::rules::ApiError;

/// How a call names the endpoint to check: our challenge describes the call that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::api) enum CallStyle {
    /// HTTP `GET` (or `HEAD`) with `?url=<endpoint>`.
    Query,
    /// HTTP `POST` with the JSON body `{"url": "<endpoint>"}`.
    Body,
    /// MCP `tools/call` of the op's tool with the arguments `{"url": "<endpoint>"}`.
    Mcp,
    /// An A2A message naming the op's skill and `{"url": "<endpoint>"}`.
    A2a,
}

impl CallStyle {
    /// Every style, in the order the route descriptions are built.
    pub(in crate::api) const ALL: [Self; 4] = [Self::Query, Self::Body, Self::Mcp, Self::A2a];
}

/// The arguments of a paid call (a POST body, a paid MCP tool's arguments): the one endpoint
/// to check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::api) struct PaidArguments {
    /// The endpoint to check, as submitted.
    pub(in crate::api) url: String,
}

/// One JSON object's fields as `T` (a body, a tool's arguments), or `body_wrong_shape`.
pub(in crate::api) fn fields_of<T: DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    // One JSON object: serde would also take a struct as an array of its fields.
    if !value.is_object() {
        return Err(ApiError::BodyWrongShape);
    }
    serde_json::from_value(value).map_err(|_| ApiError::BodyWrongShape)
}

/// What a call presents besides what it asks: a payment, a sign-in proof, either or neither,
/// each decoded from the transport's own encoding.
pub(in crate::api) struct Presented {
    /// The payment; None without one.
    pub(in crate::api) payment: Option<Result<DecodedPayment, PaymentRefusal>>,
    /// The sign-in proof (x402 sign-in-with-x); None without one.
    pub(in crate::api) proof: Option<Result<SignInProof, SignInRefusal>>,
}

/// A paid call as a transport read it from its request.
pub(in crate::api) struct PaidCall {
    /// The op bought.
    pub(in crate::api) op: PaidOp,
    /// The endpoint to check, as submitted; None when the call names none (an indexer's
    /// probe gets our challenge).
    pub(in crate::api) url: Option<String>,
    /// How the call names the endpoint.
    pub(in crate::api) style: CallStyle,
    /// The payment presented, decoded from the transport's own encoding; None without one.
    pub(in crate::api) payment: Option<Result<DecodedPayment, PaymentRefusal>>,
    /// The sign-in proof presented (x402 sign-in-with-x), decoded; None without one.
    pub(in crate::api) proof: Option<Result<SignInProof, SignInRefusal>>,
}

impl<S: Stores> Service<S> {
    /// Carries a paid call that arrived in `request` to its outcome.
    pub(in crate::api) async fn buy(
        &self,
        call: PaidCall,
        request: &ApiRequest,
    ) -> PurchaseOutcome {
        match self.purchase_request(call, request) {
            Ok(purchase) => self.purchase(purchase).await,
            Err(refused) => PurchaseOutcome::error(refused),
        }
    }

    /// A paid call of a JSON transport (MCP, A2A): `arguments` read as the route's body is
    /// (`{"url"}`; a shape of another kind is refused before anything else, with nothing said
    /// of a settlement), then bought.
    pub(in crate::api) async fn buy_with_arguments(
        &self,
        op: PaidOp,
        arguments: Value,
        style: CallStyle,
        presented: Presented,
        request: &ApiRequest,
    ) -> PurchaseOutcome {
        let Presented { payment, proof } = presented;
        match fields_of::<PaidArguments>(arguments) {
            Ok(arguments) => {
                let url = Some(arguments.url);
                self.buy(PaidCall { op, url, style, payment, proof }, request).await
            }
            Err(refused) => PurchaseOutcome::error(refused),
        }
    }

    /// What the call asks to buy, refused free before any payment is read: a URL out of
    /// policy (400), a called URL that cannot be formed (503), or a GET whose called URL, as
    /// the JSON string clients echo it in, is over [`MAX_GET_RESOURCE_URL_BYTES`] (414
    /// `url_too_long_for_get`: its paid retry would not fit API Gateway's request quota).
    fn purchase_request(
        &self,
        call: PaidCall,
        request: &ApiRequest,
    ) -> Result<PurchaseRequest, ApiError> {
        let target = match call.url {
            Some(url) => {
                Some(vet_target_url(&url, self.config.address_rule).map_err(ApiError::UrlRefused)?)
            }
            None => None,
        };
        let resource_url = self.request_url(request)?;
        // JSON escapes a backslash (the one character a serialised query keeps that it escapes).
        let echoed = resource_url.len() + resource_url.matches('\\').count();
        if call.style == CallStyle::Query && echoed > MAX_GET_RESOURCE_URL_BYTES {
            return Err(ApiError::UrlTooLongForGet);
        }
        Ok(PurchaseRequest {
            op: call.op,
            target,
            resource_url,
            call: call.style,
            payment: call.payment,
            proof: call.proof,
            house: self.is_house(&request.headers),
            base_url: self.base_url(request)?.to_owned(),
        })
    }
}

impl PurchaseOutcome {
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
