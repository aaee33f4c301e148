//! The claim's key for the called URL: `key = SHA-256(BINDING_KEY_DOMAIN ‖ signing seed)`,
//! and a claim keeps `HMAC-SHA256(key, called URL)` ([`UrlBinding`]), so a retry of the same
//! payment is recognised for the same URL while the store never holds the URL, nor a hash
//! anyone without the seed could recompute from a guessed URL.

use hmac::{Hmac, Mac};
use payability_core::policy::TargetUrl;
use sha2::{Digest, Sha256};

use crate::store::UrlBinding;

/// Domain separation: this key is never the memo key nor the signing seed itself.
const BINDING_KEY_DOMAIN: &[u8] = b"payability-verdict/claim-url-binding/v1";

/// The HMAC key of claim bindings, derived from the signing seed.
pub(in crate::api) struct BindingKey([u8; 32]);

impl BindingKey {
    /// Derives the key from the signing seed.
    pub(in crate::api) fn derive(signing_seed: &[u8; 32]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(BINDING_KEY_DOMAIN);
        hasher.update(signing_seed);
        Self(hasher.finalize().into())
    }

    /// The binding of a called URL.
    pub(in crate::api) fn url(&self, target: &TargetUrl) -> UrlBinding {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(target.as_str().as_bytes());
        UrlBinding(mac.finalize().into_bytes().into())
    }
}

#[cfg(test)]
mod tests {
    use payability_core::policy::{AddressRule, vet_target_url};

    use super::*;

    #[test]
    fn a_binding_is_keyed_by_the_seed_and_is_no_plain_hash_of_the_url() {
        let url = vet_target_url("https://seller.example/x", AddressRule::PublicOnly).unwrap();
        let other = vet_target_url("https://seller.example/y", AddressRule::PublicOnly).unwrap();
        let key = BindingKey::derive(&[7; 32]);
        let plain: [u8; 32] = Sha256::digest(url.as_str().as_bytes()).into();
        assert_eq!(key.url(&url), key.url(&url), "deterministic");
        assert_ne!(key.url(&url), key.url(&other), "per URL");
        assert_ne!(key.url(&url), BindingKey::derive(&[8; 32]).url(&url), "per seed");
        assert_ne!(key.url(&url).0, plain, "not the URL's SHA-256");
        assert_ne!(key.0, [7; 32], "not the seed itself");
        let memo_key_input = [b"payability-verdict/memo-key/v1".as_slice(), &[7; 32]].concat();
        assert_ne!(key.0, <[u8; 32]>::from(Sha256::digest(memo_key_input)), "not the memo key");
    }
}
