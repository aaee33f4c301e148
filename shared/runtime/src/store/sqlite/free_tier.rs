//! Free-tier counters: one use per call, both of a caller's counters spent in one
//! transaction or none.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::{SqliteStore, epoch_seconds};
use crate::store::{
    CallerKey, DAY_MS, FREE_TIER_TTL_MS, FreeCaller, FreeTier, FreeTierDecision, StoreError,
    UtcMillis, free_tier_decision,
};

/// A caller's counters in the order they are spent (the first, then the second if any), each
/// with its row key on `now`'s day.
fn counter_keys(
    caller: &FreeCaller,
    now: UtcMillis,
) -> Result<Vec<(String, CallerKey)>, StoreError> {
    std::iter::once(caller.first.clone())
        .chain(caller.then.clone())
        .map(|counter| Ok((counter.key_on(now)?, counter)))
        .collect()
}

/// Decides one counter without writing (inside a write transaction, or a read).
fn free_tier_read(
    transaction: &Connection,
    caller: &CallerKey,
    key: &str,
    now: UtcMillis,
) -> Result<FreeTierDecision, StoreError> {
    let counter = transaction
        .prepare_cached("SELECT used, last_ms FROM free_tier WHERE pk = ?1")?
        .query_row(params![key], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?;
    Ok(free_tier_decision(counter, now, caller.allowance()))
}

/// Writes an allowed use of one counter inside a write transaction.
fn free_tier_spend(
    transaction: &Transaction<'_>,
    key: &str,
    used: u32,
    now: UtcMillis,
) -> Result<(), StoreError> {
    // The counter outlives its day by FREE_TIER_TTL_MS.
    let day_end = now.0.div_euclid(DAY_MS).saturating_add(1).saturating_mul(DAY_MS);
    let expires_at = epoch_seconds(day_end.saturating_add(FREE_TIER_TTL_MS));
    transaction
        .prepare_cached(
            "INSERT INTO free_tier (pk, used, last_ms, expires_at)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (pk) DO UPDATE SET used = excluded.used,
                 last_ms = excluded.last_ms",
        )?
        .execute(params![key, used, now.0, expires_at])?;
    Ok(())
}

impl FreeTier for SqliteStore {
    async fn try_use(
        &self,
        caller: &CallerKey,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        let key = caller.key_on(now)?;
        let caller = caller.clone();
        self.in_sweeping_transaction(now, move |transaction| {
            let decision = free_tier_read(transaction, &caller, &key, now)?;
            if let FreeTierDecision::Allowed { used } = decision {
                free_tier_spend(transaction, &key, used, now)?;
            }
            Ok(decision)
        })
        .await
    }

    /// Both counters in one transaction: written only when both allow.
    async fn try_use_both(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        let counters = counter_keys(caller, now)?;
        self.in_sweeping_transaction(now, move |transaction| {
            let mut spends = Vec::with_capacity(counters.len());
            for (key, counter) in &counters {
                match free_tier_read(transaction, counter, key, now)? {
                    FreeTierDecision::Allowed { used } => spends.push((key, used)),
                    refused => return Ok(refused),
                }
            }
            for (key, used) in &spends {
                free_tier_spend(transaction, key, *used, now)?;
            }
            Ok(FreeTierDecision::Allowed { used: spends[0].1 })
        })
        .await
    }

    /// Both counters read in one read transaction, nothing written.
    async fn would_allow(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        let counters = counter_keys(caller, now)?;
        self.with_connection(move |connection| {
            let transaction = connection.transaction()?;
            let mut first = None;
            for (key, counter) in &counters {
                match free_tier_read(&transaction, counter, key, now)? {
                    FreeTierDecision::Allowed { used } => first = first.or(Some(used)),
                    refused => return Ok(refused),
                }
            }
            Ok(FreeTierDecision::Allowed { used: first.unwrap_or(1) })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{
        FREE_MIN_INTERVAL_MS, FREE_PER_DAY, FREE_SIGNED_PER_SOURCE_PER_DAY, FreeTierDecision,
        UtcMillis, free_tier_decision,
    };

    #[test]
    fn free_tier_rule_tells_the_cap_from_the_interval() {
        let now = UtcMillis(1_000_000);
        let cases = [
            (None, FreeTierDecision::Allowed { used: 1 }),
            (Some((1, now.0 - FREE_MIN_INTERVAL_MS)), FreeTierDecision::Allowed { used: 2 }),
            (Some((1, now.0 - FREE_MIN_INTERVAL_MS + 1)), FreeTierDecision::TooSoon),
            (Some((1, now.0 + 1)), FreeTierDecision::TooSoon),
            (Some((FREE_PER_DAY - 1, 0)), FreeTierDecision::Allowed { used: FREE_PER_DAY }),
            (Some((FREE_PER_DAY, 0)), FreeTierDecision::DailyCapReached),
            (Some((FREE_PER_DAY, now.0)), FreeTierDecision::DailyCapReached),
        ];
        for (counter, want) in cases {
            let wallet = (FREE_PER_DAY, FREE_MIN_INTERVAL_MS);
            assert_eq!(free_tier_decision(counter, now, wallet), want, "{counter:?}");
        }
        // No interval: a use committed at a later instant than this one's is not too soon.
        let signed_source = (FREE_SIGNED_PER_SOURCE_PER_DAY, 0);
        let cases = [
            (Some((1, now.0 + 1)), FreeTierDecision::Allowed { used: 2 }),
            (Some((1, now.0)), FreeTierDecision::Allowed { used: 2 }),
            (Some((FREE_SIGNED_PER_SOURCE_PER_DAY, now.0 + 1)), FreeTierDecision::DailyCapReached),
        ];
        for (counter, want) in cases {
            assert_eq!(free_tier_decision(counter, now, signed_source), want, "{counter:?}");
        }
    }
}
