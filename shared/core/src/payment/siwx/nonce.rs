//! The nonces of our sign-in challenges: tagged with an HMAC under a key derived from the
//! signing seed and bound to the instant they were issued, so that the service recognises
//! its own without storing what it issued (it stores only what was spent, once).
//!
//! A nonce is 32 lowercase hex digits (the sign-in-with-x extension's form): 8 random bytes ‖
//! the first 8 bytes of HMAC-SHA256(key, `payability-siwx-nonce-v1` ‖ issued-at (Unix ms, 8
//! bytes big-endian) ‖ the random bytes).

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::keys::derive_key;
use crate::report::UtcMillis;

/// Domain separation for the nonce key: `key = SHA-256(NONCE_KEY_DOMAIN ‖ signing seed)`.
pub const NONCE_KEY_DOMAIN: &[u8] = b"payability-verdict/siwx-nonce-key/v1";

/// Domain separation inside the tag.
const TAG_DOMAIN: &[u8] = b"payability-siwx-nonce-v1";
/// Random bytes of a nonce.
pub const NONCE_RANDOM_BYTES: usize = 8;
/// Bytes of the truncated tag.
const TAG_BYTES: usize = 8;
/// Hex digits of a whole nonce.
const NONCE_CHARS: usize = 2 * (NONCE_RANDOM_BYTES + TAG_BYTES);

type HmacSha256 = Hmac<Sha256>;

/// The secret that tags our sign-in nonces, derived from the signing seed.
#[derive(Clone)]
pub struct NonceKey([u8; 32]);

impl NonceKey {
    /// Derives the nonce key: SHA-256 of [`NONCE_KEY_DOMAIN`] followed by the signing seed.
    pub fn derive(signing_seed: &[u8; 32]) -> Self {
        Self(derive_key(NONCE_KEY_DOMAIN, signing_seed))
    }

    /// A MAC fed with the tag input for (issued-at, random bytes).
    fn mac(&self, issued_at: UtcMillis, random: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(TAG_DOMAIN);
        mac.update(&issued_at.0.to_be_bytes());
        mac.update(random);
        mac
    }
}

impl std::fmt::Debug for NonceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NonceKey(..)")
    }
}

/// A nonce we issued, checked: what the store spends once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProofNonce(String);

impl ProofNonce {
    /// The nonce as issued: 32 lowercase hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Issues the nonce of a challenge issued at `issued_at`; the caller supplies the random bytes.
pub fn issue_nonce(
    key: &NonceKey,
    issued_at: UtcMillis,
    random: [u8; NONCE_RANDOM_BYTES],
) -> ProofNonce {
    let tag = key.mac(issued_at, &random).finalize().into_bytes();
    let mut nonce = String::with_capacity(NONCE_CHARS);
    for byte in random.iter().chain(&tag[..TAG_BYTES]) {
        nonce.push_str(&format!("{byte:02x}"));
    }
    ProofNonce(nonce)
}

/// The nonce if it is one we issued at `issued_at` (tag compared in constant time); None
/// for any other text.
pub fn our_nonce(key: &NonceKey, nonce: &str, issued_at: UtcMillis) -> Option<ProofNonce> {
    let digits = nonce.as_bytes();
    if digits.len() != NONCE_CHARS || !digits.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let mut bytes = [0u8; NONCE_CHARS / 2];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    let (random, tag) = bytes.split_at(NONCE_RANDOM_BYTES);
    key.mac(issued_at, random).verify_truncated_left(tag).ok()?;
    Some(ProofNonce(nonce.to_owned()))
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    use super::*;

    const AT: UtcMillis = UtcMillis(1_780_000_000_000);

    #[test]
    fn a_nonce_is_32_hex_digits_recognised_only_with_its_key_and_instant() {
        let key = NonceKey::derive(&[7; 32]);
        let nonce = issue_nonce(&key, AT, [0xA5; NONCE_RANDOM_BYTES]);
        assert_eq!(nonce.as_str().len(), 32);
        assert!(nonce.as_str().starts_with("a5a5a5a5a5a5a5a5"));
        assert_eq!(our_nonce(&key, nonce.as_str(), AT), Some(nonce.clone()));
        let other_key = NonceKey::derive(&[8; 32]);
        let mut flipped = nonce.as_str().to_owned();
        flipped.replace_range(31.., if flipped.ends_with('0') { "1" } else { "0" });
        let refused = [
            (&key, flipped.as_str(), AT),
            (&key, nonce.as_str(), UtcMillis(AT.0 + 1)),
            (&other_key, nonce.as_str(), AT),
            (&key, &nonce.as_str().to_uppercase(), AT),
            (&key, &nonce.as_str()[..30], AT),
            (&key, "", AT),
        ];
        for (key, text, at) in refused {
            assert_eq!(our_nonce(key, text, at), None, "{text} at {at:?}");
        }
    }

    #[test]
    fn the_nonce_key_is_sha256_of_its_domain_and_the_seed() {
        let mut input = NONCE_KEY_DOMAIN.to_vec();
        input.extend_from_slice(&[7; 32]);
        let expected: [u8; 32] = Sha256::digest(&input).into();
        assert_eq!(NonceKey::derive(&[7; 32]).0, expected);
    }
}
