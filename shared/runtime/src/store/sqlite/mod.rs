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
//!
//! One file per capability, as `dynamodb/` has: `ledger.rs`, `payments.rs` (claims,
//! identifiers, purchases, early-fetch leases), `free_tier.rs`, `nonces.rs`, `metrics.rs`
//! (with Day-0) and `fx.rs`; `schema.rs` creates and migrates the tables.

mod free_tier;
mod fx;
mod ledger;
mod metrics;
mod nonces;
mod payments;
mod schema;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, Transaction, TransactionBehavior, params};

use super::{StoreError, UtcMillis};

/// How long a call waits for another connection's write lock before answering unavailable.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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
        schema::migrate(&mut connection)?;
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

/// Epoch seconds (the DynamoDB TTL unit) of an instant in milliseconds.
fn epoch_seconds(millis: i64) -> i64 {
    millis.div_euclid(1000)
}
