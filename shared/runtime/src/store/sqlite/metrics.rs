//! Metrics: per-day counters and Day-0, the first recorded instant.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, Transaction, params};

use super::SqliteStore;
use crate::store::{
    Counter, DAY0_KEY, Day0Outcome, DayCounts, MAX_METRICS_DAYS, Metrics, StoreError, UtcDay,
    UtcMillis,
};

impl Metrics for SqliteStore {
    async fn increment(&self, counter: Counter, now: UtcMillis) -> Result<(), StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        self.in_write_transaction(move |transaction| count_in(transaction, &day, counter.name()))
            .await
    }

    async fn days(
        &self,
        first_day: &UtcDay,
        last_day: &UtcDay,
    ) -> Result<Vec<DayCounts>, StoreError> {
        let Some(earliest) = last_day.shifted(1 - MAX_METRICS_DAYS) else {
            return Ok(Vec::new());
        };
        let first_day = first_day.clone().max(earliest);
        let (first_day, last_day) = (first_day.as_str().to_owned(), last_day.as_str().to_owned());
        self.with_connection(move |connection| {
            let mut statement = connection.prepare_cached(
                "SELECT day, counter, count FROM metrics WHERE day >= ?1 AND day <= ?2
                 ORDER BY day, counter",
            )?;
            let mut rows = statement.query(params![first_day, last_day])?;
            let mut days: Vec<DayCounts> = Vec::new();
            while let Some(row) = rows.next()? {
                let day = UtcDay::parse(row.get_ref(0)?.as_str().map_err(|_| StoreError::Corrupt)?)
                    .ok_or(StoreError::Corrupt)?;
                let (counter, count): (String, u64) = (row.get(1)?, row.get(2)?);
                match days.last_mut() {
                    Some(last) if last.day == day => {
                        last.counts.insert(counter, count);
                    }
                    _ => days.push(DayCounts { day, counts: BTreeMap::from([(counter, count)]) }),
                }
            }
            Ok(days)
        })
        .await
    }

    async fn record_day0(&self, at: UtcMillis) -> Result<Day0Outcome, StoreError> {
        self.in_write_transaction(move |transaction| {
            let inserted = transaction
                .prepare_cached(
                    "INSERT INTO day0 (pk, at_ms) VALUES (?1, ?2) ON CONFLICT (pk) DO NOTHING",
                )?
                .execute(params![DAY0_KEY, at.0])?;
            Ok(if inserted == 1 { Day0Outcome::Recorded } else { Day0Outcome::AlreadyRecorded })
        })
        .await
    }

    async fn day0(&self) -> Result<Option<UtcMillis>, StoreError> {
        self.with_connection(move |connection| {
            let at: Option<i64> = connection
                .prepare_cached("SELECT at_ms FROM day0 WHERE pk = ?1")?
                .query_row(params![DAY0_KEY], |row| row.get(0))
                .optional()?;
            Ok(at.map(UtcMillis))
        })
        .await
    }
}

/// Adds one to a day's counter inside a write transaction.
pub(super) fn count_in(
    transaction: &Transaction<'_>,
    day: &UtcDay,
    counter: &str,
) -> Result<(), StoreError> {
    transaction
        .prepare_cached(
            "INSERT INTO metrics (day, counter, count) VALUES (?1, ?2, 1)
             ON CONFLICT (day, counter) DO UPDATE SET count = count + 1",
        )?
        .execute(params![day.as_str(), counter])?;
    Ok(())
}
