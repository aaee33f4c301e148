//! Address validity per chain family: a Solana address is base58 of 32 bytes; an EVM address
//! is `0x` and 40 hex digits, with a valid EIP-55 checksum when its letters are mixed-case.

use sha3::{Digest, Keccak256};

use crate::payment::solana::decode_pubkey;

/// A Solana address: base58 (Bitcoin alphabet) of exactly 32 bytes.
pub fn svm_address_valid(text: &str) -> bool {
    decode_pubkey(text).is_some()
}

/// An EVM address: `0x` and 40 hex digits; all-lowercase and all-uppercase spellings carry no
/// checksum, a mixed-case one must be its EIP-55 spelling.
pub fn evm_address_valid(text: &str) -> bool {
    let Some(digits) = text.strip_prefix("0x") else {
        return false;
    };
    if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let has_lower = digits.bytes().any(|b| b.is_ascii_lowercase());
    let has_upper = digits.bytes().any(|b| b.is_ascii_uppercase());
    !(has_lower && has_upper) || eip55(digits) == digits
}

/// EIP-55: each letter of the lowercase address is uppercased where the matching nibble of
/// Keccak-256(lowercase address) is 8 or more.
fn eip55(digits: &str) -> String {
    let lower = digits.to_ascii_lowercase();
    let hash = Keccak256::digest(lower.as_bytes());
    lower
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let nibble = (hash[i / 2] >> (if i % 2 == 0 { 4 } else { 0 })) & 0x0f;
            if nibble >= 8 { c.to_ascii_uppercase() } else { c }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evm_address_vectors() {
        let vectors: [(&str, bool); 12] = [
            // EIP-55's own test cases.
            ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", true),
            ("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", true),
            ("0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", true),
            ("0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", true),
            ("0x52908400098527886E0F7030069857D2E4169EE7", true),
            ("0xde709f2102306220921060314715629080e2fb77", true),
            // One letter's case changed: the checksum fails.
            ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", false),
            ("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", true),
            ("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", false),
            ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA", false),
            ("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg", false),
            ("0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", false),
        ];
        for (text, valid) in vectors {
            assert_eq!(evm_address_valid(text), valid, "{text}");
        }
    }

    #[test]
    fn svm_address_vectors() {
        let vectors: [(&str, bool); 5] = [
            ("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", true),
            ("11111111111111111111111111111111", true),
            ("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGG", false),
            ("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10", false),
            ("", false),
        ];
        for (text, valid) in vectors {
            assert_eq!(svm_address_valid(text), valid, "{text}");
        }
    }
}
