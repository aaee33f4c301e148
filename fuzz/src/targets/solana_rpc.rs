//! Solana JSON-RPC answers through the pure decoders: the fee (`getTransaction`, JSON
//! encoding), the JSON-RPC envelope, and each result shape of the landing lookup
//! (`getSignaturesForAddress`, `getTransaction` base64, `isBlockhashValid`). Closed-form
//! errors; a non-2xx status or a JSON-RPC error is `Unavailable`, nothing else is; a landing
//! is only ever answered for a transaction whose message is the payment's.
//!
//! Frame: status u16, then the body.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::solana::{Base58Id, decode_signature};
use payability_core::payment::transaction::PaymentTransaction;
use payability_runtime::payment::solana_rpc::{
    LANDING_PAGE, Landing, MAX_RPC_ANSWER_BYTES, RpcError, read_blockhash_valid, read_fee_answer,
    read_landed_transaction, read_rpc_answer, read_signature_listing,
};
use serde_json::Value;

use crate::fixtures::{rpc_payment_tx, signature};
use crate::frame::Frame;

/// The frame and one byte over the answer cap.
pub const MAX_LEN: usize = 2 + MAX_RPC_ANSWER_BYTES + 1;

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let status = frame.u16();
    let body = frame.rest();
    let success = (200..300).contains(&status);
    let document: Option<Value> = serde_json::from_slice(body).ok();

    if let Some(fee) = read_fee_answer(status, body) {
        assert!(success && body.len() <= MAX_RPC_ANSWER_BYTES);
        let document = document.as_ref().expect("a fee is read from JSON");
        assert_eq!(document["jsonrpc"], "2.0");
        assert_eq!(document.pointer("/result/meta/fee").and_then(Value::as_u64), Some(fee));
    }

    let result = match read_rpc_answer(status, body) {
        Ok(result) => result,
        Err(RpcError::Unavailable) => {
            let errored = document.as_ref().is_some_and(|d| d.get("error").is_some());
            assert!(!success || errored, "Unavailable for a 2xx answer without an error");
            return;
        }
        Err(RpcError::Malformed) => {
            assert!(success);
            return;
        }
    };
    assert!(success && body.len() <= MAX_RPC_ANSWER_BYTES);
    let document = document.expect("a result is read from JSON");
    assert_eq!(document["jsonrpc"], "2.0");
    assert!(document.get("error").is_none());
    assert_eq!(document.get("result"), Some(&result));

    if let Ok(entries) = read_signature_listing(&result) {
        let listed = result.as_array().expect("a listing is an array");
        assert_eq!(entries.len(), listed.len().min(LANDING_PAGE));
        for (read, entry) in entries.iter().zip(listed) {
            assert!(decode_signature(read.signature.as_str()).is_some());
            assert_eq!(entry["signature"].as_str(), Some(read.signature.as_str()));
            assert_eq!(read.block_time, entry["blockTime"].as_i64(), "the answer's own block time");
        }
    }

    let payment = PaymentTransaction::parse(rpc_payment_tx([0; 64], 10_000)).expect("fixture");
    let looked_up = Base58Id::signature(&signature(7)).expect("a fixture signature");
    match read_landed_transaction(&result, &looked_up, &payment) {
        Ok(Some(Landing::Landed { signature, failed })) => {
            assert_eq!(signature, looked_up);
            let encoded = result.pointer("/transaction/0").and_then(Value::as_str).expect("b64");
            let bytes = STANDARD.decode(encoded).expect("base64");
            let landed = PaymentTransaction::parse(bytes).expect("a transaction");
            assert_eq!(landed.message(), payment.message(), "landed as another transfer");
            assert_eq!(landed.identity(), payment.identity());
            assert_eq!(failed, !result["meta"]["err"].is_null());
        }
        Ok(Some(other)) => panic!("a result decoded to {other:?}"),
        Ok(None) | Err(_) => {}
    }

    if let Ok(valid) = read_blockhash_valid(&result) {
        assert_eq!(result.get("value"), Some(&Value::Bool(valid)));
    }
}
