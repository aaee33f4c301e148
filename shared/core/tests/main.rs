//! The core's integration tests, one binary: custody under canaries, the graders' totality on
//! arbitrary bytes, and property tests of the rules and the URL policy against independent
//! oracles.
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

mod custody;
mod properties;
mod totality;
