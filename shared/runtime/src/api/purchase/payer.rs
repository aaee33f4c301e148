//! The payer in a purchase, proven by sign-in (x402 sign-in-with-x; the proof itself is
//! [`crate::api::sign_in_proof`]'s): the proof a request carries, verified for the offer's
//! route ([`Service::proof_of`]); the payer's proof, asked of a payment whose transaction may
//! be public on chain ([`Service::payer_of`]); the nonce spent before a verdict is released
//! ([`Service::spend`]); and a payer's latest settled purchase of an op and URL, collected by
//! signing in alone ([`Service::collect`]).

use payability_core::op::PaidOp;
use payability_core::payment::siwx::{ProvenWallet, SignInProof, SignInRefusal};
use payability_core::payment::x402::X402Version;

use super::delivery::Delivery;
use super::offer::Offer;
use super::stop::{Stop, store_failed};
use crate::api::service::{Service, Stores};
use crate::api::sign_in_proof::SignInFailure;
use crate::rules::{ApiError, Refusal};
use crate::store::{
    ClaimMarker, IN_FLIGHT_MS, Retry, StoreError, StoredClaim, UrlBinding, UtcMillis,
};

/// The answer to a refused proof: 400 for a malformed one, else a fresh challenge naming the
/// rule (nothing verified, settled or spent).
fn refused(refusal: SignInRefusal) -> Stop {
    match refusal.is_malformed() {
        true => Stop::error(ApiError::SignInMalformed(refusal)),
        false => Stop::offer(Refusal::SignIn(refusal)),
    }
}

impl<S: Stores> Service<S> {
    /// The wallet the request's proof proves for this offer's route, None without a proof.
    pub(super) fn proof_of(
        &self,
        offer: &Offer<'_>,
        proof: Option<Result<SignInProof, SignInRefusal>>,
    ) -> Result<Option<ProvenWallet>, Stop> {
        proof.map(|proof| self.verified(offer.resource_url, proof)).transpose().map_err(refused)
    }

    /// The request's proven wallet when it is the one that paid for `claim`: only then does a
    /// payment whose transaction may be public on chain buy anything (else the answer is the
    /// same whatever op and URL the request names, so that whoever holds the chain's copy of
    /// the payment learns nothing of what it bought).
    pub(super) fn payer_of<'p>(
        &self,
        claim: &StoredClaim,
        proven: Option<&'p ProvenWallet>,
    ) -> Option<&'p ProvenWallet> {
        proven.filter(|proven| claim.payer.as_ref() == Some(&proven.wallet))
    }

    /// Spends the proof's nonce before a verdict is released: used before, a fresh challenge.
    pub(super) async fn spend(&self, proven: &ProvenWallet, now: UtcMillis) -> Result<(), Stop> {
        match self.spend_nonce(proven, now).await {
            Ok(()) => Ok(()),
            Err(SignInFailure::Refused(refusal)) => Err(refused(refusal)),
            Err(SignInFailure::StoreUnavailable) => Err(store_failed(StoreError::Unavailable)),
        }
    }

    /// A request signed in without a payment: the wallet's latest settled purchase of `op`
    /// for the URL bound by `url`, delivered again within the resume rules once its original
    /// request has ended (younger than 30 s and undelivered: 409 in flight), the nonce spent
    /// first; none: a fresh challenge (pay).
    pub(super) async fn collect(
        &self,
        op: PaidOp,
        url: &UrlBinding,
        proven: &ProvenWallet,
    ) -> Result<Delivery, Stop> {
        let now = (self.clock)();
        let purchase = self.binding_key.purchase(&proven.wallet, op, url);
        let nothing = || Stop::offer(Refusal::NothingToCollect);
        let found = self.store.purchase_of(&purchase, now).await.map_err(store_failed)?;
        let id = found.ok_or_else(nothing)?;
        let claim = self.store.claim_of(&id).await.map_err(store_failed)?.ok_or_else(nothing)?;
        let delivered = claim.marker == ClaimMarker::Delivered;
        if !delivered && now.0 < claim.claimed_at.0.saturating_add(IN_FLIGHT_MS) {
            return Err(Stop::error(ApiError::PaymentInFlight));
        }
        self.spend(proven, now).await?;
        self.resume(&Retry { id, op, url: *url }, X402Version::V2, now, delivered).await
    }
}
