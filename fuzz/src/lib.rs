//! The fuzz targets of payability-verdict, as plain functions: each `targets::<name>::run`
//! takes the fuzzer's bytes, calls one decoder of outside bytes and asserts what must hold
//! (a panic is a finding). The `fuzz_targets/*.rs` binaries only hand libFuzzer's input to
//! them, so `cargo test --manifest-path fuzz/Cargo.toml` can replay every checked-in corpus
//! file and regression input without libFuzzer.
//!
//! Inputs are framed by [`frame::Frame`] (fixed-width little-endian fields, then the rest), so
//! seeds can be written from the project's own vectors (`tests/seeds.rs`).

pub mod fixtures;
pub mod frame;
pub mod oracle;
pub mod targets;

/// A target: its name, its entry point and the `-max_len` it runs with (the decoder's cap
/// plus the frame, as `scripts/fuzz` passes it).
pub type Target = (&'static str, fn(&[u8]), usize);

/// Every target.
pub const TARGETS: &[Target] = &[
    ("grade_check", targets::grade_check::run, targets::grade_check::MAX_LEN),
    ("grade_memo", targets::grade_memo::run, targets::grade_memo::MAX_LEN),
    ("header_leg", targets::header_leg::run, targets::header_leg::MAX_LEN),
    ("payment_header", targets::payment_header::run, targets::payment_header::MAX_LEN),
    ("transaction", targets::transaction::run, targets::transaction::MAX_LEN),
    ("url_policy", targets::url_policy::run, targets::url_policy::MAX_LEN),
    ("facilitator", targets::facilitator::run, targets::facilitator::MAX_LEN),
    ("solana_rpc", targets::solana_rpc::run, targets::solana_rpc::MAX_LEN),
    ("request_body", targets::request_body::run, targets::request_body::MAX_LEN),
    ("siwx_header", targets::siwx_header::run, targets::siwx_header::MAX_LEN),
    ("mcp_payment", targets::mcp_payment::run, targets::mcp_payment::MAX_LEN),
    ("agent_call", targets::agent_call::run, targets::agent_call::MAX_LEN),
    ("mcp_headers", targets::mcp_headers::run, targets::mcp_headers::MAX_LEN),
    ("valet", targets::valet::run, targets::valet::MAX_LEN),
    ("verify_report", targets::verify_report::run, targets::verify_report::MAX_LEN),
];
