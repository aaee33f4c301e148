//! The handle every DynamoDB capability is implemented on ([`DynamoStore`]): the client with
//! the store's request bounds ([`RequestBounds`]) and the table names.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use aws_config::SdkConfig;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::TransactWriteItem;

use super::errors::{Transacted, transacted};
use super::tables::TableNames;
use crate::store::StoreError;

/// How often a request is tried and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestBounds {
    /// Attempts per request (the first and the retries), with the standard backoff.
    pub max_attempts: u32,
    /// Bound on opening a connection to the endpoint.
    pub connect: Duration,
    /// Bound on one attempt.
    pub attempt: Duration,
    /// Bound on a whole request, retries and backoff included.
    pub operation: Duration,
}

impl RequestBounds {
    /// The service's bounds: 3 attempts, connect 1 s, attempt 1.5 s, whole request 4 s.
    pub const SERVICE: Self = Self {
        max_attempts: 3,
        connect: Duration::from_millis(1_000),
        attempt: Duration::from_millis(1_500),
        operation: Duration::from_millis(4_000),
    };
}

/// Every capability of the store, on DynamoDB tables.
#[derive(Debug, Clone)]
pub struct DynamoStore {
    /// The DynamoDB client, with the store's request bounds.
    pub(super) client: Client,
    /// The tables, one per capability.
    pub(super) tables: TableNames,
    /// Set once this handle (or a clone) has seen Day-0 recorded: Day-0 is never removed, so
    /// a later [`Metrics::record_day0`](crate::store::Metrics::record_day0) is answered
    /// without a write, keeping every paid entry off the one `day0` key.
    pub(super) day0_known: Arc<AtomicBool>,
}

impl DynamoStore {
    /// A store on the given tables with the service's [`RequestBounds::SERVICE`] (whatever
    /// the SDK configuration says about retries and timeouts).
    pub fn new(sdk_config: &SdkConfig, tables: TableNames) -> Self {
        Self::with_bounds(sdk_config, tables, RequestBounds::SERVICE)
    }

    /// A store on the given tables with other bounds (local servers that answer slowly).
    pub fn with_bounds(sdk_config: &SdkConfig, tables: TableNames, bounds: RequestBounds) -> Self {
        let config = aws_sdk_dynamodb::config::Builder::from(sdk_config)
            .retry_config(RetryConfig::standard().with_max_attempts(bounds.max_attempts))
            .timeout_config(
                TimeoutConfig::builder()
                    .connect_timeout(bounds.connect)
                    .operation_attempt_timeout(bounds.attempt)
                    .operation_timeout(bounds.operation)
                    .build(),
            )
            .build();
        Self { client: Client::from_conf(config), tables, day0_known: Arc::default() }
    }

    /// The tables this store uses.
    pub fn tables(&self) -> &TableNames {
        &self.tables
    }

    /// The configured client (for [`create_tables`](super::create_tables) and local tooling).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// One `TransactWriteItems` of two writes: both applied, or neither.
    pub(super) async fn transact_two(
        &self,
        first: TransactWriteItem,
        second: TransactWriteItem,
    ) -> Result<Transacted, StoreError> {
        let written =
            self.client.transact_write_items().transact_items(first).transact_items(second);
        transacted(written.send().await)
    }
}
