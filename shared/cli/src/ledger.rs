//! `payability ledger backfill-cad`: fills the CAD fair-market value of ledger entries
//! written while the day's Bank of Canada rate was not yet published.

use std::process::ExitCode;

use payability_runtime::fx::{BankOfCanadaValet, VALET_ORIGIN, backfill_cad};
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;
use serde_json::json;

use crate::{EXIT_FAILED, EXIT_REFUSED, current_thread_runtime, print_error};

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
                let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
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
