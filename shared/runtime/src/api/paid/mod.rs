//! The paid routes (`POST /check`, `POST /memo`) as one state machine, described once, with
//! every answer, in `docs/paid-flow.md`.
//!
//! The claim markers and their moves are [`crate::store::ClaimMarker`] and
//! [`crate::store::Transition`]; the time bounds are [`super::budget`].

mod answers;
mod delivery;
mod early;
mod identifier;
mod settlement;

use http::StatusCode;
use payability_core::challenge::{requirements_v1, requirements_v2};
use payability_core::payment::x402::{
    DecodedPayment, PaymentRefusal, Requirements, SettlementResponse, X402Version,
    check_v2_accepted, decode_payment_header,
};
use payability_core::policy::{TargetUrl, vet_target_url};
use serde::Deserialize;
use serde_json::Value;

use super::budget::Budget;
use super::discovery::CallStyle;
use super::errors::{ApiError, Refusal};
use super::respond::{ApiResponse, error, json_response_bytes};
use super::service::{Offer, Service, Stores};
use crate::store::{
    ClaimMarker, ClaimOutcome, IN_FLIGHT_MS, IdentifierBinding, NewClaim, PaidOp, PaymentId,
    ResumeOutcome, StoredClaim, UrlBinding, UtcDay,
};
use answers::*;
pub(super) use delivery::Delivery;

/// The body of a paid request: the one endpoint to check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PaidBody {
    url: String,
}

/// Parses a JSON body into `T`, or the closed-form 400 for it.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiResponse> {
    let value: Value = serde_json::from_slice(body).map_err(|_| error(ApiError::BodyNotJson))?;
    // One JSON object: serde would also take a struct as an array of its fields.
    if !value.is_object() {
        return Err(error(ApiError::BodyWrongShape));
    }
    serde_json::from_value(value).map_err(|_| error(ApiError::BodyWrongShape))
}

/// The submitted URL, vetted free; a refusal is a 400 naming its rule.
pub(super) fn vetted(
    url: &str,
    rule: payability_core::policy::AddressRule,
) -> Result<TargetUrl, ApiResponse> {
    vet_target_url(url, rule).map_err(|r| error(ApiError::UrlRefused(r)))
}

/// The endpoint a paid request names: `?url=` with GET, `{"url"}` with POST; None when it
/// names none (an empty POST body, a GET without `url`: an indexer's probe gets the 402).
fn submitted_url(request: &super::ApiRequest) -> Result<Option<String>, ApiResponse> {
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

impl ApiResponse {
    /// Adds the settlement answer of a payment that did not (or not knowingly) settle:
    /// `{success: false, errorReason, transaction: "", network}`, base64, in the header of
    /// the payment's version.
    fn with_settlement_failure(self, version: X402Version, reason: &'static str) -> Self {
        let answer = SettlementResponse::failed(version, reason);
        self.with_header(version.response_header(), &answer.header_value())
    }
}

/// A decoded payment matched to our terms: everything the facilitator and the store need.
pub(super) struct Payment {
    decoded: DecodedPayment,
    /// The requirements the facilitator checks it against.
    requirements: Requirements,
    /// The claim key: the SHA-256 of the transaction message.
    id: PaymentId,
    /// The op it pays for.
    op: PaidOp,
}

impl<S: Stores> Service<S> {
    /// A 402 carrying our challenge, with the refusal's rule and message in both legs and
    /// the route's discovery description.
    pub(super) fn challenge_response(&self, offer: &Offer<'_>, refusal: Refusal) -> ApiResponse {
        let challenge = self.challenge(offer, &refusal.error_text());
        json_response_bytes(StatusCode::PAYMENT_REQUIRED, challenge.body)
            .with_header("payment-required", &challenge.payment_required)
            .with_rule(refusal.rule())
    }

    /// `GET` and `POST` `/check` and `/memo`.
    pub(super) async fn paid(&self, route: PaidOp, request: &super::ApiRequest) -> ApiResponse {
        let budget = Budget::start(route);
        match self.paid_flow(route, request, &budget).await {
            Ok(response) | Err(response) => response,
        }
    }

    /// The state machine of the module documentation, one state per line.
    async fn paid_flow(
        &self,
        route: PaidOp,
        request: &super::ApiRequest,
        budget: &Budget,
    ) -> Result<ApiResponse, ApiResponse> {
        let target = match submitted_url(request)? {
            Some(url) => Some(vetted(&url, self.config.address_rule)?),
            None => None,
        };
        let resource_url = self.request_url(request)?;
        let today = self.store_reachable().await?;
        if self.is_house(&request.headers) {
            let target = target.ok_or_else(|| error(ApiError::UrlMissing))?;
            return Ok(self.deliver_house(route, &target, today).await);
        }
        let fee_payer =
            self.fee_payer().await.ok_or_else(|| error(ApiError::PaymentsUnavailable))?;
        let call = CallStyle::of(&request.method);
        let offer = Offer { route, resource_url: &resource_url, fee_payer, call };
        let Some(payment) = self.decoded(&offer, request)? else {
            return Ok(self.challenge_response(&offer, Refusal::PaymentRequired));
        };
        let target = target.ok_or_else(|| error(ApiError::UrlMissing))?;
        let identifier = identifier::identifier_of(&payment.decoded.payload)?;
        let identifier = identifier.map(|id| self.binding_key.identifier(id));
        let url = self.binding_key.url(&target);
        let (delivery, early) = match self.first_with(identifier.as_ref(), &payment).await? {
            Some(first) => (self.first_purchase(&offer, &payment, &url, &first).await?, None),
            None => match self.store.claim_of(&payment.id).await.map_err(store_failed)? {
                None => {
                    let payer = self.verify(&offer, &payment, budget).await?;
                    let claim = NewClaim { op: payment.op, url, payer: payer.clone(), identifier };
                    self.claim(&payment, &claim).await?;
                    self.settle_and_fetch(route, &target, &payment, payer, budget).await?
                }
                Some(claim) => (self.known(&offer, &payment, &url, claim, budget).await?, None),
            },
        };
        Ok(self.deliver(&offer, &target, &payment, delivery, early, budget).await)
    }

    /// A cheap read: a store that cannot be reached answers 503 before any payment is
    /// requested or taken. Returns today's UTC day (the day of the rate lookups).
    async fn store_reachable(&self) -> Result<UtcDay, ApiResponse> {
        let today = UtcDay::of((self.clock)()).ok_or_else(|| error(ApiError::ClockOutOfRange))?;
        self.store.get(&today).await.map_err(|_| error(ApiError::StoreUnavailable))?;
        Ok(today)
    }

    /// The payment header decoded once and matched to our terms; None without a header.
    fn decoded(
        &self,
        offer: &Offer<'_>,
        request: &super::ApiRequest,
    ) -> Result<Option<Payment>, ApiResponse> {
        let header = X402Version::ALL.into_iter().find_map(|version| {
            request.headers.get(version.payment_header()).map(|raw| (version, raw))
        });
        let Some((version, raw)) = header else {
            return Ok(None);
        };
        let decoded = match decode_payment_header(version, raw.as_bytes()) {
            Ok(decoded) => decoded,
            Err(refusal) if refusal.is_malformed() => {
                return Err(error(ApiError::PaymentMalformed(refusal)));
            }
            Err(refusal) => return Err(self.challenge_response(offer, Refusal::Terms(refusal))),
        };
        // Empty memo: the terms carry none (v1), and v2's memo is checked apart.
        let terms = self.terms(offer, "");
        let requirements = match (version, &decoded.accepted) {
            (X402Version::V1, _) => Requirements::V1(requirements_v1(&terms)),
            (X402Version::V2, None) => {
                let mismatch = Refusal::Terms(PaymentRefusal::RequirementsMismatch);
                return Err(self.challenge_response(offer, mismatch));
            }
            (X402Version::V2, Some(accepted)) => {
                let issued = requirements_v2(&terms);
                let now = (self.clock)();
                check_v2_accepted(accepted, &issued, &self.memo_key, offer.route, now)
                    .map(Requirements::V2)
                    .map_err(|refusal| self.challenge_response(offer, Refusal::Terms(refusal)))?
            }
        };
        let id = PaymentId(decoded.transaction.identity());
        Ok(Some(Payment { decoded, requirements, id, op: offer.route }))
    }

    /// Claims a verified payment (marker `verified`) for its op and called URL, with its
    /// payer and identifier; a concurrent claim of the same payment won: this request stops,
    /// the other one carries it; another payment took the identifier meanwhile: this one is
    /// not settled, the first one answers for the identifier.
    async fn claim(&self, payment: &Payment, claim: &NewClaim) -> Result<(), ApiResponse> {
        let now = (self.clock)();
        match self.store.claim(&payment.id, claim, now).await.map_err(store_failed)? {
            ClaimOutcome::Claimed => Ok(()),
            ClaimOutcome::AlreadyClaimed => Err(error(ApiError::PaymentInFlight)),
            ClaimOutcome::IdentifierTaken => Err(error(ApiError::PaymentIdentifierPending)),
        }
    }

    /// The payment the identifier names when it is another one than this (the first payment
    /// sent with the id); None without an id, for a new id, or when it names this payment.
    async fn first_with(
        &self,
        identifier: Option<&IdentifierBinding>,
        payment: &Payment,
    ) -> Result<Option<PaymentId>, ApiResponse> {
        let Some(identifier) = identifier else {
            return Ok(None);
        };
        let first = self.store.identified(identifier, (self.clock)()).await;
        Ok(first.map_err(store_failed)?.filter(|first| *first != payment.id))
    }

    /// Another payment sent with the identifier of a first one: never verified nor settled;
    /// answered as the first purchase stands (its verdict again, within the resume rules).
    async fn first_purchase(
        &self,
        offer: &Offer<'_>,
        payment: &Payment,
        url: &UrlBinding,
        first: &PaymentId,
    ) -> Result<Delivery, ApiResponse> {
        let now = (self.clock)();
        let claim = self.store.claim_of(first).await.map_err(store_failed)?;
        let claim = claim.ok_or_else(|| error(ApiError::PaymentIdentifierPending))?;
        if claim.op != payment.op || claim.url.is_some_and(|bound| bound != *url) {
            return Err(error(ApiError::PaymentIdentifierConflict));
        }
        let in_flight = now.0 < claim.claimed_at.0.saturating_add(IN_FLIGHT_MS);
        let delivered = match claim.marker {
            ClaimMarker::NotSettled => {
                return Err(self
                    .challenge_response(offer, Refusal::NotSettled)
                    .with_settlement_failure(payment.decoded.version, Refusal::NotSettled.rule()));
            }
            ClaimMarker::Delivered => true,
            ClaimMarker::Settled if !in_flight => false,
            _ => return Err(error(ApiError::PaymentIdentifierPending)),
        };
        self.resume(first, payment, url, now, delivered)
            .await
            .map_err(|_| error(ApiError::PaymentIdentifierConflict))
    }

    /// A payment this service has seen before: the answer its claim's marker calls for.
    /// A claim without a URL binding (written before bindings were kept) is taken as bound to
    /// this URL; the store resumes it only from `settled`.
    async fn known(
        &self,
        offer: &Offer<'_>,
        payment: &Payment,
        url: &UrlBinding,
        claim: StoredClaim,
        budget: &Budget,
    ) -> Result<Delivery, ApiResponse> {
        let now = (self.clock)();
        if claim.op != payment.op || claim.url.is_some_and(|bound| bound != *url) {
            return Err(error(ApiError::PaymentAlreadyUsed));
        }
        let in_flight_until = claim.claimed_at.0.saturating_add(IN_FLIGHT_MS);
        match claim.marker {
            ClaimMarker::Delivered => self.resume(&payment.id, payment, url, now, true).await,
            ClaimMarker::NotSettled => Err(self
                .challenge_response(offer, Refusal::NotSettled)
                .with_settlement_failure(payment.decoded.version, Refusal::NotSettled.rule())),
            _ if now.0 < in_flight_until => Err(error(ApiError::PaymentInFlight)),
            ClaimMarker::Verified => self.settle(payment, claim.payer, budget).await,
            ClaimMarker::Settling => self.resolve(offer, payment, claim.payer, budget).await,
            ClaimMarker::Settled => self.resume(&payment.id, payment, url, now, false).await,
        }
    }

    /// Another delivery of the verdict of the settled payment `claim` (this payment, or the
    /// first one sent with its identifier): one conditional write, at most
    /// [`crate::store::MAX_RESUMES`] times per payment; refused: 409 already used.
    async fn resume(
        &self,
        claim: &PaymentId,
        payment: &Payment,
        url: &UrlBinding,
        now: payability_core::report::UtcMillis,
        delivered: bool,
    ) -> Result<Delivery, ApiResponse> {
        let resumed = self.store.resume(claim, payment.op, url, now);
        match resumed.await.map_err(store_failed)? {
            ResumeOutcome::Resumed { tx, payer } => {
                Ok(Delivery::resumed(*claim, tx, payer, payment.decoded.version, delivered))
            }
            ResumeOutcome::Refused => Err(error(ApiError::PaymentAlreadyUsed)),
        }
    }
}
