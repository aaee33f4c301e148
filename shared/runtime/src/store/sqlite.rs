//! The embedded store: one SQLite file in WAL mode, shared safely by several processes
//! (`cargo lambda watch` runs each function as its own process). Every invariant is one
//! `BEGIN IMMEDIATE` transaction, so the write lock is taken before anything is read; the
//! tables mirror the DynamoDB design, one per capability.
//!
//! `expires_at` (epoch seconds, the DynamoDB TTL unit) is DynamoDB's TTL here too: the
//! writes that carry the caller's clock (claims, early-fetch leases, free-tier uses, nonce
//! spends) sweep expired rows of every table that has one ([`EXPIRING_TABLES`]), at most once
//! per [`SWEEP_EVERY_MS`] of that clock per handle and at most [`SWEEP_ROWS`] rows a table, in
//! the write's own transaction: a flood leaves about what is still alive, and a request pays
//! nothing but one atomic read unless a sweep is due.
//!
//! Each handle owns one connection behind a mutex and runs every call on tokio's blocking
//! pool: the connection's prepared statements are reused across calls, and SQLite admits one
//! writer at a time anyway, so a connection per call would only add an open per call.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::types::{Value, ValueRef};
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Row, Transaction, TransactionBehavior, params,
    params_from_iter,
};

use payability_core::payment::siwx::ProofNonce;

use super::ledger_record::{Field, LEDGER_ATTRIBUTES, ledger_entry, ledger_fields};
use super::*;

/// How long a call waits for another connection's write lock before answering unavailable.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema this code writes, kept in SQLite's `user_version` so a later one can migrate.
/// Version 2 added the `day0` table to version 1; version 3 the claim's URL binding and payer;
/// version 4 the `payment_identifiers` table; version 5 the `early_fetch` table; version 6
/// the `purchases` and `sign_in_nonces` tables.
const SCHEMA_VERSION: i64 = 6;

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

/// Least time between two sweeps of expired rows by one handle, in milliseconds.
pub const SWEEP_EVERY_MS: i64 = 1_000;

/// Most rows one sweep deletes from each table (a bounded transaction, and at least 1,000
/// deletions a second per table, more than one writer's durable writes can add).
pub const SWEEP_ROWS: i64 = 1_000;

/// Every table with an `expires_at` column (epoch seconds), swept once that time has passed.
pub const EXPIRING_TABLES: [&str; 6] =
    ["payments", "payment_identifiers", "purchases", "early_fetch", "free_tier", "sign_in_nonces"];

/// The pause between two attempts to switch a new file to WAL.
const WAL_SWITCH_RETRY: Duration = Duration::from_millis(10);

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
struct GeneratedSql {
    /// The whole schema: the ledger table, its pending index and the other tables.
    schema: String,
    /// Inserts one entry unless its key exists (`pk` then every column, in order).
    insert: String,
    /// The pending entries, oldest first, at most `?1`.
    select_pending: String,
}

/// The generated SQL, built on first use.
static SQL: LazyLock<GeneratedSql> = LazyLock::new(|| {
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

/// The embedded store on one SQLite file: every capability, safe across processes.
pub struct SqliteStore {
    /// This handle's connection (one writer at a time; reads do not block on other writers).
    connection: Arc<Mutex<Connection>>,
    /// The database file.
    path: PathBuf,
    /// The clock reading of this handle's latest sweep of expired rows (ms).
    swept_at_ms: Arc<AtomicI64>,
}

impl SqliteStore {
    /// Opens (creating the directory, file and schema as needed) with the default busy timeout.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::open_with_busy_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// Opens with a chosen wait for other connections' locks (blocking: call it at startup).
    pub fn open_with_busy_timeout(path: &Path, busy_timeout: Duration) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|_| StoreError::Unavailable)?;
        }
        let mut connection = Connection::open(path)?;
        connection.busy_timeout(busy_timeout)?;
        enter_wal_mode(&connection, busy_timeout)?;
        // FULL: a committed claim or ledger entry survives a power loss, not only a crash.
        connection.pragma_update(None, "synchronous", "FULL")?;
        migrate(&mut connection)?;
        Ok(Self {
            connection: Arc::new(Mutex::new(connection)),
            path: path.to_owned(),
            swept_at_ms: Arc::new(AtomicI64::new(i64::MIN)),
        })
    }

    /// The database file this store opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs a job on this handle's connection, off the async workers.
    async fn with_connection<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            // A panicking job dropped its transaction (rolled back); the connection is sound.
            let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
            job(&mut connection)
        })
        .await
        .map_err(|_| StoreError::Unavailable)?
    }

    /// Runs a job in one `BEGIN IMMEDIATE` transaction, committed only if the job succeeds.
    async fn in_write_transaction<T: Send + 'static>(
        &self,
        job: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.with_connection(move |connection| {
            let transaction =
                connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let outcome = job(&transaction)?;
            transaction.commit()?;
            Ok(outcome)
        })
        .await
    }

    /// As [`Self::in_write_transaction`] for a write at `now`, first sweeping expired rows
    /// when this handle's last sweep is [`SWEEP_EVERY_MS`] old (one atomic read otherwise).
    async fn in_sweeping_transaction<T: Send + 'static>(
        &self,
        now: UtcMillis,
        job: impl FnOnce(&Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let last = self.swept_at_ms.load(Ordering::Relaxed);
        let due = now.0.saturating_sub(last) >= SWEEP_EVERY_MS
            && self
                .swept_at_ms
                .compare_exchange(last, now.0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok();
        self.in_write_transaction(move |transaction| {
            if due {
                sweep_expired(transaction, now)?;
            }
            job(transaction)
        })
        .await
    }
}

/// Deletes up to [`SWEEP_ROWS`] rows of each table in [`EXPIRING_TABLES`] whose `expires_at`
/// is before `now` (as DynamoDB's TTL would), inside a write transaction.
fn sweep_expired(transaction: &Transaction<'_>, now: UtcMillis) -> Result<(), StoreError> {
    for table in EXPIRING_TABLES {
        transaction
            .prepare_cached(&format!(
                "DELETE FROM {table} WHERE pk IN
                 (SELECT pk FROM {table} WHERE expires_at < ?1 LIMIT ?2)"
            ))?
            .execute(params![epoch_seconds(now.0), SWEEP_ROWS])?;
    }
    Ok(())
}

/// Switches the file to WAL, retrying for at most `busy_timeout` while another connection
/// holds the lock the switch needs (SQLite does not run the busy handler for it).
fn enter_wal_mode(connection: &Connection, busy_timeout: Duration) -> Result<(), StoreError> {
    let deadline = Instant::now() + busy_timeout;
    loop {
        let mode = connection
            .pragma_update_and_check(None, "journal_mode", "wal", |row| row.get::<_, String>(0));
        match mode {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(_) => return Err(StoreError::Unavailable),
            Err(error) if is_busy(&error) && Instant::now() < deadline => {
                std::thread::sleep(WAL_SWITCH_RETRY);
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// Whether another connection holds a lock this call needs.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(error.sqlite_error_code(), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked))
}

/// Creates the schema of a new file, accepts the current one, refuses a newer one.
fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
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

/// Busy, locked, I/O and every other failure to answer is unavailable; a stored value of the
/// wrong type or shape is corrupt. SQLite's message is dropped, never formatted.
impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::Error as E;
        match error {
            E::SqliteFailure(failure, _) => match failure.code {
                ErrorCode::DatabaseCorrupt
                | ErrorCode::NotADatabase
                | ErrorCode::TypeMismatch
                | ErrorCode::ConstraintViolation => Self::Corrupt,
                _ => Self::Unavailable,
            },
            E::FromSqlConversionFailure(..)
            | E::IntegralValueOutOfRange(..)
            | E::InvalidColumnType(..)
            | E::Utf8Error(..) => Self::Corrupt,
            _ => Self::Unavailable,
        }
    }
}

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

/// Epoch seconds (the DynamoDB TTL unit) of an instant in milliseconds.
fn epoch_seconds(millis: i64) -> i64 {
    millis.div_euclid(1000)
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

impl PaymentClaims for SqliteStore {
    async fn claim(&self, claim: &NewClaim, now: UtcMillis) -> Result<ClaimOutcome, StoreError> {
        let key = claim.id.key();
        let expires_at = epoch_seconds(now.0.saturating_add(CLAIM_TTL_MS));
        let (op, url) = (claim.op, claim.url.hex());
        let payer = claim.payer.as_ref().map(|payer| payer.as_str().to_owned());
        let identifier = claim.identifier.map(|identifier| identifier.key());
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        self.in_sweeping_transaction(now, move |transaction| {
            // The write lock is held from the first statement: checks, claim and map are one.
            // A claimed payment is already claimed whatever its id (as on DynamoDB).
            let claimed = transaction
                .prepare_cached("SELECT 1 FROM payments WHERE pk = ?1")?
                .exists(params![key])?;
            if claimed {
                return Ok(ClaimOutcome::AlreadyClaimed);
            }
            if let Some(identifier) = &identifier {
                let taken = transaction
                    .prepare_cached(
                        "SELECT 1 FROM payment_identifiers WHERE pk = ?1 AND claimed_at_ms > ?2",
                    )?
                    .exists(params![identifier, expired_before])?;
                if taken {
                    return Ok(ClaimOutcome::IdentifierTaken);
                }
            }
            let inserted = transaction
                .prepare_cached(
                    "INSERT INTO payments (pk, op, marker, resumes, claimed_at_ms, expires_at,
                         url_binding, payer_wallet)
                     VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7) ON CONFLICT (pk) DO NOTHING",
                )?
                .execute(params![
                    key,
                    op.as_str(),
                    ClaimMarker::Verified.as_str(),
                    now.0,
                    expires_at,
                    url,
                    payer
                ])?;
            if inserted != 1 {
                return Ok(ClaimOutcome::AlreadyClaimed);
            }
            if let Some(identifier) = &identifier {
                transaction
                    .prepare_cached(
                        "INSERT INTO payment_identifiers (pk, payment_pk, claimed_at_ms, expires_at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                         payment_pk = excluded.payment_pk, claimed_at_ms = excluded.claimed_at_ms,
                         expires_at = excluded.expires_at",
                    )?
                    .execute(params![identifier, key, now.0, expires_at])?;
            }
            Ok(ClaimOutcome::Claimed)
        })
        .await
    }

    async fn lease_early_fetch(
        &self,
        lease: &EarlyFetchLease,
        now: UtcMillis,
    ) -> Result<bool, StoreError> {
        let (key, holder, until) = (lease.key(), lease.holder.key(), lease.until);
        let expires_at = epoch_seconds(until.0);
        self.in_sweeping_transaction(now, move |transaction| {
            let taken = transaction
                .prepare_cached(
                    "INSERT INTO early_fetch (pk, holder, held_until_ms, expires_at)
                     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                     holder = excluded.holder, held_until_ms = excluded.held_until_ms,
                     expires_at = excluded.expires_at
                     WHERE early_fetch.held_until_ms <= ?5 OR early_fetch.holder = excluded.holder",
                )?
                .execute(params![key, holder, until.0, expires_at, now.0])?;
            Ok(taken == 1)
        })
        .await
    }

    async fn release_early_fetch(&self, lease: &EarlyFetchLease) -> Result<(), StoreError> {
        let (key, holder) = (lease.key(), lease.holder.key());
        self.in_write_transaction(move |transaction| {
            transaction
                .prepare_cached(
                    "UPDATE early_fetch SET held_until_ms = 0 WHERE pk = ?1 AND holder = ?2",
                )?
                .execute(params![key, holder])?;
            Ok(())
        })
        .await
    }

    async fn identified(
        &self,
        identifier: &IdentifierBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        let key = identifier.key();
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        let payment: Option<String> = self
            .with_connection(move |connection| {
                Ok(connection
                    .prepare_cached(
                        "SELECT payment_pk FROM payment_identifiers
                         WHERE pk = ?1 AND claimed_at_ms > ?2",
                    )?
                    .query_row(params![key, expired_before], |row| row.get(0))
                    .optional()?)
            })
            .await?;
        payment.map(|key| PaymentId::parse_key(&key).ok_or(StoreError::Corrupt)).transpose()
    }

    async fn purchase_of(
        &self,
        purchase: &PurchaseBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        let key = purchase.key();
        let expired_before = now.0.saturating_sub(CLAIM_TTL_MS);
        let payment: Option<String> = self
            .with_connection(move |connection| {
                Ok(connection
                    .prepare_cached(
                        "SELECT payment_pk FROM purchases WHERE pk = ?1 AND settled_at_ms > ?2",
                    )?
                    .query_row(params![key, expired_before], |row| row.get(0))
                    .optional()?)
            })
            .await?;
        payment.map(|key| PaymentId::parse_key(&key).ok_or(StoreError::Corrupt)).transpose()
    }

    async fn claim_of(&self, id: &PaymentId) -> Result<Option<StoredClaim>, StoreError> {
        type Row = (String, String, i64, i64, Option<String>, Option<String>, Option<String>);
        let key = id.key();
        self.with_connection(move |connection| {
            let row: Option<Row> = connection
                .prepare_cached(
                    "SELECT op, marker, claimed_at_ms, resumes, payment_tx, url_binding,
                         payer_wallet FROM payments WHERE pk = ?1",
                )?
                .query_row(params![key], |row| {
                    Ok((
                        row.get(0)?,
                        row.get(1)?,
                        row.get(2)?,
                        row.get(3)?,
                        row.get(4)?,
                        row.get(5)?,
                        row.get(6)?,
                    ))
                })
                .optional()?;
            Ok(row)
        })
        .await?
        .map(|(op, marker, claimed_at_ms, resumes, tx, url, payer)| {
            StoredClaim::from_stored(StoredAttributes {
                op: &op,
                marker: &marker,
                claimed_at_ms,
                resumes,
                tx: tx.as_deref(),
                url: url.as_deref(),
                payer: payer.as_deref(),
            })
        })
        .transpose()
    }

    async fn advance(
        &self,
        id: &PaymentId,
        transition: &Transition,
    ) -> Result<AdvanceOutcome, StoreError> {
        let key = id.key();
        let (from, to) = (transition.from().as_str(), transition.to().as_str());
        let tx = transition.tx().map(|tx| tx.as_str().to_owned());
        let purchase = transition.purchase().map(|purchase| (purchase.binding.key(), purchase.at));
        self.in_write_transaction(move |transaction| {
            let moved = transaction
                .prepare_cached(
                    "UPDATE payments SET marker = ?3, payment_tx = COALESCE(?4, payment_tx)
                     WHERE pk = ?1 AND marker = ?2",
                )?
                .execute(params![key, from, to, tx])?;
            if moved != 1 {
                return Ok(AdvanceOutcome::NotAtMarker);
            }
            if let Some((purchase, at)) = &purchase {
                let expires_at = epoch_seconds(at.0.saturating_add(CLAIM_TTL_MS));
                transaction
                    .prepare_cached(
                        "INSERT INTO purchases (pk, payment_pk, settled_at_ms, expires_at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pk) DO UPDATE SET
                         payment_pk = excluded.payment_pk, settled_at_ms = excluded.settled_at_ms,
                         expires_at = excluded.expires_at",
                    )?
                    .execute(params![purchase, key, at.0, expires_at])?;
            }
            Ok(AdvanceOutcome::Advanced)
        })
        .await
    }

    async fn resume(&self, retry: &Retry, now: UtcMillis) -> Result<ResumeOutcome, StoreError> {
        let key = retry.id.key();
        let url = retry.url.hex();
        let op = retry.op;
        // Unexpired: now < claimed_at + CLAIM_TTL_MS, i.e. claimed_at > now - CLAIM_TTL_MS.
        let claimed_after = now.0.saturating_sub(CLAIM_TTL_MS);
        self.in_write_transaction(move |transaction| {
            let row: Option<(Option<String>, Option<String>)> = transaction
                .prepare_cached(
                    "UPDATE payments SET resumes = resumes + 1
                     WHERE pk = ?1 AND op = ?2 AND resumes < ?4 AND claimed_at_ms > ?5
                       AND ((marker = ?3 AND claimed_at_ms <= ?6) OR marker = ?7)
                       AND (url_binding = ?8 OR (url_binding IS NULL AND marker = ?3))
                     RETURNING payment_tx, payer_wallet",
                )?
                .query_row(
                    params![
                        key,
                        op.as_str(),
                        ClaimMarker::Settled.as_str(),
                        MAX_RESUMES,
                        claimed_after,
                        now.0.saturating_sub(IN_FLIGHT_MS),
                        ClaimMarker::Delivered.as_str(),
                        url
                    ],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            let Some((tx, payer)) = row else {
                return Ok(ResumeOutcome::Refused);
            };
            let tx = tx.as_deref().and_then(Base58Id::parse).ok_or(StoreError::Corrupt)?;
            let payer = payer
                .map(|payer| Base58Id::parse(&payer).ok_or(StoreError::Corrupt))
                .transpose()?;
            Ok(ResumeOutcome::Resumed { tx, payer })
        })
        .await
    }
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

impl ProofNonces for SqliteStore {
    async fn spend_nonce(
        &self,
        nonce: &ProofNonce,
        until: UtcMillis,
        now: UtcMillis,
    ) -> Result<NonceSpend, StoreError> {
        let key = nonce_key(nonce);
        self.in_sweeping_transaction(now, move |transaction| {
            let spent = transaction
                .prepare_cached(
                    "INSERT INTO sign_in_nonces (pk, spent_until_ms, expires_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (pk) DO UPDATE SET spent_until_ms = excluded.spent_until_ms,
                     expires_at = excluded.expires_at WHERE sign_in_nonces.spent_until_ms < ?4",
                )?
                .execute(params![key, until.0, epoch_seconds(until.0), now.0])?;
            Ok(if spent == 1 { NonceSpend::Spent } else { NonceSpend::AlreadySpent })
        })
        .await
    }
}

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

/// Adds one to a day's counter inside a write transaction.
fn count_in(transaction: &Transaction<'_>, day: &UtcDay, counter: &str) -> Result<(), StoreError> {
    transaction
        .prepare_cached(
            "INSERT INTO metrics (day, counter, count) VALUES (?1, ?2, 1)
             ON CONFLICT (day, counter) DO UPDATE SET count = count + 1",
        )?
        .execute(params![day.as_str(), counter])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_columns_are_the_closed_attribute_list_in_order() {
        let columns: Vec<&str> = LEDGER_COLUMNS.iter().map(|(name, _)| *name).collect();
        assert_eq!(columns, LEDGER_ATTRIBUTES);
    }

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
