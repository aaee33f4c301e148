//! The pure side of payments: our challenge memos, Solana addresses, and x402 payment header
//! decoding and matching. No I/O, no clock: time and nonces come in as parameters.

pub mod memo;
pub mod receipt;
pub mod siwx;
pub mod solana;
pub mod transaction;
pub mod x402;
