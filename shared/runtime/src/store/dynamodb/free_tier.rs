//! The free-tier table: one counter per allowance (a wallet's, a source's) and UTC day
//! (`used`, `last_ms`, and TTL `expires_at`, epoch seconds, [`FREE_TIER_TTL_MS`] after the
//! day ends).

use aws_sdk_dynamodb::types::ReturnValue;

use super::attributes::{KEY, TTL_ATTRIBUTE, epoch_seconds, key_of, number, read_number};
use super::errors::{Conditional, conditional, unavailable};
use super::handle::DynamoStore;
use crate::store::{
    CallerKey, DAY_MS, FREE_TIER_TTL_MS, FreeCaller, FreeTier, FreeTierDecision, StoreError,
    UtcMillis, free_tier_decision,
};

/// What spending one counter came to.
enum Spend {
    /// Spent: the count now, and the `last_ms` before (None when the counter is new).
    Allowed { used: u32, previous_last_ms: Option<i64> },
    /// Refused, nothing written.
    Refused(FreeTierDecision),
}

impl FreeTier for DynamoStore {
    async fn try_use(
        &self,
        caller: &CallerKey,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        Ok(match self.spend(caller, &caller.key_on(now)?, now).await? {
            Spend::Allowed { used, .. } => FreeTierDecision::Allowed { used },
            Spend::Refused(decision) => decision,
        })
    }

    /// The first counter, then the second; a refusal by the second gives the first's use back.
    async fn try_use_both(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        // Both keys before anything is spent: no early return between the two spends.
        let first = &caller.first;
        let first_key = first.key_on(now)?;
        let then = caller.then.as_ref().map(|c| c.key_on(now).map(|key| (c, key))).transpose()?;
        let (used, previous_last_ms) = match self.spend(first, &first_key, now).await? {
            Spend::Allowed { used, previous_last_ms } => (used, previous_last_ms),
            Spend::Refused(decision) => return Ok(decision),
        };
        let Some((then, then_key)) = then else {
            return Ok(FreeTierDecision::Allowed { used });
        };
        let refused = match self.spend(then, &then_key, now).await {
            Ok(Spend::Allowed { .. }) => return Ok(FreeTierDecision::Allowed { used }),
            Ok(Spend::Refused(decision)) => Ok(decision),
            Err(error) => Err(error),
        };
        if self.give_back(&first_key, now, previous_last_ms).await.is_err() {
            tracing::warn!(rule = "free_tier_give_back_failed", "a first use was not given back");
        }
        refused
    }

    /// Each counter read consistently, in order; the first refusal is the decision.
    async fn would_allow(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        let mut first = None;
        for counter in std::iter::once(&caller.first).chain(caller.then.as_ref()) {
            let read = self
                .client
                .get_item()
                .table_name(&self.tables.free_tier)
                .set_key(Some(key_of(&counter.key_on(now)?)))
                .consistent_read(true)
                .send()
                .await
                .map_err(unavailable)?;
            let stored = read
                .item()
                .map(|item| {
                    Ok::<_, StoreError>((read_number(item, "used")?, read_number(item, "last_ms")?))
                })
                .transpose()?;
            match free_tier_decision(stored, now, counter.allowance()) {
                FreeTierDecision::Allowed { used } => first = first.or(Some(used)),
                refused => return Ok(refused),
            }
        }
        Ok(FreeTierDecision::Allowed { used: first.unwrap_or(1) })
    }
}

impl DynamoStore {
    /// Both rules of one counter in one conditional `ADD used 1`; only when it is refused, a
    /// consistent read says which rule refused it (the rule itself was enforced by the write).
    /// A counter without an interval is conditioned on its cap alone, so a use whose `now`
    /// predates a concurrent committed use is never refused as too soon.
    async fn spend(
        &self,
        caller: &CallerKey,
        key: &str,
        now: UtcMillis,
    ) -> Result<Spend, StoreError> {
        let (per_day, interval_ms) = caller.allowance();
        let day_end = now.0.saturating_sub(now.0.rem_euclid(DAY_MS)).saturating_add(DAY_MS);
        let condition = match interval_ms {
            0 => "attribute_not_exists(#pk) OR #used < :max",
            _ => "attribute_not_exists(#pk) OR (#used < :max AND #last <= :spaced_since)",
        };
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.free_tier)
            .set_key(Some(key_of(key)))
            .update_expression("ADD #used :one SET #last = :now, #expires = :expires")
            .condition_expression(condition)
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
            .expression_attribute_values(":max", number(per_day))
            .return_values(ReturnValue::AllOld);
        let update = match interval_ms {
            0 => update,
            _ => update.expression_attribute_values(
                ":spaced_since",
                number(now.0.saturating_sub(interval_ms)),
            ),
        };
        let update = update.send().await;
        if let Conditional::Written(output) = conditional(update)? {
            return Ok(match output.attributes().filter(|old| !old.is_empty()) {
                None => Spend::Allowed { used: 1, previous_last_ms: None },
                Some(old) => Spend::Allowed {
                    used: read_number::<u32>(old, "used")?.saturating_add(1),
                    previous_last_ms: Some(read_number(old, "last_ms")?),
                },
            });
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
        Ok(Spend::Refused(if used >= per_day || interval_ms == 0 {
            FreeTierDecision::DailyCapReached
        } else {
            FreeTierDecision::TooSoon
        }))
    }

    /// Undoes a use spent at `now`, only while it is still the counter's latest (`last_ms =
    /// now`, which the interval makes ours): `used` down by one, `last_ms` back to what it
    /// was (0 for a counter this use created, which allows the next use at once).
    async fn give_back(
        &self,
        key: &str,
        now: UtcMillis,
        previous_last_ms: Option<i64>,
    ) -> Result<(), StoreError> {
        let given = self
            .client
            .update_item()
            .table_name(&self.tables.free_tier)
            .set_key(Some(key_of(key)))
            .update_expression("ADD #used :minus_one SET #last = :previous")
            .condition_expression("#last = :now AND #used >= :one")
            .expression_attribute_names("#used", "used")
            .expression_attribute_names("#last", "last_ms")
            .expression_attribute_values(":minus_one", number(-1))
            .expression_attribute_values(":one", number(1))
            .expression_attribute_values(":now", number(now.0))
            .expression_attribute_values(":previous", number(previous_last_ms.unwrap_or(0)))
            .send()
            .await;
        conditional(given).map(drop)
    }
}
