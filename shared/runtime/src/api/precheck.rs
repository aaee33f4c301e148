//! `POST /precheck`: the free, metered URL-policy verdict. It never fetches and returns no
//! state and no factor: whether the URL is in policy (or the refusal naming the violation),
//! signed, with the disclosure, honesty and retention lines.

use std::net::{IpAddr, Ipv4Addr};

use http::StatusCode;
use payability_core::criteria::{CRITERIA_ID, CRITERIA_REVISION, published};
use payability_core::op::PaidOp;
use payability_core::payment::x402::X402Version;
use payability_core::policy::vet_target_url;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::ApiRequest;
use super::discovery::CallStyle;
use super::paid::{fields_of, http_answer};
use super::respond::{ApiResponse, error, json_response};
use super::service::{Offer, Service, Stores};
use crate::rules::{ApiError, Refusal};
use crate::store::{Base58Id, Counter, FreeCaller, FreeTierDecision};

/// The body of a pre-check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrecheckBody {
    url: String,
    caller: Option<String>,
    op: Option<String>,
}

/// A pre-check answer before signing.
#[derive(Serialize)]
struct PrecheckAnswer {
    criteria: &'static str,
    criteria_revision: &'static str,
    kind: &'static str,
    op: &'static str,
    url: Option<String>,
    in_policy: bool,
    refusal: Option<Value>,
    checked_at: String,
    disclosure: &'static str,
    honesty: &'static str,
    retention: &'static str,
}

/// How a pre-check ends short of its signed answer.
pub(super) enum PrecheckStop {
    /// A closed-form error.
    Error(ApiError),
    /// The caller's free allowance is spent (`refusal` says how): the op asked about is
    /// offered for pay instead.
    Exhausted { op: PaidOp, refusal: Refusal },
}

impl<S: Stores> Service<S> {
    /// `POST /precheck`: the signed answer, a closed-form error, or (allowance spent) the
    /// paid op's 402, offered as a POST like the pre-check itself.
    pub(super) async fn precheck(&self, request: &ApiRequest) -> ApiResponse {
        if X402Version::ALL.iter().any(|v| request.headers.contains_key(v.payment_header())) {
            return error(ApiError::PrecheckTakesNoPayment);
        }
        let body = match serde_json::from_slice(&request.body) {
            Ok(body) => body,
            Err(_) => return error(ApiError::BodyNotJson),
        };
        match self.precheck_answer(body, request.source_ip).await {
            Ok(answer) => json_response(StatusCode::OK, &answer),
            Err(PrecheckStop::Error(refused)) => error(refused),
            Err(PrecheckStop::Exhausted { op, refusal }) => {
                let resource_url = match self.route_url(op, request) {
                    Ok(url) => url,
                    Err(response) => return response,
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

    /// The signed pre-check of `body` (`{url, caller?, op?}`, from any transport) for a
    /// caller at `source`, spending its free allowance.
    pub(super) async fn precheck_answer(
        &self,
        body: Value,
        source: Option<IpAddr>,
    ) -> Result<Value, PrecheckStop> {
        let body: PrecheckBody = fields_of(body).map_err(PrecheckStop::Error)?;
        let route = match body.op.as_deref().map(PaidOp::parse) {
            None => PaidOp::Check,
            Some(Some(op)) => op,
            Some(None) => return Err(PrecheckStop::Error(ApiError::OpUnknown)),
        };
        // Every pre-check spends its source's allowance; one that names a wallet also spends
        // the wallet's. A request whose source is unknown counts against 0.0.0.0 (shared).
        let wallet = match body.caller.as_deref() {
            Some(wallet) => match Base58Id::parse(wallet) {
                Some(wallet) => Some(wallet),
                None => return Err(PrecheckStop::Error(ApiError::CallerNotAWallet)),
            },
            None => None,
        };
        let caller =
            FreeCaller { source: source.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)), wallet };
        let now = (self.clock)();
        match self.store.try_use_both(&caller, now).await {
            Ok(FreeTierDecision::Allowed { .. }) => self.count(Counter::Precheck).await,
            Ok(refused) => {
                self.count(Counter::FreeTierRefusal).await;
                let refusal = match refused {
                    FreeTierDecision::TooSoon => Refusal::FreeTooSoon,
                    _ => Refusal::FreeDailyCapReached,
                };
                return Err(PrecheckStop::Exhausted { op: route, refusal });
            }
            Err(_) => return Err(PrecheckStop::Error(ApiError::StoreUnavailable)),
        }
        let vetted = vet_target_url(&body.url, self.config.address_rule);
        let texts = published();
        let (honesty, retention) = match route {
            PaidOp::Check => (texts.honesty_line.as_str(), texts.retention.as_str()),
            PaidOp::Memo => {
                (texts.memo_op.boundary_statement.as_str(), texts.memo_op.custody.as_str())
            }
        };
        let Some(checked_at) = now.to_rfc3339_millis() else {
            return Err(PrecheckStop::Error(ApiError::ClockOutOfRange));
        };
        let answer = PrecheckAnswer {
            criteria: CRITERIA_ID,
            criteria_revision: CRITERIA_REVISION,
            kind: "precheck",
            op: route.as_str(),
            url: vetted.as_ref().ok().map(|t| t.as_str().to_owned()),
            in_policy: vetted.is_ok(),
            refusal: vetted.err().map(|r| json!({"rule": r.rule(), "message": r.message()})),
            checked_at,
            disclosure: &texts.disclosure_sentence,
            honesty,
            retention,
        };
        let mut value = serde_json::to_value(&answer).expect("a pre-check answer serialises");
        value["signature"] =
            serde_json::to_value(self.signer.sign(&value)).expect("an envelope serialises");
        Ok(value)
    }
}
