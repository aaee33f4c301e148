//! The append-only ledger: one row per paid or house verdict, its closed attribute list as
//! columns, each day's counter moved in the same transaction.

use std::sync::LazyLock;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Row, params, params_from_iter};

use super::SqliteStore;
use super::metrics::count_in;
use crate::store::ledger_record::{Field, LEDGER_ATTRIBUTES, ledger_entry, ledger_fields};
use crate::store::{
    AppendOutcome, CadRate, FillOutcome, Ledger, LedgerEntry, LedgerKey, RefundOutcome, StoreError,
    UtcDay,
};

/// How a ledger attribute is stored in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColumnKind {
    /// TEXT.
    Text,
    /// A non-negative INTEGER.
    Number,
    /// INTEGER 0 or 1.
    Flag,
}

/// The ledger's columns besides `pk`: the closed attribute list, each with how it is stored.
const LEDGER_COLUMNS: [(&str, ColumnKind); LEDGER_ATTRIBUTES.len()] = [
    ("payer_wallet", ColumnKind::Text),
    ("timestamp", ColumnKind::Text),
    ("day", ColumnKind::Text),
    ("price_usdc_units", ColumnKind::Number),
    ("cad_rate", ColumnKind::Text),
    ("cad_rate_date", ColumnKind::Text),
    ("cad_basis", ColumnKind::Text),
    ("cad_pending", ColumnKind::Flag),
    ("refund", ColumnKind::Flag),
    ("payment_tx", ColumnKind::Text),
    ("solana_fee_lamports", ColumnKind::Number),
    ("criteria_version", ColumnKind::Text),
    ("verdict_line", ColumnKind::Text),
    ("payability_state", ColumnKind::Text),
    ("memo_binding_state", ColumnKind::Text),
    ("description_overlong", ColumnKind::Flag),
    ("house", ColumnKind::Flag),
];

/// The SQL whose text follows from [`LEDGER_COLUMNS`], built once.
pub(super) struct GeneratedSql {
    /// The whole schema: the ledger table, its pending index and the other tables.
    pub(super) schema: String,
    /// Inserts one entry unless its key exists (`pk` then every column, in order).
    insert: String,
    /// The pending entries, oldest first, at most `?1`.
    select_pending: String,
}

/// The generated SQL, built on first use.
pub(super) static SQL: LazyLock<GeneratedSql> = LazyLock::new(|| {
    let names: Vec<&str> = LEDGER_COLUMNS.iter().map(|(name, _)| *name).collect();
    let definitions: String = LEDGER_COLUMNS
        .iter()
        .map(|(name, kind)| match kind {
            ColumnKind::Text => format!(", {name} TEXT"),
            ColumnKind::Number => format!(", {name} INTEGER CHECK ({name} >= 0)"),
            ColumnKind::Flag => format!(", {name} INTEGER CHECK ({name} IN (0, 1))"),
        })
        .collect();
    let placeholders: String = (2..=names.len() + 1).map(|n| format!(", ?{n}")).collect();
    GeneratedSql {
        schema: format!(
            "CREATE TABLE IF NOT EXISTS ledger (pk TEXT PRIMARY KEY NOT NULL{definitions}) \
                 STRICT, WITHOUT ROWID;
             CREATE INDEX IF NOT EXISTS ledger_cad_pending ON ledger (timestamp, pk)
                 WHERE cad_pending = 1;
             CREATE TABLE IF NOT EXISTS payments (pk TEXT PRIMARY KEY NOT NULL,
                 op TEXT NOT NULL, marker TEXT NOT NULL, resumes INTEGER NOT NULL,
                 claimed_at_ms INTEGER NOT NULL, expires_at INTEGER NOT NULL, payment_tx TEXT)
                 STRICT, WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS free_tier (pk TEXT PRIMARY KEY NOT NULL,
                 used INTEGER NOT NULL, last_ms INTEGER NOT NULL, expires_at INTEGER NOT NULL)
                 STRICT, WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS metrics (day TEXT NOT NULL, counter TEXT NOT NULL,
                 count INTEGER NOT NULL, PRIMARY KEY (day, counter)) STRICT, WITHOUT ROWID;
             CREATE TABLE IF NOT EXISTS fx (date TEXT PRIMARY KEY NOT NULL,
                 usd_cad TEXT NOT NULL, rate_date TEXT NOT NULL) STRICT, WITHOUT ROWID;"
        ),
        insert: format!(
            "INSERT INTO ledger (pk, {}) VALUES (?1{placeholders}) ON CONFLICT (pk) DO NOTHING",
            names.join(", ")
        ),
        select_pending: format!(
            "SELECT pk, {} FROM ledger WHERE cad_pending = 1 ORDER BY timestamp, pk LIMIT ?1",
            names.join(", ")
        ),
    }
});

/// The column values of an entry, in [`LEDGER_COLUMNS`] order (absent attributes are NULL).
fn ledger_values(entry: &LedgerEntry) -> Result<Vec<Value>, StoreError> {
    let mut values = vec![Value::Null; LEDGER_COLUMNS.len()];
    for (name, field) in ledger_fields(entry)? {
        let index = LEDGER_COLUMNS
            .iter()
            .position(|(column, _)| *column == name)
            .ok_or(StoreError::Corrupt)?;
        values[index] = match (LEDGER_COLUMNS[index].1, field) {
            (_, Field::Null) => Value::Null,
            (ColumnKind::Text, Field::Str(text)) => Value::Text(text),
            (ColumnKind::Number, Field::Num(n)) => {
                Value::Integer(i64::try_from(n).map_err(|_| StoreError::Corrupt)?)
            }
            (ColumnKind::Flag, Field::Bool(flag)) => Value::Integer(i64::from(flag)),
            _ => return Err(StoreError::Corrupt),
        };
    }
    Ok(values)
}

/// One stored column value read back as the field its kind holds.
fn stored_field(kind: ColumnKind, value: ValueRef<'_>) -> Result<Field, StoreError> {
    match (kind, value) {
        (_, ValueRef::Null) => Ok(Field::Null),
        (ColumnKind::Text, ValueRef::Text(bytes)) => std::str::from_utf8(bytes)
            .map(|text| Field::Str(text.to_owned()))
            .map_err(|_| StoreError::Corrupt),
        (ColumnKind::Number, ValueRef::Integer(n)) => {
            u64::try_from(n).map(Field::Num).map_err(|_| StoreError::Corrupt)
        }
        (ColumnKind::Flag, ValueRef::Integer(0)) => Ok(Field::Bool(false)),
        (ColumnKind::Flag, ValueRef::Integer(1)) => Ok(Field::Bool(true)),
        _ => Err(StoreError::Corrupt),
    }
}

/// Rebuilds the entry of one `select_pending` row (`pk`, then every column in order).
fn ledger_row(row: &Row<'_>) -> Result<LedgerEntry, StoreError> {
    let key: String = row.get(0)?;
    let mut fields = Vec::with_capacity(LEDGER_COLUMNS.len());
    for (index, (name, kind)) in LEDGER_COLUMNS.iter().enumerate() {
        fields.push((*name, stored_field(*kind, row.get_ref(index + 1)?)?));
    }
    ledger_entry(&key, |name| {
        fields.iter().find(|(column, _)| *column == name).map(|(_, field)| field.clone())
    })
}

impl Ledger for SqliteStore {
    async fn record(&self, entry: &LedgerEntry) -> Result<AppendOutcome, StoreError> {
        let mut values = vec![Value::Text(entry.key().as_str().to_owned())];
        values.extend(ledger_values(entry)?);
        let day = UtcDay::of(entry.at).ok_or(StoreError::Corrupt)?;
        let counter = entry.counter().name();
        self.in_write_transaction(move |transaction| {
            let inserted =
                transaction.prepare_cached(&SQL.insert)?.execute(params_from_iter(values))?;
            if inserted == 0 {
                return Ok(AppendOutcome::AlreadyRecorded);
            }
            count_in(transaction, &day, counter)?;
            Ok(AppendOutcome::Appended)
        })
        .await
    }

    async fn cad_pending(&self, limit: usize) -> Result<Vec<LedgerEntry>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_connection(move |connection| {
            let mut statement = connection.prepare_cached(&SQL.select_pending)?;
            let mut rows = statement.query(params![limit])?;
            let mut entries = Vec::new();
            while let Some(row) = rows.next()? {
                entries.push(ledger_row(row)?);
            }
            Ok(entries)
        })
        .await
    }

    async fn fill_cad(&self, key: &LedgerKey, rate: &CadRate) -> Result<FillOutcome, StoreError> {
        let key = key.as_str().to_owned();
        let (usd_cad, rate_date) = (rate.usd_cad().to_owned(), rate.rate_date.as_str().to_owned());
        self.in_write_transaction(move |transaction| {
            let filled = transaction
                .prepare_cached(
                    "UPDATE ledger SET cad_rate = ?2, cad_rate_date = ?3, cad_pending = 0
                     WHERE pk = ?1 AND cad_pending = 1",
                )?
                .execute(params![key, usd_cad, rate_date])?;
            Ok(if filled == 1 { FillOutcome::Filled } else { FillOutcome::NotPending })
        })
        .await
    }

    async fn mark_refunded(&self, key: &LedgerKey) -> Result<RefundOutcome, StoreError> {
        let key = key.as_str().to_owned();
        self.in_write_transaction(move |transaction| {
            let marked = transaction
                .prepare_cached(
                    "UPDATE ledger SET refund = 1 WHERE pk = ?1 AND refund = 0 AND house = 0",
                )?
                .execute(params![key])?;
            Ok(if marked == 1 { RefundOutcome::Refunded } else { RefundOutcome::NotRefundable })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_columns_are_the_closed_attribute_list_in_order() {
        let columns: Vec<&str> = LEDGER_COLUMNS.iter().map(|(name, _)| *name).collect();
        assert_eq!(columns, LEDGER_ATTRIBUTES);
    }
}
