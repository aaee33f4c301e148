//! The DynamoDB backend (production): one table per capability, each keyed by a single
//! string partition key `pk`, so each function's IAM policy can name exactly its tables.
//! Every invariant is one conditional write (of one item, or a two-item transaction);
//! nothing is read and then written.
//! Reads are strongly consistent. Throttling and transient failures are retried by the
//! SDK's standard policy within explicit time bounds; after that the answer is
//! [`StoreError::Unavailable`]. No SDK error text ever leaves this module.

mod attributes;
mod errors;
mod free_tier;
mod fx;
mod ledger;
mod metrics;
mod nonces;
mod payments;
mod tables;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use aws_config::SdkConfig;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::TransactWriteItem;

pub use attributes::{KEY, TTL_ATTRIBUTE};
pub use metrics::SHARDS as METRICS_SHARDS;
pub use tables::{TABLE_VARIABLES, TableNames, create_tables};

use super::StoreError;
use errors::{Transacted, transacted};

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
    client: Client,
    tables: TableNames,
    /// Set once this handle (or a clone) has seen Day-0 recorded: Day-0 is never removed, so
    /// a later [`Metrics::record_day0`](crate::store::Metrics::record_day0) is answered
    /// without a write, keeping every paid entry off the one `day0` key.
    day0_known: Arc<AtomicBool>,
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

    /// The configured client (for [`create_tables`] and local tooling).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// One `TransactWriteItems` of two writes: both applied, or neither.
    async fn transact_two(
        &self,
        first: TransactWriteItem,
        second: TransactWriteItem,
    ) -> Result<Transacted, StoreError> {
        let written =
            self.client.transact_write_items().transact_items(first).transact_items(second);
        transacted(written.send().await)
    }
}
