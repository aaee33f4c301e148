//! Spent sign-in nonces: a nonce spends once until its proof expires.

use payability_core::payment::siwx::ProofNonce;
use rusqlite::params;

use super::{SqliteStore, epoch_seconds};
use crate::store::{NonceSpend, ProofNonces, StoreError, UtcMillis, nonce_key};

impl ProofNonces for SqliteStore {
    async fn spend_nonce(
        &self,
        nonce: &ProofNonce,
        until: UtcMillis,
        now: UtcMillis,
    ) -> Result<NonceSpend, StoreError> {
        let key = nonce_key(nonce);
        self.in_sweeping_transaction(now, move |transaction| {
            let spent = transaction
                .prepare_cached(
                    "INSERT INTO sign_in_nonces (pk, spent_until_ms, expires_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (pk) DO UPDATE SET spent_until_ms = excluded.spent_until_ms,
                     expires_at = excluded.expires_at WHERE sign_in_nonces.spent_until_ms < ?4",
                )?
                .execute(params![key, until.0, epoch_seconds(until.0), now.0])?;
            Ok(if spent == 1 { NonceSpend::Spent } else { NonceSpend::AlreadySpent })
        })
        .await
    }
}
