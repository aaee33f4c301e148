//! Adapters of payability-verdict around the pure core: the bounded target fetcher, the
//! signing key on disk, the clock, the store, and the payment adapters (x402 facilitator
//! client, Solana fee lookup), and the one TLS configuration their HTTP clients share.

pub mod api;
mod capped_body;
pub mod clock;
pub mod fetch;
pub mod fx;
pub mod http_client;
pub mod payment;
pub mod secrets;
pub mod signing_key;
pub mod store;
