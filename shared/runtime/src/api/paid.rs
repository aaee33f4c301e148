//! The paid routes over HTTP (`GET` and `POST` `/check` and `/memo`): the adapter between
//! a request and one purchase ([`super::purchase`]). It reads the endpoint, the called URL,
//! the payment header and the house credential, and turns the purchase's outcome into a
//! status, headers and a body.

use http::StatusCode;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SIGN_IN_WITH_X, decode_proof_header};
use payability_core::payment::x402::{SettlementResponse, X402Version, decode_payment_header};
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use serde::Deserialize;
use serde_json::Value;

use super::ApiRequest;
use super::discovery::CallStyle;
use super::purchase::{PurchaseOutcome, PurchaseRequest};
use super::respond::{ApiResponse, error, json_response, json_response_bytes};
use super::service::{Service, Stores};
use crate::rules::ApiError;

/// The body of a paid request (and the arguments of a paid MCP tool): the one endpoint to
/// check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PaidBody {
    /// The endpoint to check, as submitted.
    pub(super) url: String,
}

/// Parses a JSON body into `T`, or the closed-form 400 for it.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiResponse> {
    let value: Value = serde_json::from_slice(body).map_err(|_| error(ApiError::BodyNotJson))?;
    fields_of(value).map_err(error)
}

/// One JSON object's fields as `T` (a body, or an MCP tool's arguments), or
/// `body_wrong_shape`.
pub(super) fn fields_of<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ApiError> {
    // One JSON object: serde would also take a struct as an array of its fields.
    if !value.is_object() {
        return Err(ApiError::BodyWrongShape);
    }
    serde_json::from_value(value).map_err(|_| ApiError::BodyWrongShape)
}

/// The submitted URL, vetted free; a refusal is a 400 naming its rule.
fn vetted(url: &str, rule: AddressRule) -> Result<TargetUrl, ApiResponse> {
    vet_target_url(url, rule).map_err(|r| error(ApiError::UrlRefused(r)))
}

/// The endpoint a paid request names: `?url=` with GET, `{"url"}` with POST; None when it
/// names none (an empty POST body, a GET without `url`: an indexer's probe gets the 402).
fn submitted_url(request: &ApiRequest) -> Result<Option<String>, ApiResponse> {
    if request.method == http::Method::POST {
        if request.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        return parse_body::<PaidBody>(&request.body).map(|body| Some(body.url));
    }
    let query = request.query.as_deref().unwrap_or_default();
    Ok(url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "url")
        .map(|(_, value)| value.into_owned()))
}

impl<S: Stores> Service<S> {
    /// `GET` and `POST` `/check` and `/memo`.
    pub(super) async fn paid(&self, op: PaidOp, request: &ApiRequest) -> ApiResponse {
        match self.purchase_request(op, request) {
            Ok(purchase) => http_answer(self.purchase(purchase).await),
            Err(refused) => refused,
        }
    }

    /// What the request asks to buy, with the payment and the sign-in proof it carries;
    /// refused free (400, 414, 503) before any payment is read: a body of another shape, a URL
    /// out of policy, a called URL that cannot be formed.
    fn purchase_request(
        &self,
        op: PaidOp,
        request: &ApiRequest,
    ) -> Result<PurchaseRequest, ApiResponse> {
        let target = match submitted_url(request)? {
            Some(url) => Some(vetted(&url, self.config.address_rule)?),
            None => None,
        };
        let resource_url = self.request_url(request)?;
        // The payment header of the first version (v2 first) the request carries, decoded.
        let payment = X402Version::ALL.into_iter().find_map(|version| {
            let raw = request.headers.get(version.payment_header())?;
            Some(decode_payment_header(version, raw.as_bytes()))
        });
        let proof =
            request.headers.get(SIGN_IN_WITH_X).map(|raw| decode_proof_header(raw.as_bytes()));
        Ok(PurchaseRequest {
            op,
            target,
            resource_url,
            call: CallStyle::of(&request.method),
            payment,
            proof,
            house: self.is_house(&request.headers),
            base_url: self.base_url(request)?.to_owned(),
        })
    }
}

/// A purchase's outcome as HTTP: 402 with our challenge (the v1 body, the v2
/// `PAYMENT-REQUIRED` header), the closed-form error, or 200 with the signed report; the
/// settlement answer, when there is one, in the response header of its version.
pub(super) fn http_answer(outcome: PurchaseOutcome) -> ApiResponse {
    let (response, settlement) = match outcome {
        PurchaseOutcome::Offer { refusal, challenge, settlement } => {
            let response = json_response_bytes(StatusCode::PAYMENT_REQUIRED, challenge.body)
                .with_header("payment-required", &challenge.payment_required)
                .with_rule(refusal.rule());
            (response, settlement)
        }
        PurchaseOutcome::Refused { error: refused, settlement } => (error(refused), settlement),
        PurchaseOutcome::Delivered { report, settlement } => {
            let (state, house) = (report.report.state, report.report.house);
            (json_response(StatusCode::OK, &report).with_verdict(state, house), settlement)
        }
    };
    match settlement {
        Some(settlement) => with_settlement(response, &settlement),
        None => response,
    }
}

/// Adds a settlement answer, base64, in the response header of the payment's version.
fn with_settlement(response: ApiResponse, settlement: &SettlementResponse) -> ApiResponse {
    response.with_header(settlement.version().response_header(), &settlement.header_value())
}
