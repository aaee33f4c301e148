//! The `payability` command's integration tests, one binary: the command end to end against
//! loopback targets, `payability serve` and its bounds, the paid flow with the official x402
//! clients (HTTP, MCP, A2A, the agent quickstarts, the gateway quota), the official middlewares
//! as sellers, the web page in Chromium, the deployed shape under `cargo lambda watch`, the
//! ledger and the help texts. `support` is the running server and the loopback x402 world.
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

mod support;

mod a2a;
mod action;
mod agents;
mod cli;
mod deployed_shape;
mod doctor;
mod doctor_sellers;
mod gateway_quota;
mod help_docs;
mod ledger;
mod mcp;
mod mcp_stateless;
mod mcp_stdio;
mod packages;
mod page;
mod paid;
mod sellers;
mod sellers_ci;
mod serve;
mod serve_limits;
