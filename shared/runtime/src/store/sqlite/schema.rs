//! The tables of the SQLite store: created on a new file, migrated from an older version.

use rusqlite::{Connection, TransactionBehavior};

use super::ledger::SQL;
use crate::store::StoreError;

/// The schema this code writes, kept in SQLite's `user_version` so a later one can migrate.
/// Version 2 added the `day0` table to version 1; version 3 the claim's URL binding and payer;
/// version 4 the `payment_identifiers` table; version 5 the `early_fetch` table; version 6
/// the `purchases` and `sign_in_nonces` tables.
pub(super) const SCHEMA_VERSION: i64 = 6;

/// What version 6 adds to version 5: each payer's latest settled purchase of an op and URL
/// (its binding, mapped to the claim key), and the spent sign-in nonces.
const SIGN_IN_TABLES: &str = "CREATE TABLE IF NOT EXISTS purchases (
     pk TEXT PRIMARY KEY NOT NULL, payment_pk TEXT NOT NULL, settled_at_ms INTEGER NOT NULL,
     expires_at INTEGER NOT NULL) STRICT, WITHOUT ROWID;
     CREATE TABLE IF NOT EXISTS sign_in_nonces (
     pk TEXT PRIMARY KEY NOT NULL, spent_until_ms INTEGER NOT NULL,
     expires_at INTEGER NOT NULL) STRICT, WITHOUT ROWID;";

/// What version 5 adds to version 4: each payer's early-fetch lease.
const EARLY_FETCH_TABLE: &str = "CREATE TABLE IF NOT EXISTS early_fetch (
     pk TEXT PRIMARY KEY NOT NULL, holder TEXT NOT NULL, held_until_ms INTEGER NOT NULL,
     expires_at INTEGER NOT NULL) STRICT, WITHOUT ROWID;";

/// What version 4 adds to version 3: each `payment-identifier` id's binding, mapped to the
/// claim key of the payment first claimed with it.
const IDENTIFIERS_TABLE: &str = "CREATE TABLE IF NOT EXISTS payment_identifiers (
     pk TEXT PRIMARY KEY NOT NULL, payment_pk TEXT NOT NULL, claimed_at_ms INTEGER NOT NULL,
     expires_at INTEGER NOT NULL) STRICT, WITHOUT ROWID;";

/// What version 3 adds to version 2: a claim's called-URL binding and its payer's wallet.
const CLAIM_BINDING_COLUMNS: &str = "ALTER TABLE payments ADD COLUMN url_binding TEXT;
     ALTER TABLE payments ADD COLUMN payer_wallet TEXT;";

/// What version 2 adds to version 1: Day-0, one row at most (first write wins).
const DAY0_TABLE: &str = "CREATE TABLE IF NOT EXISTS day0 (pk TEXT PRIMARY KEY NOT NULL
     CHECK (pk = 'day0'), at_ms INTEGER NOT NULL) STRICT, WITHOUT ROWID;";

/// Creates the schema of a new file, accepts the current one, refuses a newer one.
pub(super) fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = transaction.pragma_query_value(None, "user_version", |row| row.get(0))?;
    match version {
        0..=5 => {
            if version == 0 {
                transaction.execute_batch(&SQL.schema)?;
            }
            if version <= 1 {
                transaction.execute_batch(DAY0_TABLE)?;
            }
            if version <= 2 {
                transaction.execute_batch(CLAIM_BINDING_COLUMNS)?;
            }
            if version <= 3 {
                transaction.execute_batch(IDENTIFIERS_TABLE)?;
            }
            if version <= 4 {
                transaction.execute_batch(EARLY_FETCH_TABLE)?;
            }
            transaction.execute_batch(SIGN_IN_TABLES)?;
            transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        }
        SCHEMA_VERSION => {}
        _ => return Err(StoreError::Corrupt),
    }
    transaction.commit()?;
    Ok(())
}
