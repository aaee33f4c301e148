//! One purchase of a verdict, whatever carries it: a typed [`PaidCall`] in, a typed
//! [`PurchaseOutcome`] out (a challenge, a closed-form error, or the signed verdict, each
//! with the settlement answer x402 clients read), at the seam of [`call`]. No header, status
//! or body is decided here: each transport (`super::http`, `super::mcp`, `super::a2a`) is an
//! adapter that reads its request into a call and renders the outcome. The state machine is
//! described once, with every answer, in `docs/paid-flow.md`.
//!
//! The claim markers and their moves are [`crate::store::ClaimMarker`] and
//! [`crate::store::Transition`]; the time bounds are [`crate::budget`].

mod call;
mod delivery;
mod early;
mod identifier;
mod offer;
mod outcome;
mod payer;
mod settlement;
mod stop;

use payability_core::challenge::{requirements_v1, requirements_v2};
use payability_core::payment::receipt::did_web;
use payability_core::payment::siwx::ProvenWallet;
use payability_core::payment::x402::{
    DecodedPayment, PaymentRefusal, Requirements, X402Version, check_v2_accepted,
};
use payability_core::policy::TargetUrl;

use super::service::{Service, Stores};
use crate::budget::Budget;
use crate::rules::{ApiError, Refusal};
use crate::store::{
    ClaimMarker, ClaimOutcome, IN_FLIGHT_MS, IdentifierBinding, NewClaim, PaymentId, ResumeOutcome,
    Retry, StoredClaim, UrlBinding, UtcDay, UtcMillis,
};
use call::PurchaseRequest;
pub(in crate::api) use call::{PaidArguments, PaidCall, Presented, fields_of};
use delivery::Delivery;
pub(in crate::api) use offer::Offer;
use offer::Payment;
pub(in crate::api) use outcome::PurchaseOutcome;
use stop::{Stop, store_failed};

impl<S: Stores> Service<S> {
    /// Our challenge for an offer, carrying `refusal`'s rule and message in both legs.
    pub(in crate::api) fn offered(&self, offer: &Offer<'_>, refusal: Refusal) -> PurchaseOutcome {
        Stop::offer(refusal).answer(|refusal| self.challenge(offer, refusal))
    }

    /// Carries one purchase to its outcome.
    async fn purchase(&self, request: PurchaseRequest) -> PurchaseOutcome {
        let budget = Budget::start(request.op);
        let today = match self.store_reachable().await {
            Ok(today) => today,
            Err(error) => return PurchaseOutcome::error(error),
        };
        if request.house {
            return match &request.target {
                Some(target) => self.deliver_house(request.op, target, today).await,
                None => PurchaseOutcome::error(ApiError::UrlMissing),
            };
        }
        let Some(fee_payer) = self.fee_payer().await else {
            return PurchaseOutcome::error(ApiError::PaymentsUnavailable);
        };
        let receipt_did = did_web(&request.base_url);
        let offer = Offer {
            route: request.op,
            resource_url: &request.resource_url,
            fee_payer,
            call: request.call,
            receipt_did: receipt_did.as_deref(),
        };
        let presented = Presented { payment: request.payment, proof: request.proof };
        // On the heap: the flow's future is large, and a debug build polls it deep.
        let flow = Box::pin(self.paid_flow(&offer, request.target, presented, &budget));
        match flow.await {
            Ok(outcome) => outcome,
            Err(stop) => stop.answer(|refusal| self.challenge(&offer, refusal)),
        }
    }

    /// The state machine of the module documentation, one state per line.
    async fn paid_flow(
        &self,
        offer: &Offer<'_>,
        target: Option<TargetUrl>,
        presented: Presented,
        budget: &Budget,
    ) -> Result<PurchaseOutcome, Stop> {
        let proven = self.proof_of(offer, presented.proof)?;
        let Some(payment) = presented.payment else {
            let proven = proven.ok_or(Stop::offer(Refusal::PaymentRequired))?;
            let target = target.ok_or(Stop::error(ApiError::UrlMissing))?;
            let url = self.binding_key.url(&target);
            let delivery = self.collect(offer.route, &url, &proven).await?;
            return Ok(self.deliver(offer, &target, delivery, None, budget).await);
        };
        let payment = self.matched(offer, payment)?;
        let target = target.ok_or(Stop::error(ApiError::UrlMissing))?;
        let identifier = identifier::identifier_of(&payment.decoded.payload)?;
        let identifier = identifier.map(|id| self.binding_key.identifier(id));
        self.id_names_no_other(identifier.as_ref(), &payment).await?;
        let url = self.binding_key.url(&target);
        let known = self.store.claim_of(&payment.id).await.map_err(store_failed)?;
        let (delivery, early) = match known {
            Some(claim) => {
                (self.known(&payment, &url, claim, proven.as_ref(), budget).await?, None)
            }
            None => match self.verify(&payment, budget).await {
                Ok(payer) => {
                    let id = payment.id;
                    let claim =
                        NewClaim { id, op: payment.op, url, payer: payer.clone(), identifier };
                    self.claim(&claim).await?;
                    self.settle_and_fetch(offer.route, &target, &payment, &url, payer, budget)
                        .await?
                }
                Err(refused) => {
                    let known = self.claimed_meanwhile(&payment, &url, proven.as_ref(), budget);
                    (known.await.unwrap_or(Err(refused))?, None)
                }
            },
        };
        Ok(self.deliver(offer, &target, delivery, early, budget).await)
    }

    /// A cheap read: a store that cannot be reached answers 503 before any payment is
    /// requested or taken. Returns today's UTC day (the day of the rate lookups).
    async fn store_reachable(&self) -> Result<UtcDay, ApiError> {
        let today = UtcDay::of((self.clock)()).ok_or(ApiError::ClockOutOfRange)?;
        self.store.get(&today).await.map_err(|_| ApiError::StoreUnavailable)?;
        Ok(today)
    }

    /// The presented payment matched to our terms: malformed, a closed-form error; for other
    /// terms, a fresh challenge naming the field.
    fn matched(
        &self,
        offer: &Offer<'_>,
        presented: Result<DecodedPayment, PaymentRefusal>,
    ) -> Result<Payment, Stop> {
        let decoded = match presented {
            Ok(decoded) => decoded,
            Err(refusal) if refusal.is_malformed() => {
                return Err(Stop::error(ApiError::PaymentMalformed(refusal)));
            }
            Err(refusal) => return Err(Stop::offer(Refusal::Terms(refusal))),
        };
        // Empty memo: the terms carry none (v1), and v2's memo is checked apart.
        let terms = self.terms(offer, "");
        let requirements = match (decoded.version, &decoded.accepted) {
            (X402Version::V1, _) => Requirements::V1(requirements_v1(&terms)),
            (X402Version::V2, None) => {
                return Err(Stop::offer(Refusal::Terms(PaymentRefusal::RequirementsMismatch)));
            }
            (X402Version::V2, Some(accepted)) => {
                let issued = requirements_v2(&terms);
                let now = (self.clock)();
                check_v2_accepted(accepted, &issued, &self.memo_key, offer.route, now)
                    .map(Requirements::V2)
                    .map_err(|refusal| Stop::offer(Refusal::Terms(refusal)))?
            }
        };
        let id = PaymentId(decoded.transaction.identity());
        Ok(Payment { decoded, requirements, id, op: offer.route })
    }

    /// Claims a verified payment (marker `verified`) for its op and called URL, with its
    /// payer and identifier; a concurrent claim of the same payment won: this request stops,
    /// the other one carries it; another payment took the identifier meanwhile: this one is
    /// not settled (409 identifier conflict).
    async fn claim(&self, claim: &NewClaim) -> Result<(), Stop> {
        let now = (self.clock)();
        match self.store.claim(claim, now).await.map_err(store_failed)? {
            ClaimOutcome::Claimed => Ok(()),
            ClaimOutcome::AlreadyClaimed => Err(Stop::error(ApiError::PaymentInFlight)),
            ClaimOutcome::IdentifierTaken => Err(Stop::error(ApiError::PaymentIdentifierConflict)),
        }
    }

    /// A `payment-identifier` id names one payment: the id of another payment (the first sent
    /// with it, claimed less than 24 h ago) is 409 `payment_identifier_conflict`, before any
    /// call to the facilitator. Without an id, a new id or this payment's own: nothing.
    async fn id_names_no_other(
        &self,
        identifier: Option<&IdentifierBinding>,
        payment: &Payment,
    ) -> Result<(), Stop> {
        let Some(identifier) = identifier else {
            return Ok(());
        };
        let first = self.store.identified(identifier, (self.clock)()).await;
        match first.map_err(store_failed)? {
            Some(first) if first != payment.id => {
                Err(Stop::error(ApiError::PaymentIdentifierConflict))
            }
            _ => Ok(()),
        }
    }

    /// After `/verify` did not pass: a concurrent request carrying this payment may have
    /// claimed it meanwhile (and settled it), so the claim is read again; one that appeared
    /// answers as that known payment. None when there is still no claim (or it cannot be
    /// read): the refusal stands.
    async fn claimed_meanwhile(
        &self,
        payment: &Payment,
        url: &UrlBinding,
        proven: Option<&ProvenWallet>,
        budget: &Budget,
    ) -> Option<Result<Delivery, Stop>> {
        let claim = self.store.claim_of(&payment.id).await.ok()??;
        Some(self.known(payment, url, claim, proven, budget).await)
    }

    /// A payment this service has seen before: the answer its claim's marker calls for. What
    /// does not depend on who asks is answered to anyone, whatever op and URL they name:
    /// `not_settled`; in flight (younger than 30 s and not delivered yet: its first request
    /// may still be carrying it). A `verified` payment was never sent to `/settle`, so its
    /// bytes are still only its payer's: taken over. Once `/settle` was called the transaction
    /// may be public on chain, so its verdict (settled, delivered, or found on chain) goes only
    /// to a request signed in by the payer ([`Self::payer_of`]); to anyone else, the sign-in
    /// challenge. A claim without a URL binding (written before bindings were kept) is taken
    /// as bound to this URL; the store resumes it only from `settled`.
    async fn known(
        &self,
        payment: &Payment,
        url: &UrlBinding,
        claim: StoredClaim,
        proven: Option<&ProvenWallet>,
        budget: &Budget,
    ) -> Result<Delivery, Stop> {
        let now = (self.clock)();
        let in_flight = now.0 < claim.claimed_at.0.saturating_add(IN_FLIGHT_MS);
        let elsewhere = claim.op != payment.op || claim.url.is_some_and(|bound| bound != *url);
        let payer = self.payer_of(&claim, proven);
        match claim.marker {
            ClaimMarker::NotSettled => {
                return Err(Stop::offer(Refusal::NotSettled)
                    .with_failed_settlement(payment.decoded.version));
            }
            ClaimMarker::Delivered => {}
            _ if in_flight => return Err(Stop::error(ApiError::PaymentInFlight)),
            ClaimMarker::Verified if elsewhere => {
                return Err(Stop::error(ApiError::PaymentAlreadyUsed));
            }
            ClaimMarker::Verified => return self.settle(payment, claim.payer, url, budget).await,
            ClaimMarker::Settling | ClaimMarker::Settled => {}
        }
        let payer = payer.ok_or(Stop::offer(Refusal::SignInAsPayer))?;
        if elsewhere {
            return Err(Stop::error(ApiError::PaymentAlreadyUsed));
        }
        let retry = Retry { id: payment.id, op: payment.op, url: *url };
        let version = payment.decoded.version;
        match claim.marker {
            ClaimMarker::Settling => {
                let delivery =
                    self.resolve(payment, claim.payer, claim.claimed_at, url, budget).await?;
                self.spend(payer, now).await?;
                Ok(delivery)
            }
            marker => {
                self.spend(payer, now).await?;
                self.resume(&retry, version, now, marker == ClaimMarker::Delivered).await
            }
        }
    }

    /// Another delivery of the verdict of a settled payment: one conditional write, at most
    /// [`crate::store::MAX_RESUMES`] times per payment; refused: 409 already used.
    async fn resume(
        &self,
        retry: &Retry,
        version: X402Version,
        now: UtcMillis,
        delivered: bool,
    ) -> Result<Delivery, Stop> {
        match self.store.resume(retry, now).await.map_err(store_failed)? {
            ResumeOutcome::Resumed { tx, payer } => {
                Ok(Delivery::resumed(retry.id, tx, payer, version, delivered))
            }
            ResumeOutcome::Refused => Err(Stop::error(ApiError::PaymentAlreadyUsed)),
        }
    }
}
