//! The FX table: the published USD/CAD rate per transaction date (`usd_cad`, `rate_date`).

use super::attributes::{KEY, key_of, read_text, text};
use super::errors::{conditional, unavailable};
use super::handle::DynamoStore;
use crate::store::{CadRate, RateCache, StoreError, UtcDay};

/// The item key of a transaction date's rate.
fn rate_key(date: &UtcDay) -> String {
    format!("fx:USDCAD:{}", date.as_str())
}

impl RateCache for DynamoStore {
    async fn get(&self, date: &UtcDay) -> Result<Option<CadRate>, StoreError> {
        let read = self
            .client
            .get_item()
            .table_name(&self.tables.fx)
            .set_key(Some(key_of(rate_key(date))))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        let Some(item) = read.item() else {
            return Ok(None);
        };
        let rate_date = UtcDay::parse(read_text(item, "rate_date")?).ok_or(StoreError::Corrupt)?;
        CadRate::new(read_text(item, "usd_cad")?, rate_date).map(Some).ok_or(StoreError::Corrupt)
    }

    /// A conditional put: the first rate stays, and a lost race is not an error.
    async fn put(&self, date: &UtcDay, rate: &CadRate) -> Result<(), StoreError> {
        let put = self
            .client
            .put_item()
            .table_name(&self.tables.fx)
            .item(KEY, text(rate_key(date)))
            .item("usd_cad", text(rate.usd_cad()))
            .item("rate_date", text(rate.rate_date.as_str()))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", KEY)
            .send()
            .await;
        conditional(put).map(|_| ())
    }
}
