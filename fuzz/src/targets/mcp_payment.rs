//! `decode_payment_object` (MCP's `_meta["x402/payment"]`, a JSON value inside the JSON-RPC body)
//! on arbitrary JSON: closed-form refusals; a value that is not an object is malformed; past
//! the header's bound (the compact JSON of its non-null members) always `HeaderTooLarge`; and
//! a decoded payment is the very payment the same payload makes over HTTP (`PAYMENT-SIGNATURE`,
//! standard base64 of that JSON): one payment whatever transport it arrives by. Null members
//! are dropped, so the value without them decodes the same.
//!
//! Input: the `_meta["x402/payment"]` value's JSON text (not JSON: nothing to decode, as the
//! MCP endpoint answers a parse error first).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::payment::x402::{
    MAX_PAYMENT_PAYLOAD_BYTES, PaymentRefusal, X402Version, decode_payment_header,
    decode_payment_object,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The MCP request body cap: the value can be no larger than the body it comes in.
pub const MAX_LEN: usize = 262_144;

pub fn run(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let decoded = decode_payment_object(&value);
    let Value::Object(fields) = &value else {
        assert_eq!(decoded, Err(PaymentRefusal::HeaderMalformed), "not an object");
        return;
    };
    let present: serde_json::Map<String, Value> =
        fields.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
    let present = Value::Object(present);
    let json = serde_json::to_vec(&present).expect("a JSON value serialises");
    if json.len() > MAX_PAYMENT_PAYLOAD_BYTES {
        assert_eq!(decoded, Err(PaymentRefusal::HeaderTooLarge));
        return;
    }
    assert_eq!(decode_payment_object(&present), decoded, "null members are dropped");
    let over_http = decode_payment_header(X402Version::V2, STANDARD.encode(&json).as_bytes());
    let payment = match decoded {
        Ok(payment) => payment,
        Err(refusal) => {
            assert!(PaymentRefusal::ALL.contains(&refusal));
            assert!(!refusal.message().is_empty());
            assert_ne!(refusal, PaymentRefusal::HeaderTooLarge, "within the bound");
            assert_eq!(over_http, Err(refusal), "the same refusal over HTTP");
            return;
        }
    };
    assert_eq!(payment.version, X402Version::V2, "MCP payments are v2");
    let digest: [u8; 32] = Sha256::digest(payment.transaction.message()).into();
    assert_eq!(payment.transaction.identity(), digest, "the identity is the message's SHA-256");
    assert_eq!(over_http.as_ref(), Ok(&payment), "the same payment over HTTP");
}
