//! `PaymentTransaction::parse` on arbitrary bytes: closed-form errors; a parsed transaction
//! keeps its bytes, re-parses to itself, its identity is the SHA-256 of its message, and
//! neither another value in the fee payer's signature slot nor a trailing byte changes it.
//!
//! Input: the wire bytes.

use payability_core::payment::transaction::{MAX_TRANSACTION_BYTES, PaymentTransaction};
use sha2::{Digest, Sha256};

/// One byte over the transaction cap.
pub const MAX_LEN: usize = MAX_TRANSACTION_BYTES + 1;

pub fn run(data: &[u8]) {
    let parsed = PaymentTransaction::parse(data.to_vec());
    if data.len() > MAX_TRANSACTION_BYTES {
        assert!(parsed.is_err());
        return;
    }
    let Ok(tx) = parsed else { return };
    assert_eq!(tx.bytes, data);
    assert_eq!(PaymentTransaction::parse(tx.bytes.clone()).as_ref(), Ok(&tx));
    let digest: [u8; 32] = Sha256::digest(tx.message()).into();
    assert_eq!(tx.identity(), digest);
    assert!(!tx.signatures.is_empty());
    assert!(tx.account_keys.len() >= tx.signatures.len());
    // Wire layout: a canonical compact count, the signatures, the message, trailing bytes.
    let count_len = compact_len(tx.signatures.len());
    let message_start = count_len + tx.signatures.len() * 64;
    let message = tx.message();
    assert_eq!(&data[message_start..message_start + message.len()], message);
    if let Some(buyer) = tx.buyer() {
        assert_ne!(buyer, tx.account_keys[0]);
        assert!(tx.account_keys[1..tx.signatures.len()].contains(&buyer));
    }

    // Another fee-payer slot value: the same payment.
    let mut other_slot = data.to_vec();
    for byte in &mut other_slot[count_len..count_len + 64] {
        *byte ^= 0x5a;
    }
    let other = PaymentTransaction::parse(other_slot).expect("another slot value still parses");
    assert_eq!(other.identity(), tx.identity());

    if data.len() < MAX_TRANSACTION_BYTES {
        let mut longer = data.to_vec();
        longer.push(0x99);
        let longer = PaymentTransaction::parse(longer).expect("a trailing byte still parses");
        assert_eq!(longer.identity(), tx.identity());
        assert_eq!(longer.message(), tx.message());
    }
}

/// Bytes of the canonical compact-u16 encoding of `n`.
fn compact_len(n: usize) -> usize {
    match n {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        _ => 3,
    }
}
