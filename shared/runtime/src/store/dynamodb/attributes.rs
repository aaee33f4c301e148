//! Building and reading item attributes: every read checks the shape this code writes and
//! answers [`StoreError::Corrupt`] otherwise.

use std::collections::HashMap;
use std::str::FromStr;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::store::StoreError;

/// A stored item, attribute by attribute.
pub(super) type Item = HashMap<String, AttributeValue>;

/// The name of the partition key of every table.
pub const KEY: &str = "pk";
/// The TTL attribute of the payments and free-tier tables (epoch seconds).
pub const TTL_ATTRIBUTE: &str = "expires_at";

/// A string attribute.
pub(super) fn text(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number attribute.
pub(super) fn number(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// The key of an item (`pk` = `key`), as GetItem and UpdateItem take it.
pub(super) fn key_of(key: impl Into<String>) -> Item {
    HashMap::from([(KEY.to_owned(), text(key))])
}

/// The string attribute `name` of an item.
pub(super) fn read_text<'a>(item: &'a Item, name: &str) -> Result<&'a str, StoreError> {
    match item.get(name) {
        Some(AttributeValue::S(value)) => Ok(value),
        _ => Err(StoreError::Corrupt),
    }
}

/// The number attribute `name` of an item, parsed as `T`.
pub(super) fn read_number<T: FromStr>(item: &Item, name: &str) -> Result<T, StoreError> {
    match item.get(name) {
        Some(AttributeValue::N(value)) => value.parse().map_err(|_| StoreError::Corrupt),
        _ => Err(StoreError::Corrupt),
    }
}

/// Seconds since the epoch, as the TTL attribute holds them, of an instant in milliseconds.
pub(super) fn epoch_seconds(millis: i64) -> i64 {
    millis.div_euclid(1_000)
}

/// 128 random bits as hex: one write attempt's identity, so that a write the SDK retried
/// after its answer was lost recognises itself.
pub(super) fn random_token() -> Result<String, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| StoreError::Unavailable)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
