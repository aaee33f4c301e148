//! The memos our challenges carry: HMAC-tagged, expiring tokens the service recognises as its
//! own without storing them.
//!
//! A memo is `pvm_` followed by base64url without padding of 36 bytes:
//! `expires_at` (Unix milliseconds, 8 bytes big-endian) ‖ a 12-byte nonce ‖ the first 16 bytes
//! of HMAC-SHA256(key, `payability-memo-v1` ‖ route (`check` or `memo`) ‖ expiry ‖ nonce).
//! That is always 52 ASCII characters, in the criteria's prefixed-opaque format class.
//!
//! The HMAC key is SHA-256 of the domain string [`MEMO_KEY_DOMAIN`] followed by the 32-byte
//! Ed25519 signing seed ([`derive_key`]), so the memo key changes with the signing key and is
//! never the seed itself.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::keys::derive_key;
use crate::op::PaidOp;
use crate::report::UtcMillis;

/// How long a memo stays valid after it is issued: 10 minutes.
pub const MEMO_LIFETIME_MS: i64 = 600_000;

/// The fixed prefix of every memo we issue.
pub const MEMO_PREFIX: &str = "pvm_";

/// Domain separation for the memo key: `key = SHA-256(MEMO_KEY_DOMAIN ‖ signing seed)`.
pub const MEMO_KEY_DOMAIN: &[u8] = b"payability-verdict/memo-key/v1";

/// Domain separation inside the tag: the HMAC input starts with these bytes.
const TAG_DOMAIN: &[u8] = b"payability-memo-v1";

/// Bytes of the truncated HMAC tag.
const TAG_BYTES: usize = 16;
/// Bytes of the nonce.
const NONCE_BYTES: usize = 12;
/// Bytes of the decoded memo body: expiry, nonce, tag.
const BODY_BYTES: usize = 8 + NONCE_BYTES + TAG_BYTES;
/// Characters of a whole memo: the prefix and 48 base64url characters.
const MEMO_CHARS: usize = MEMO_PREFIX.len() + BODY_BYTES / 3 * 4;

type HmacSha256 = Hmac<Sha256>;

/// The secret that tags our memos, derived from the signing seed.
#[derive(Clone)]
pub struct MemoKey([u8; 32]);

impl MemoKey {
    /// Derives the memo key: SHA-256 of [`MEMO_KEY_DOMAIN`] followed by the signing seed.
    pub fn derive(signing_seed: &[u8; 32]) -> Self {
        Self(derive_key(MEMO_KEY_DOMAIN, signing_seed))
    }

    /// A MAC keyed with this key, fed with the tag input for (route, expiry, nonce).
    fn mac(&self, route: PaidOp, expiry: [u8; 8], nonce: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(TAG_DOMAIN);
        mac.update(route.as_str().as_bytes());
        mac.update(&expiry);
        mac.update(nonce);
        mac
    }
}

impl std::fmt::Debug for MemoKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoKey(..)")
    }
}

/// Issues a memo for a route that expires at `expires_at`; the caller supplies a fresh nonce.
pub fn issue_memo(key: &MemoKey, route: PaidOp, expires_at: UtcMillis, nonce: [u8; 12]) -> String {
    let expiry = expires_at.0.to_be_bytes();
    let tag = key.mac(route, expiry, &nonce).finalize().into_bytes();
    let mut body = [0u8; BODY_BYTES];
    body[..8].copy_from_slice(&expiry);
    body[8..8 + NONCE_BYTES].copy_from_slice(&nonce);
    body[8 + NONCE_BYTES..].copy_from_slice(&tag[..TAG_BYTES]);
    let mut memo = String::with_capacity(MEMO_CHARS);
    memo.push_str(MEMO_PREFIX);
    URL_SAFE_NO_PAD.encode_string(body, &mut memo);
    memo
}

/// What a received memo turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoCheck {
    /// Ours, for this route, and not yet expired.
    Valid,
    /// Ours, for this route, but `now` is at or past its expiry.
    Expired,
    /// Not ours for this route: malformed, tampered, another key, or the other route.
    Forged,
}

/// Checks a received memo against the key, the route and the current time.
///
/// The tag is compared in constant time and before the expiry is looked at, so a tampered
/// memo is `Forged` whatever its expiry says.
pub fn check_memo(key: &MemoKey, route: PaidOp, memo: &str, now: UtcMillis) -> MemoCheck {
    if memo.len() != MEMO_CHARS {
        return MemoCheck::Forged;
    }
    let Some(encoded) = memo.strip_prefix(MEMO_PREFIX) else {
        return MemoCheck::Forged;
    };
    let mut body = [0u8; BODY_BYTES];
    match URL_SAFE_NO_PAD.decode_slice(encoded, &mut body) {
        Ok(BODY_BYTES) => {}
        _ => return MemoCheck::Forged,
    }
    let mut expiry = [0u8; 8];
    expiry.copy_from_slice(&body[..8]);
    let nonce = &body[8..8 + NONCE_BYTES];
    let tag = &body[8 + NONCE_BYTES..];
    if key.mac(route, expiry, nonce).verify_truncated_left(tag).is_err() {
        return MemoCheck::Forged;
    }
    if now.0 >= i64::from_be_bytes(expiry) { MemoCheck::Expired } else { MemoCheck::Valid }
}

#[cfg(test)]
mod tests {
    use sha2::Digest;

    use super::*;
    use crate::grade::memo::{FormatClass, format_class};

    const NOW: UtcMillis = UtcMillis(1_760_000_000_000);

    fn key() -> MemoKey {
        MemoKey::derive(&[7u8; 32])
    }

    fn issued(route: PaidOp) -> String {
        issue_memo(&key(), route, UtcMillis(NOW.0 + MEMO_LIFETIME_MS), [0xA5; 12])
    }

    /// Flips one base64url character of the memo body to another alphabet character.
    fn tampered(memo: &str, at: usize) -> String {
        let mut chars: Vec<char> = memo.chars().collect();
        chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
        chars.into_iter().collect()
    }

    #[test]
    fn memo_key_is_sha256_of_domain_and_seed() {
        let seed = [7u8; 32];
        let mut input = MEMO_KEY_DOMAIN.to_vec();
        input.extend_from_slice(&seed);
        let want: [u8; 32] = Sha256::digest(&input).into();
        assert_eq!(MemoKey::derive(&seed).0, want);
        assert_ne!(MemoKey::derive(&seed).0, seed);
        assert_eq!(format!("{:?}", MemoKey::derive(&seed)), "MemoKey(..)");
    }

    #[test]
    fn memo_layout_is_prefix_expiry_nonce_and_truncated_hmac() {
        let expires_at = UtcMillis(0x0102_0304_0506_0708);
        let nonce: [u8; 12] = core::array::from_fn(|i| i as u8 + 0x10);
        let memo = issue_memo(&key(), PaidOp::Memo, expires_at, nonce);
        let body = URL_SAFE_NO_PAD.decode(memo.strip_prefix("pvm_").unwrap()).unwrap();
        assert_eq!(body.len(), 36);
        assert_eq!(&body[..8], &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&body[8..20], &nonce);
        let mut mac = HmacSha256::new_from_slice(&key().0).unwrap();
        mac.update(b"payability-memo-v1memo");
        mac.update(&[1, 2, 3, 4, 5, 6, 7, 8]);
        mac.update(&nonce);
        assert_eq!(&body[20..], &mac.finalize().into_bytes()[..16]);
    }

    #[test]
    fn memo_is_prefixed_opaque_and_under_256_bytes() {
        let expiries = [i64::MIN, -1, 0, 1, NOW.0, i64::MAX];
        let nonces = [[0u8; 12], [0xFF; 12], [0xFB; 12], [0x3E; 12], [0x3F; 12]];
        for route in [PaidOp::Check, PaidOp::Memo] {
            for expiry in expiries {
                for nonce in nonces {
                    let memo = issue_memo(&key(), route, UtcMillis(expiry), nonce);
                    assert_eq!(format_class(Some(&memo)), FormatClass::PrefixedOpaque, "{memo}");
                    assert!(memo.len() < 256);
                    assert_eq!(memo.len(), MEMO_CHARS);
                    assert_eq!(MEMO_CHARS, 52);
                }
            }
        }
    }

    #[test]
    fn memo_check_vectors() {
        let check = issued(PaidOp::Check);
        let memo = issued(PaidOp::Memo);
        let expiry = UtcMillis(NOW.0 + MEMO_LIFETIME_MS);
        let vectors: Vec<(&str, PaidOp, String, UtcMillis, MemoCheck)> = vec![
            ("fresh check memo", PaidOp::Check, check.clone(), NOW, MemoCheck::Valid),
            ("fresh memo memo", PaidOp::Memo, memo.clone(), NOW, MemoCheck::Valid),
            (
                "one ms before expiry",
                PaidOp::Check,
                check.clone(),
                UtcMillis(expiry.0 - 1),
                MemoCheck::Valid,
            ),
            ("at expiry", PaidOp::Check, check.clone(), expiry, MemoCheck::Expired),
            (
                "long after expiry",
                PaidOp::Check,
                check.clone(),
                UtcMillis(i64::MAX),
                MemoCheck::Expired,
            ),
            (
                "other route (check memo on /memo)",
                PaidOp::Memo,
                check.clone(),
                NOW,
                MemoCheck::Forged,
            ),
            (
                "other route (memo memo on /check)",
                PaidOp::Check,
                memo.clone(),
                NOW,
                MemoCheck::Forged,
            ),
            ("empty", PaidOp::Check, String::new(), NOW, MemoCheck::Forged),
            ("prefix only", PaidOp::Check, "pvm_".to_owned(), NOW, MemoCheck::Forged),
            (
                "wrong prefix",
                PaidOp::Check,
                check.replacen("pvm_", "pvx_", 1),
                NOW,
                MemoCheck::Forged,
            ),
            ("padded", PaidOp::Check, format!("{check}="), NOW, MemoCheck::Forged),
            ("truncated", PaidOp::Check, check[..51].to_owned(), NOW, MemoCheck::Forged),
            (
                "standard alphabet char",
                PaidOp::Check,
                format!("{}+", &check[..51]),
                NOW,
                MemoCheck::Forged,
            ),
            ("non-ascii", PaidOp::Check, format!("{}é", &check[..50]), NOW, MemoCheck::Forged),
            ("expiry tampered", PaidOp::Check, tampered(&check, 6), NOW, MemoCheck::Forged),
            ("nonce tampered", PaidOp::Check, tampered(&check, 20), NOW, MemoCheck::Forged),
            ("tag tampered", PaidOp::Check, tampered(&check, 51), NOW, MemoCheck::Forged),
            (
                "tampered and expired",
                PaidOp::Check,
                tampered(&check, 51),
                UtcMillis(i64::MAX),
                MemoCheck::Forged,
            ),
        ];
        for (name, route, memo, now, want) in vectors {
            assert_eq!(check_memo(&key(), route, &memo, now), want, "{name}");
        }
    }

    #[test]
    fn memo_of_another_key_is_forged() {
        let other = MemoKey::derive(&[8u8; 32]);
        let memo = issue_memo(&other, PaidOp::Check, UtcMillis(NOW.0 + 1), [1; 12]);
        assert_eq!(check_memo(&other, PaidOp::Check, &memo, NOW), MemoCheck::Valid);
        assert_eq!(check_memo(&key(), PaidOp::Check, &memo, NOW), MemoCheck::Forged);
    }

    #[test]
    fn memos_with_different_nonces_differ() {
        let expiry = UtcMillis(NOW.0 + MEMO_LIFETIME_MS);
        let a = issue_memo(&key(), PaidOp::Check, expiry, [1; 12]);
        let b = issue_memo(&key(), PaidOp::Check, expiry, [2; 12]);
        assert_ne!(a, b);
        assert_eq!(a, issue_memo(&key(), PaidOp::Check, expiry, [1; 12]));
    }

    #[test]
    fn route_names_are_check_and_memo() {
        assert_eq!(PaidOp::Check.as_str(), "check");
        assert_eq!(PaidOp::Memo.as_str(), "memo");
    }
}
