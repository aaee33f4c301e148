//! Payments as a buyer builds them: a syntactically valid Solana legacy wire transaction (the
//! fee payer's slot left for the facilitator, the buyer's signature any bytes) wrapped in an
//! x402 v2 `PAYMENT-SIGNATURE` (echoing the service's own `accepts[0]`) or a v1 `X-PAYMENT`,
//! plus the byte variants that are still the same payment, and the wire parsing the
//! facilitator and RPC stand-ins share.

use base64::Engine;
use base64::alphabet::STANDARD as STANDARD_ALPHABET;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use payability_core::payment::solana::{TOKEN_PROGRAM, decode_pubkey};
use serde_json::{Value, json};
use sha2::{Digest, Sha512};

/// The facilitator's fee payer (the x402 v2 specification's `/supported` example signer).
pub const FEE_PAYER: &str = "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5";
/// The buyer's wallet (its key signs in: `sign_in::buyer`).
pub const BUYER: &str = "3F5qRPtKg8GhGNnbd3qCj6nVJxWsGxq7pvH84okYLAqf";

/// Standard alphabet, padding optional (how the service reads payment base64).
pub const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD_ALPHABET,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// How a payment's transaction is base64-encoded in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Padded,
    Unpadded,
}

/// The x402 version (and so the header) a payment travels in.
#[derive(Debug, Clone, PartialEq)]
enum Envelope {
    /// `PAYMENT-SIGNATURE`: the `resource` and `accepts[0]` of the service's own 402.
    V2 { resource: Value, accepted: Value },
    /// `X-PAYMENT`.
    V1,
}

/// One payment: a transaction and the header that carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Payment {
    envelope: Envelope,
    /// The wire transaction (signature count, signatures, message, maybe trailing bytes).
    transaction: Vec<u8>,
    encoding: Encoding,
    /// The payload's `extensions`, when it carries any.
    extensions: Option<Value>,
}

impl Payment {
    /// A fresh v2 payment (new random blockhash) answering the service's 402 (its
    /// `PAYMENT-REQUIRED` header value: base64 JSON with `resource` and `accepts[0]`).
    pub fn v2(payment_required: &str) -> Self {
        let challenge: Value = serde_json::from_slice(
            &STANDARD.decode(payment_required).expect("PAYMENT-REQUIRED is base64"),
        )
        .expect("PAYMENT-REQUIRED is JSON");
        let accepted = challenge["accepts"][0].clone();
        assert!(accepted.is_object(), "the challenge has accepts[0]");
        let resource = challenge["resource"].clone();
        Self {
            envelope: Envelope::V2 { resource, accepted },
            transaction: wire_transaction(),
            encoding: Encoding::Padded,
            extensions: None,
        }
    }

    /// This payment carrying a `payment-identifier` id (as the official SDKs write it).
    pub fn with_identifier(&self, id: &str) -> Self {
        let info = json!({"required": false, "id": id});
        Self { extensions: Some(json!({"payment-identifier": {"info": info}})), ..self.clone() }
    }

    /// A fresh v1 payment (v1 carries no memo: the service's own requirements apply).
    pub fn v1() -> Self {
        Self {
            envelope: Envelope::V1,
            transaction: wire_transaction(),
            encoding: Encoding::Padded,
            extensions: None,
        }
    }

    /// The header name and value to send.
    pub fn header(&self) -> (&'static str, String) {
        let name = match self.envelope {
            Envelope::V2 { .. } => "payment-signature",
            Envelope::V1 => "x-payment",
        };
        (name, STANDARD.encode(self.payload().to_string()))
    }

    /// The `PaymentPayload` JSON (what the header carries in base64, and MCP's
    /// `_meta["x402/payment"]`).
    pub fn payload(&self) -> Value {
        let transaction = match self.encoding {
            Encoding::Padded => STANDARD.encode(&self.transaction),
            Encoding::Unpadded => STANDARD_NO_PAD.encode(&self.transaction),
        };
        let mut payload = match &self.envelope {
            Envelope::V2 { resource, accepted } => json!({
                "x402Version": 2,
                "resource": resource,
                "accepted": accepted,
                "payload": {"transaction": transaction},
            }),
            Envelope::V1 => json!({
                "x402Version": 1,
                "scheme": "exact",
                "network": "solana",
                "payload": {"transaction": transaction},
            }),
        };
        if let Some(extensions) = &self.extensions {
            payload["extensions"] = extensions.clone();
        }
        payload
    }

    /// The message bytes (what the signatures sign; the payment's identity).
    pub fn message(&self) -> Vec<u8> {
        parse_wire(&self.transaction).expect("our transaction parses").message
    }

    /// The signature the transaction lands under (see [`landed_signature`]).
    pub fn landed_signature(&self) -> String {
        landed_signature(&self.message())
    }

    /// The same payment with other bytes in the fee payer's signature slot.
    pub fn with_fee_payer_slot(&self, slot: [u8; 64]) -> Self {
        let mut variant = self.clone();
        variant.transaction[1..65].copy_from_slice(&slot);
        variant
    }

    /// Another payment of the same terms: `buyer`'s transaction with this blockhash (so a
    /// seed gives the same payment again) in the same envelope, without the extensions.
    pub fn of(&self, buyer: [u8; 32], blockhash: [u8; 32]) -> Self {
        Self { transaction: transaction_of(buyer, blockhash), extensions: None, ..self.clone() }
    }

    /// The same payment with one byte appended after the message.
    pub fn with_trailing_byte(&self) -> Self {
        let mut variant = self.clone();
        variant.transaction.push(0);
        variant
    }

    /// The same payment with its transaction base64 left unpadded.
    pub fn unpadded(&self) -> Self {
        let variant = Self { encoding: Encoding::Unpadded, ..self.clone() };
        let (padded, unpadded) = (self.header().1, variant.header().1);
        assert_ne!(padded, unpadded, "the transaction's base64 has padding to leave out");
        variant
    }
}

/// Compact-u16 (Solana's shortvec) of a small number.
fn compact_u16(n: usize, out: &mut Vec<u8>) {
    let mut n = u16::try_from(n).expect("fits in u16");
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A legacy transaction: 2 signatures (fee payer's slot zeros, the buyer's any bytes) and a
/// message with header [2,0,1], keys [fee payer, buyer, token program], a random blockhash,
/// one instruction (program 2, accounts [1], data [1,2,3]).
fn wire_transaction() -> Vec<u8> {
    let mut blockhash = [0u8; 32];
    getrandom::fill(&mut blockhash).expect("the system random source works");
    transaction_of(decode_pubkey(BUYER).expect("a base58 public key"), blockhash)
}

/// The transaction of [`wire_transaction`] with this buyer and blockhash.
fn transaction_of(buyer: [u8; 32], blockhash: [u8; 32]) -> Vec<u8> {
    let key = |text: &str| decode_pubkey(text).expect("a base58 public key");
    let mut message = vec![2, 0, 1];
    compact_u16(3, &mut message);
    for account in [key(FEE_PAYER), buyer, key(TOKEN_PROGRAM)] {
        message.extend_from_slice(&account);
    }
    message.extend_from_slice(&blockhash);
    compact_u16(1, &mut message);
    message.push(2);
    compact_u16(1, &mut message);
    message.push(1);
    compact_u16(3, &mut message);
    message.extend_from_slice(&[1, 2, 3]);
    let mut wire = Vec::new();
    compact_u16(2, &mut wire);
    wire.extend_from_slice(&[0u8; 64]);
    let buyer_signature: [u8; 64] = Sha512::digest(&message).into();
    wire.extend_from_slice(&buyer_signature.map(|b| b ^ 0x5a));
    wire.extend_from_slice(&message);
    wire
}

/// A wire transaction taken apart.
#[derive(Debug, Clone)]
pub struct Wire {
    /// The signatures, in slot order.
    pub signatures: Vec<[u8; 64]>,
    /// The message bytes, exactly (trailing bytes after it are not part of it).
    pub message: Vec<u8>,
    /// The message's static account keys.
    pub account_keys: Vec<[u8; 32]>,
}

/// Reads a compact-u16 at `at`, moving it on.
fn read_compact_u16(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let mut value = 0usize;
    for shift in [0, 7, 14] {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= usize::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let slice = bytes.get(*at..at.checked_add(n)?)?;
    *at += n;
    Some(slice)
}

/// Parses a legacy wire transaction (bytes after the message are ignored; the blockhash is
/// skipped: the RPC stand-in expires every blockhash at once).
pub fn parse_wire(bytes: &[u8]) -> Option<Wire> {
    let mut at = 0;
    let count = read_compact_u16(bytes, &mut at)?;
    let mut signatures = Vec::with_capacity(count);
    for _ in 0..count {
        signatures.push(take(bytes, &mut at, 64)?.try_into().ok()?);
    }
    let start = at;
    take(bytes, &mut at, 3)?;
    let keys = read_compact_u16(bytes, &mut at)?;
    let mut account_keys = Vec::with_capacity(keys);
    for _ in 0..keys {
        account_keys.push(take(bytes, &mut at, 32)?.try_into().ok()?);
    }
    take(bytes, &mut at, 32)?;
    let instructions = read_compact_u16(bytes, &mut at)?;
    for _ in 0..instructions {
        take(bytes, &mut at, 1)?;
        let accounts = read_compact_u16(bytes, &mut at)?;
        take(bytes, &mut at, accounts)?;
        let data = read_compact_u16(bytes, &mut at)?;
        take(bytes, &mut at, data)?;
    }
    Some(Wire { signatures, message: bytes[start..at].to_vec(), account_keys })
}

/// The signature a message lands under: SHA-512 of the message bytes, base58 (deterministic,
/// so a test knows the transaction id before anything lands).
pub fn landed_signature(message: &[u8]) -> String {
    bs58::encode(Sha512::digest(message)).into_string()
}
