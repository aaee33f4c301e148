//! The metrics table: one item per UTC day (`metrics:<day>`), one number attribute per
//! counter name; and the Day-0 item (`day0`, one number attribute `at_ms`), written once by an
//! `UpdateItem` conditional on `attribute_not_exists(pk)` (the check and memo functions may
//! only update this table) and read with the `BatchGetItem` the metrics function already has.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

use super::DynamoStore;
use super::attributes::{Item, KEY, key_of, number, read_number};
use super::errors::{Conditional, conditional, unavailable};
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

/// The item key of a day's counts.
pub(super) fn day_key(day: &UtcDay) -> String {
    format!("metrics:{}", day.as_str())
}

impl Metrics for DynamoStore {
    async fn increment(&self, counter: Counter, now: UtcMillis) -> Result<(), StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        self.client
            .update_item()
            .table_name(&self.tables.metrics)
            .set_key(Some(key_of(day_key(&day))))
            .update_expression("ADD #counter :one")
            .expression_attribute_names("#counter", counter.name())
            .expression_attribute_values(":one", number(1))
            .send()
            .await
            .map_err(unavailable)?;
        Ok(())
    }

    /// BatchGetItem over the range, at most [`MAX_METRICS_DAYS`] (its last days); a range
    /// that is empty or names no calendar date has no counts.
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
        let mut counted = Vec::new();
        for chunk in days.chunks(BATCH_KEYS) {
            for item in
                self.batch_get(chunk.iter().map(|day| key_of(day_key(day))).collect()).await?
            {
                counted.push(day_counts(&item)?);
            }
        }
        counted.sort_by(|a, b| a.day.cmp(&b.day));
        Ok(counted)
    }

    async fn record_day0(&self, at: UtcMillis) -> Result<Day0Outcome, StoreError> {
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
        Ok(match conditional(written)? {
            Conditional::Written(_) => Day0Outcome::Recorded,
            Conditional::ConditionFailed => Day0Outcome::AlreadyRecorded,
        })
    }

    async fn day0(&self) -> Result<Option<UtcMillis>, StoreError> {
        match self.batch_get(vec![key_of(DAY0_KEY)]).await?.first() {
            None => Ok(None),
            Some(item) => Ok(Some(UtcMillis(read_number(item, DAY0_ATTRIBUTE)?))),
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

/// A day's counts from its item: `pk` and number attributes only.
fn day_counts(item: &Item) -> Result<DayCounts, StoreError> {
    let mut day = None;
    let mut counts = BTreeMap::new();
    for (name, value) in item {
        match (name.as_str(), value) {
            (KEY, AttributeValue::S(key)) => {
                day = key.strip_prefix("metrics:").and_then(UtcDay::parse)
            }
            (_, AttributeValue::N(count)) => {
                counts.insert(name.clone(), count.parse().map_err(|_| StoreError::Corrupt)?);
            }
            _ => return Err(StoreError::Corrupt),
        }
    }
    Ok(DayCounts { day: day.ok_or(StoreError::Corrupt)?, counts })
}
