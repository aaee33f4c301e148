//! Adapters of payability-verdict around the pure core: the bounded target fetcher, the
//! signing key on disk, and the clock.

pub mod clock;
pub mod fetch;
pub mod fx;
pub mod signing_key;
pub mod store;
