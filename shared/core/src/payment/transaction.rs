//! The Solana wire transaction inside an x402 payment, parsed as far as the payment's identity
//! needs: signatures, the message's byte range, its static account keys and recent blockhash.
//!
//! Wire format (Solana's bincode layout with `short_vec` lengths): a compact-u16 signature
//! count, that many 64-byte signatures, then the message. A message whose first byte has the
//! top bit set is versioned (version = byte & 0x7f; only v0 is accepted), otherwise legacy.
//! Then the header (required signatures, read-only signed, read-only unsigned), the static
//! account keys, the recent blockhash, the instructions and, in v0 only, the address-table
//! lookups. Bytes after the message are allowed (Solana's RPC deserialiser allows them) but
//! are not part of the message.
//!
//! # Why the identity is the message
//!
//! A payment is identified by the SHA-256 of its message bytes, not of the whole wire
//! transaction. The message is what every signature signs: the fee payer, the transfer, its
//! amount and destination, the recent blockhash and the memo. The signature slots are not:
//! in an x402 payment the fee payer's slot (slot 0) is left for the facilitator to fill, so a
//! buyer can present one signed transfer with any 64 bytes in that slot, or with bytes
//! appended after the message, and each variant would hash differently as a whole. The
//! message cannot change without invalidating the buyer's signature, so two encodings of one
//! transfer have one identity.
//!
//! Pure code: no I/O.

use std::ops::Range;

use sha2::{Digest, Sha256};

/// Largest serialized Solana transaction (the network's packet data size), in bytes.
pub const MAX_TRANSACTION_BYTES: usize = 1_232;

/// Length of an Ed25519 signature.
const SIGNATURE_BYTES: usize = 64;
/// Length of a public key or a blockhash.
const KEY_BYTES: usize = 32;
/// The top bit of a message's first byte marks a versioned message.
const VERSION_PREFIX_MASK: u8 = 0x80;
/// Most bytes a compact-u16 takes.
const MAX_COMPACT_U16_BYTES: usize = 3;

/// A Solana wire transaction parsed as far as a payment's identity needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentTransaction {
    /// The decoded wire bytes as received (signatures, message, any trailing bytes).
    pub bytes: Vec<u8>,
    /// Byte range of the message inside `bytes` (what every signature signs).
    message: Range<usize>,
    /// Signatures in slot order (slot 0 is the fee payer's, filled by the facilitator).
    pub signatures: Vec<[u8; 64]>,
    /// Static account keys; the first `required_signatures` are the signers, key 0 the fee payer.
    pub account_keys: Vec<[u8; 32]>,
    /// The message's recent blockhash.
    pub recent_blockhash: [u8; 32],
    /// SHA-256 of the message bytes, computed once by [`PaymentTransaction::parse`].
    identity: [u8; 32],
}

/// Why bytes are not a Solana wire transaction we accept (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransactionError {
    /// More than [`MAX_TRANSACTION_BYTES`] bytes.
    TooLarge,
    /// The bytes end before the transaction does.
    Truncated,
    /// A compact-u16 length is aliased (non-canonical), too long or above `u16::MAX`.
    BadLength,
    /// A versioned message of a version other than 0.
    UnsupportedVersion,
    /// No signatures at all.
    NoSignatures,
    /// The signature count differs from the header's required signatures.
    SignatureCountMismatch,
    /// Fewer static account keys than required signatures.
    TooFewAccountKeys,
    /// An instruction's program id index is not a static account key.
    ProgramIndexOutOfRange,
}

impl TransactionError {
    /// A static, human-readable explanation.
    pub fn message(self) -> &'static str {
        match self {
            Self::TooLarge => "the transaction is longer than 1232 bytes",
            Self::Truncated => "the transaction ends early",
            Self::BadLength => "a compact-u16 length is not canonically encoded",
            Self::UnsupportedVersion => "the message version is not legacy or 0",
            Self::NoSignatures => "the transaction has no signatures",
            Self::SignatureCountMismatch => {
                "the signature count differs from the message's required signatures"
            }
            Self::TooFewAccountKeys => "the message has fewer account keys than signers",
            Self::ProgramIndexOutOfRange => "an instruction's program id index is out of range",
        }
    }
}

impl std::fmt::Display for TransactionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for TransactionError {}

/// A forward-only reader over the wire bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], TransactionError> {
        let end = self.at.checked_add(n).ok_or(TransactionError::Truncated)?;
        let taken = self.bytes.get(self.at..end).ok_or(TransactionError::Truncated)?;
        self.at = end;
        Ok(taken)
    }

    fn byte(&mut self) -> Result<u8, TransactionError> {
        Ok(self.take(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], TransactionError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// Solana's `short_vec` length: 1 to 3 bytes of 7 bits, least significant group first,
    /// continuation bit 0x80. Like `solana_short_vec::decode_shortu16_len`: a zero byte after
    /// the first is an alias, a third byte may not continue, and the value fits in a u16.
    fn compact_u16(&mut self) -> Result<usize, TransactionError> {
        let mut value: u32 = 0;
        for nth in 0..MAX_COMPACT_U16_BYTES {
            let byte = self.byte()?;
            if byte == 0 && nth != 0 {
                return Err(TransactionError::BadLength);
            }
            let done = byte & 0x80 == 0;
            if nth == MAX_COMPACT_U16_BYTES - 1 && !done {
                return Err(TransactionError::BadLength);
            }
            value |= u32::from(byte & 0x7f) << (7 * nth);
            if value > u32::from(u16::MAX) {
                return Err(TransactionError::BadLength);
            }
            if done {
                return Ok(value as usize);
            }
        }
        Err(TransactionError::BadLength)
    }

    /// A compact-u16 count followed by that many bytes.
    fn compact_bytes(&mut self) -> Result<&'a [u8], TransactionError> {
        let len = self.compact_u16()?;
        self.take(len)
    }
}

impl PaymentTransaction {
    /// Parses a Solana wire transaction (legacy or v0 message).
    ///
    /// Refuses more than [`MAX_TRANSACTION_BYTES`] bytes, bytes that end early, non-canonical
    /// compact-u16 lengths, versions other than legacy and 0, no signatures, a signature count
    /// other than the header's required signatures, fewer static keys than required
    /// signatures, and a program id index outside the static keys. Bytes after the message
    /// are kept in `bytes` but are not part of the message.
    pub fn parse(bytes: Vec<u8>) -> Result<Self, TransactionError> {
        if bytes.len() > MAX_TRANSACTION_BYTES {
            return Err(TransactionError::TooLarge);
        }
        let mut reader = Reader { bytes: &bytes, at: 0 };
        let signature_count = reader.compact_u16()?;
        if signature_count == 0 {
            return Err(TransactionError::NoSignatures);
        }
        let mut signatures = Vec::with_capacity(signature_count.min(bytes.len() / SIGNATURE_BYTES));
        for _ in 0..signature_count {
            signatures.push(reader.array::<SIGNATURE_BYTES>()?);
        }

        let message_start = reader.at;
        let first = reader.byte()?;
        let versioned = first & VERSION_PREFIX_MASK != 0;
        let required_signatures = if versioned {
            if first & !VERSION_PREFIX_MASK != 0 {
                return Err(TransactionError::UnsupportedVersion);
            }
            reader.byte()?
        } else {
            first
        };
        let _readonly_signed = reader.byte()?;
        let _readonly_unsigned = reader.byte()?;

        let key_count = reader.compact_u16()?;
        let mut account_keys = Vec::with_capacity(key_count.min(bytes.len() / KEY_BYTES));
        for _ in 0..key_count {
            account_keys.push(reader.array::<KEY_BYTES>()?);
        }
        let recent_blockhash = reader.array::<KEY_BYTES>()?;

        let instruction_count = reader.compact_u16()?;
        let mut program_indexes = Vec::with_capacity(instruction_count.min(bytes.len()));
        for _ in 0..instruction_count {
            program_indexes.push(reader.byte()?);
            reader.compact_bytes()?; // account indexes
            reader.compact_bytes()?; // data
        }
        if versioned {
            let lookup_count = reader.compact_u16()?;
            for _ in 0..lookup_count {
                reader.take(KEY_BYTES)?; // table key
                reader.compact_bytes()?; // writable indexes
                reader.compact_bytes()?; // readonly indexes
            }
        }
        let message = message_start..reader.at;

        if signature_count != usize::from(required_signatures) {
            return Err(TransactionError::SignatureCountMismatch);
        }
        if key_count < usize::from(required_signatures) {
            return Err(TransactionError::TooFewAccountKeys);
        }
        if program_indexes.iter().any(|&index| usize::from(index) >= key_count) {
            return Err(TransactionError::ProgramIndexOutOfRange);
        }

        let identity = Sha256::digest(&bytes[message.clone()]).into();
        Ok(Self { bytes, message, signatures, account_keys, recent_blockhash, identity })
    }

    /// The message bytes: what every signature signs.
    pub fn message(&self) -> &[u8] {
        &self.bytes[self.message.clone()]
    }

    /// The payment's identity: SHA-256 of the message bytes. Two encodings of one transfer
    /// (another value in the unsigned fee-payer slot, trailing bytes) have one identity.
    pub fn identity(&self) -> [u8; 32] {
        self.identity
    }

    /// The first signer that is not the fee payer (the buyer, who signs the transfer), if any.
    pub fn buyer(&self) -> Option<[u8; 32]> {
        let fee_payer = self.account_keys.first()?;
        self.account_keys
            .iter()
            .take(self.signatures.len())
            .skip(1)
            .find(|key| *key != fee_payer)
            .copied()
    }
}

/// Test vectors shared with the x402 decoding tests.
#[cfg(test)]
pub(crate) mod fixture {
    /// The fee payer's key in [`legacy`].
    pub(crate) const FEE_PAYER: [u8; 32] = [0xfe; 32];
    /// The buyer's key in [`legacy`].
    pub(crate) const BUYER: [u8; 32] = [0xb0; 32];
    /// The recent blockhash in [`legacy`].
    pub(crate) const BLOCKHASH: [u8; 32] = [0x42; 32];

    /// Compact-u16 (short_vec) encoding of `value`.
    pub(crate) fn compact(value: u16) -> Vec<u8> {
        let mut value = value;
        let mut out = Vec::new();
        loop {
            let group = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                out.push(group);
                return out;
            }
            out.push(group | 0x80);
        }
    }

    /// A legacy message: 2 required signers, keys [fee payer, buyer, source ATA, destination
    /// ATA, mint, token program], the blockhash, one `TransferChecked` instruction of 10000
    /// units, 6 decimals.
    pub(crate) fn legacy_message() -> Vec<u8> {
        let keys: [[u8; 32]; 6] =
            [FEE_PAYER, BUYER, [0x51; 32], [0xd5; 32], [0x3c; 32], [0x70; 32]];
        let mut message = vec![2, 0, 2];
        message.extend(compact(keys.len() as u16));
        keys.iter().for_each(|key| message.extend(key));
        message.extend(BLOCKHASH);
        message.extend(compact(1));
        message.push(5); // the token program
        message.extend(compact(4));
        message.extend([2, 4, 3, 1]);
        let mut data = vec![12]; // TransferChecked
        data.extend(10_000u64.to_le_bytes());
        data.push(6);
        message.extend(compact(data.len() as u16));
        message.extend(data);
        message
    }

    /// A wire transaction: the signature count, the signatures, then `message`.
    pub(crate) fn wire(signatures: &[[u8; 64]], message: &[u8]) -> Vec<u8> {
        let mut bytes = compact(signatures.len() as u16);
        signatures.iter().for_each(|s| bytes.extend(s));
        bytes.extend(message);
        bytes
    }

    /// A valid legacy payment: an empty fee-payer slot, a buyer signature, [`legacy_message`].
    pub(crate) fn legacy() -> Vec<u8> {
        wire(&[[0; 64], [0xab; 64]], &legacy_message())
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::*;
    use super::*;
    use crate::payment::x402::{X402Version, decode_payment_header};
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
    use proptest::prelude::*;
    use serde_json::json;

    /// A v0 message: the legacy message's body behind the 0x80 prefix, with one address-table
    /// lookup (2 writable, 1 readonly index).
    fn v0_message() -> Vec<u8> {
        let mut message = vec![0x80];
        message.extend(legacy_message());
        message.extend(compact(1));
        message.extend([0x7a; 32]);
        message.extend(compact(2));
        message.extend([0, 1]);
        message.extend(compact(1));
        message.extend([2]);
        message
    }

    fn parsed(bytes: Vec<u8>) -> PaymentTransaction {
        PaymentTransaction::parse(bytes).expect("the vector parses")
    }

    #[test]
    fn compact_u16_vectors() {
        // (encoding, value or refusal), after Solana's short_vec tests.
        let cases: Vec<(&[u8], Result<usize, TransactionError>)> = vec![
            (&[0x00], Ok(0)),
            (&[0x7f], Ok(0x7f)),
            (&[0x80, 0x01], Ok(0x80)),
            (&[0xff, 0x01], Ok(0xff)),
            (&[0x80, 0x02], Ok(0x100)),
            (&[0xff, 0x7f], Ok(0x3fff)),
            (&[0x80, 0x80, 0x01], Ok(0x4000)),
            (&[0x81, 0x80, 0x01], Ok(0x4001)),
            (&[0xff, 0xff, 0x03], Ok(0xffff)),
            (&[0x80, 0x00], Err(TransactionError::BadLength)),
            (&[0x80, 0x80, 0x00], Err(TransactionError::BadLength)),
            (&[0xff, 0x00], Err(TransactionError::BadLength)),
            (&[0x80, 0x80, 0x80, 0x00], Err(TransactionError::BadLength)),
            (&[0xff, 0xff, 0x04], Err(TransactionError::BadLength)),
            (&[0x80, 0x80, 0x04], Err(TransactionError::BadLength)),
            (&[0x80, 0x80, 0x80, 0x01], Err(TransactionError::BadLength)),
            (&[], Err(TransactionError::Truncated)),
            (&[0x80], Err(TransactionError::Truncated)),
            (&[0xff, 0xff], Err(TransactionError::Truncated)),
        ];
        for (encoding, want) in cases {
            let got = Reader { bytes: encoding, at: 0 }.compact_u16();
            assert_eq!(got, want, "{encoding:02x?}");
        }
        for value in [0u16, 1, 127, 128, 16_383, 16_384, u16::MAX] {
            let encoding = compact(value);
            let mut reader = Reader { bytes: &encoding, at: 0 };
            assert_eq!(reader.compact_u16(), Ok(usize::from(value)));
            assert_eq!(reader.at, encoding.len());
        }
    }

    #[test]
    fn legacy_and_v0_parse() {
        for (name, message) in [("legacy", legacy_message()), ("v0", v0_message())] {
            let bytes = wire(&[[0; 64], [0xab; 64]], &message);
            let tx = parsed(bytes.clone());
            assert_eq!(tx.bytes, bytes, "{name}");
            assert_eq!(tx.message(), &message[..], "{name}");
            assert_eq!(tx.signatures, vec![[0; 64], [0xab; 64]], "{name}");
            assert_eq!(tx.account_keys.len(), 6, "{name}");
            assert_eq!(tx.account_keys[0], FEE_PAYER, "{name}");
            assert_eq!(tx.recent_blockhash, BLOCKHASH, "{name}");
            assert_eq!(tx.buyer(), Some(BUYER), "{name}");
            let digest: [u8; 32] = Sha256::digest(&message).into();
            assert_eq!(tx.identity(), digest, "{name}");
        }
        assert_ne!(
            parsed(legacy()).identity(),
            parsed(wire(&[[0; 64]; 2], &v0_message())).identity()
        );
    }

    #[test]
    fn a_lone_fee_payer_has_no_buyer() {
        let mut message = legacy_message();
        message[0] = 1;
        assert_eq!(parsed(wire(&[[0; 64]], &message)).buyer(), None);
        // A second signer slot holding the fee payer's key again is not a buyer either.
        let mut message = legacy_message();
        message[4 + 32..4 + 64].copy_from_slice(&FEE_PAYER);
        assert_eq!(parsed(wire(&[[0; 64]; 2], &message)).buyer(), None);
    }

    #[test]
    fn one_transfer_has_one_identity() {
        let base = parsed(legacy());
        let other_fee_payer_slot = parsed(wire(&[[0x99; 64], [0xab; 64]], &legacy_message()));
        let mut trailing = legacy();
        trailing.push(0);
        let trailing = parsed(trailing);
        assert_eq!(trailing.message(), base.message());
        assert_eq!(trailing.bytes.len(), base.bytes.len() + 1);
        for (name, tx) in [("fee-payer slot", &other_fee_payer_slot), ("trailing byte", &trailing)]
        {
            assert_ne!(tx.bytes, base.bytes, "{name}");
            assert_eq!(tx.identity(), base.identity(), "{name}");
        }
        // Another blockhash is another transfer.
        let mut message = legacy_message();
        let at = message.len() - 40;
        message[at] ^= 1;
        assert_ne!(parsed(wire(&[[0; 64]; 2], &message)).identity(), base.identity());
    }

    #[test]
    fn padded_and_unpadded_base64_have_one_identity() {
        let mut bytes = legacy();
        while bytes.len().is_multiple_of(3) {
            bytes.push(0); // trailing bytes, so the base64 needs padding
        }
        let header = |transaction: String| {
            let payload = json!({
                "x402Version": 1,
                "scheme": "exact",
                "network": "solana",
                "payload": {"transaction": transaction},
            });
            STANDARD.encode(payload.to_string()).into_bytes()
        };
        let padded = STANDARD.encode(&bytes);
        let unpadded = STANDARD_NO_PAD.encode(&bytes);
        assert_ne!(padded, unpadded);
        let padded = decode_payment_header(X402Version::V1, &header(padded)).unwrap();
        let unpadded = decode_payment_header(X402Version::V1, &header(unpadded)).unwrap();
        assert_eq!(padded.transaction, unpadded.transaction);
        assert_eq!(padded.transaction.identity(), parsed(legacy()).identity());
    }

    #[test]
    fn every_truncation_is_refused() {
        for (name, bytes) in [("legacy", legacy()), ("v0", wire(&[[0; 64]; 2], &v0_message()))] {
            for end in 0..bytes.len() {
                assert_eq!(
                    PaymentTransaction::parse(bytes[..end].to_vec()),
                    Err(TransactionError::Truncated),
                    "{name} cut at {end}"
                );
            }
        }
    }

    #[test]
    fn refusal_vectors() {
        let sigs = [[0u8; 64]; 2];
        let message = legacy_message();
        let with_message = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut message = legacy_message();
            edit(&mut message);
            wire(&sigs, &message)
        };
        // Offsets in the legacy message: header 0..3, key count 3, keys 4..196, blockhash
        // 196..228, instruction count 228, program index 229.
        let cases: Vec<(&str, Vec<u8>, TransactionError)> = vec![
            ("empty", Vec::new(), TransactionError::Truncated),
            (
                "non-canonical signature count",
                {
                    let mut bytes = vec![0x82, 0x00];
                    bytes.extend(&wire(&sigs, &message)[1..]);
                    bytes
                },
                TransactionError::BadLength,
            ),
            (
                "non-canonical key count",
                with_message(&|m| {
                    m.splice(3..4, [0x86, 0x00]);
                }),
                TransactionError::BadLength,
            ),
            (
                "non-canonical data length",
                with_message(&|m| {
                    let at = m.len() - 11;
                    assert_eq!(m[at], 10);
                    m.splice(at..at + 1, [0x8a, 0x80, 0x00]);
                }),
                TransactionError::BadLength,
            ),
            (
                "version 1",
                wire(&sigs, &{
                    let mut m = v0_message();
                    m[0] = 0x81;
                    m
                }),
                TransactionError::UnsupportedVersion,
            ),
            (
                "version 127",
                wire(&sigs, &{
                    let mut m = v0_message();
                    m[0] = 0xff;
                    m
                }),
                TransactionError::UnsupportedVersion,
            ),
            (
                "one signature, two required",
                wire(&sigs[..1], &message),
                TransactionError::SignatureCountMismatch,
            ),
            (
                "three signatures, two required",
                wire(&[[0; 64]; 3], &message),
                TransactionError::SignatureCountMismatch,
            ),
            (
                "two signatures, none required",
                with_message(&|m| m[0] = 0),
                TransactionError::SignatureCountMismatch,
            ),
            ("zero signatures", wire(&[], &message), TransactionError::NoSignatures),
            (
                "over 1232 bytes",
                {
                    let mut bytes = legacy();
                    bytes.resize(MAX_TRANSACTION_BYTES + 1, 0);
                    bytes
                },
                TransactionError::TooLarge,
            ),
            (
                "fewer keys than signers",
                wire(&[[0; 64]; 7], &{
                    let mut m = legacy_message();
                    m[0] = 7;
                    m
                }),
                TransactionError::TooFewAccountKeys,
            ),
            (
                "program index out of range",
                with_message(&|m| m[229] = 6),
                TransactionError::ProgramIndexOutOfRange,
            ),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(PaymentTransaction::parse(bytes), Err(want), "{name}");
        }
        // The boundaries themselves are fine.
        let mut at_cap = legacy();
        at_cap.resize(MAX_TRANSACTION_BYTES, 0);
        assert!(PaymentTransaction::parse(at_cap).is_ok());
        assert!(PaymentTransaction::parse(with_message(&|m| m[229] = 5)).is_ok());
    }

    #[test]
    fn error_messages_are_static_and_distinct() {
        let all = [
            TransactionError::TooLarge,
            TransactionError::Truncated,
            TransactionError::BadLength,
            TransactionError::UnsupportedVersion,
            TransactionError::NoSignatures,
            TransactionError::SignatureCountMismatch,
            TransactionError::TooFewAccountKeys,
            TransactionError::ProgramIndexOutOfRange,
        ];
        let mut messages: Vec<_> = all.iter().map(|e| e.to_string()).collect();
        messages.sort_unstable();
        messages.dedup();
        assert_eq!(messages.len(), all.len());
    }

    proptest! {
        #[test]
        fn parse_never_panics_and_reparses_to_one_identity(
            bytes in prop::collection::vec(any::<u8>(), 0..=1_300),
        ) {
            if let Ok(tx) = PaymentTransaction::parse(bytes.clone()) {
                prop_assert_eq!(&tx.bytes, &bytes);
                let again = PaymentTransaction::parse(tx.bytes.clone()).unwrap();
                prop_assert_eq!(again.identity(), tx.identity());
                prop_assert_eq!(again.message(), tx.message());
            }
        }

        #[test]
        fn mutated_payments_never_panic(
            edits in prop::collection::vec((0usize..300, any::<u8>()), 1..4),
            cut in 0usize..400,
        ) {
            let mut bytes = legacy();
            for (at, value) in edits {
                let at = at % bytes.len();
                bytes[at] = value;
            }
            bytes.truncate(cut.max(1));
            if let Ok(tx) = PaymentTransaction::parse(bytes) {
                let again = PaymentTransaction::parse(tx.bytes.clone()).unwrap();
                prop_assert_eq!(again.identity(), tx.identity());
            }
        }
    }
}
