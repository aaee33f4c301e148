//! Spent sign-in nonces: items of the payments table, `sign-in-nonce:<nonce>`, with the
//! instant their proof stops being valid (`spent_until_ms`, and TTL `expires_at`) and the
//! spending attempt's token.

use payability_core::payment::siwx::ProofNonce;

use super::attributes::{
    KEY, TTL_ATTRIBUTE, epoch_seconds, key_of, number, random_token, read_text, text,
};
use super::errors::{Conditional, conditional, unavailable};
use super::handle::DynamoStore;
use crate::store::{NonceSpend, ProofNonces, StoreError, UtcMillis, nonce_key};

impl ProofNonces for DynamoStore {
    /// One conditional `PutItem`: never spent, or spent until before `now`; after a failed
    /// condition, a consistent read tells this attempt (retried by the SDK) from another.
    async fn spend_nonce(
        &self,
        nonce: &ProofNonce,
        until: UtcMillis,
        now: UtcMillis,
    ) -> Result<NonceSpend, StoreError> {
        let token = random_token()?;
        let key = nonce_key(nonce);
        let put = self
            .client
            .put_item()
            .table_name(&self.tables.payments)
            .item(KEY, text(key.as_str()))
            .item("spent_until_ms", number(until.0))
            .item("spend_token", text(token.as_str()))
            .item(TTL_ATTRIBUTE, number(epoch_seconds(until.0)))
            .condition_expression("attribute_not_exists(#pk) OR #until < :now")
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#until", "spent_until_ms")
            .expression_attribute_values(":now", number(now.0));
        if let Conditional::Written(_) = conditional(put.send().await)? {
            return Ok(NonceSpend::Spent);
        }
        let stored = self
            .client
            .get_item()
            .table_name(&self.tables.payments)
            .set_key(Some(key_of(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        let ours = stored.item.is_some_and(|item| read_text(&item, "spend_token") == Ok(&token));
        Ok(if ours { NonceSpend::Spent } else { NonceSpend::AlreadySpent })
    }
}
