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
//! The service is the paid-flow tests' one [`World`](crate::paid_flow::world::World), with
//! what it stands on (`paid_flow`'s harness).

mod requests;
mod schema;
mod tools;

mod bazaar;
mod criteria;
mod documents;
mod openapi;
mod reports;
