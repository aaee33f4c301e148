//! `decode_payment_header` (v1 `X-PAYMENT`, v2 `PAYMENT-SIGNATURE`) on arbitrary bytes:
//! closed-form refusals; a decoded payment carries the version it came in,
//! its transaction re-parses from its own bytes to the same identity (the SHA-256 of its
//! message), and re-encoding the decoded payload as standard base64 JSON decodes to an equal
//! payment; a v2 `accepted` is matched to our requirements only when it echoes them with a
//! valid memo of that route.
//!
//! Frame: a version selector u8 (even: 1, odd: 2; the multiples of 7 that once named other
//! versions, which the version type cannot express, follow the same rule), then the raw
//! header value.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::challenge::requirements_v2;
use payability_core::op::PaidOp;
use payability_core::payment::memo::{MemoCheck, check_memo};
use payability_core::payment::transaction::{MAX_TRANSACTION_BYTES, PaymentTransaction};
use payability_core::payment::x402::{
    MAX_PAYMENT_HEADER_BYTES, Network, PaymentRefusal, X402Version, check_v2_accepted,
    decode_payment_header,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::fixtures::{NOW, memo_key, terms};
use crate::frame::Frame;

/// The selector and one byte over the header cap.
pub const MAX_LEN: usize = 1 + MAX_PAYMENT_HEADER_BYTES + 1;

/// The version a selector byte names.
pub fn version_of(selector: u8) -> X402Version {
    if selector.is_multiple_of(2) { X402Version::V1 } else { X402Version::V2 }
}

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let version = version_of(frame.u8());
    let raw = frame.rest();
    let decoded = decode_payment_header(version, raw);
    if raw.len() > MAX_PAYMENT_HEADER_BYTES {
        assert_eq!(decoded, Err(PaymentRefusal::HeaderTooLarge));
        return;
    }
    let payment = match decoded {
        Ok(payment) => payment,
        Err(refusal) => {
            assert!(PaymentRefusal::ALL.contains(&refusal));
            assert!(!refusal.message().is_empty());
            return;
        }
    };

    assert_eq!(payment.version, version);
    assert_eq!(payment.payload["x402Version"].as_u64(), Some(u64::from(version.number())));
    let transaction = &payment.transaction;
    assert!(transaction.bytes.len() <= MAX_TRANSACTION_BYTES);
    let again = PaymentTransaction::parse(transaction.bytes.clone()).expect("re-parses");
    assert_eq!(&again, transaction);
    assert_eq!(again.identity(), transaction.identity());
    let digest: [u8; 32] = Sha256::digest(transaction.message()).into();
    assert_eq!(transaction.identity(), digest, "the identity is the message's SHA-256");
    let carried = payment.payload["payload"]["transaction"].as_str().expect("a string");
    assert!(!carried.is_empty());
    if version == X402Version::V1 {
        assert_eq!(payment.accepted, None);
        assert_eq!(payment.payload["scheme"], "exact");
        assert_eq!(payment.payload["network"], Network::SolanaMainnet.v1_name());
    } else {
        let accepted = payment.accepted.as_ref().expect("v2 carries accepted");
        assert!(accepted.is_object());
        assert_eq!(Some(accepted), payment.payload.get("accepted"));
    }

    // The same payload, re-encoded the canonical way, is the same payment.
    let reencoded = STANDARD.encode(serde_json::to_vec(&payment.payload).expect("serialises"));
    let again = decode_payment_header(version, reencoded.as_bytes());
    if reencoded.len() > MAX_PAYMENT_HEADER_BYTES {
        assert_eq!(again, Err(PaymentRefusal::HeaderTooLarge));
    } else {
        assert_eq!(again.as_ref(), Ok(&payment), "re-encoded payload decodes to another payment");
    }

    if let Some(accepted) = &payment.accepted {
        check_accepted(accepted);
    }
}

/// `check_v2_accepted` against the requirements we issue: Ok only for an echo of them with a
/// memo of ours for that route, not expired; never for both routes.
fn check_accepted(accepted: &Value) {
    let key = memo_key();
    let memo = accepted.get("extra").and_then(|e| e.get("memo")).and_then(Value::as_str);
    let mut ok_routes = 0;
    for route in [PaidOp::Check, PaidOp::Memo] {
        let typed = requirements_v2(&terms(""));
        let result = check_v2_accepted(accepted, &typed, &key, route, NOW);
        let issued = json!(typed);
        if let Ok(echoed) = result {
            ok_routes += 1;
            assert_eq!(&json!(echoed), accepted, "the typed echo is the accepted object");
            let memo = memo.expect("an accepted payment names a memo");
            assert_eq!(check_memo(&key, route, memo, NOW), MemoCheck::Valid);
            for field in ["scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"] {
                assert_eq!(accepted.get(field), issued.get(field), "{field}");
            }
            let mut echoed = accepted["extra"].as_object().expect("extra").clone();
            echoed.remove("memo");
            assert_eq!(Some(&Value::Object(echoed)), issued.get("extra"));
        }
    }
    assert!(ok_routes <= 1, "one memo paid for both routes");
}
