//! The DynamoDB backend (production): one table per capability, each keyed by a single
//! string partition key `pk`, so each function's IAM policy can name exactly its tables.
//! Every invariant is one conditional write (of one item, or a two-item transaction);
//! nothing is read and then written.
//! Reads are strongly consistent. Throttling and transient failures are retried by the
//! SDK's standard policy within explicit time bounds; after that the answer is
//! [`StoreError::Unavailable`](crate::store::StoreError::Unavailable). No SDK error text ever
//! leaves this module.

mod attributes;
mod errors;
mod free_tier;
mod fx;
mod handle;
mod ledger;
mod metrics;
mod nonces;
mod payments;
mod tables;

pub use attributes::{KEY, TTL_ATTRIBUTE};
pub use handle::{DynamoStore, RequestBounds};
pub use metrics::SHARDS as METRICS_SHARDS;
pub use tables::{TABLE_VARIABLES, TableNames, create_tables};
