//! Money moves here: the facilitator's `/verify` and `/settle`, and, when a settlement's
//! outcome was not learnt, the chain's word on it (Solana RPC). Every facilitator answer
//! is typed ([`Verified`], [`Settled`], [`FacilitatorError`]); every claim move is a
//! conditional write, so one payment settles at most once whatever retries race.

use super::delivery::Delivery;
use super::offer::Payment;
use super::stop::{Stop, store_failed};
use crate::api::service::{Service, Stores};
use crate::budget::Budget;
use crate::payment::facilitator::{FacilitatorError, REQUEST_TIMEOUT, SETTLE_TIMEOUT, Settled};
use crate::payment::solana_rpc::{Landing, find_landing};
use crate::rules::{ApiError, Refusal};
use crate::store::{
    AdvanceOutcome, Base58Id, Counter, SettledPurchase, Transition, UrlBinding, UtcMillis,
};

/// How long the chain lookup of an unknown settlement may take.
pub(super) const LANDING_LOOKUP_BOUND: std::time::Duration = std::time::Duration::from_secs(3);

impl<S: Stores> Service<S> {
    /// `/verify`; returns the payer the facilitator names. Refused: 402 with a fresh
    /// challenge; unreachable or out of time: 503 (`/settle` was never called).
    pub(super) async fn verify(
        &self,
        payment: &Payment,
        budget: &Budget,
    ) -> Result<Option<Base58Id>, Stop> {
        let facilitator =
            self.facilitator.as_ref().ok_or(Stop::error(ApiError::PaymentsUnavailable))?;
        let bound = budget
            .before_settle(REQUEST_TIMEOUT)
            .ok_or(Stop::error(ApiError::PaymentNotStarted))?;
        let decoded = &payment.decoded;
        let call = facilitator.verify(decoded.version, &decoded.payload, &payment.requirements);
        match tokio::time::timeout(bound, call).await {
            Ok(Ok(verified)) => Ok(verified.payer),
            Ok(Err(FacilitatorError::Refused(reason))) => {
                self.count(Counter::PaymentFailure).await;
                Err(Stop::offer(Refusal::NotVerified(reason)))
            }
            Ok(Err(_)) | Err(_) => Err(Stop::error(ApiError::FacilitatorUnavailable)),
        }
    }

    /// Moves a `verified` claim to `settling`, then calls `/settle` within the budget.
    /// Only a clean success on our network settles it; anything else leaves the claim
    /// `settling` (the chain decides on retry) and answers 503 outcome unknown.
    pub(super) async fn settle(
        &self,
        payment: &Payment,
        payer: Option<Base58Id>,
        url: &UrlBinding,
        budget: &Budget,
    ) -> Result<Delivery, Stop> {
        let facilitator =
            self.facilitator.as_ref().ok_or(Stop::error(ApiError::PaymentsUnavailable))?;
        let bound =
            budget.settle(SETTLE_TIMEOUT).ok_or(Stop::error(ApiError::PaymentNotStarted))?;
        match self.store.advance(&payment.id, &Transition::Settle).await.map_err(store_failed)? {
            AdvanceOutcome::Advanced => {}
            AdvanceOutcome::NotAtMarker => return Err(Stop::error(ApiError::PaymentInFlight)),
        }
        let decoded = &payment.decoded;
        let call = facilitator.settle(decoded.version, &decoded.payload, &payment.requirements);
        let settled = match tokio::time::timeout(bound, call).await {
            Ok(Ok(settled)) => settled,
            Ok(Err(failure)) => {
                tracing::warn!(rule = failure.rule(), "a settlement's outcome is unknown");
                self.count(Counter::PaymentFailure).await;
                return Err(unknown(payment));
            }
            Err(_) => {
                tracing::warn!(rule = "settle_timeout", "a settlement's outcome is unknown");
                return Err(unknown(payment));
            }
        };
        let Settled { transaction, payer: settled_payer, response } = settled;
        let payer = payer.or(settled_payer);
        self.record_settlement(payment, &transaction, payer.as_ref(), url).await;
        Ok(Delivery::fresh(payment.id, transaction, payer, response))
    }

    /// A `settling` claim whose outcome was not learnt: the chain says whether a
    /// transaction with this payment's message landed since the claim (`claimed_at`).
    /// Landed: settled now (no second `/settle`). Can never land: `not_settled`, 402.
    /// Otherwise still unknown: 503.
    pub(super) async fn resolve(
        &self,
        payment: &Payment,
        payer: Option<Base58Id>,
        claimed_at: UtcMillis,
        url: &UrlBinding,
        budget: &Budget,
    ) -> Result<Delivery, Stop> {
        let Some(rpc_url) = &self.config.solana_rpc_url else {
            return Err(Stop::error(ApiError::SettlementOutcomeUnknown));
        };
        let bound = budget
            .settle(LANDING_LOOKUP_BOUND)
            .ok_or(Stop::error(ApiError::SettlementOutcomeUnknown))?;
        let transaction = &payment.decoded.transaction;
        let landing = find_landing(&self.rpc_client, rpc_url, transaction, claimed_at, bound)
            .await
            .map_err(|_| Stop::error(ApiError::SettlementOutcomeUnknown))?;
        match landing {
            Landing::Landed { signature: tx, failed: false } => {
                let settled = self.settled(payment, &tx, payer.as_ref(), url);
                match self.store.advance(&payment.id, &settled).await.map_err(store_failed)? {
                    AdvanceOutcome::Advanced => {
                        let version = payment.decoded.version;
                        Ok(Delivery::resumed(payment.id, tx, payer, version, false))
                    }
                    AdvanceOutcome::NotAtMarker => Err(Stop::error(ApiError::PaymentInFlight)),
                }
            }
            Landing::Landed { failed: true, .. } | Landing::NeverLands => {
                let never = Transition::NeverSettled;
                match self.store.advance(&payment.id, &never).await.map_err(store_failed)? {
                    AdvanceOutcome::Advanced => {
                        let not_settled = Stop::offer(Refusal::NotSettled);
                        Err(not_settled.with_failed_settlement(payment.decoded.version))
                    }
                    AdvanceOutcome::NotAtMarker => Err(Stop::error(ApiError::PaymentInFlight)),
                }
            }
            Landing::NotYet => Err(Stop::error(ApiError::SettlementOutcomeUnknown)),
        }
    }

    /// Records a settlement with its claim (settling -> settled). Money moved, so a store
    /// failure here never withholds the verdict: the claim stays `settling` and a retry
    /// would find the transaction on chain.
    async fn record_settlement(
        &self,
        payment: &Payment,
        tx: &Base58Id,
        payer: Option<&Base58Id>,
        url: &UrlBinding,
    ) {
        let settled = self.settled(payment, tx, payer, url);
        if !matches!(self.store.advance(&payment.id, &settled).await, Ok(AdvanceOutcome::Advanced))
        {
            tracing::error!(rule = "settlement_unrecorded", "a settled claim is still settling");
        }
    }

    /// The move to `settled` with transaction `tx`, mapping the payer's purchase of this op
    /// and URL to this payment when the payer is known (what a signed-in payer collects).
    fn settled(
        &self,
        payment: &Payment,
        tx: &Base58Id,
        payer: Option<&Base58Id>,
        url: &UrlBinding,
    ) -> Transition {
        let at = (self.clock)();
        let binding = |payer| self.binding_key.purchase(payer, payment.op, url);
        let purchase = payer.map(|payer| SettledPurchase { binding: binding(payer), at });
        Transition::Settled { tx: tx.clone(), purchase }
    }
}

/// 503 settlement outcome unknown, with the settlement answer x402 clients read:
/// `success: false` (not settled as far as this request knows; retry the same payment).
fn unknown(payment: &Payment) -> Stop {
    let unknown = Stop::error(ApiError::SettlementOutcomeUnknown);
    unknown.with_failed_settlement(payment.decoded.version)
}
