//! Sign-in nonces: each one a sign-in-with-x challenge of ours carried, spent once by the
//! proof that answers it (one conditional write), kept until that proof could no longer be
//! presented, so that a captured `SIGN-IN-WITH-X` value grants nothing a second time.

use std::future::Future;

use payability_core::payment::siwx::ProofNonce;

use super::common::{StoreError, UtcMillis};

/// Spending sign-in nonces.
pub trait ProofNonces: Send + Sync {
    /// Spends `nonce` until `until` (one conditional write): [`NonceSpend::Spent`] when it
    /// was never spent or its earlier spend ended before `now`, else
    /// [`NonceSpend::AlreadySpent`] and nothing is written. A write whose answer was lost and
    /// retried recognises itself as the spend.
    fn spend_nonce(
        &self,
        nonce: &ProofNonce,
        until: UtcMillis,
        now: UtcMillis,
    ) -> impl Future<Output = Result<NonceSpend, StoreError>> + Send;
}

/// The key of a nonce's item: `sign-in-nonce:<32 hex digits>`.
pub fn nonce_key(nonce: &ProofNonce) -> String {
    format!("sign-in-nonce:{}", nonce.as_str())
}

/// The outcome of spending a nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonceSpend {
    /// This call spent it.
    Spent,
    /// An earlier proof spent it.
    AlreadySpent,
}
