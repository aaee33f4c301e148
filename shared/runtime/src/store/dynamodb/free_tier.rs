//! The free-tier table: one counter per caller and UTC day (`used`, `last_ms`, and TTL
//! `expires_at`, epoch seconds, [`FREE_TIER_TTL_MS`] after the day ends).

use aws_sdk_dynamodb::types::ReturnValue;

use super::DynamoStore;
use super::attributes::{KEY, TTL_ATTRIBUTE, epoch_seconds, key_of, number, read_number};
use super::errors::{Conditional, conditional, unavailable};
use crate::store::{
    CallerKey, DAY_MS, FREE_MIN_INTERVAL_MS, FREE_PER_DAY, FREE_TIER_TTL_MS, FreeTier,
    FreeTierDecision, StoreError, UtcDay, UtcMillis,
};

impl FreeTier for DynamoStore {
    /// Both rules in one conditional `ADD used 1`; only when it is refused, a consistent
    /// read says which rule refused it (the rule itself was enforced by the write).
    async fn try_use(
        &self,
        caller: &CallerKey,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        let key = caller.key(&day);
        let day_end = now.0.saturating_sub(now.0.rem_euclid(DAY_MS)).saturating_add(DAY_MS);
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.free_tier)
            .set_key(Some(key_of(key.clone())))
            .update_expression("ADD #used :one SET #last = :now, #expires = :expires")
            .condition_expression(
                "attribute_not_exists(#pk) OR (#used < :max AND #last <= :spaced_since)",
            )
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#used", "used")
            .expression_attribute_names("#last", "last_ms")
            .expression_attribute_names("#expires", TTL_ATTRIBUTE)
            .expression_attribute_values(":one", number(1))
            .expression_attribute_values(":now", number(now.0))
            .expression_attribute_values(
                ":expires",
                number(epoch_seconds(day_end.saturating_add(FREE_TIER_TTL_MS))),
            )
            .expression_attribute_values(":max", number(FREE_PER_DAY))
            .expression_attribute_values(
                ":spaced_since",
                number(now.0.saturating_sub(FREE_MIN_INTERVAL_MS)),
            )
            .return_values(ReturnValue::UpdatedNew)
            .send()
            .await;
        if let Conditional::Written(output) = conditional(update)? {
            let used = read_number(output.attributes().ok_or(StoreError::Corrupt)?, "used")?;
            return Ok(FreeTierDecision::Allowed { used });
        }
        let read = self
            .client
            .get_item()
            .table_name(&self.tables.free_tier)
            .set_key(Some(key_of(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        let used: u32 = read_number(read.item().ok_or(StoreError::Corrupt)?, "used")?;
        Ok(if used >= FREE_PER_DAY {
            FreeTierDecision::DailyCapReached
        } else {
            FreeTierDecision::TooSoon
        })
    }
}
