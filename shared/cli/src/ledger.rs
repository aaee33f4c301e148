//! `payability ledger backfill-cad`: fills the CAD fair-market value of ledger entries
//! written while the day's Bank of Canada rate was not yet published.
//!
//! `payability ledger refund`: records a refund the operator paid out of band: sets the paid
//! entry's `refund` flag (once) and counts it in the `refund` metrics counter.

use std::process::ExitCode;

use clap::ValueEnum;
use payability_runtime::clock;
use payability_runtime::fx::{BankOfCanadaValet, VALET_ORIGIN, backfill_cad};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{
    Base58Id, Counter, Ledger, LedgerKey, Metrics, PaidOp, RefundOutcome, StoreError, UtcDay,
    UtcMillis,
};
use serde_json::json;

use crate::{EXIT_FAILED, EXIT_REFUSED, clock_out_of_range, current_thread_runtime, print_error};

/// Environment variable overriding the Valet API origin (tests point it at loopback).
const VALET_ORIGIN_VAR: &str = "PAYABILITY_BOC_VALET_ORIGIN";

/// Runs the backfill on the configured store and prints a JSON summary.
pub fn backfill(limit: usize) -> ExitCode {
    let choice = match StoreChoice::from_env() {
        Ok(choice) => choice,
        Err(e) => {
            print_error("bad_setting", &e.to_string());
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    let origin = std::env::var(VALET_ORIGIN_VAR).unwrap_or_else(|_| VALET_ORIGIN.to_owned());
    let Ok(source) = BankOfCanadaValet::new(&origin) else {
        print_error("client_unavailable", "the HTTP client for the rate source could not be built");
        return ExitCode::from(EXIT_FAILED);
    };
    let summary = current_thread_runtime().block_on(async {
        match choice {
            StoreChoice::Embedded(path) => {
                backfill_cad(&SqliteStore::open(&path)?, &source, limit).await
            }
            StoreChoice::DynamoDb(tables) => {
                let config = payability_runtime::http_client::aws_sdk_loader().load().await;
                backfill_cad(&DynamoStore::new(&config, tables), &source, limit).await
            }
        }
    });
    match summary {
        Ok(summary) => {
            let out = json!({"examined": summary.examined, "filled": summary.filled, "still_pending": summary.still_pending});
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            print_error("store_unavailable", &e.to_string());
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// The op a refunded payment paid for (which ledger its entry is in).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RefundOp {
    /// `POST /check`: the `pvc:ledger:` entry.
    Check,
    /// `POST /memo`: the `pvm:ledger:` entry.
    Memo,
}

impl From<RefundOp> for PaidOp {
    fn from(op: RefundOp) -> Self {
        match op {
            RefundOp::Check => Self::Check,
            RefundOp::Memo => Self::Memo,
        }
    }
}

/// What recording a refund came to.
enum Recorded {
    /// Marked and counted.
    Counted,
    /// Marked, but the counter increment failed.
    NotCounted,
    /// Not marked: no such paid entry, or already refunded.
    NotRefundable,
}

/// Marks the entry refunded (one conditional write) and, only if this call marked it,
/// counts one refund on the day of `now`.
async fn record_refund<S: Ledger + Metrics>(
    store: &S,
    key: &LedgerKey,
    now: UtcMillis,
) -> Result<Recorded, StoreError> {
    Ok(match store.mark_refunded(key).await? {
        RefundOutcome::NotRefundable => Recorded::NotRefundable,
        RefundOutcome::Refunded => match store.increment(Counter::Refund, now).await {
            Ok(()) => Recorded::Counted,
            Err(_) => Recorded::NotCounted,
        },
    })
}

/// Records a refund of the paid entry of `op` settled by `tx_signature` and prints the outcome.
pub fn refund(op: RefundOp, tx_signature: &str) -> ExitCode {
    let Some(tx) = Base58Id::parse(tx_signature) else {
        print_error(
            "tx_not_base58",
            "the transaction signature must be 32 to 88 base58 characters",
        );
        return ExitCode::from(EXIT_REFUSED);
    };
    let choice = match StoreChoice::from_env() {
        Ok(choice) => choice,
        Err(e) => {
            print_error("bad_setting", &e.to_string());
            return ExitCode::from(EXIT_REFUSED);
        }
    };
    // Checked before marking, so that an unusable clock cannot leave a mark uncounted.
    let now = clock::now();
    if UtcDay::of(now).is_none() {
        return clock_out_of_range();
    }
    let key = LedgerKey::paid(op.into(), &tx);
    let recorded = current_thread_runtime().block_on(async {
        match choice {
            StoreChoice::Embedded(path) => {
                record_refund(&SqliteStore::open(&path)?, &key, now).await
            }
            StoreChoice::DynamoDb(tables) => {
                let config = payability_runtime::http_client::aws_sdk_loader().load().await;
                record_refund(&DynamoStore::new(&config, tables), &key, now).await
            }
        }
    });
    match recorded {
        Ok(Recorded::Counted) => {
            println!("{}", json!({"refunded": true, "key": key.as_str()}));
            ExitCode::SUCCESS
        }
        Ok(Recorded::NotCounted) => {
            let message = format!(
                "the entry {} is marked refunded but the refund counter was not incremented \
                 (the store failed); running this command again would answer not refundable \
                 and count nothing, so /metrics is one refund short",
                key.as_str()
            );
            print_error("refund_not_counted", &message);
            ExitCode::from(EXIT_FAILED)
        }
        Ok(Recorded::NotRefundable) => {
            let reason = "no paid entry with this transaction, or already refunded";
            println!("{}", json!({"refunded": false, "reason": reason}));
            ExitCode::from(EXIT_FAILED)
        }
        Err(e) => {
            print_error("store_unavailable", &e.to_string());
            ExitCode::from(EXIT_FAILED)
        }
    }
}
