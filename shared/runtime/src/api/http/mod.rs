//! The HTTP transport of the purchase and the pre-check: `GET` and `POST` `/check` and `/memo`
//! read into a paid call ([`super::purchase::PaidCall`]: the endpoint, the payment header,
//! the sign-in header) and its outcome rendered as a status, headers and a body
//! ([`answer`]); `POST /precheck` ([`precheck_route`]).

mod answer;
mod precheck_route;

use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SIGN_IN_WITH_X, decode_proof_header};
use payability_core::payment::x402::{
    V1_PAYMENT_HEADER, V2_PAYMENT_HEADER, X402Version, decode_payment_header,
};
use serde_json::Value;

use super::call_style::CallStyle;
use super::purchase::{PaidArguments, PaidCall, fields_of};
use super::request::ApiRequest;
use super::respond::{ApiResponse, error};
use super::service::{Service, Stores};
use crate::rules::ApiError;
use answer::http_answer;

/// The request headers this transport reads beside its body: the house credential, both x402
/// versions' payment headers and the sign-in proof; allowed in a CORS preflight.
pub(super) const REQUEST_HEADERS: [&str; 4] =
    ["authorization", V2_PAYMENT_HEADER, V1_PAYMENT_HEADER, SIGN_IN_WITH_X];

/// Parses a JSON body into `T`, or the closed-form 400 for it.
fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| ApiError::BodyNotJson)?;
    fields_of(value)
}

/// The endpoint a paid request names: `?url=` with GET, `{"url"}` with POST; None when it
/// names none (an empty POST body, a GET without `url`: an indexer's probe gets the 402).
fn submitted_url(request: &ApiRequest) -> Result<Option<String>, ApiError> {
    if request.method == http::Method::POST {
        if request.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        return parse_body::<PaidArguments>(&request.body).map(|body| Some(body.url));
    }
    let query = request.query.as_deref().unwrap_or_default();
    Ok(url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "url")
        .map(|(_, value)| value.into_owned()))
}

/// How a request of `method` names the endpoint: GET and HEAD in the query, any other in the
/// body.
fn style_of(method: &http::Method) -> CallStyle {
    if method == http::Method::GET || method == http::Method::HEAD {
        CallStyle::Query
    } else {
        CallStyle::Body
    }
}

/// What a paid request presents: the endpoint it names and the payment header of the first
/// version (v2 first) and the sign-in header it carries, each decoded; a body of another
/// shape is refused (400) before anything else is read.
fn paid_call(op: PaidOp, request: &ApiRequest) -> Result<PaidCall, ApiError> {
    let url = submitted_url(request)?;
    let payment = X402Version::ALL.into_iter().find_map(|version| {
        let raw = request.headers.get(version.payment_header())?;
        Some(decode_payment_header(version, raw.as_bytes()))
    });
    let proof = request.headers.get(SIGN_IN_WITH_X).map(|raw| decode_proof_header(raw.as_bytes()));
    Ok(PaidCall { op, url, style: style_of(&request.method), payment, proof })
}

impl<S: Stores> Service<S> {
    /// `GET` and `POST` `/check` and `/memo`.
    pub(super) async fn paid(&self, op: PaidOp, request: &ApiRequest) -> ApiResponse {
        match paid_call(op, request) {
            Ok(call) => http_answer(self.buy(call, request).await),
            Err(refused) => error(refused),
        }
    }
}
