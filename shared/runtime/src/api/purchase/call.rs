//! The seam where every transport meets the purchase. A transport reads a [`PaidCall`] from
//! its own request (the op, the endpoint as submitted, how it names it, the payment and the
//! sign-in proof decoded from its own encoding) and hands it to [`Service::buy`], which vets
//! the endpoint free, names the called URL and carries the purchase ([`PurchaseRequest`]).
//! The transport then renders the [`PurchaseOutcome`]: a JSON transport through
//! [`PurchaseOutcome::answer`], choosing only how our offer is carried.

use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SignInProof, SignInRefusal};
use payability_core::payment::x402::{DecodedPayment, PaymentRefusal};
use payability_core::policy::{TargetUrl, vet_target_url};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::outcome::PurchaseOutcome;
use crate::api::call_style::CallStyle;
use crate::api::request::{ApiRequest, MAX_GET_RESOURCE_URL_BYTES};
use crate::api::service::{Service, Stores};
use crate::rules::ApiError;

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

/// One purchase, as [`Service::buy`] assembles it from a transport's call.
pub(super) struct PurchaseRequest {
    /// The op bought.
    pub(super) op: PaidOp,
    /// The endpoint to check, vetted free; None when the call names none (an indexer's probe
    /// gets the challenge).
    pub(super) target: Option<TargetUrl>,
    /// The URL the buyer called: `resource` in our challenge, and the called URL a claim is
    /// bound to.
    pub(super) resource_url: String,
    /// How the call names the endpoint: the challenge describes the call that way.
    pub(super) call: CallStyle,
    /// The payment presented, decoded by the transport from its own encoding (a refusal is
    /// answered here, where the offer is known); None without one.
    pub(super) payment: Option<Result<DecodedPayment, PaymentRefusal>>,
    /// The sign-in proof presented (x402 sign-in-with-x), decoded by the transport; None
    /// without one.
    pub(super) proof: Option<Result<SignInProof, SignInRefusal>>,
    /// The request carries the house credential: no payment, `house: true`.
    pub(super) house: bool,
    /// The API's public base URL as this request reaches it: the `did:web` DID its
    /// receipt is signed under (`<base>/.well-known/did.json` resolves it).
    pub(super) base_url: String,
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
