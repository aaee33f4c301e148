//! Solana addresses: base58 public keys and signatures, and the associated token account
//! (a program-derived address) that receives our USDC.

use curve25519_dalek::edwards::CompressedEdwardsY;
use sha2::{Digest, Sha256};

/// Decimals of the USDC mint on Solana.
pub const USDC_DECIMALS: u8 = 6;
/// The SPL Token program (USDC is a classic SPL token, not Token-2022).
pub const TOKEN_PROGRAM: &str = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/// The SPL Associated Token Account program.
pub const ASSOCIATED_TOKEN_PROGRAM: &str = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
/// The SPL Memo program (v2) that carries `extra.memo` in v2 payments.
pub const MEMO_PROGRAM: &str = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

/// Longest base58 text of 32 bytes.
const MAX_PUBKEY_CHARS: usize = 44;
/// Longest base58 text of 64 bytes.
const MAX_SIGNATURE_CHARS: usize = 88;
/// The marker Solana appends when hashing a program-derived address.
const PDA_MARKER: &[u8] = b"ProgramDerivedAddress";

/// Decodes exactly `N` bytes of base58 (Bitcoin alphabet) from text of at most `max_chars`.
fn decode_exact<const N: usize>(base58: &str, max_chars: usize) -> Option<[u8; N]> {
    if base58.is_empty() || base58.len() > max_chars {
        return None;
    }
    let bytes = bs58::decode(base58).into_vec().ok()?;
    bytes.try_into().ok()
}

/// Decodes a base58 Solana public key; None unless it is exactly 32 bytes.
pub fn decode_pubkey(base58: &str) -> Option<[u8; 32]> {
    decode_exact(base58, MAX_PUBKEY_CHARS)
}

/// Encodes a 32-byte public key as base58.
pub fn encode_pubkey(bytes: &[u8; 32]) -> String {
    bs58::encode(bytes).into_string()
}

/// Decodes a base58 transaction signature; None unless it is exactly 64 bytes.
pub fn decode_signature(base58: &str) -> Option<[u8; 64]> {
    decode_exact(base58, MAX_SIGNATURE_CHARS)
}

/// A base58 identifier (a Solana wallet or a transaction signature), validated so that no
/// other text can stand in its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Base58Id(String);

impl Base58Id {
    /// Accepts 32 to 88 characters of the Bitcoin base58 alphabet (what the store keeps).
    pub fn parse(text: &str) -> Option<Self> {
        const ALPHABET: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        let ok = (32..=88).contains(&text.len()) && text.chars().all(|c| ALPHABET.contains(c));
        ok.then(|| Self(text.to_owned()))
    }

    /// A base58 public key (exactly 32 bytes), or None.
    pub fn pubkey(text: &str) -> Option<Self> {
        decode_pubkey(text).map(|_| Self(text.to_owned()))
    }

    /// A base58 transaction signature (exactly 64 bytes), or None.
    pub fn signature(text: &str) -> Option<Self> {
        decode_signature(text).map(|_| Self(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// True when 32 bytes decompress to a point on the ed25519 curve.
fn on_curve(bytes: &[u8; 32]) -> bool {
    CompressedEdwardsY(*bytes).decompress().is_some()
}

/// Solana's `find_program_address`: the first bump from 255 down to 1 whose
/// SHA-256(seeds ‖ [bump] ‖ program id ‖ "ProgramDerivedAddress") is off the curve.
fn find_program_address(seeds: &[&[u8]], program_id: &[u8; 32]) -> Option<[u8; 32]> {
    (1..=u8::MAX).rev().find_map(|bump| {
        let mut hasher = Sha256::new();
        for seed in seeds {
            hasher.update(seed);
        }
        hasher.update([bump]);
        hasher.update(program_id);
        hasher.update(PDA_MARKER);
        let candidate: [u8; 32] = hasher.finalize().into();
        (!on_curve(&candidate)).then_some(candidate)
    })
}

/// The associated token account of (owner, mint) under the classic SPL Token program:
/// `find_program_address([owner, TOKEN_PROGRAM, mint], ASSOCIATED_TOKEN_PROGRAM)`.
/// None when either input is not a base58 public key.
pub fn associated_token_account(owner: &str, mint: &str) -> Option<String> {
    let owner = decode_pubkey(owner)?;
    let mint = decode_pubkey(mint)?;
    let token_program = decode_pubkey(TOKEN_PROGRAM)?;
    let ata_program = decode_pubkey(ASSOCIATED_TOKEN_PROGRAM)?;
    let address = find_program_address(&[&owner, &token_program, &mint], &ata_program)?;
    Some(encode_pubkey(&address))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::price::USDC_MINT;

    #[test]
    fn associated_token_account_vectors() {
        let vectors = [
            // metaplex-foundation/Solana.Swift, Tests/SolanaTests/AssociatedTokenProgramTests.swift
            // (testFindAssociatedTokenAddress): a wallet's mainnet USDC account.
            (
                "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG",
                USDC_MINT,
                "3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3",
            ),
            // A Rust test (should_compute_ata_with_legacy_token_program) whose expected value
            // was taken from `spl-token address --owner .. --token .. --url mainnet-beta`.
            (
                "AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o",
                USDC_MINT,
                "Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR",
            ),
            // 256hax/solana-anchor-react-minimal-example,
            // scripts/solana/spl-token-v0.3.x/getAssociatedTokenAddress.ts: the printed output
            // of @solana/spl-token getAssociatedTokenAddress for devnet USDC.
            (
                "5waJka9MrCgPFoLo3SQSjLDTGnkoDcwYYPnpk4YNJS6i",
                "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
                "HmBpVD6N1vuGvQpS8KrwWH6Tr8rSwXQBEDKn5VXW6yyw",
            ),
        ];
        for (owner, mint, want) in vectors {
            assert_eq!(associated_token_account(owner, mint).as_deref(), Some(want), "{owner}");
        }
    }

    #[test]
    fn associated_token_account_refuses_non_pubkeys() {
        let vectors = [
            ("", USDC_MINT),
            ("not base58 0OIl", USDC_MINT),
            ("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG", "short"),
            ("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG", "11111111111111111111111111111111111"),
        ];
        for (owner, mint) in vectors {
            assert_eq!(associated_token_account(owner, mint), None, "{owner} {mint}");
        }
    }

    #[test]
    fn pubkey_decoding_vectors() {
        let vectors: [(&str, Option<[u8; 32]>); 9] = [
            ("11111111111111111111111111111111", Some([0; 32])),
            ("4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi", Some([1; 32])),
            ("JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG", Some([0xFF; 32])),
            ("", None),
            ("1111111111111111111111111111111", None),
            ("111111111111111111111111111111111", None),
            ("0EKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG", None),
            ("JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFGJ", None),
            (" 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi", None),
        ];
        for (text, want) in vectors {
            assert_eq!(decode_pubkey(text), want, "{text:?}");
            if let Some(bytes) = want {
                assert_eq!(encode_pubkey(&bytes), text);
            }
        }
        for known in [TOKEN_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, MEMO_PROGRAM, USDC_MINT] {
            let bytes = decode_pubkey(known).expect("a program id decodes");
            assert_eq!(encode_pubkey(&bytes), known);
        }
    }

    #[test]
    fn signature_decoding_vectors() {
        let all_ones = "1".repeat(64);
        let max = bs58::encode([0xFF; 64]).into_string();
        assert_eq!(max.len(), 88);
        assert_eq!(decode_signature(&all_ones), Some([0; 64]));
        assert_eq!(decode_signature(&max), Some([0xFF; 64]));
        assert_eq!(decode_signature(&"1".repeat(63)), None);
        assert_eq!(decode_signature(&"1".repeat(65)), None);
        assert_eq!(decode_signature("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG"), None);
        assert_eq!(decode_signature(&format!("{max}1")), None);
        assert_eq!(decode_signature("0x1234"), None);
    }

    #[test]
    fn pda_is_off_curve_and_wallets_are_on_curve() {
        let ata =
            associated_token_account("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG", USDC_MINT)
                .and_then(|a| decode_pubkey(&a))
                .unwrap();
        assert!(!on_curve(&ata));
        assert!(on_curve(&decode_pubkey("3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG").unwrap()));
    }
}
