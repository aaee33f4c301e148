//! The core's integration tests, one binary: custody under canaries, the graders' totality on
//! arbitrary bytes, and property tests of the rules and the URL policy against independent
//! oracles.

mod custody;
mod properties;
mod totality;
