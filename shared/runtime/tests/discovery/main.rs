//! The discovery documents and the 402's description, driven in-process through
//! `Service::handle` (and the criteria function's `answer_criteria`) on a temp SQLite store,
//! with a loopback seller for house checks. Each test fails when a document drifts from the
//! code it is generated from: the route table, the closed error list, the report the core
//! assembles, the precheck answer, the 402.
//!
//! `schema` is a small JSON Schema evaluator (the keywords our schemas use); `requests` holds
//! the requests these tests send and their seller; `tools` runs the official x402 tools on our
//! 402s when they are installed.
//!
//! The service is the paid-flow tests' one [`world::World`], with what it stands on: the files
//! are those of `paid_flow/`, compiled here too (the paid flow's own readers go unused here).

mod requests;
mod schema;
mod tools;

#[path = "../paid_flow/chain.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod chain;
#[path = "../paid_flow/clock.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod clock;
#[path = "../paid_flow/gate.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod gate;
#[path = "../paid_flow/pausing_store.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod pausing_store;
#[path = "../paid_flow/payment.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod payment;
#[path = "../paid_flow/sign_in.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod sign_in;
#[path = "../paid_flow/target.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod target;
#[path = "../paid_flow/world.rs"]
#[allow(dead_code, reason = "the paid flow's harness, shared; this binary uses part of it")]
mod world;

mod bazaar;
mod criteria;
mod documents;
mod openapi;
mod reports;
