//! Ed25519 report signatures over RFC 8785 canonical bytes, and the public key descriptor.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The signature algorithm name carried in every envelope.
pub const SIGNATURE_ALG: &str = "Ed25519";

/// The signature envelope attached to a report: `{alg, key_id, value}`, value base64url.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureEnvelope {
    /// Always "Ed25519".
    pub alg: String,
    /// The signing key's id (see [`PublicKeyDescriptor`]).
    pub key_id: String,
    /// The 64-byte signature, base64url without padding.
    pub value: String,
}

/// A JWK for an Ed25519 public key (RFC 8037: kty OKP, crv Ed25519).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Jwk {
    /// Always "OKP".
    pub kty: String,
    /// Always "Ed25519".
    pub crv: String,
    /// The raw 32-byte public key, base64url without padding.
    pub x: String,
}

/// The published public key descriptor: JWK, key id, and `sha256:` fingerprint of the raw key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicKeyDescriptor {
    /// The key as a JWK.
    pub jwk: Jwk,
    /// The key id reports name in `signature.key_id`.
    pub key_id: String,
    /// `sha256:` and the lowercase hex SHA-256 of the raw 32-byte public key.
    pub fingerprint: String,
}

impl PublicKeyDescriptor {
    /// Describes a public key; the key id is derived from its fingerprint.
    pub fn of(key: &VerifyingKey) -> Self {
        let digest = Sha256::digest(key.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Self {
            jwk: Jwk {
                kty: "OKP".to_owned(),
                crv: "Ed25519".to_owned(),
                x: URL_SAFE_NO_PAD.encode(key.as_bytes()),
            },
            key_id: format!("payability-{}", &hex[..16]),
            fingerprint: format!("sha256:{hex}"),
        }
    }

    /// The verifying key this descriptor names, when its JWK is a valid Ed25519 key.
    pub fn verifying_key(&self) -> Option<VerifyingKey> {
        if self.jwk.kty != "OKP" || self.jwk.crv != "Ed25519" {
            return None;
        }
        let raw: [u8; 32] = URL_SAFE_NO_PAD.decode(&self.jwk.x).ok()?.try_into().ok()?;
        VerifyingKey::from_bytes(&raw).ok()
    }
}

/// A signing key together with its published descriptor.
pub struct ReportSigner {
    key: SigningKey,
    descriptor: PublicKeyDescriptor,
}

impl ReportSigner {
    /// Builds a signer from a 32-byte Ed25519 seed.
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        let key = SigningKey::from_bytes(seed);
        let descriptor = PublicKeyDescriptor::of(&key.verifying_key());
        Self { key, descriptor }
    }

    /// The public descriptor of this signer's key.
    pub fn descriptor(&self) -> &PublicKeyDescriptor {
        &self.descriptor
    }

    /// Signs a JSON object (without `signature`) and returns its envelope.
    pub fn sign(&self, unsigned: &Value) -> SignatureEnvelope {
        let signature = self.key.sign(&canonical_bytes(unsigned));
        SignatureEnvelope {
            alg: SIGNATURE_ALG.to_owned(),
            key_id: self.descriptor.key_id.clone(),
            value: URL_SAFE_NO_PAD.encode(signature.to_bytes()),
        }
    }
}

impl ReportSigner {
    /// A JWS compact serialization (RFC 7515) of `payload`, signed with this key:
    /// `{"alg":"EdDSA","kid":kid}` as the protected header, the payload's RFC 8785 bytes,
    /// each base64url without padding, and the Ed25519 signature over `header.payload`.
    pub fn sign_jws(&self, kid: &str, payload: &Value) -> String {
        let header = serde_json::json!({"alg": "EdDSA", "kid": kid});
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(canonical_bytes(&header)),
            URL_SAFE_NO_PAD.encode(canonical_bytes(payload)),
        );
        let signature = self.key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }
}

/// RFC 8785 canonical bytes of a JSON value.
pub fn canonical_bytes(value: &Value) -> Vec<u8> {
    serde_json_canonicalizer::to_vec(value).expect("a serde_json::Value always canonicalises")
}

/// Why a signed document does not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyError {
    /// The document is not a JSON object with a well-formed `signature` envelope.
    MalformedEnvelope,
    /// No trusted key has the envelope's key id.
    UnknownKey,
    /// The signature does not match the canonical bytes under the named key.
    BadSignature,
}

impl VerifyError {
    /// Static text for the error.
    pub fn message(self) -> &'static str {
        match self {
            Self::MalformedEnvelope => "the document has no well-formed Ed25519 signature envelope",
            Self::UnknownKey => "the signature names a key id that is not among the trusted keys",
            Self::BadSignature => "the signature does not match the document's canonical bytes",
        }
    }
}

/// Verifies a signed document (a report or a pre-check answer) against trusted keys and
/// returns the descriptor of the key that signed it.
pub fn verify_signed<'k>(
    document: &Value,
    trusted: &'k [PublicKeyDescriptor],
) -> Result<&'k PublicKeyDescriptor, VerifyError> {
    let mut unsigned = document.as_object().ok_or(VerifyError::MalformedEnvelope)?.clone();
    let envelope = unsigned.remove("signature").ok_or(VerifyError::MalformedEnvelope)?;
    let envelope: SignatureEnvelope =
        serde_json::from_value(envelope).map_err(|_| VerifyError::MalformedEnvelope)?;
    if envelope.alg != SIGNATURE_ALG {
        return Err(VerifyError::MalformedEnvelope);
    }
    let raw: [u8; 64] = URL_SAFE_NO_PAD
        .decode(&envelope.value)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or(VerifyError::MalformedEnvelope)?;
    let descriptor =
        trusted.iter().find(|d| d.key_id == envelope.key_id).ok_or(VerifyError::UnknownKey)?;
    let key = descriptor.verifying_key().ok_or(VerifyError::UnknownKey)?;
    let bytes = canonical_bytes(&Value::Object(unsigned));
    key.verify(&bytes, &Signature::from_bytes(&raw)).map_err(|_| VerifyError::BadSignature)?;
    Ok(descriptor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_bytes_follow_rfc_8785_ordering_and_escapes() {
        let value = json!({"b": 1, "a": "é\u{1}\n", "c": [true, null], "A": {}});
        let got = String::from_utf8(canonical_bytes(&value)).unwrap();
        assert_eq!(got, "{\"A\":{},\"a\":\"é\\u0001\\n\",\"b\":1,\"c\":[true,null]}");
    }

    #[test]
    fn sign_then_verify_names_the_key_and_rejects_tampering() {
        let signer = ReportSigner::from_seed(&[7; 32]);
        let mut doc = json!({"state": "POPULATED", "n": 1});
        let envelope = signer.sign(&doc);
        doc["signature"] = serde_json::to_value(&envelope).unwrap();
        let trusted = [signer.descriptor().clone()];
        assert_eq!(verify_signed(&doc, &trusted).unwrap().key_id, envelope.key_id);

        let mut tampered = doc.clone();
        tampered["n"] = json!(2);
        assert_eq!(verify_signed(&tampered, &trusted), Err(VerifyError::BadSignature));
        let other = [ReportSigner::from_seed(&[8; 32]).descriptor().clone()];
        assert_eq!(verify_signed(&doc, &other), Err(VerifyError::UnknownKey));
        assert_eq!(verify_signed(&json!({"a": 1}), &trusted), Err(VerifyError::MalformedEnvelope));
    }

    #[test]
    fn descriptor_round_trips_its_key() {
        let signer = ReportSigner::from_seed(&[1; 32]);
        let d = signer.descriptor();
        assert!(d.fingerprint.starts_with("sha256:") && d.fingerprint.len() == 71);
        assert_eq!(d.verifying_key().unwrap().as_bytes(), &signer.key.verifying_key().to_bytes());
    }
}
