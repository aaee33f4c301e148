//! The runtime's integration tests, one binary: the bounded fetcher against scripted loopback
//! servers, the payment adapters, the stores (one contract suite, run on SQLite and on the
//! local DynamoDB-API servers), the rate lookups, secrets, HTTP clients and EMF lines, the paid
//! flow driven in-process through `Service::handle`, and the discovery documents held to the
//! code. `support` is the fetcher tests' scripted server; `store_contract` the suite every
//! store backend passes; `paid_flow` holds the in-process world that `discovery` uses too.
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

mod store_contract;
mod support;

mod discovery;
mod emf;
mod fetcher;
mod http_clients;
mod paid_flow;
mod payment;
mod rate_lookups;
mod secrets;
mod store_dynamodb;
mod store_sqlite;
