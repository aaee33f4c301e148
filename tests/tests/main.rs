//! The workspace-level tests, one binary: `template.yaml` against the workspace, the
//! documentation against the code, and the operators' settings table. (The corpus harness,
//! `tests/corpus.rs`, is a binary of its own: the criteria document publishes its command.)
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

mod deploy_parity;
mod docs;
mod settings_table;
