//! The five table names (their variables are in [`crate::settings::TABLES`]), and creating the tables for tests and local
//! runs (production tables come from the SAM template).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::create_table::CreateTableError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification, TimeToLiveStatus,
};

use super::attributes::{KEY, TTL_ATTRIBUTE};
use super::errors::unavailable;
use crate::settings;
use crate::store::StoreError;

/// How long [`create_tables`] waits for one table to become active.
const ACTIVE_WAIT: Duration = Duration::from_secs(60);
/// How often [`create_tables`] asks whether a table is active.
const ACTIVE_POLL: Duration = Duration::from_millis(50);
/// The error code a local server answers for an operation it does not implement.
const UNKNOWN_OPERATION: &str = "UnknownOperationException";

/// Each table's environment variable and TTL attribute, in [`TableNames::all`] order (the
/// SAM template declares the same tables; a test checks they agree).
pub const TABLE_VARIABLES: [(&str, Option<&str>); 5] = [
    (settings::TABLE_LEDGER.name(), None),
    (settings::TABLE_PAYMENTS.name(), Some(TTL_ATTRIBUTE)),
    (settings::TABLE_FREE_TIER.name(), Some(TTL_ATTRIBUTE)),
    (settings::TABLE_METRICS.name(), None),
    (settings::TABLE_FX.name(), None),
];

/// The table of each capability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableNames {
    /// The ledger ([`settings::TABLE_LEDGER`]).
    pub ledger: String,
    /// Payment claims ([`settings::TABLE_PAYMENTS`]).
    pub payments: String,
    /// Free-tier counters ([`settings::TABLE_FREE_TIER`]).
    pub free_tier: String,
    /// Metrics counters ([`settings::TABLE_METRICS`]).
    pub metrics: String,
    /// The USD/CAD rate cache ([`settings::TABLE_FX`]).
    pub fx: String,
}

impl TableNames {
    /// `<prefix>ledger`, `<prefix>payments`, `<prefix>free-tier`, `<prefix>metrics`,
    /// `<prefix>fx` (tests and local runs).
    pub fn with_prefix(prefix: &str) -> Self {
        Self {
            ledger: format!("{prefix}ledger"),
            payments: format!("{prefix}payments"),
            free_tier: format!("{prefix}free-tier"),
            metrics: format!("{prefix}metrics"),
            fx: format!("{prefix}fx"),
        }
    }

    /// Every table with its TTL attribute, if it has one.
    pub fn all(&self) -> [(&str, Option<&'static str>); 5] {
        let [ledger, payments, free_tier, metrics, fx] = TABLE_VARIABLES.map(|(_, ttl)| ttl);
        [
            (&self.ledger, ledger),
            (&self.payments, payments),
            (&self.free_tier, free_tier),
            (&self.metrics, metrics),
            (&self.fx, fx),
        ]
    }
}

/// Creates the tables that do not exist yet (on-demand billing, `pk` a string hash key),
/// waits until each is active, and turns on TTL where the table has it.
pub async fn create_tables(client: &Client, tables: &TableNames) -> Result<(), StoreError> {
    for (table, ttl) in tables.all() {
        let key_attribute = AttributeDefinition::builder()
            .attribute_name(KEY)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .map_err(|_| StoreError::Unavailable)?;
        let key_schema = KeySchemaElement::builder()
            .attribute_name(KEY)
            .key_type(KeyType::Hash)
            .build()
            .map_err(|_| StoreError::Unavailable)?;
        let created = client
            .create_table()
            .table_name(table)
            .attribute_definitions(key_attribute)
            .key_schema(key_schema)
            .billing_mode(BillingMode::PayPerRequest)
            .send()
            .await;
        match created {
            Ok(_) => {}
            Err(SdkError::ServiceError(failure))
                if matches!(failure.err(), CreateTableError::ResourceInUseException(_)) => {}
            Err(other) => return Err(unavailable(other)),
        }
        wait_until_active(client, table).await?;
        if let Some(attribute) = ttl {
            enable_ttl(client, table, attribute).await?;
        }
    }
    Ok(())
}

/// Polls the table's status every [`ACTIVE_POLL`] until it is active (a table just created
/// may be unknown or `CREATING` for a while), for at most [`ACTIVE_WAIT`]. The SDK's waiter
/// is not used: it sleeps 20 s after its first poll whenever the table is not active yet.
async fn wait_until_active(client: &Client, table: &str) -> Result<(), StoreError> {
    let deadline = Instant::now() + ACTIVE_WAIT;
    loop {
        match client.describe_table().table_name(table).send().await {
            Ok(described) => {
                if described.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                    return Ok(());
                }
            }
            Err(SdkError::ServiceError(failure))
                if failure.err().is_resource_not_found_exception() => {}
            Err(other) => return Err(unavailable(other)),
        }
        if Instant::now() >= deadline {
            return Err(StoreError::Unavailable);
        }
        tokio::time::sleep(ACTIVE_POLL).await;
    }
}

/// Turns on TTL unless it is on already; a local server that does not implement the TTL
/// operations (answers `UnknownOperationException`) keeps its items without it.
async fn enable_ttl(client: &Client, table: &str, attribute: &str) -> Result<(), StoreError> {
    let unsupported = |code: Option<&str>| code == Some(UNKNOWN_OPERATION);
    match client.describe_time_to_live().table_name(table).send().await {
        Ok(described) => {
            let status = described.time_to_live_description().and_then(|d| d.time_to_live_status());
            if matches!(status, Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)) {
                return Ok(());
            }
        }
        Err(SdkError::ServiceError(failure)) if unsupported(failure.err().code()) => return Ok(()),
        Err(other) => return Err(unavailable(other)),
    }
    let specification = TimeToLiveSpecification::builder()
        .attribute_name(attribute)
        .enabled(true)
        .build()
        .map_err(|_| StoreError::Unavailable)?;
    match client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(specification)
        .send()
        .await
    {
        Ok(_) => Ok(()),
        Err(SdkError::ServiceError(failure)) if unsupported(failure.err().code()) => Ok(()),
        Err(other) => Err(unavailable(other)),
    }
}
