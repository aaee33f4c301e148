//! The Solana fee of a settled payment, from JSON-RPC `getTransaction` at the configured RPC.
//! Best effort: the ledger records `null` (fee pending) when this yields nothing.

use std::time::Duration;

use payability_core::payment::solana::decode_signature;
use reqwest::Client;
use serde_json::{Value, json};

use super::read_capped;

/// Largest RPC answer read, in bytes (a `getTransaction` answer with logs is a few KiB).
pub const MAX_RPC_ANSWER_BYTES: usize = 256 * 1024;

/// The fee in lamports (`result.meta.fee`) of a confirmed transaction, or None when the
/// signature is not base58 of 64 bytes, the RPC fails, errors, does not know the transaction
/// yet, answers something else, or takes longer than `bound` (everything included).
pub async fn transaction_fee(
    client: &Client,
    rpc_url: &str,
    signature: &str,
    bound: Duration,
) -> Option<u64> {
    decode_signature(signature)?;
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "getTransaction",
        "params": [signature, {
            "encoding": "json",
            "maxSupportedTransactionVersion": 0,
            "commitment": "confirmed",
        }],
    });
    let call = async {
        let response = client.post(rpc_url).json(&body).timeout(bound).send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        let bytes = read_capped(response, MAX_RPC_ANSWER_BYTES).await.ok()?;
        let answer: Value = serde_json::from_slice(&bytes).ok()?;
        if answer.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return None;
        }
        answer.get("result")?.get("meta")?.get("fee")?.as_u64()
    };
    tokio::time::timeout(bound, call).await.ok().flatten()
}
