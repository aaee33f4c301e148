//! Which store a process uses, from its settings: DynamoDB (the five tables named), or the
//! embedded SQLite file (the path given, else the default under the user's data directory).

use std::path::PathBuf;

use super::dynamodb::TableNames;
use crate::settings::{STORE, SettingError, Settings, StoreSetting, TABLES};

/// The configured store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// DynamoDB tables (production).
    DynamoDb(TableNames),
    /// The embedded SQLite file at this path.
    Embedded(PathBuf),
}

impl StoreChoice {
    /// The choice the settings make: DynamoDB needs every table variable; no store setting
    /// is the default embedded file, which needs a data directory.
    pub fn from_settings(settings: &Settings) -> Result<Self, SettingError> {
        match &settings.store {
            Some(StoreSetting::DynamoDb) => {
                let [ledger, payments, free_tier, metrics, fx] =
                    std::array::from_fn(|i| settings.tables[i].clone().ok_or(TABLES[i].unset()));
                Ok(Self::DynamoDb(TableNames {
                    ledger: ledger?,
                    payments: payments?,
                    free_tier: free_tier?,
                    metrics: metrics?,
                    fx: fx?,
                }))
            }
            Some(StoreSetting::Embedded(path)) => Ok(Self::Embedded(path.clone())),
            None => default_embedded_path().map(Self::Embedded).ok_or(SettingError {
                variable: STORE.name(),
                problem: "is not set and there is no data directory",
            }),
        }
    }
}

/// `$XDG_DATA_HOME/payability/store.sqlite3`, else `~/.local/share/payability/store.sqlite3`.
pub fn default_embedded_path() -> Option<PathBuf> {
    crate::signing_key::data_dir().map(|dir| dir.join("store.sqlite3"))
}
