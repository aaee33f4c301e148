//! Sign-in proofs (x402 sign-in-with-x), the same for every route that takes one: verified
//! for the URL of the route it is sent to ([`Service::verified`]), and its nonce spent once,
//! before anything is granted ([`Service::spend_nonce`]). What a proven wallet may do is the
//! route's: the purchase's re-delivery to the payer (`purchase/payer.rs`), the pre-check's
//! wallet allowance (`precheck.rs`).

use payability_core::payment::siwx::{
    ProvenWallet, SignInProof, SignInRefusal, SignInScope, verify_proof,
};

use super::service::{Service, Stores};
use crate::store::{NonceSpend, UtcMillis};

/// Why a sign-in did not pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SignInFailure {
    /// The proof was refused (its nonce spent before included).
    Refused(SignInRefusal),
    /// The store could not spend the nonce.
    StoreUnavailable,
}

impl<S: Stores> Service<S> {
    /// The wallet a presented proof proves for requests to `resource_url` (the route's
    /// public URL), at this instant.
    pub(super) fn verified(
        &self,
        resource_url: &str,
        proof: Result<SignInProof, SignInRefusal>,
    ) -> Result<ProvenWallet, SignInRefusal> {
        let scope = SignInScope::of(resource_url).ok_or(SignInRefusal::DomainMismatch)?;
        verify_proof(&proof?, &scope, (self.clock)(), &self.nonce_key)
    }

    /// Spends the proof's nonce (one conditional write) at `now`; spent before: refused.
    pub(super) async fn spend_nonce(
        &self,
        proven: &ProvenWallet,
        now: UtcMillis,
    ) -> Result<(), SignInFailure> {
        match self.store.spend_nonce(&proven.nonce, proven.spend_until, now).await {
            Ok(NonceSpend::Spent) => Ok(()),
            Ok(NonceSpend::AlreadySpent) => Err(SignInFailure::Refused(SignInRefusal::NonceUsed)),
            Err(_) => Err(SignInFailure::StoreUnavailable),
        }
    }
}
