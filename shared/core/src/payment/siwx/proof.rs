//! A sign-in proof as it arrives: the `SIGN-IN-WITH-X` header (standard base64 of a UTF-8
//! JSON object, the shape the official SDKs' `encode_siwx_header` writes), decoded once into
//! a [`SignInProof`]. Unknown members (`signatureScheme`) are ignored, an optional member sent
//! as `null` is absent, as in the SDKs' models.

use base64::Engine;
use serde::Deserialize;

use super::refusal::SignInRefusal;
use crate::payment::x402::PAYMENT_BASE64;

/// Largest `SIGN-IN-WITH-X` value decoded, in bytes (a proof is well under a kilobyte).
pub const MAX_PROOF_HEADER_BYTES: usize = 16_384;

/// A decoded proof: every member the message is built from, as received.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInProof {
    /// The service's domain the proof was made for.
    pub domain: String,
    /// The signing wallet (base58 public key).
    pub address: String,
    /// The resource URI the proof was made for.
    pub uri: String,
    /// The CAIP-122 message version.
    pub version: String,
    /// The CAIP-2 chain.
    pub chain_id: String,
    /// The signature algorithm (`ed25519` for Solana).
    #[serde(rename = "type")]
    pub kind: String,
    /// The nonce of the challenge answered.
    pub nonce: String,
    /// When the challenge was issued (RFC 3339).
    pub issued_at: String,
    /// The human-readable statement, if any.
    #[serde(default)]
    pub statement: Option<String>,
    /// When the proof expires (RFC 3339), if stated.
    #[serde(default)]
    pub expiration_time: Option<String>,
    /// When the proof starts to be valid (RFC 3339), if stated.
    #[serde(default)]
    pub not_before: Option<String>,
    /// A correlation id, if any.
    #[serde(default)]
    pub request_id: Option<String>,
    /// Resource URIs, if any.
    #[serde(default)]
    pub resources: Option<Vec<String>>,
    /// The signature over the message (base58, 64 bytes for Solana).
    pub signature: String,
}

/// Decodes a `SIGN-IN-WITH-X` value (MCP's `_meta["sign-in-with-x"]` carries the same text):
/// at most [`MAX_PROOF_HEADER_BYTES`], surrounding spaces and tabs ignored, standard base64
/// (padding optional) of a UTF-8 JSON object with every required member a string.
pub fn decode_proof_header(raw: &[u8]) -> Result<SignInProof, SignInRefusal> {
    if raw.len() > MAX_PROOF_HEADER_BYTES {
        return Err(SignInRefusal::HeaderTooLarge);
    }
    let trimmed = raw.trim_ascii_start().trim_ascii_end();
    let json = PAYMENT_BASE64.decode(trimmed).map_err(|_| SignInRefusal::HeaderMalformed)?;
    serde_json::from_slice(&json).map_err(|_| SignInRefusal::HeaderMalformed)
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
    use serde_json::{Value, json};

    use super::*;

    fn proof_json() -> Value {
        json!({
            "domain": "api.example", "address": "11111111111111111111111111111111",
            "uri": "https://api.example/check", "version": "1",
            "chainId": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "type": "ed25519",
            "nonce": "00", "issuedAt": "2026-01-01T00:00:00.000Z", "signature": "1",
        })
    }

    #[test]
    fn headers_decode_to_a_proof_or_a_closed_form_refusal() {
        let with = |change: &dyn Fn(&mut Value)| {
            let mut value = proof_json();
            change(&mut value);
            STANDARD.encode(value.to_string()).into_bytes()
        };
        let ok = Ok(());
        let malformed = Err(SignInRefusal::HeaderMalformed);
        let vectors: Vec<(&str, Vec<u8>, Result<(), SignInRefusal>)> = vec![
            ("padded", with(&|_| {}), ok),
            (
                "unpadded, spaced",
                {
                    let mut raw = b" \t".to_vec();
                    raw.extend(STANDARD_NO_PAD.encode(proof_json().to_string()).bytes());
                    raw
                },
                ok,
            ),
            ("unknown member ignored", with(&|v| v["signatureScheme"] = json!("siws")), ok),
            ("optional null", with(&|v| v["statement"] = Value::Null), ok),
            (
                "required missing",
                with(&|v| drop(v.as_object_mut().unwrap().remove("nonce"))),
                malformed,
            ),
            ("required not a string", with(&|v| v["issuedAt"] = json!(1)), malformed),
            ("resources not strings", with(&|v| v["resources"] = json!([1])), malformed),
            ("not an object", STANDARD.encode("[1]").into_bytes(), malformed),
            ("not JSON", STANDARD.encode("{").into_bytes(), malformed),
            ("url-safe alphabet", b"_-_-".to_vec(), malformed),
            (
                "truncated",
                {
                    let mut raw = with(&|_| {});
                    raw.truncate(raw.len() / 2);
                    raw
                },
                malformed,
            ),
            (
                "over the cap",
                vec![b'A'; MAX_PROOF_HEADER_BYTES + 1],
                Err(SignInRefusal::HeaderTooLarge),
            ),
        ];
        for (case, raw, want) in vectors {
            assert_eq!(decode_proof_header(&raw).map(drop), want, "{case}");
        }
        let decoded = decode_proof_header(&with(&|_| {})).unwrap();
        assert_eq!(decoded.kind, "ed25519");
        assert_eq!(decoded.statement, None);
    }
}
