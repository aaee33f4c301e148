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
use super::errors::{ApiError, Refusal};
use super::paid::{http_answer, parse_body};
use super::respond::{ApiResponse, error, json_response};
use super::service::{Offer, Service, Stores};
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

impl<S: Stores> Service<S> {
    pub(super) async fn precheck(&self, request: &ApiRequest) -> ApiResponse {
        if X402Version::ALL.iter().any(|v| request.headers.contains_key(v.payment_header())) {
            return error(ApiError::PrecheckTakesNoPayment);
        }
        let body: PrecheckBody = match parse_body(&request.body) {
            Ok(body) => body,
            Err(response) => return response,
        };
        let route = match body.op.as_deref().map(PaidOp::parse) {
            None => PaidOp::Check,
            Some(Some(op)) => op,
            Some(None) => return error(ApiError::OpUnknown),
        };
        // Every pre-check spends its source's allowance; one that names a wallet also spends
        // the wallet's. A request whose source is unknown counts against 0.0.0.0 (shared).
        let wallet = match body.caller.as_deref() {
            Some(wallet) => match Base58Id::parse(wallet) {
                Some(wallet) => Some(wallet),
                None => {
                    return error(ApiError::CallerNotAWallet);
                }
            },
            None => None,
        };
        let caller = FreeCaller {
            source: request.source_ip.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
            wallet,
        };
        let now = (self.clock)();
        match self.store.try_use_both(&caller, now).await {
            Ok(FreeTierDecision::Allowed { .. }) => self.count(Counter::Precheck).await,
            Ok(refused) => {
                self.count(Counter::FreeTierRefusal).await;
                let reason = match refused {
                    FreeTierDecision::TooSoon => Refusal::FreeTooSoon,
                    _ => Refusal::FreeDailyCapReached,
                };
                let resource_url = match self.route_url(route, request) {
                    Ok(url) => url,
                    Err(response) => return response,
                };
                return match self.fee_payer().await {
                    Some(fee_payer) => {
                        // The exhaustion 402 offers the paid route as a POST, like the
                        // pre-check itself.
                        let call = CallStyle::Body;
                        let offer = Offer { route, resource_url: &resource_url, fee_payer, call };
                        http_answer(self.offered(&offer, reason))
                    }
                    None => error(ApiError::PaymentsUnavailable),
                };
            }
            Err(_) => return error(ApiError::StoreUnavailable),
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
            return error(ApiError::ClockOutOfRange);
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
        json_response(StatusCode::OK, &value)
    }
}
