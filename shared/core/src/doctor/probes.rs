//! The opt-in probes' side of the doctor, pure: what to ask the chains about (the addresses a
//! challenge names, [`questions`]), what was answered ([`ProbeAnswers`], each None when its
//! flag was not given), and the decoding of an EVM `eth_call` string. The runtime asks; the
//! checks read the answers in [`super::examine`].

use serde_json::Value;

use super::examine::{Offer, read_challenge};
use super::networks::Family;
use super::observed::HttpObservation;
use crate::payment::solana::associated_token_account;

/// What the probes were answered; each None when its flag was not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeAnswers {
    /// `--method`: what the empty-body request of that method got.
    pub method: Option<crate::capture::FetchOutcome>,
    /// `--facilitator`: its `/supported` document (inner None: no JSON answer).
    pub supported: Option<Option<Value>>,
    /// `--solana-rpc`: for each of [`Questions::svm_accounts`], in order, the account's
    /// `getAccountInfo` value (`jsonParsed`; None: no account, or no usable answer).
    pub svm_accounts: Option<Vec<Option<Value>>>,
    /// `--evm-rpc`: for each of [`Questions::evm_assets`], in order, what the chain said.
    pub evm_contracts: Option<Vec<EvmContract>>,
    /// `--discovery`: whether the origin's `/.well-known/x402` lists the URL (false when it
    /// could not be read).
    pub origin_lists_url: Option<bool>,
    /// `--discovery` with `--facilitator`: the facilitator's discovery item for the URL
    /// (inner None: not listed, or no usable answer).
    pub facilitator_listing: Option<Option<Value>>,
}

/// An EVM asset as its chain answered: `eth_getCode` and the `name()` and `version()` calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvmContract {
    /// The address holds code.
    pub has_code: bool,
    /// `name()`, ABI-decoded (None: reverted, or not a string).
    pub name: Option<String>,
    /// `version()`, ABI-decoded.
    pub version: Option<String>,
}

/// The addresses the chain probes ask about, derived from the challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Questions {
    /// The payout token account of each exact Solana offer (the one it names, else the
    /// associated token account of its payTo and asset), with the offer's payTo and asset.
    pub svm_accounts: Vec<SvmPayout>,
    /// The asset of each exact EVM offer.
    pub evm_assets: Vec<String>,
}

/// One Solana offer's payout: the token account to look up and what it must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvmPayout {
    /// The token account.
    pub account: String,
    /// The offer's payTo: the account's owner.
    pub owner: String,
    /// The offer's asset: the account's mint.
    pub mint: String,
}

/// The methods a Bazaar declaration may name for an HTTP endpoint (coinbase/x402
/// `specs/extensions/bazaar.md`).
pub const BAZAAR_METHODS: [&str; 6] = ["GET", "HEAD", "DELETE", "POST", "PUT", "PATCH"];

/// The method the challenge's Bazaar declaration names (`info.input.method` of an `http`
/// input), if it names one of [`BAZAAR_METHODS`]: what `--method` alone probes.
pub fn declared_method(seen: &HttpObservation) -> Option<&'static str> {
    let read = read_challenge(seen)?;
    let input = read.document()?.get("extensions")?.pointer("/bazaar/info/input")?;
    if input.get("type").and_then(Value::as_str) != Some("http") {
        return None;
    }
    let named = input.get("method").and_then(Value::as_str)?;
    BAZAAR_METHODS.into_iter().find(|method| *method == named)
}

/// Most offers of one challenge a chain probe asks about (one RPC call or three each); an
/// offer past them has no answer, and its check fails: a bound, said, never a silent cap.
pub const MAX_PROBED_OFFERS: usize = 16;

/// What the chain probes ask, in the order [`super::examine`] reads the answers: at most
/// [`MAX_PROBED_OFFERS`] of each.
pub fn questions(seen: &HttpObservation) -> Questions {
    let Some(challenge) = read_challenge(seen) else {
        return Questions::default();
    };
    let offers = challenge.offers();
    Questions {
        svm_accounts: offers.iter().filter_map(svm_payout).take(MAX_PROBED_OFFERS).collect(),
        evm_assets: offers
            .iter()
            .filter(|offer| offer.scheme_is_exact() && offer.on(Family::Evm))
            .filter_map(|offer| offer.text("asset").map(str::to_owned))
            .take(MAX_PROBED_OFFERS)
            .collect(),
    }
}

/// The payout of an exact Solana offer, when its payTo and asset are addresses.
pub(crate) fn svm_payout(offer: &Offer<'_>) -> Option<SvmPayout> {
    if !(offer.scheme_is_exact() && offer.on(Family::Svm)) {
        return None;
    }
    let (owner, mint) = (offer.text("payTo")?, offer.text("asset")?);
    let account = match offer.extra("usdc_token_account") {
        Some(named) => named.to_owned(),
        None => associated_token_account(owner, mint)?,
    };
    Some(SvmPayout { account, owner: owner.to_owned(), mint: mint.to_owned() })
}

/// An `eth_call` result that is an ABI-encoded `string`: `0x`, a 32-byte offset, a 32-byte
/// length and the bytes; None for anything else (a revert, another type, bad hex).
pub fn abi_string(result: &str) -> Option<String> {
    let hex = result.strip_prefix("0x")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    let word = |at: usize| -> Option<usize> {
        let word = bytes.get(at..at + 32)?;
        if word[..24].iter().any(|&b| b != 0) {
            return None;
        }
        Some(u64::from_be_bytes(word[24..].try_into().ok()?) as usize)
    };
    let offset = word(0)?;
    let length = word(offset)?;
    let start = offset.checked_add(32)?;
    let text = bytes.get(start..start.checked_add(length)?)?;
    String::from_utf8(text.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_string_vectors() {
        let encode = |text: &str| {
            let mut hex = format!("0x{:064x}{:064x}", 32, text.len());
            for b in text.bytes() {
                hex += &format!("{b:02x}");
            }
            while (hex.len() - 2) % 64 != 0 {
                hex.push('0');
            }
            hex
        };
        let vectors: [(String, Option<&str>); 6] = [
            (encode("USD Coin"), Some("USD Coin")),
            (encode("2"), Some("2")),
            (encode(""), Some("")),
            ("0x".to_owned(), None),
            (format!("0x{:064x}", 1), None),
            (encode("USD Coin")[..80].to_owned(), None),
        ];
        for (result, want) in vectors {
            assert_eq!(abi_string(&result).as_deref(), want, "{result}");
        }
    }
}
