//! Adapters of payability-verdict around the pure core: the settings table, the bounded
//! target fetcher, the signing key on disk, the clock, the store, the payment adapters (x402
//! facilitator client, Solana fee lookup), the one TLS configuration their HTTP clients
//! share, a paid request's time budget, the route table, the closed list of rule ids, the
//! telemetry of an answer, the tripwires' arithmetic, and the start-up every server runs.

pub mod api;
pub mod base_url;
pub mod budget;
mod capped_body;
pub mod clock;
pub mod fetch;
pub mod fx;
pub mod http_client;
pub mod jsonrpc;
pub mod mcp;
pub mod payment;
pub mod routes;
pub mod rules;
mod schemas;
pub mod secrets;
pub mod settings;
pub mod signing_key;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod tripwires;
pub mod verdict;
