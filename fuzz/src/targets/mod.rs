//! One module per fuzz target; each `run` asserts its target's invariants.

pub mod agent_call;
pub mod facilitator;
pub mod grade_check;
pub mod grade_memo;
pub mod header_leg;
pub mod mcp_headers;
pub mod mcp_payment;
pub mod payment_header;
pub mod request_body;
pub mod siwx_header;
pub mod solana_rpc;
pub mod transaction;
pub mod url_policy;
pub mod valet;
pub mod verify_report;

use payability_core::signing::{PublicKeyDescriptor, canonical_bytes, verify_signed};
use serde::Serialize;
use serde_json::Value;

use crate::fixtures::{OTHER_SIGNER, SIGNER};

/// The keys a fuzzed report is verified against.
pub fn trusted() -> [PublicKeyDescriptor; 2] {
    [SIGNER.descriptor().clone(), OTHER_SIGNER.descriptor().clone()]
}

/// A signed report, as bytes on the wire and read back, re-verifies under the fixed key, its
/// canonical bytes are stable, and changing its state breaks the signature.
pub fn assert_signed_report_reverifies(signed: &impl Serialize, state: &str) {
    let wire = serde_json::to_vec(signed).expect("a signed report serialises");
    let document: Value = serde_json::from_slice(&wire).expect("our own report is JSON");
    let trusted = trusted();
    let key = verify_signed(&document, &trusted).expect("a fresh report verifies");
    assert_eq!(key.key_id, SIGNER.descriptor().key_id);
    assert_eq!(document["state"], state);
    let mut unsigned = document.as_object().expect("a report is an object").clone();
    unsigned.remove("signature");
    let canonical = canonical_bytes(&Value::Object(unsigned.clone()));
    let reparsed: Value = serde_json::from_slice(&canonical).expect("canonical bytes are JSON");
    assert_eq!(canonical_bytes(&reparsed), canonical, "RFC 8785 bytes are a fixed point");
    let mut tampered = document.clone();
    tampered["state"] = Value::String(format!("{state}!"));
    assert!(verify_signed(&tampered, &trusted).is_err(), "a changed state still verified");
}
