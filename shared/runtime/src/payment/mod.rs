//! The I/O side of payments: the x402 facilitator client and the Solana fee lookup.

pub mod facilitator;
pub mod solana_rpc;
