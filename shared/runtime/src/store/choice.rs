//! Which store a process uses: `PAYABILITY_STORE=dynamodb` (tables named by the
//! `PAYABILITY_TABLE_*` variables), or the embedded SQLite file (a path in
//! `PAYABILITY_STORE`, else the default under the user's data directory).

use std::path::PathBuf;

use super::dynamodb::{MissingTableVariable, TableNames};

/// Environment variable choosing the store.
pub const STORE_VAR: &str = "PAYABILITY_STORE";

/// The configured store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// DynamoDB tables (production).
    DynamoDb(TableNames),
    /// The embedded SQLite file at this path.
    Embedded(PathBuf),
}

/// Why the store setting is unusable (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreChoiceError {
    /// `PAYABILITY_STORE=dynamodb` but a table variable is missing.
    MissingTable(&'static str),
    /// No path given and neither `XDG_DATA_HOME` nor `HOME` is set.
    NoDataDirectory,
}

impl std::fmt::Display for StoreChoiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingTable(var) => write!(f, "PAYABILITY_STORE=dynamodb needs {var}"),
            Self::NoDataDirectory => f.write_str(
                "no data directory for the embedded store: set PAYABILITY_STORE, XDG_DATA_HOME or HOME",
            ),
        }
    }
}

impl std::error::Error for StoreChoiceError {}

impl StoreChoice {
    /// Reads the choice from the environment.
    pub fn from_env() -> Result<Self, StoreChoiceError> {
        match std::env::var_os(STORE_VAR).filter(|v| !v.is_empty()) {
            Some(v) if v == "dynamodb" => TableNames::from_env()
                .map(Self::DynamoDb)
                .map_err(|MissingTableVariable(var)| StoreChoiceError::MissingTable(var)),
            Some(path) => Ok(Self::Embedded(PathBuf::from(path))),
            None => default_embedded_path().map(Self::Embedded),
        }
    }
}

/// `$XDG_DATA_HOME/payability/store.sqlite3`, else `~/.local/share/payability/store.sqlite3`.
pub fn default_embedded_path() -> Result<PathBuf, StoreChoiceError> {
    crate::signing_key::data_dir()
        .map(|dir| dir.join("store.sqlite3"))
        .ok_or(StoreChoiceError::NoDataDirectory)
}
