//! The ledger table: one item per entry, exactly the closed attribute list plus `pk`.

use aws_config::retry::RetryConfig;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem, Update};

use super::attributes::{Item, KEY, key_of, number, read_text, text};
use super::errors::{Conditional, Transacted, conditional, transacted, unavailable};
use super::handle::DynamoStore;
use super::metrics::write_key;
use crate::store::ledger_record::{Field, LEDGER_ATTRIBUTES, ledger_entry, ledger_fields};
use crate::store::{
    AppendOutcome, CadRate, FillOutcome, Ledger, LedgerEntry, LedgerKey, RefundOutcome, StoreError,
    UtcDay,
};

impl Ledger for DynamoStore {
    /// One `TransactWriteItems`: `Put` the entry if `attribute_not_exists(pk)` and `ADD`
    /// one to its counter on a random shard of the day's metrics items; a cancelled transaction whose put
    /// failed its condition is [`AppendOutcome::AlreadyRecorded`]. Sent once, without the
    /// SDK's retries: a retry after an answer lost in time would meet its own put and read as
    /// `AlreadyRecorded`, so a caller that must tell the two apart (a paid verdict's delivery)
    /// retries itself, knowing when an earlier attempt may have landed.
    async fn record(&self, entry: &LedgerEntry) -> Result<AppendOutcome, StoreError> {
        let mut item: Item = ledger_fields(entry)?
            .into_iter()
            .map(|(name, field)| (name.to_owned(), attribute(field)))
            .collect();
        item.insert(KEY.to_owned(), text(entry.key().as_str()));
        let day = UtcDay::of(entry.at).ok_or(StoreError::Corrupt)?;
        let put = Put::builder()
            .table_name(&self.tables.ledger)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", KEY)
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let count = Update::builder()
            .table_name(&self.tables.metrics)
            .set_key(Some(write_key(&day)?))
            .update_expression("ADD #counter :one")
            .expression_attribute_names("#counter", entry.counter().name())
            .expression_attribute_values(":one", number(1))
            .build()
            .map_err(|_| StoreError::Corrupt)?;
        let put = TransactWriteItem::builder().put(put).build();
        let count = TransactWriteItem::builder().update(count).build();
        let once =
            aws_sdk_dynamodb::config::Builder::default().retry_config(RetryConfig::disabled());
        let written = self.client.transact_write_items().transact_items(put).transact_items(count);
        match transacted(written.customize().config_override(once).send().await)? {
            Transacted::Written => Ok(AppendOutcome::Appended),
            Transacted::Cancelled([true, _]) => Ok(AppendOutcome::AlreadyRecorded),
            Transacted::Cancelled(_) => Err(StoreError::Unavailable),
        }
    }

    /// A filtered scan of the whole table, page by page, keeping only the `limit` oldest.
    async fn cad_pending(&self, limit: usize) -> Result<Vec<LedgerEntry>, StoreError> {
        let mut oldest = Vec::new();
        if limit == 0 {
            return Ok(oldest);
        }
        let mut pages = self
            .client
            .scan()
            .table_name(&self.tables.ledger)
            .consistent_read(true)
            .filter_expression("#pending = :pending")
            .expression_attribute_names("#pending", "cad_pending")
            .expression_attribute_values(":pending", AttributeValue::Bool(true))
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            for item in page.map_err(unavailable)?.items() {
                oldest.push(entry_of(item)?);
            }
            oldest.sort_by_cached_key(|entry| (entry.at, entry.key().as_str().to_owned()));
            oldest.truncate(limit);
        }
        Ok(oldest)
    }

    async fn fill_cad(&self, key: &LedgerKey, rate: &CadRate) -> Result<FillOutcome, StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.ledger)
            .set_key(Some(key_of(key.as_str())))
            .update_expression("SET #rate = :rate, #rate_date = :rate_date, #pending = :filled")
            .condition_expression("#pending = :pending")
            .expression_attribute_names("#rate", "cad_rate")
            .expression_attribute_names("#rate_date", "cad_rate_date")
            .expression_attribute_names("#pending", "cad_pending")
            .expression_attribute_values(":rate", text(rate.usd_cad()))
            .expression_attribute_values(":rate_date", text(rate.rate_date.as_str()))
            .expression_attribute_values(":filled", AttributeValue::Bool(false))
            .expression_attribute_values(":pending", AttributeValue::Bool(true))
            .send()
            .await;
        Ok(match conditional(update)? {
            Conditional::Written(_) => FillOutcome::Filled,
            Conditional::ConditionFailed => FillOutcome::NotPending,
        })
    }

    async fn mark_refunded(&self, key: &LedgerKey) -> Result<RefundOutcome, StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.tables.ledger)
            .set_key(Some(key_of(key.as_str())))
            .update_expression("SET #refund = :refunded")
            .condition_expression("attribute_exists(#pk) AND #refund = :unset AND #house = :paid")
            .expression_attribute_names("#pk", KEY)
            .expression_attribute_names("#refund", "refund")
            .expression_attribute_names("#house", "house")
            .expression_attribute_values(":refunded", AttributeValue::Bool(true))
            .expression_attribute_values(":unset", AttributeValue::Bool(false))
            .expression_attribute_values(":paid", AttributeValue::Bool(false))
            .send()
            .await;
        Ok(match conditional(update)? {
            Conditional::Written(_) => RefundOutcome::Refunded,
            Conditional::ConditionFailed => RefundOutcome::NotRefundable,
        })
    }
}

/// The stored form of one ledger field.
fn attribute(field: Field) -> AttributeValue {
    match field {
        Field::Str(value) => AttributeValue::S(value),
        Field::Num(value) => AttributeValue::N(value.to_string()),
        Field::Bool(value) => AttributeValue::Bool(value),
        Field::Null => AttributeValue::Null(true),
    }
}

/// Rebuilds an entry from a stored item: the closed attribute list and `pk`, nothing else,
/// each of a shape this code writes.
fn entry_of(item: &Item) -> Result<LedgerEntry, StoreError> {
    let closed = item.keys().all(|name| name == KEY || LEDGER_ATTRIBUTES.contains(&name.as_str()));
    if !closed || item.values().any(|value| field(value).is_none()) {
        return Err(StoreError::Corrupt);
    }
    ledger_entry(read_text(item, KEY)?, |name| item.get(name).and_then(field))
}

/// The ledger field a stored value holds, if it has a shape this code writes.
fn field(value: &AttributeValue) -> Option<Field> {
    match value {
        AttributeValue::S(value) => Some(Field::Str(value.clone())),
        AttributeValue::N(value) => value.parse().ok().map(Field::Num),
        AttributeValue::Bool(value) => Some(Field::Bool(*value)),
        AttributeValue::Null(true) => Some(Field::Null),
        _ => None,
    }
}
