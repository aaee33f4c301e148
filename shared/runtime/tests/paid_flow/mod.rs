//! The paid flow driven in-process through `Service::handle`, on a temp SQLite store, a clock
//! the test moves and loopback stand-ins for the seller, the x402 facilitator and the Solana
//! RPC; requests are killed at each point of the flow and the same payment retried.
//!
//! The flow under test, in order: free checks, the payment decoded, its identity (SHA-256 of
//! the transaction message, so byte variants are one payment), a known claim answered without
//! `/verify` (younger than 30 s: 409 `payment_in_flight`; sent to `/settle` before: only to a
//! request signed in by the payer, its verdict again at most three times, another op or URL
//! 409 `payment_already_used`; unsigned: 402 `sign_in_as_payer`, whatever op and URL), verify,
//! claim (`verified`), `settling`, `/settle`, `settled`, fetch and grade, the ledger entry and
//! its count (one atomic write, once per tx), `delivered`, 200 with `PAYMENT-RESPONSE`. A
//! settle answer that is not a clean success is 503 `settlement_outcome_unknown`; a retry 30 s
//! later asks the RPC whether it landed.
//!
//! Harness: `payability_tests::standin` (the loopback HTTP server), `gate` (holds a request
//! until released), `target` (the seller), `chain` (facilitator and RPC over one chain),
//! `payment` (wire transactions and x402 headers), `sign_in` (wallets signing in),
//! `pausing_store` (stops the service at a store operation), `clock`, `world` (all of it),
//! `expect` (end states).
//! Only 127.0.0.1 is reached; every stand-in stops on its own within 60 s.

pub(crate) mod chain;
pub(crate) mod clock;
pub(crate) mod dynamodb;
pub(crate) mod expect;
pub(crate) mod gate;
pub(crate) mod pausing_store;
pub(crate) mod payment;
pub(crate) mod sign_in;
pub(crate) mod target;
pub(crate) mod world;

mod a2a;
mod basics;
mod browser_routes;
mod day0;
mod early_fetch;
mod free_tier;
mod hostile_proofs;
mod http_conventions;
mod identifiers;
mod kill_points;
mod latency;
mod mcp;
mod mcp_stateless;
mod receipts;
mod replays;
mod settlement;
mod soak;
mod telemetry;
