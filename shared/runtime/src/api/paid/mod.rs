//! The paid routes (`POST /check`, `POST /memo`) as one state machine. A request moves one
//! way through these states; every arrow that can fail says what the buyer is told:
//!
//! ```text
//! vetted (free: body, JSON, URL policy, store reachable)
//!   -> offered        no payment header: 402 with our challenge
//!   -> decoded        payment decoded once (core); malformed 400, wrong terms 402
//!   -> known?         the claim of this payment's identity (its transaction message):
//!                       delivered / other op ........ 409 payment_already_used (no /verify)
//!                       not_settled ................. 402 payment_not_settled
//!                       younger than 30 s ........... 409 payment_in_flight
//!                       verified (abandoned) ........ -> settling (take over, once)
//!                       settling (outcome unknown) .. ask the chain: landed -> settled,
//!                                                     can never land -> not_settled (402),
//!                                                     else 503 settlement_outcome_unknown
//!                       settled, undelivered ........ -> delivered again (resume, <= 3)
//!   -> verified       facilitator /verify; refused 402, unreachable 503 (nothing settled)
//!   -> claimed        conditional write, marker `verified`; a lost race is 409 in flight
//!   -> settling       marker `settling` first, then /settle within the budget; anything but
//!                     a clean success on our network: 503 settlement_outcome_unknown
//!   -> settled        marker `settled` with the transaction
//!   -> fetched, graded, ledgered (unique per transaction), counted (once), delivered (200)
//! ```
//!
//! The claim markers and their moves are [`crate::store::ClaimMarker`] and
//! [`crate::store::Transition`]; the time bounds are [`super::budget`].

mod answers;
mod delivery;
mod settlement;

use http::StatusCode;
use payability_core::challenge::{NETWORK_V1, NETWORK_V2, requirements_v1, requirements_v2};
use payability_core::payment::memo::PaidRoute;
use payability_core::payment::x402::{
    DecodedPayment, V1_PAYMENT_HEADER, V1_RESPONSE_HEADER, V2_PAYMENT_HEADER, V2_RESPONSE_HEADER,
    check_v2_accepted, decode_payment_header,
};
use payability_core::policy::{TargetUrl, vet_target_url};
use serde::Deserialize;
use serde_json::{Value, json};

use super::budget::Budget;
use super::respond::{ApiResponse, error, json_response};
use super::service::{Offer, Service, Stores};
use crate::store::{
    ClaimMarker, ClaimOutcome, IN_FLIGHT_MS, PaidOp, PaymentId, ResumeOutcome, StoredClaim, UtcDay,
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
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    shape: &'static str,
) -> Result<T, ApiResponse> {
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        error(StatusCode::BAD_REQUEST, "body_not_json", "the request body must be one JSON object")
    })?;
    serde_json::from_value(value)
        .map_err(|_| error(StatusCode::BAD_REQUEST, "body_wrong_shape", shape))
}

/// The submitted URL, vetted free; a refusal is a 400 naming its rule.
pub(super) fn vetted(
    url: &str,
    rule: payability_core::policy::AddressRule,
) -> Result<TargetUrl, ApiResponse> {
    vet_target_url(url, rule).map_err(|r| error(StatusCode::BAD_REQUEST, r.rule(), r.message()))
}

/// The op a route sells, as the store names it.
fn paid_op(route: PaidRoute) -> PaidOp {
    match route {
        PaidRoute::Check => PaidOp::Check,
        PaidRoute::Memo => PaidOp::Memo,
    }
}

/// How the payment reached us: the header it came in and the network it pays on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    /// `X-PAYMENT`, network `solana`.
    V1,
    /// `PAYMENT-SIGNATURE`, network CAIP-2 Solana mainnet.
    V2,
}

impl Version {
    /// The header the settlement answer goes back in.
    fn response_header(self) -> &'static str {
        match self {
            Self::V1 => V1_RESPONSE_HEADER,
            Self::V2 => V2_RESPONSE_HEADER,
        }
    }

    /// The network name of this version.
    fn network(self) -> &'static str {
        match self {
            Self::V1 => NETWORK_V1,
            Self::V2 => NETWORK_V2,
        }
    }

    /// The `x402Version` number.
    fn number(self) -> u8 {
        match self {
            Self::V1 => 1,
            Self::V2 => 2,
        }
    }
}

/// A decoded payment matched to our terms: everything the facilitator and the store need.
pub(super) struct Payment {
    version: Version,
    decoded: DecodedPayment,
    /// The requirements the facilitator checks it against.
    requirements: Value,
    /// The claim key: the SHA-256 of the transaction message.
    id: PaymentId,
    /// The op it pays for.
    op: PaidOp,
}

impl<S: Stores> Service<S> {
    /// `GET /check`, `GET /memo`: the route's challenge, for crawlers and for self-checks.
    pub(super) async fn unpaid_challenge(
        &self,
        route: PaidRoute,
        request: &super::ApiRequest,
    ) -> ApiResponse {
        let resource_url = match self.resource_url(route, request) {
            Ok(url) => url,
            Err(response) => return response,
        };
        match self.fee_payer().await {
            Some(fee_payer) => {
                let offer = Offer { route, resource_url: &resource_url, fee_payer };
                self.challenge_response(&offer, "payment required")
            }
            None => payments_unavailable(),
        }
    }

    /// A 402 carrying our challenge; `reason` is static text placed in the body's `error`.
    pub(super) fn challenge_response(
        &self,
        offer: &Offer<'_>,
        reason: &'static str,
    ) -> ApiResponse {
        let challenge = self.challenge(offer);
        let mut body: Value =
            serde_json::from_slice(&challenge.body).expect("our challenge is JSON");
        body["error"] = json!(reason);
        json_response(StatusCode::PAYMENT_REQUIRED, &body)
            .with_header("payment-required", &challenge.payment_required)
    }

    /// `POST /check`, `POST /memo`.
    pub(super) async fn paid(&self, route: PaidRoute, request: &super::ApiRequest) -> ApiResponse {
        let budget = Budget::start(route);
        match self.paid_flow(route, request, &budget).await {
            Ok(response) | Err(response) => response,
        }
    }

    /// The state machine of the module documentation, one state per line.
    async fn paid_flow(
        &self,
        route: PaidRoute,
        request: &super::ApiRequest,
        budget: &Budget,
    ) -> Result<ApiResponse, ApiResponse> {
        let body: PaidBody =
            parse_body(&request.body, "the body must be {\"url\": \"<endpoint>\"}")?;
        let target = vetted(&body.url, self.config.address_rule)?;
        let resource_url = self.resource_url(route, request)?;
        let today = self.store_reachable().await?;
        if self.is_house(&request.headers) {
            return Ok(self.deliver_house(route, &target, today).await);
        }
        let fee_payer = self.fee_payer().await.ok_or_else(payments_unavailable)?;
        let offer = Offer { route, resource_url: &resource_url, fee_payer };
        let Some(payment) = self.decoded(&offer, request)? else {
            return Ok(self.challenge_response(&offer, "payment required"));
        };
        let delivery = match self.store.claim_of(&payment.id).await.map_err(store_failed)? {
            None => {
                let payer = self.verify(&offer, &payment, budget).await?;
                self.claim(&payment).await?;
                self.settle(&payment, payer, budget).await?
            }
            Some(claim) => self.known(&offer, &payment, claim, budget).await?,
        };
        Ok(self.deliver(&offer, &target, &payment, delivery, budget).await)
    }

    /// A cheap read: a store that cannot be reached answers 503 before any payment is
    /// requested or taken. Returns today's UTC day (the day of the rate lookups).
    async fn store_reachable(&self) -> Result<UtcDay, ApiResponse> {
        let today = UtcDay::of((self.clock)()).ok_or_else(clock_out_of_range)?;
        self.store.get(&today).await.map_err(|_| store_unavailable())?;
        Ok(today)
    }

    /// The payment header decoded once and matched to our terms; None without a header.
    fn decoded(
        &self,
        offer: &Offer<'_>,
        request: &super::ApiRequest,
    ) -> Result<Option<Payment>, ApiResponse> {
        let v2 = request.headers.get(V2_PAYMENT_HEADER).map(|raw| (Version::V2, raw));
        let Some((version, raw)) =
            v2.or_else(|| request.headers.get(V1_PAYMENT_HEADER).map(|raw| (Version::V1, raw)))
        else {
            return Ok(None);
        };
        let decoded = match decode_payment_header(version.number(), raw.as_bytes()) {
            Ok(decoded) => decoded,
            Err(refusal) if refusal.is_malformed() => {
                return Err(error(StatusCode::BAD_REQUEST, refusal.rule(), refusal.message()));
            }
            Err(refusal) => return Err(self.challenge_response(offer, refusal.message())),
        };
        // Empty memo: the terms carry none (v1), and v2's memo is checked apart.
        let terms = self.terms(offer, "");
        let requirements = match (version, &decoded.accepted) {
            (Version::V1, _) => requirements_v1(&terms),
            (Version::V2, None) => {
                return Err(self.challenge_response(offer, "payment requirements mismatch"));
            }
            (Version::V2, Some(accepted)) => {
                let issued = requirements_v2(&terms);
                check_v2_accepted(accepted, &issued, &self.memo_key, offer.route, (self.clock)())
                    .map_err(|refusal| self.challenge_response(offer, refusal.message()))?;
                accepted.clone()
            }
        };
        let id = PaymentId(decoded.transaction.identity());
        Ok(Some(Payment { version, decoded, requirements, id, op: paid_op(offer.route) }))
    }

    /// Claims a verified payment (marker `verified`); a concurrent claim of the same
    /// payment won: this request stops, the other one carries it.
    async fn claim(&self, payment: &Payment) -> Result<(), ApiResponse> {
        let now = (self.clock)();
        match self.store.claim(&payment.id, payment.op, now).await.map_err(store_failed)? {
            ClaimOutcome::Claimed => Ok(()),
            ClaimOutcome::AlreadyClaimed => Err(in_flight()),
        }
    }

    /// A payment this service has seen before: the answer its claim's marker calls for.
    async fn known(
        &self,
        offer: &Offer<'_>,
        payment: &Payment,
        claim: StoredClaim,
        budget: &Budget,
    ) -> Result<Delivery, ApiResponse> {
        let now = (self.clock)();
        if claim.op != payment.op {
            return Err(already_used());
        }
        let in_flight_until = claim.claimed_at.0.saturating_add(IN_FLIGHT_MS);
        match claim.marker {
            ClaimMarker::Delivered => Err(already_used()),
            ClaimMarker::NotSettled => Err(self.not_settled(offer)),
            _ if now.0 < in_flight_until => Err(in_flight()),
            ClaimMarker::Verified => self.settle(payment, None, budget).await,
            ClaimMarker::Settling => self.resolve(offer, payment, budget).await,
            ClaimMarker::Settled => {
                match self.store.resume(&payment.id, payment.op, now).await.map_err(store_failed)? {
                    ResumeOutcome::Resumed { tx } => Ok(Delivery::resumed(tx, payment.version)),
                    ResumeOutcome::Refused => Err(already_used()),
                }
            }
        }
    }
}
