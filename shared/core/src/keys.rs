//! Keys derived from the Ed25519 signing seed, one per use: `key = SHA-256(domain ‖ seed)`,
//! each use with its own domain string (the memo key, the sign-in nonce key, the claim
//! bindings' keys), so every derived key changes with the signing key, is never the seed
//! itself, and no two uses share a key.

use sha2::{Digest, Sha256};

/// The key for the use named by `domain`: SHA-256 of `domain` followed by the 32-byte signing
/// seed.
pub fn derive_key(domain: &[u8], signing_seed: &[u8; 32]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(domain);
    hasher.update(signing_seed);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_sha256_of_its_domain_then_the_seed() {
        let (domain, seed) = (b"payability-verdict/example/v1".as_slice(), [7u8; 32]);
        let want: [u8; 32] = Sha256::digest([domain, &seed].concat()).into();
        assert_eq!(derive_key(domain, &seed), want);
        assert_ne!(derive_key(domain, &seed), derive_key(b"another", &seed), "per domain");
        assert_ne!(derive_key(domain, &seed), derive_key(domain, &[8; 32]), "per seed");
    }
}
