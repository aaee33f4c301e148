//! Shared test support for the workspace's crates (a dev-dependency only): the local servers
//! `scripts/test` starts and the vectors several crates test against. The workspace-level
//! tests themselves live in `tests/tests/`.

pub mod endpoints;
pub mod vectors;
