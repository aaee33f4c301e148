//! The facilitator's answers (`/supported`, `/verify`, `/settle` v1 and v2) as the client
//! reads them, through the pure decoders: closed-form errors only; `Unavailable`
//! exactly for 5xx, 408 and 429; a fee payer, payer and settlement signature are always
//! base58 keys of the right length taken from the answer; a settlement is on our network and
//! its echo is rebuilt from the checked fields only.
//!
//! Frame: which answer u8, taken modulo 4 (0 supported, 1 verify, 2 settle v1, 3 settle v2:
//! bytes above 3 once named settlements of other versions, which the version type cannot
//! express), status u16, then the body.

use payability_core::payment::solana::{decode_pubkey, decode_signature};
use payability_core::payment::x402::X402Version;
use payability_runtime::payment::facilitator::{
    FacilitatorError, MAX_ANSWER_BYTES, read_settle_answer, read_supported_answer,
    read_verify_answer,
};
use serde_json::{Value, json};

use crate::frame::Frame;

/// Solana mainnet as x402 v1 names it, spelled here rather than taken from the client's table.
const MAINNET_V1: &str = "solana";
/// Solana mainnet as x402 v2 names it (CAIP-2), spelled here likewise.
const MAINNET_V2: &str = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/// The frame and one byte over the answer cap.
pub const MAX_LEN: usize = 3 + MAX_ANSWER_BYTES + 1;

fn status_unavailable(status: u16) -> bool {
    (500..600).contains(&status) || status == 408 || status == 429
}

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let which = frame.u8() % 4;
    let status = frame.u16();
    let body = frame.rest();
    let document: Option<Value> = serde_json::from_slice(body).ok();
    let object = document.as_ref().and_then(Value::as_object);
    let success = (200..300).contains(&status);

    let error = match which {
        0 => read_supported_answer(status, body).map(|payer| {
            assert!(success);
            assert!(decode_pubkey(payer.as_str()).is_some());
            let object = object.expect("read from a JSON object");
            assert!(fee_payer_candidates(object).contains(&payer.as_str()), "{}", payer.as_str());
        }),
        1 => read_verify_answer(status, body).map(|verified| {
            assert!(success);
            let object = object.expect("read from a JSON object");
            assert_eq!(object.get("isValid"), Some(&Value::Bool(true)));
            if let Some(payer) = &verified.payer {
                assert!(decode_pubkey(payer.as_str()).is_some());
                assert_eq!(object.get("payer").and_then(Value::as_str), Some(payer.as_str()));
            }
        }),
        _ => {
            let version = if which == 2 { X402Version::V1 } else { X402Version::V2 };
            let result = read_settle_answer(version, status, body);
            if result == Err(FacilitatorError::Forged) {
                assert!(success);
                assert_eq!(object.and_then(|o| o.get("success")), Some(&Value::Bool(true)));
            }
            result.map(|settled| {
                assert!(success);
                let object = object.expect("read from a JSON object");
                assert_eq!(object.get("success"), Some(&Value::Bool(true)));
                assert!(decode_signature(settled.transaction.as_str()).is_some());
                let ours = if version == X402Version::V1 { MAINNET_V1 } else { MAINNET_V2 };
                assert_eq!(object.get("network").and_then(Value::as_str), Some(ours));
                let mut echo = json!({
                    "success": true,
                    "transaction": settled.transaction.as_str(),
                    "network": ours,
                });
                if let Some(payer) = &settled.payer {
                    assert!(decode_pubkey(payer.as_str()).is_some());
                    echo["payer"] = json!(payer.as_str());
                }
                assert_eq!(
                    json!(settled.response),
                    echo,
                    "the echo carries only the checked fields"
                );
            })
        }
    }
    .err();

    match error {
        Some(FacilitatorError::Unavailable) => assert!(status_unavailable(status), "{status}"),
        Some(e) => assert!(e.rule().starts_with("facilitator_") && !e.message().is_empty()),
        None => assert!(body.len() <= MAX_ANSWER_BYTES),
    }
    if status_unavailable(status) {
        assert_eq!(error, Some(FacilitatorError::Unavailable));
    }
}

/// Every string `/supported` names as a mainnet fee payer: the first entry of
/// `signers[<mainnet>]` or `signers["solana:*"]`, or `extra.feePayer` of a `kinds[]` entry on
/// mainnet (v1 or v2 name).
fn fee_payer_candidates(answer: &serde_json::Map<String, Value>) -> Vec<&str> {
    let mut out = Vec::new();
    if let Some(signers) = answer.get("signers").and_then(Value::as_object) {
        for key in [MAINNET_V2, "solana:*"] {
            if let Some(first) = signers.get(key).and_then(|l| l.get(0)).and_then(Value::as_str) {
                out.push(first);
            }
        }
    }
    if let Some(kinds) = answer.get("kinds").and_then(Value::as_array) {
        for kind in kinds {
            let network = kind.get("network").and_then(Value::as_str);
            if matches!(network, Some(n) if n == MAINNET_V1 || n == MAINNET_V2)
                && let Some(payer) = kind.pointer("/extra/feePayer").and_then(Value::as_str)
            {
                out.push(payer);
            }
        }
    }
    out
}
