//! The claim's keys for the called URL, the `payment-identifier` id and the payer's purchase:
//! `key = SHA-256(domain ‖ signing seed)` ([`derive_key`]), one domain each, and the store keeps
//! `HMAC-SHA256(key, called URL)` ([`UrlBinding`]), `HMAC-SHA256(key, id)`
//! ([`IdentifierBinding`]) and `HMAC-SHA256(key, wallet ‖ 0 ‖ op ‖ 0 ‖ URL binding)`
//! ([`PurchaseBinding`]), so a retry is recognised while the store never holds the URL or
//! the id, nor a hash anyone without the seed could recompute from a guess.

use hmac::{Hmac, Mac};
use payability_core::keys::derive_key;
use payability_core::policy::TargetUrl;
use sha2::Sha256;

use crate::store::{Base58Id, IdentifierBinding, PaidOp, PurchaseBinding, UrlBinding};

/// Domain separation: these keys are never the memo key, each other, nor the seed itself.
const BINDING_KEY_DOMAIN: &[u8] = b"payability-verdict/claim-url-binding/v1";
/// The domain of the identifier key.
const IDENTIFIER_KEY_DOMAIN: &[u8] = b"payability-verdict/payment-identifier/v1";
/// The domain of the purchase key.
const PURCHASE_KEY_DOMAIN: &[u8] = b"payability-verdict/purchase-binding/v1";

/// The HMAC keys of claim bindings, derived from the signing seed.
pub(in crate::api) struct BindingKey {
    url: [u8; 32],
    identifier: [u8; 32],
    purchase: [u8; 32],
}

/// HMAC-SHA256 of `input` under `key`.
fn mac(key: &[u8; 32], input: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(input);
    mac.finalize().into_bytes().into()
}

impl BindingKey {
    /// Derives the keys from the signing seed.
    pub(in crate::api) fn derive(signing_seed: &[u8; 32]) -> Self {
        Self {
            url: derive_key(BINDING_KEY_DOMAIN, signing_seed),
            identifier: derive_key(IDENTIFIER_KEY_DOMAIN, signing_seed),
            purchase: derive_key(PURCHASE_KEY_DOMAIN, signing_seed),
        }
    }

    /// The binding of a called URL.
    pub(in crate::api) fn url(&self, target: &TargetUrl) -> UrlBinding {
        UrlBinding(mac(&self.url, target.as_str().as_bytes()))
    }

    /// The binding of a `payment-identifier` id.
    pub(in crate::api) fn identifier(&self, id: &str) -> IdentifierBinding {
        IdentifierBinding(mac(&self.identifier, id.as_bytes()))
    }

    /// The binding of a payer's purchase of `op` for the called URL bound by `url`.
    pub(in crate::api) fn purchase(
        &self,
        payer: &Base58Id,
        op: PaidOp,
        url: &UrlBinding,
    ) -> PurchaseBinding {
        let input = [payer.as_str().as_bytes(), &[0], op.as_str().as_bytes(), &[0], &url.0];
        PurchaseBinding(mac(&self.purchase, &input.concat()))
    }
}

#[cfg(test)]
mod tests {
    use payability_core::policy::{AddressRule, vet_target_url};
    use sha2::Digest;

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
        assert_ne!(key.url, [7; 32], "not the seed itself");
        assert_ne!(key.url, key.identifier, "a key per binding");
        let memo_key_input = [b"payability-verdict/memo-key/v1".as_slice(), &[7; 32]].concat();
        assert_ne!(key.url, <[u8; 32]>::from(Sha256::digest(memo_key_input)), "not the memo key");
        let id = "pay_7d5d747be160e280";
        assert_eq!(key.identifier(id), key.identifier(id), "deterministic");
        assert_ne!(key.identifier(id).0, key.url(&url).0);
        assert_ne!(key.identifier(id).0, <[u8; 32]>::from(Sha256::digest(id)), "keyed");
        let (payer, other_payer) =
            (Base58Id::parse(&"3".repeat(44)).unwrap(), Base58Id::parse(&"4".repeat(44)).unwrap());
        let bound = key.url(&url);
        let purchase = key.purchase(&payer, PaidOp::Check, &bound);
        assert_eq!(purchase, key.purchase(&payer, PaidOp::Check, &bound), "deterministic");
        assert_ne!(purchase, key.purchase(&other_payer, PaidOp::Check, &bound), "per payer");
        assert_ne!(purchase, key.purchase(&payer, PaidOp::Memo, &bound), "per op");
        assert_ne!(purchase, key.purchase(&payer, PaidOp::Check, &key.url(&other)), "per URL");
        assert_ne!(key.purchase, key.url, "a key per binding");
        assert_ne!(key.purchase, key.identifier, "a key per binding");
    }
}
