//! The metrics table: [`SHARDS`] items per UTC day (`metrics:<day>#<shard>`), one number
//! attribute per counter name, each write adding to a shard picked at random and a read
//! summing every shard of each day; and the Day-0 item (`day0`, one number attribute `at_ms`), written once by an
//! `UpdateItem` conditional on `attribute_not_exists(pk)` (the check and memo functions may
//! only update this table) and read with the `BatchGetItem` the metrics function already has.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

use super::attributes::{Item, KEY, key_of, number, read_number};
use super::errors::{Conditional, conditional, unavailable};
use super::handle::DynamoStore;
use crate::store::{
    Counter, DAY_MS, DAY0_KEY, Day0Outcome, DayCounts, MAX_METRICS_DAYS, Metrics, StoreError,
    UtcDay, UtcMillis,
};

/// The Day-0 item's attribute: the instant, epoch milliseconds.
const DAY0_ATTRIBUTE: &str = "at_ms";

/// Keys per BatchGetItem request (the service's limit).
const BATCH_KEYS: usize = 100;
/// Rounds of re-asking for keys the service left unprocessed (throttled) before giving up.
const UNPROCESSED_ROUNDS: u32 = 4;
/// The pause before the first re-ask, doubled each round.
const UNPROCESSED_BACKOFF: Duration = Duration::from_millis(50);

/// Shards per day's counters. Every request adds to its day's counters, and DynamoDB takes
/// about 1,000 writes/s on one partition key: one item per day would cap the whole service
/// there (and, throttled, undercount what the tripwires read). 16 shards lift that to about
/// 16,000/s while the widest read (366 days × (16 shards + the unsharded item of before))
/// stays 6,222 keys: 63 `BatchGetItem` calls, [`PARALLEL_BATCHES`] at a time.
pub const SHARDS: u32 = 16;
/// `BatchGetItem` calls of one read in flight at once: on DynamoDB each call is a network
/// round trip, so 63 in sequence would add up; 8 keep one read to about 8 round trips.
const PARALLEL_BATCHES: usize = 8;

/// The key prefix of every item of counts.
const DAY_PREFIX: &str = "metrics:";

/// The item key of a day's unsharded counts, as written before the counters were sharded
/// (read, never written, so that a day counted across the change stays whole).
fn unsharded_key(day: &UtcDay) -> String {
    format!("{DAY_PREFIX}{}", day.as_str())
}

/// The item key of one shard of a day's counts.
fn shard_key(day: &UtcDay, shard: u32) -> String {
    format!("{DAY_PREFIX}{}#{shard}", day.as_str())
}

/// The key of a shard of the day's counts picked at random, for one write.
pub(super) fn write_key(day: &UtcDay) -> Result<Item, StoreError> {
    let mut bytes = [0; 4];
    getrandom::fill(&mut bytes).map_err(|_| StoreError::Unavailable)?;
    Ok(key_of(shard_key(day, u32::from_le_bytes(bytes) % SHARDS)))
}

/// Every key a read of the day's counts asks for: each shard and the unsharded item.
fn read_keys(day: &UtcDay) -> impl Iterator<Item = Item> + '_ {
    (0..SHARDS).map(|shard| key_of(shard_key(day, shard))).chain([key_of(unsharded_key(day))])
}

impl Metrics for DynamoStore {
    async fn increment(&self, counter: Counter, now: UtcMillis) -> Result<(), StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        self.client
            .update_item()
            .table_name(&self.tables.metrics)
            .set_key(Some(write_key(&day)?))
            .update_expression("ADD #counter :one")
            .expression_attribute_names("#counter", counter.name())
            .expression_attribute_values(":one", number(1))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// BatchGetItem over every shard of each day of the range, at most
    /// [`MAX_METRICS_DAYS`] (its last days), [`PARALLEL_BATCHES`] calls at a time, summed
    /// per day; a range that is empty or names no calendar date has no counts.
    async fn days(
        &self,
        first_day: &UtcDay,
        last_day: &UtcDay,
    ) -> Result<Vec<DayCounts>, StoreError> {
        let (Some(first), Some(last)) = (first_day.midnight(), last_day.midnight()) else {
            return Ok(Vec::new());
        };
        let (first, last) = (first.0, last.0);
        let first = first.max(last - (MAX_METRICS_DAYS - 1) * DAY_MS);
        let days: Vec<UtcDay> = (first..=last)
            .step_by(DAY_MS as usize)
            .filter_map(|at| UtcDay::of(UtcMillis(at)))
            .collect();
        let keys: Vec<Item> = days.iter().flat_map(read_keys).collect();
        let mut batches = tokio::task::JoinSet::new();
        let mut per_day: BTreeMap<UtcDay, BTreeMap<String, u64>> = BTreeMap::new();
        let mut chunks = keys.chunks(BATCH_KEYS);
        loop {
            while batches.len() < PARALLEL_BATCHES {
                let Some(chunk) = chunks.next() else { break };
                let (store, chunk) = (self.clone(), chunk.to_vec());
                batches.spawn(async move { store.batch_get(chunk).await });
            }
            let Some(read) = batches.join_next().await else { break };
            for item in read.map_err(|_| StoreError::Unavailable)?? {
                let (day, counts) = shard_counts(&item)?;
                let sums = per_day.entry(day).or_default();
                for (name, count) in counts {
                    let sum = sums.entry(name).or_default();
                    *sum = sum.checked_add(count).ok_or(StoreError::Corrupt)?;
                }
            }
        }
        Ok(per_day.into_iter().map(|(day, counts)| DayCounts { day, counts }).collect())
    }

    /// Once this handle has seen Day-0 recorded, answers without a write: every paid entry
    /// calls this, and the one `day0` key would otherwise take a (failing, still billed)
    /// conditional write per paid entry, capping paid entries at its ~1,000 writes/s.
    async fn record_day0(&self, at: UtcMillis) -> Result<Day0Outcome, StoreError> {
        if self.day0_known.load(Ordering::Relaxed) {
            return Ok(Day0Outcome::AlreadyRecorded);
        }
        let written = self
            .client
            .update_item()
            .table_name(&self.tables.metrics)
            .set_key(Some(key_of(DAY0_KEY)))
            .update_expression("SET #at = :at")
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#at", DAY0_ATTRIBUTE)
            .expression_attribute_values(":at", number(at.0))
            .send()
            .await;
        let outcome = match conditional(written)? {
            Conditional::Written(_) => Day0Outcome::Recorded,
            Conditional::ConditionFailed => Day0Outcome::AlreadyRecorded,
        };
        self.day0_known.store(true, Ordering::Relaxed);
        Ok(outcome)
    }

    async fn day0(&self) -> Result<Option<UtcMillis>, StoreError> {
        match self.batch_get(vec![key_of(DAY0_KEY)]).await?.first() {
            None => Ok(None),
            Some(item) => {
                let at = UtcMillis(read_number(item, DAY0_ATTRIBUTE)?);
                self.day0_known.store(true, Ordering::Relaxed);
                Ok(Some(at))
            }
        }
    }
}

impl DynamoStore {
    /// The metrics items of up to [`BATCH_KEYS`] keys (missing ones are simply absent),
    /// re-asking for unprocessed keys a bounded number of times.
    async fn batch_get(&self, keys: Vec<Item>) -> Result<Vec<Item>, StoreError> {
        let table = &self.tables.metrics;
        let mut pending = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(true)
            .build()
            .map_err(|_| StoreError::Unavailable)?;
        let mut items = Vec::new();
        let mut backoff = UNPROCESSED_BACKOFF;
        for round in 0..=UNPROCESSED_ROUNDS {
            if round > 0 {
                tokio::time::sleep(backoff).await;
                backoff *= 2;
            }
            let read = self
                .client
                .batch_get_item()
                .set_request_items(Some(HashMap::from([(table.clone(), pending)])))
                .send()
                .await
                .map_err(unavailable)?;
            items.extend(
                read.responses()
                    .and_then(|tables| tables.get(table))
                    .into_iter()
                    .flatten()
                    .cloned(),
            );
            match read.unprocessed_keys().and_then(|tables| tables.get(table)) {
                Some(left) if !left.keys().is_empty() => pending = left.clone(),
                _ => return Ok(items),
            }
        }
        Err(StoreError::Unavailable)
    }
}

/// The day and counts of one item of counts (a shard, or an unsharded day): `pk` and number
/// attributes only.
fn shard_counts(item: &Item) -> Result<(UtcDay, BTreeMap<String, u64>), StoreError> {
    let mut day = None;
    let mut counts = BTreeMap::new();
    for (name, value) in item {
        match (name.as_str(), value) {
            (KEY, AttributeValue::S(key)) => day = day_of_key(key),
            (_, AttributeValue::N(count)) => {
                counts.insert(name.clone(), count.parse().map_err(|_| StoreError::Corrupt)?);
            }
            _ => return Err(StoreError::Corrupt),
        }
    }
    Ok((day.ok_or(StoreError::Corrupt)?, counts))
}

/// The day of a key of counts: `metrics:<day>#<shard>` with a shard below [`SHARDS`], or
/// `metrics:<day>`.
fn day_of_key(key: &str) -> Option<UtcDay> {
    let rest = key.strip_prefix(DAY_PREFIX)?;
    let day = match rest.split_once('#') {
        Some((day, shard)) => {
            let canonical = shard.parse::<u32>().ok().filter(|n| *n < SHARDS)?.to_string();
            (canonical == shard).then_some(day)?
        }
        None => rest,
    };
    UtcDay::parse(day)
}
