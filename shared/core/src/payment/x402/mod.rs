//! x402 payments: the typed wire objects ([`wire`]), the two versions ([`version`]), the
//! networks we take payments on ([`network`]: where a network name is typed and where it stays
//! text), decoding `X-PAYMENT` (v1), `PAYMENT-SIGNATURE` (v2) and MCP's `_meta["x402/payment"]`,
//! and matching a v2 payment's `accepted` to the requirements we issued.
//!
//! Formats follow coinbase/x402 `specs/transports-v1/http.md`, `specs/transports-v2/http.md`,
//! `specs/x402-specification-v2.md` (sections 5.2, 7) and
//! `specs/schemes/exact/scheme_exact_svm.md`: the header value is standard base64 of a UTF-8
//! JSON `PaymentPayload` whose `payload.transaction` is the base64 partially-signed Solana
//! transaction. Both layers are decoded once, with one base64 rule (standard alphabet, padding
//! optional), and the transaction is parsed into a [`PaymentTransaction`] here, so every later
//! step (the claim, the landing lookup) sees the same bytes and the same identity.
//!
//! Refusals are closed-form: a stable rule id and a static message, never a received value.

pub(crate) mod network;
pub(crate) mod version;
pub(crate) mod wire;

use std::sync::LazyLock;

use base64::Engine;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::Value;

use super::memo::{MemoCheck, MemoKey, check_memo};
pub use super::transaction::MAX_TRANSACTION_BYTES;
use super::transaction::PaymentTransaction;
use crate::op::PaidOp;
use crate::price::PRICE_USDC_UNITS;
use crate::report::UtcMillis;
pub use network::Network;
pub use version::{
    V1_PAYMENT_HEADER, V1_RESPONSE_HEADER, V2_PAYMENT_HEADER, V2_RESPONSE_HEADER, X402Version,
};
pub use wire::{
    PaymentRequiredV1, PaymentRequiredV2, Requirements, RequirementsV1, RequirementsV2,
    ResourceInfo, SettlementResponse, SvmExtra, UsdcUnits,
};

/// Largest payment header value we decode, in bytes (a Solana transaction is at most 1,232
/// bytes, so a real payment is a few KiB of base64).
pub const MAX_PAYMENT_HEADER_BYTES: usize = 16_384;
/// Largest payment MCP's `_meta["x402/payment"]` may carry, as compact JSON: what a header at
/// [`MAX_PAYMENT_HEADER_BYTES`] decodes to (12,288 bytes), so both transports have one bound.
pub const MAX_PAYMENT_PAYLOAD_BYTES: usize = MAX_PAYMENT_HEADER_BYTES / 4 * 3;
/// Standard alphabet, padding optional, canonical trailing bits required: the one base64 rule
/// for both the header and the transaction inside it.
pub(crate) const PAYMENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A decoded payment header.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedPayment {
    /// The x402 version of the header it came from.
    pub version: X402Version,
    /// The whole decoded `PaymentPayload` JSON, kept as received and forwarded to the
    /// facilitator value for value (the scheme payload is the payer's, not ours).
    pub payload: Value,
    /// `payload.transaction`, base64-decoded and parsed: the partially-signed Solana
    /// transaction.
    pub transaction: PaymentTransaction,
    /// v2 only: the `accepted` requirements object the payer chose.
    pub accepted: Option<Value>,
}

/// Why a payment was refused before it reached the facilitator (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaymentRefusal {
    /// The header value is longer than [`MAX_PAYMENT_HEADER_BYTES`] (an MCP payment's JSON
    /// longer than [`MAX_PAYMENT_PAYLOAD_BYTES`]).
    HeaderTooLarge,
    /// The header is not standard base64 of a UTF-8 JSON object with a numeric `x402Version`.
    HeaderMalformed,
    /// `x402Version` is not the version of the header it came in.
    VersionUnsupported,
    /// `payload.transaction` is missing or not base64 of a Solana wire transaction (or, in
    /// v2, `accepted` is missing or not an object).
    PayloadMalformed,
    /// The scheme is not `exact`.
    WrongScheme,
    /// The network is not Solana mainnet.
    WrongNetwork,
    /// The amount is not the price we ask.
    WrongAmount,
    /// The asset is not the USDC mint.
    WrongAsset,
    /// The recipient is not our wallet.
    WrongPayTo,
    /// Another field of `accepted` differs from what we issued.
    RequirementsMismatch,
    /// `accepted.extra.memo` is missing or not a string.
    MemoMissing,
    /// The memo is ours but has expired.
    MemoExpired,
    /// The memo is not one we issued for this route.
    MemoForged,
}

impl PaymentRefusal {
    /// Every refusal, for tables and tests.
    pub const ALL: [Self; 13] = [
        Self::HeaderTooLarge,
        Self::HeaderMalformed,
        Self::VersionUnsupported,
        Self::PayloadMalformed,
        Self::WrongScheme,
        Self::WrongNetwork,
        Self::WrongAmount,
        Self::WrongAsset,
        Self::WrongPayTo,
        Self::RequirementsMismatch,
        Self::MemoMissing,
        Self::MemoExpired,
        Self::MemoForged,
    ];

    /// The stable snake_case rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::HeaderTooLarge => "payment_header_too_large",
            Self::HeaderMalformed => "payment_header_malformed",
            Self::VersionUnsupported => "payment_version_unsupported",
            Self::PayloadMalformed => "payment_payload_malformed",
            Self::WrongScheme => "payment_wrong_scheme",
            Self::WrongNetwork => "payment_wrong_network",
            Self::WrongAmount => "payment_wrong_amount",
            Self::WrongAsset => "payment_wrong_asset",
            Self::WrongPayTo => "payment_wrong_pay_to",
            Self::RequirementsMismatch => "payment_requirements_mismatch",
            Self::MemoMissing => "payment_memo_missing",
            Self::MemoExpired => "payment_memo_expired",
            Self::MemoForged => "payment_memo_forged",
        }
    }

    /// A static, human-readable explanation.
    pub fn message(self) -> &'static str {
        match self {
            Self::HeaderTooLarge => {
                "the payment header is longer than 16384 bytes (MCP's x402/payment: its JSON longer than 12288 bytes)"
            }
            Self::HeaderMalformed => {
                "the payment is not a JSON object with a numeric x402Version (in a header: base64 of one)"
            }
            Self::VersionUnsupported => {
                "X-PAYMENT must carry x402Version 1, PAYMENT-SIGNATURE and MCP's x402/payment x402Version 2"
            }
            Self::PayloadMalformed => {
                "payload.transaction must be base64 of a Solana wire transaction of at most 1232 bytes, and (v2) accepted an object"
            }
            Self::WrongScheme => "the payment scheme is not exact",
            Self::WrongNetwork => "the payment is not for Solana mainnet",
            Self::WrongAmount => {
                static WRONG_AMOUNT: LazyLock<String> = LazyLock::new(|| {
                    format!(
                        "the payment amount is not the price of this route ({PRICE_USDC_UNITS} USDC units)"
                    )
                });
                &WRONG_AMOUNT
            }
            Self::WrongAsset => "the payment asset is not the USDC mint",
            Self::WrongPayTo => "the payment recipient is not this service's wallet",
            Self::RequirementsMismatch => {
                "the accepted payment requirements differ from the ones this service issued"
            }
            Self::MemoMissing => "the accepted payment requirements carry no extra.memo",
            Self::MemoExpired => "the challenge memo has expired; request a fresh challenge",
            Self::MemoForged => "the challenge memo was not issued by this service for this route",
        }
    }

    /// True for the refusals that mean "not a well-formed payment header" (HTTP 400); the
    /// others are well-formed payments for the wrong terms.
    pub fn is_malformed(self) -> bool {
        matches!(
            self,
            Self::HeaderTooLarge
                | Self::HeaderMalformed
                | Self::VersionUnsupported
                | Self::PayloadMalformed
        )
    }
}

/// Decodes a payment header value received under the header of `version` (`X-PAYMENT` or
/// `PAYMENT-SIGNATURE`).
///
/// Both: at most [`MAX_PAYMENT_HEADER_BYTES`]; standard base64 (padding optional, surrounding
/// spaces and tabs ignored) of a UTF-8 JSON object whose `x402Version` equals `version`, with
/// `payload.transaction` base64 of a Solana wire transaction of at most
/// [`MAX_TRANSACTION_BYTES`] (parsed by [`PaymentTransaction::parse`]).
/// v1 also needs `scheme` "exact" and `network` "solana"; v2 needs an `accepted` object
/// (checked against our requirements by [`check_v2_accepted`]).
pub fn decode_payment_header(
    version: X402Version,
    raw: &[u8],
) -> Result<DecodedPayment, PaymentRefusal> {
    if raw.len() > MAX_PAYMENT_HEADER_BYTES {
        return Err(PaymentRefusal::HeaderTooLarge);
    }
    let trimmed = raw.trim_ascii_start().trim_ascii_end();
    let json = PAYMENT_BASE64.decode(trimmed).map_err(|_| PaymentRefusal::HeaderMalformed)?;
    let payload: Value =
        serde_json::from_slice(&json).map_err(|_| PaymentRefusal::HeaderMalformed)?;
    decode_payment_payload(version, payload)
}

/// Decodes a `PaymentPayload` a transport received as JSON (a header, once base64 and
/// JSON are undone, or MCP's `_meta["x402/payment"]`) for `version`: the checks of
/// [`decode_payment_header`] past its two encodings.
pub fn decode_payment_payload(
    version: X402Version,
    payload: Value,
) -> Result<DecodedPayment, PaymentRefusal> {
    let object = payload.as_object().ok_or(PaymentRefusal::HeaderMalformed)?;
    let declared = object
        .get("x402Version")
        .and_then(Value::as_number)
        .ok_or(PaymentRefusal::HeaderMalformed)?;
    if declared.as_u64() != Some(u64::from(version.number())) {
        return Err(PaymentRefusal::VersionUnsupported);
    }
    let accepted = if version == X402Version::V1 {
        match object.get("scheme") {
            Some(Value::String(scheme)) if scheme == "exact" => {}
            Some(Value::String(_)) => return Err(PaymentRefusal::WrongScheme),
            _ => return Err(PaymentRefusal::PayloadMalformed),
        }
        match object.get("network") {
            Some(Value::String(network))
                if Network::from_v1_name(network) == Some(Network::SolanaMainnet) => {}
            Some(Value::String(_)) => return Err(PaymentRefusal::WrongNetwork),
            _ => return Err(PaymentRefusal::PayloadMalformed),
        }
        None
    } else {
        match object.get("accepted") {
            Some(accepted @ Value::Object(_)) => Some(accepted.clone()),
            _ => return Err(PaymentRefusal::PayloadMalformed),
        }
    };
    let transaction = object
        .get("payload")
        .and_then(|p| p.get("transaction"))
        .and_then(Value::as_str)
        .and_then(decode_transaction)
        .ok_or(PaymentRefusal::PayloadMalformed)?;
    Ok(DecodedPayment { version, payload, transaction, accepted })
}

/// Decodes a v2 `PaymentPayload` carried as a JSON object (MCP's `_meta["x402/payment"]`, A2A's
/// `metadata["x402.payment.payload"]`), without the top-level
/// members the official client sends as explicit nulls (it dumps its model with every absent
/// field, `"resource": null`, `"extensions": null`), so that the facilitator gets what an HTTP
/// client would have sent, and at most [`MAX_PAYMENT_PAYLOAD_BYTES`] of compact JSON (the
/// header's bound; [`PaymentRefusal::HeaderTooLarge`] past it); then [`decode_payment_payload`].
pub fn decode_payment_object(value: &Value) -> Result<DecodedPayment, PaymentRefusal> {
    let Value::Object(fields) = value else {
        return Err(PaymentRefusal::HeaderMalformed);
    };
    let present: serde_json::Map<String, Value> =
        fields.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
    let present = Value::Object(present);
    let json = serde_json::to_vec(&present).map_err(|_| PaymentRefusal::HeaderMalformed)?;
    if json.len() > MAX_PAYMENT_PAYLOAD_BYTES {
        return Err(PaymentRefusal::HeaderTooLarge);
    }
    decode_payment_payload(X402Version::V2, present)
}

/// Base64 (the one rule) of a Solana wire transaction of at most [`MAX_TRANSACTION_BYTES`].
fn decode_transaction(text: &str) -> Option<PaymentTransaction> {
    if text.len() > MAX_TRANSACTION_BYTES.div_ceil(3) * 4 {
        return None;
    }
    let bytes = PAYMENT_BASE64.decode(text).ok()?;
    PaymentTransaction::parse(bytes).ok()
}

/// Matches a v2 payment's `accepted` to the requirements we issue (`issued`, as from
/// `challenge::requirements_v2`): equal field for field, except `extra.memo`, which must be
/// present and one of ours for this route, not expired (`issued`'s own memo is ignored).
/// Returns the accepted requirements, typed: what the payment is verified and settled against.
///
/// Order: scheme, network, amount, asset, payTo (each refusal names its field), then the memo,
/// then every other field (`payment_requirements_mismatch`).
pub fn check_v2_accepted(
    accepted: &Value,
    issued: &RequirementsV2,
    memo_key: &MemoKey,
    route: PaidOp,
    now: UtcMillis,
) -> Result<RequirementsV2, PaymentRefusal> {
    let Some(fields) = accepted.as_object() else {
        return Err(PaymentRefusal::RequirementsMismatch);
    };
    let amount = issued.amount.0.to_string();
    let text = |field: &str| fields.get(field).and_then(Value::as_str);
    let named = [
        (text("scheme") == Some(issued.scheme.as_str()), PaymentRefusal::WrongScheme),
        (
            text("network").and_then(Network::from_caip2) == Some(issued.network),
            PaymentRefusal::WrongNetwork,
        ),
        (text("amount") == Some(amount.as_str()), PaymentRefusal::WrongAmount),
        (text("asset") == Some(issued.asset.as_str()), PaymentRefusal::WrongAsset),
        (text("payTo") == Some(issued.pay_to.as_str()), PaymentRefusal::WrongPayTo),
    ];
    if let Some((_, refusal)) = named.into_iter().find(|(matches, _)| !matches) {
        return Err(refusal);
    }
    let memo = accepted.pointer("/extra/memo").and_then(Value::as_str);
    let memo = memo.ok_or(PaymentRefusal::MemoMissing)?;
    match check_memo(memo_key, route, memo, now) {
        MemoCheck::Expired => return Err(PaymentRefusal::MemoExpired),
        MemoCheck::Forged => return Err(PaymentRefusal::MemoForged),
        MemoCheck::Valid => {}
    }
    // What was issued, with the payer's memo: the one object `accepted` may be, key for key
    // and value for value (an amount of another spelling, a number of another type, an
    // unknown or missing field all differ). It is also what the payment is verified against.
    let mut expected = issued.clone();
    expected.extra.memo = Some(memo.to_owned());
    let written = serde_json::to_value(&expected).expect("our requirements serialize");
    if *accepted != written {
        return Err(PaymentRefusal::RequirementsMismatch);
    }
    Ok(expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenge::{ChallengeTerms, requirements_v2};
    use crate::payment::memo::{MEMO_LIFETIME_MS, issue_memo};
    use crate::payment::transaction::fixture;
    use crate::price::PRICE_USDC_UNITS;
    use base64::engine::general_purpose::STANDARD as B64;
    use serde_json::json;

    const NOW: UtcMillis = UtcMillis(1_760_000_000_000);
    const PAY_TO: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";

    fn key() -> MemoKey {
        MemoKey::derive(&[3; 32])
    }

    fn memo_for(route: PaidOp, expires_at: i64) -> String {
        issue_memo(&key(), route, UtcMillis(expires_at), [9; 12])
    }

    /// Our v2 requirements as the HTTP layer issues them, with a given memo.
    fn issued(memo: &str) -> RequirementsV2 {
        requirements_v2(&ChallengeTerms {
            resource_url: "https://api.example/check",
            description: "One signed payability verdict",
            pay_to: PAY_TO,
            fee_payer: "FeePayer111111111111111111111111111111111",
            token_account: "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3",
            memo,
        })
    }

    /// A valid legacy payment transaction (fee payer, buyer, token accounts, mint, token
    /// program; one transfer), base64 as a client sends it.
    fn transaction() -> String {
        B64.encode(fixture::legacy())
    }

    /// [`transaction`] as decoding parses it.
    fn parsed_transaction() -> PaymentTransaction {
        PaymentTransaction::parse(fixture::legacy()).unwrap()
    }

    /// The valid transaction with `extra` trailing zero bytes.
    fn padded_transaction(extra: usize) -> String {
        let mut bytes = fixture::legacy();
        bytes.resize(bytes.len() + extra, 0);
        B64.encode(bytes)
    }

    fn v2_payload(accepted: Value) -> Value {
        json!({
            "x402Version": 2,
            "resource": {"url": "https://api.example/check"},
            "accepted": accepted,
            "payload": {"transaction": transaction()},
        })
    }

    fn v1_payload() -> Value {
        json!({
            "x402Version": 1,
            "scheme": "exact",
            "network": "solana",
            "payload": {"transaction": transaction()},
        })
    }

    fn encode(value: &Value) -> Vec<u8> {
        B64.encode(value.to_string()).into_bytes()
    }

    /// A copy of `value` with one JSON pointer set (or removed when `new` is None).
    fn with(value: &Value, pointer: &str, new: Option<Value>) -> Value {
        let mut value = value.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let parent = value.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        match new {
            Some(new) => parent.insert(key.to_owned(), new),
            None => parent.remove(key),
        };
        value
    }

    #[test]
    fn decode_accepts_well_formed_v1_and_v2() {
        let v1 = decode_payment_header(X402Version::V1, &encode(&v1_payload())).unwrap();
        assert_eq!(v1.version, X402Version::V1);
        assert_eq!(v1.payload, v1_payload());
        assert_eq!(v1.transaction, parsed_transaction());
        assert_eq!(v1.accepted, None);

        let accepted = json!(issued(&memo_for(PaidOp::Check, NOW.0 + 1)));
        let v2 =
            decode_payment_header(X402Version::V2, &encode(&v2_payload(accepted.clone()))).unwrap();
        assert_eq!(v2.version, X402Version::V2);
        assert_eq!(v2.payload, v2_payload(accepted.clone()));
        assert_eq!(v2.transaction, parsed_transaction());
        assert_eq!(v2.accepted, Some(accepted));
    }

    #[test]
    fn decode_tolerates_missing_padding_and_surrounding_spaces() {
        // An extra member whose length makes the encoding need padding.
        let payload = (0..3)
            .map(|n| with(&v1_payload(), "/pad", Some(json!("x".repeat(n)))))
            .find(|p| p.to_string().len() % 3 != 0)
            .unwrap();
        let padded = String::from_utf8(encode(&payload)).unwrap();
        assert!(padded.ends_with('='), "the vector needs padding to strip");
        let unpadded = padded.trim_end_matches('=');
        assert!(decode_payment_header(X402Version::V1, unpadded.as_bytes()).is_ok());
        assert!(decode_payment_header(X402Version::V1, format!(" \t{padded} ").as_bytes()).is_ok());
    }

    #[test]
    fn decode_refusal_vectors() {
        let v1 = v1_payload();
        let v2 = v2_payload(json!(issued("pvm_x")));
        let raw = |bytes: &[u8]| B64.encode(bytes).into_bytes();
        let cases: Vec<(&str, u8, Vec<u8>, PaymentRefusal)> = vec![
            (
                "over the cap",
                1,
                vec![b'A'; MAX_PAYMENT_HEADER_BYTES + 1],
                PaymentRefusal::HeaderTooLarge,
            ),
            ("empty", 1, Vec::new(), PaymentRefusal::HeaderMalformed),
            ("not base64", 1, b"not base64!".to_vec(), PaymentRefusal::HeaderMalformed),
            (
                "url-safe alphabet",
                2,
                encode(&v2)
                    .iter()
                    .map(|&b| {
                        if b == b'+' {
                            b'-'
                        } else if b == b'/' {
                            b'_'
                        } else {
                            b
                        }
                    })
                    .chain(*b"-_")
                    .collect(),
                PaymentRefusal::HeaderMalformed,
            ),
            (
                "inner whitespace",
                1,
                {
                    let mut e = encode(&v1);
                    e.insert(8, b' ');
                    e
                },
                PaymentRefusal::HeaderMalformed,
            ),
            (
                "not utf-8",
                1,
                raw(b"{\"x402Version\":1,\"a\":\"\xff\"}"),
                PaymentRefusal::HeaderMalformed,
            ),
            ("not json", 1, raw(b"x402Version=1"), PaymentRefusal::HeaderMalformed),
            ("json array", 1, raw(b"[1]"), PaymentRefusal::HeaderMalformed),
            ("json string", 1, raw(b"\"x\""), PaymentRefusal::HeaderMalformed),
            (
                "version missing",
                1,
                encode(&with(&v1, "/x402Version", None)),
                PaymentRefusal::HeaderMalformed,
            ),
            (
                "version a string",
                1,
                encode(&with(&v1, "/x402Version", Some(json!("1")))),
                PaymentRefusal::HeaderMalformed,
            ),
            ("v2 body in X-PAYMENT", 1, encode(&v2), PaymentRefusal::VersionUnsupported),
            ("v1 body in PAYMENT-SIGNATURE", 2, encode(&v1), PaymentRefusal::VersionUnsupported),
            (
                "version 1.0",
                1,
                encode(&with(&v1, "/x402Version", Some(json!(1.0)))),
                PaymentRefusal::VersionUnsupported,
            ),
            (
                "version 3",
                2,
                encode(&with(&v2, "/x402Version", Some(json!(3)))),
                PaymentRefusal::VersionUnsupported,
            ),
            (
                "v1 scheme upto",
                1,
                encode(&with(&v1, "/scheme", Some(json!("upto")))),
                PaymentRefusal::WrongScheme,
            ),
            (
                "v1 scheme missing",
                1,
                encode(&with(&v1, "/scheme", None)),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "v1 devnet",
                1,
                encode(&with(&v1, "/network", Some(json!("solana-devnet")))),
                PaymentRefusal::WrongNetwork,
            ),
            (
                "v1 caip-2 network",
                1,
                encode(&with(&v1, "/network", Some(json!(Network::SolanaMainnet.caip2())))),
                PaymentRefusal::WrongNetwork,
            ),
            (
                "v1 network a number",
                1,
                encode(&with(&v1, "/network", Some(json!(101)))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "v1 payload missing",
                1,
                encode(&with(&v1, "/payload", None)),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "v1 payload a string (old proposal shape)",
                1,
                encode(&with(&v1, "/payload", Some(json!(transaction())))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction missing",
                1,
                encode(&with(&v1, "/payload/transaction", None)),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction empty",
                1,
                encode(&with(&v1, "/payload/transaction", Some(json!("")))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction not base64",
                1,
                encode(&with(&v1, "/payload/transaction", Some(json!("%%%%")))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction over 1232 bytes",
                2,
                encode(&with(
                    &v2,
                    "/payload/transaction",
                    Some(json!(padded_transaction(
                        MAX_TRANSACTION_BYTES + 1 - fixture::legacy().len()
                    ))),
                )),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction not a Solana transaction",
                1,
                encode(&with(&v1, "/payload/transaction", Some(json!(B64.encode([1u8; 300]))))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction url-safe base64",
                1,
                encode(&with(
                    &v1,
                    "/payload/transaction",
                    Some(json!(transaction().replace('+', "-").replace('/', "_") + "-_")),
                )),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction with inner whitespace",
                1,
                encode(&with(
                    &v1,
                    "/payload/transaction",
                    Some(json!(format!("{} {}", &transaction()[..8], &transaction()[8..]))),
                )),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "transaction a number",
                2,
                encode(&with(&v2, "/payload/transaction", Some(json!(5)))),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "v2 accepted missing",
                2,
                encode(&with(&v2, "/accepted", None)),
                PaymentRefusal::PayloadMalformed,
            ),
            (
                "v2 accepted an array",
                2,
                encode(&with(&v2, "/accepted", Some(json!([issued("pvm_x")])))),
                PaymentRefusal::PayloadMalformed,
            ),
        ];
        for (name, version, raw, want) in cases {
            let version = if version == 1 { X402Version::V1 } else { X402Version::V2 };
            assert_eq!(decode_payment_header(version, &raw), Err(want), "{name}");
        }
    }

    #[test]
    fn decode_takes_a_header_exactly_at_the_cap() {
        let mut payload = v1_payload();
        let base = encode(&payload).len();
        // Pad with a string field until the encoded header is exactly the cap.
        let mut filler = (MAX_PAYMENT_HEADER_BYTES - base) / 4 * 3 - 32;
        loop {
            payload["filler"] = json!("x".repeat(filler));
            let len = encode(&payload).len();
            if len == MAX_PAYMENT_HEADER_BYTES {
                break;
            }
            assert!(len < MAX_PAYMENT_HEADER_BYTES, "filler overshot");
            filler += 1;
        }
        assert!(decode_payment_header(X402Version::V1, &encode(&payload)).is_ok());
    }

    /// An MCP payment: null top-level members dropped, its compact JSON bounded as a header
    /// at the cap would bound it (the header at the cap decodes to exactly that much JSON).
    #[test]
    fn an_mcp_payment_drops_nulls_and_has_the_header_s_bound() {
        let accepted = json!(issued(&memo_for(PaidOp::Check, NOW.0 + 1)));
        let payload = v2_payload(accepted);
        let with_nulls = with(&with(&payload, "/extensions", Some(Value::Null)), "/resource", None);
        let decoded = decode_payment_object(&with_nulls).unwrap();
        assert_eq!(decoded.payload, with(&payload, "/resource", None), "the null is dropped");
        let padded = |bytes: usize| {
            let base = with(&payload, "/padding", Some(json!(""))).to_string().len();
            with(&payload, "/padding", Some(json!("x".repeat(bytes - base))))
        };
        // compact JSON bytes => the refusal
        let vectors = [
            (MAX_PAYMENT_PAYLOAD_BYTES, None),
            (MAX_PAYMENT_PAYLOAD_BYTES + 1, Some(PaymentRefusal::HeaderTooLarge)),
            (250_000, Some(PaymentRefusal::HeaderTooLarge)),
        ];
        for (bytes, refusal) in vectors {
            let payment = padded(bytes);
            assert_eq!(payment.to_string().len(), bytes);
            assert_eq!(decode_payment_object(&payment).err(), refusal, "{bytes}");
        }
        let at_cap = B64.encode(padded(MAX_PAYMENT_PAYLOAD_BYTES).to_string());
        assert_eq!(at_cap.len(), MAX_PAYMENT_HEADER_BYTES, "the same bound as the header's");
        for not_an_object in [json!("junk"), json!([1]), Value::Null] {
            let refused = decode_payment_object(&not_an_object);
            assert_eq!(refused.err(), Some(PaymentRefusal::HeaderMalformed));
        }
    }

    #[test]
    fn transaction_bounds() {
        let at_cap = padded_transaction(MAX_TRANSACTION_BYTES - fixture::legacy().len());
        assert_eq!(decode_transaction(&at_cap).map(|t| t.bytes.len()), Some(MAX_TRANSACTION_BYTES));
        assert_eq!(decode_transaction(&transaction()), Some(parsed_transaction()));
        let unpadded = padded_transaction(1);
        assert!(unpadded.ends_with('='), "the vector needs padding to strip");
        assert_eq!(
            decode_transaction(unpadded.trim_end_matches('=')).map(|t| t.identity()),
            Some(parsed_transaction().identity())
        );
        assert_eq!(
            decode_transaction(&padded_transaction(
                MAX_TRANSACTION_BYTES + 1 - fixture::legacy().len()
            )),
            None
        );
        assert_eq!(decode_transaction(&B64.encode([0u8; 1])), None);
        assert_eq!(decode_transaction(""), None);
        assert_eq!(decode_transaction("===="), None);
        assert_eq!(decode_transaction("AB=C"), None);
    }

    #[test]
    fn accepted_equal_to_issued_with_our_memo_passes() {
        let memo = memo_for(PaidOp::Check, NOW.0 + MEMO_LIFETIME_MS);
        // The memo we issue in the challenge and the one echoed are the same memo, but the
        // check does not need `issued` to carry it.
        for issued_memo in [memo.as_str(), "pvm_another", ""] {
            let ours = issued(issued_memo);
            let accepted = with(&json!(ours), "/extra/memo", Some(json!(memo)));
            assert_eq!(
                check_v2_accepted(&accepted, &ours, &key(), PaidOp::Check, NOW),
                Ok(issued(&memo))
            );
        }
        // Key order does not matter.
        let ours = issued(&memo);
        let network = Network::SolanaMainnet.caip2();
        let reordered: Value =
            serde_json::from_str(&format!(
                r#"{{"extra":{{"memo":"{memo}","usdc_token_account":"3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3","feePayer":"FeePayer111111111111111111111111111111111"}},"maxTimeoutSeconds":60,"payTo":"{PAY_TO}","asset":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","amount":"{PRICE_USDC_UNITS}","network":"{network}","scheme":"exact"}}"#
            ))
            .unwrap();
        assert_eq!(check_v2_accepted(&reordered, &ours, &key(), PaidOp::Check, NOW), Ok(ours));
    }

    #[test]
    fn accepted_refusal_vectors() {
        let memo = memo_for(PaidOp::Check, NOW.0 + MEMO_LIFETIME_MS);
        let ours = issued(&memo);
        let good = json!(ours);
        let cases: Vec<(&str, Value, PaymentRefusal)> = vec![
            (
                "scheme upto",
                with(&good, "/scheme", Some(json!("upto"))),
                PaymentRefusal::WrongScheme,
            ),
            ("scheme missing", with(&good, "/scheme", None), PaymentRefusal::WrongScheme),
            (
                "network v1 name",
                with(&good, "/network", Some(json!("solana"))),
                PaymentRefusal::WrongNetwork,
            ),
            (
                "network devnet",
                with(&good, "/network", Some(json!("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"))),
                PaymentRefusal::WrongNetwork,
            ),
            (
                "amount lower",
                with(&good, "/amount", Some(json!("9999"))),
                PaymentRefusal::WrongAmount,
            ),
            (
                "amount as number",
                with(&good, "/amount", Some(json!(10000))),
                PaymentRefusal::WrongAmount,
            ),
            ("amount missing", with(&good, "/amount", None), PaymentRefusal::WrongAmount),
            (
                "amount with a leading zero",
                with(&good, "/amount", Some(json!("010000"))),
                PaymentRefusal::WrongAmount,
            ),
            (
                "amount signed",
                with(&good, "/amount", Some(json!("+10000"))),
                PaymentRefusal::WrongAmount,
            ),
            (
                "amount padded",
                with(&good, "/amount", Some(json!(" 10000"))),
                PaymentRefusal::WrongAmount,
            ),
            ("amount empty", with(&good, "/amount", Some(json!(""))), PaymentRefusal::WrongAmount),
            (
                "asset devnet usdc",
                with(&good, "/asset", Some(json!("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"))),
                PaymentRefusal::WrongAsset,
            ),
            (
                "payTo other",
                with(&good, "/payTo", Some(json!("AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o"))),
                PaymentRefusal::WrongPayTo,
            ),
            ("memo missing", with(&good, "/extra/memo", None), PaymentRefusal::MemoMissing),
            (
                "memo null",
                with(&good, "/extra/memo", Some(Value::Null)),
                PaymentRefusal::MemoMissing,
            ),
            (
                "memo a number",
                with(&good, "/extra/memo", Some(json!(5))),
                PaymentRefusal::MemoMissing,
            ),
            ("extra missing", with(&good, "/extra", None), PaymentRefusal::MemoMissing),
            (
                "extra a string",
                with(&good, "/extra", Some(json!("memo"))),
                PaymentRefusal::MemoMissing,
            ),
            (
                "memo expired",
                with(&good, "/extra/memo", Some(json!(memo_for(PaidOp::Check, NOW.0)))),
                PaymentRefusal::MemoExpired,
            ),
            (
                "memo of /memo on /check",
                with(&good, "/extra/memo", Some(json!(memo_for(PaidOp::Memo, NOW.0 + 1)))),
                PaymentRefusal::MemoForged,
            ),
            (
                "memo not ours",
                with(&good, "/extra/memo", Some(json!("pvm_0123456789abcdef"))),
                PaymentRefusal::MemoForged,
            ),
            (
                "memo of another key",
                with(
                    &good,
                    "/extra/memo",
                    Some(json!(issue_memo(
                        &MemoKey::derive(&[4; 32]),
                        PaidOp::Check,
                        UtcMillis(NOW.0 + 1),
                        [9; 12]
                    ))),
                ),
                PaymentRefusal::MemoForged,
            ),
            (
                "feePayer other",
                with(
                    &good,
                    "/extra/feePayer",
                    Some(json!("AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o")),
                ),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "token account missing",
                with(&good, "/extra/usdc_token_account", None),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "extra field added",
                with(&good, "/extra/decimals", Some(json!(6))),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "maxTimeoutSeconds longer",
                with(&good, "/maxTimeoutSeconds", Some(json!(600))),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "maxTimeoutSeconds as float",
                with(&good, "/maxTimeoutSeconds", Some(json!(60.0))),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "maxTimeoutSeconds missing",
                with(&good, "/maxTimeoutSeconds", None),
                PaymentRefusal::RequirementsMismatch,
            ),
            (
                "top-level field added",
                with(&good, "/resource", Some(json!("https://api.example/check"))),
                PaymentRefusal::RequirementsMismatch,
            ),
            ("not an object", json!([good]), PaymentRefusal::RequirementsMismatch),
        ];
        for (name, accepted, want) in cases {
            assert_eq!(
                check_v2_accepted(&accepted, &ours, &key(), PaidOp::Check, NOW),
                Err(want),
                "{name}"
            );
        }
        // The wrong-terms refusals come before the memo: a wrong amount with an expired memo
        // is a wrong amount.
        let both = with(&with(&good, "/amount", Some(json!("1"))), "/extra/memo", Some(json!("x")));
        assert_eq!(
            check_v2_accepted(&both, &ours, &key(), PaidOp::Check, NOW),
            Err(PaymentRefusal::WrongAmount)
        );
    }

    #[test]
    fn refusal_rules_are_unique_snake_case_and_messages_static() {
        let mut rules: Vec<&str> = PaymentRefusal::ALL.iter().map(|r| r.rule()).collect();
        for rule in &rules {
            assert!(rule.starts_with("payment_"), "{rule}");
            assert!(rule.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{rule}");
        }
        rules.sort_unstable();
        rules.dedup();
        assert_eq!(rules.len(), PaymentRefusal::ALL.len());
        for refusal in PaymentRefusal::ALL {
            assert!(!refusal.message().is_empty());
        }
        // The price is stated once; the message that names it is held to it.
        let price = format!("({PRICE_USDC_UNITS} USDC units)");
        assert!(PaymentRefusal::WrongAmount.message().contains(&price));
        let malformed: Vec<_> =
            PaymentRefusal::ALL.into_iter().filter(|r| r.is_malformed()).collect();
        assert_eq!(
            malformed,
            [
                PaymentRefusal::HeaderTooLarge,
                PaymentRefusal::HeaderMalformed,
                PaymentRefusal::VersionUnsupported,
                PaymentRefusal::PayloadMalformed
            ]
        );
    }
}
