//! Shared test support for the workspace's crates (a dev-dependency only): the local servers
//! `scripts/test` starts, the vectors several crates test against and (feature `http`) a
//! loopback HTTP stand-in. The workspace-level tests themselves live in `tests/tests/`.

pub mod endpoints;
#[cfg(feature = "http")]
pub mod standin;
pub mod vectors;
