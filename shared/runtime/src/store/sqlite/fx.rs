//! The CAD rate cache: one USD/CAD rate per date, first write wins.

use rusqlite::{OptionalExtension, params};

use super::SqliteStore;
use crate::store::{CadRate, RateCache, StoreError, UtcDay};

impl RateCache for SqliteStore {
    async fn get(&self, date: &UtcDay) -> Result<Option<CadRate>, StoreError> {
        let date = date.as_str().to_owned();
        self.with_connection(move |connection| {
            let stored: Option<(String, String)> = connection
                .prepare_cached("SELECT usd_cad, rate_date FROM fx WHERE date = ?1")?
                .query_row(params![date], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            stored
                .map(|(usd_cad, rate_date)| {
                    UtcDay::parse(&rate_date)
                        .and_then(|rate_date| CadRate::new(&usd_cad, rate_date))
                        .ok_or(StoreError::Corrupt)
                })
                .transpose()
        })
        .await
    }

    async fn put(&self, date: &UtcDay, rate: &CadRate) -> Result<(), StoreError> {
        let date = date.as_str().to_owned();
        let (usd_cad, rate_date) = (rate.usd_cad().to_owned(), rate.rate_date.as_str().to_owned());
        self.in_write_transaction(move |transaction| {
            transaction
                .prepare_cached(
                    "INSERT INTO fx (date, usd_cad, rate_date) VALUES (?1, ?2, ?3)
                     ON CONFLICT (date) DO NOTHING",
                )?
                .execute(params![date, usd_cad, rate_date])?;
            Ok(())
        })
        .await
    }
}
