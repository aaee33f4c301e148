//! `payability ledger backfill-cad`: fills the CAD fair-market value of ledger entries
//! written while the day's Bank of Canada rate was not yet published.
//!
//! `payability ledger refund`: records a refund the operator paid out of band: sets the paid
//! entry's `refund` flag (once) and counts it in the `refund` metrics counter.

use std::process::ExitCode;

use clap::ValueEnum;
use payability_runtime::api::Stores;
use payability_runtime::clock;
use payability_runtime::fx::{BackfillSummary, BankOfCanadaValet, backfill_cad};
use payability_runtime::settings::{Reader, Settings};
use payability_runtime::startup::{DynamoDbOrEmbedded, LinkedStores, StartError, WithStore};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::{
    Base58Id, Counter, LedgerKey, PaidOp, RefundOutcome, StoreError, UtcDay, UtcMillis,
};
use serde_json::json;

use crate::exit::{
    EXIT_FAILED, EXIT_REFUSED, clock_out_of_range, current_thread_runtime, print_answer,
    print_error,
};

/// The CLI's settings and the store they choose, or the exit after one `bad_setting` line.
fn settings_and_store() -> Result<(Settings, StoreChoice), ExitCode> {
    let read = Settings::from_env(Reader::Cli)
        .and_then(|settings| StoreChoice::from_settings(&settings).map(|store| (settings, store)));
    read.map_err(|e| {
        print_error("bad_setting", &e.to_string());
        ExitCode::from(EXIT_REFUSED)
    })
}

/// The backfill, on whichever store is opened.
struct Backfill {
    source: BankOfCanadaValet,
    limit: usize,
}

impl WithStore for Backfill {
    type Output = Result<BackfillSummary, StoreError>;

    async fn with<S: Stores + Send + Sync + 'static>(self, store: S) -> Self::Output {
        backfill_cad(&store, &self.source, self.limit).await
    }
}

/// Runs the backfill on the configured store and prints a JSON summary.
pub(crate) fn backfill(limit: usize) -> ExitCode {
    let (settings, choice) = match settings_and_store() {
        Ok(read) => read,
        Err(code) => return code,
    };
    let Ok(source) = BankOfCanadaValet::new(&settings.valet_origin) else {
        print_error("client_unavailable", "the HTTP client for the rate source could not be built");
        return ExitCode::from(EXIT_FAILED);
    };
    let backfill = Backfill { source, limit };
    let opened = DynamoDbOrEmbedded.open(choice, None, backfill);
    let summary =
        current_thread_runtime().block_on(opened).and_then(|s| s.map_err(StartError::Store));
    match summary {
        Ok(summary) => {
            let out = json!({"examined": summary.examined, "filled": summary.filled, "still_pending": summary.still_pending});
            print_answer(&out.to_string(), ExitCode::SUCCESS)
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

/// The refund of one entry at `now`, on whichever store is opened.
struct Refund<'a> {
    key: &'a LedgerKey,
    now: UtcMillis,
}

impl WithStore for Refund<'_> {
    type Output = Result<Recorded, StoreError>;

    /// Marks the entry refunded (one conditional write) and, only if this call marked it,
    /// counts one refund on the day of `now`.
    async fn with<S: Stores + Send + Sync + 'static>(self, store: S) -> Self::Output {
        Ok(match store.mark_refunded(self.key).await? {
            RefundOutcome::NotRefundable => Recorded::NotRefundable,
            RefundOutcome::Refunded => match store.increment(Counter::Refund, self.now).await {
                Ok(()) => Recorded::Counted,
                Err(_) => Recorded::NotCounted,
            },
        })
    }
}

/// Records a refund of the paid entry of `op` settled by `tx_signature` and prints the outcome.
pub(crate) fn refund(op: RefundOp, tx_signature: &str) -> ExitCode {
    let Some(tx) = Base58Id::parse(tx_signature) else {
        print_error(
            "tx_not_base58",
            "the transaction signature must be 32 to 88 base58 characters",
        );
        return ExitCode::from(EXIT_REFUSED);
    };
    let (_, choice) = match settings_and_store() {
        Ok(read) => read,
        Err(code) => return code,
    };
    // Checked before marking, so that an unusable clock cannot leave a mark uncounted.
    let now = clock::now();
    if UtcDay::of(now).is_none() {
        return clock_out_of_range();
    }
    let key = LedgerKey::paid(op.into(), &tx);
    let refund = Refund { key: &key, now };
    let opened = DynamoDbOrEmbedded.open(choice, None, refund);
    let recorded =
        current_thread_runtime().block_on(opened).and_then(|r| r.map_err(StartError::Store));
    match recorded {
        Ok(Recorded::Counted) => print_answer(
            &json!({"refunded": true, "key": key.as_str()}).to_string(),
            ExitCode::SUCCESS,
        ),
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
            let answer = json!({"refunded": false, "reason": reason}).to_string();
            print_answer(&answer, ExitCode::from(EXIT_FAILED))
        }
        Err(e) => {
            print_error("store_unavailable", &e.to_string());
            ExitCode::from(EXIT_FAILED)
        }
    }
}
