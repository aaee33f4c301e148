//! Shared test support for the workspace's crates (a dev-dependency only): the local servers
//! `scripts/test` starts (feature `aws`: SDK settings for them), the vectors several crates
//! test against, scratch directories and (feature `http`) a loopback HTTP stand-in, the
//! answer reader, JSON as a protobuf `Struct` carries it, the dollar amounts a text states,
//! and a test's own name for running itself again in a child process. The workspace-level tests
//! themselves live in `tests/tests/`.

#[cfg(feature = "http")]
pub mod answer;
pub mod endpoints;
pub mod prices;
#[cfg(feature = "http")]
pub mod protobuf;
pub mod rerun;
pub mod scratch;
#[cfg(feature = "http")]
pub mod standin;
pub mod vectors;
