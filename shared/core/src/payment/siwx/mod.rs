//! x402 `sign-in-with-x` (coinbase/x402 `specs/extensions/sign-in-with-x.md`), for Solana
//! wallets: the challenge our 402s declare ([`declaration`]), the proof a request carries
//! ([`decode_proof_header`]) and its verification ([`verify_proof`]): chain, domain, URI,
//! nonce (one we issued, [`nonce`]), time window, then the Ed25519 signature over the message
//! rebuilt as the official SDKs build it ([`message`]). Whether a nonce was spent before is
//! the store's to say (one conditional write); what a proven wallet may do is the paid flow's
//! and the pre-check's. Pure: the time, the key and the random bytes come in.

mod message;
pub mod nonce;
mod proof;
mod refusal;

use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use url::{Position, Url};

use super::solana::{Base58Id, decode_pubkey, decode_signature};
use super::x402::Network;
use crate::report::UtcMillis;
pub use message::siws_message;
pub use nonce::{NonceKey, ProofNonce, issue_nonce, our_nonce};
pub use proof::{MAX_PROOF_HEADER_BYTES, SignInProof, decode_proof_header};
pub use refusal::SignInRefusal;

/// The extension's key in a 402's `extensions`, and (any case) the request header of a proof.
pub const SIGN_IN_WITH_X: &str = "sign-in-with-x";
/// How long after its challenge was issued a proof is accepted: 5 minutes.
pub const PROOF_LIFETIME_MS: i64 = 300_000;
/// How far in the future a challenge's `issuedAt` may lie (another instance's clock).
pub const CLOCK_SKEW_MS: i64 = 5_000;
/// The CAIP-122 message version.
pub const MESSAGE_VERSION: &str = "1";
/// The signature type of Solana wallets.
pub const SIGNATURE_TYPE: &str = "ed25519";
/// The statement our challenges carry (the wallet shows it to its owner).
pub const STATEMENT: &str = "Sign in to payability-verdict";

/// What a proof must name for one route: this service's domain (the host, and the port when
/// the URL states one) and the route's URL (the request's public URL without its query).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInScope {
    /// The domain (`host[:port]`).
    pub domain: String,
    /// The route's URL.
    pub uri: String,
}

impl SignInScope {
    /// The scope of requests to `resource_url`; None for a URL without a host.
    pub fn of(resource_url: &str) -> Option<Self> {
        let url = Url::parse(resource_url).ok()?;
        url.host_str()?;
        let domain = url[Position::BeforeHost..Position::AfterPort].to_owned();
        Some(Self { domain, uri: url[..Position::AfterPath].to_owned() })
    }
}

/// The `extensions["sign-in-with-x"]` of a challenge issued at `issued_at` with `nonce`:
/// `info` (domain, uri, version, nonce, issuedAt, statement; no `expirationTime`: the
/// extension's default, 5 minutes after `issuedAt`, is the proof's lifetime, and every byte
/// of a 402's extensions is echoed into the paid retry) and one supported chain, Solana
/// mainnet with `ed25519`. None when the clock is outside the years a timestamp can carry.
pub fn declaration(scope: &SignInScope, nonce: &ProofNonce, issued_at: UtcMillis) -> Option<Value> {
    Some(json!({
        "info": {
            "domain": scope.domain,
            "uri": scope.uri,
            "version": MESSAGE_VERSION,
            "nonce": nonce.as_str(),
            "issuedAt": issued_at.to_rfc3339_millis()?,
            "statement": STATEMENT,
        },
        "supportedChains": [{"chainId": Network::SolanaMainnet.caip2(), "type": SIGNATURE_TYPE}],
    }))
}

/// A wallet that proved itself: the proof verified, its nonce still to be spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProvenWallet {
    /// The wallet.
    pub wallet: Base58Id,
    /// The nonce the proof answered: spend it once before granting anything.
    pub nonce: ProofNonce,
    /// Until when the proof could be presented again: the spent nonce is kept that long.
    pub spend_until: UtcMillis,
}

/// Verifies a decoded proof for `scope` at `now`: version, chain and type, domain, URI, a
/// nonce we issued at its `issuedAt`, issued at most [`PROOF_LIFETIME_MS`] ago (and at most
/// [`CLOCK_SKEW_MS`] ahead), `expirationTime` and `notBefore` honoured, then the Ed25519
/// signature (strict) of `address` over [`siws_message`].
pub fn verify_proof(
    proof: &SignInProof,
    scope: &SignInScope,
    now: UtcMillis,
    key: &NonceKey,
) -> Result<ProvenWallet, SignInRefusal> {
    if proof.version != MESSAGE_VERSION
        || Network::from_caip2(&proof.chain_id) != Some(Network::SolanaMainnet)
        || proof.kind != SIGNATURE_TYPE
    {
        return Err(SignInRefusal::ChainUnsupported);
    }
    if proof.domain != scope.domain {
        return Err(SignInRefusal::DomainMismatch);
    }
    if SignInScope::of(&proof.uri).is_none_or(|named| named.uri != scope.uri) {
        return Err(SignInRefusal::UriMismatch);
    }
    let issued_at = instant(&proof.issued_at).ok_or(SignInRefusal::NonceUnknown)?;
    let nonce = our_nonce(key, &proof.nonce, issued_at).ok_or(SignInRefusal::NonceUnknown)?;
    if issued_at.0 > now.0.saturating_add(CLOCK_SKEW_MS) {
        return Err(SignInRefusal::NotYetValid);
    }
    if now.0.saturating_sub(issued_at.0) > PROOF_LIFETIME_MS {
        return Err(SignInRefusal::Expired);
    }
    if optional_instant(&proof.expiration_time)?.is_some_and(|expiration| expiration <= now) {
        return Err(SignInRefusal::Expired);
    }
    if optional_instant(&proof.not_before)?.is_some_and(|not_before| now < not_before) {
        return Err(SignInRefusal::NotYetValid);
    }
    let wallet = Base58Id::pubkey(&proof.address).ok_or(SignInRefusal::SignatureInvalid)?;
    let signed = decode_pubkey(&proof.address)
        .and_then(|key| VerifyingKey::from_bytes(&key).ok())
        .zip(decode_signature(&proof.signature).map(|bytes| Signature::from_bytes(&bytes)))
        .is_some_and(|(key, signature)| {
            key.verify_strict(siws_message(proof).as_bytes(), &signature).is_ok()
        });
    if !signed {
        return Err(SignInRefusal::SignatureInvalid);
    }
    let spend_until = UtcMillis(issued_at.0.saturating_add(PROOF_LIFETIME_MS + CLOCK_SKEW_MS));
    Ok(ProvenWallet { wallet, nonce, spend_until })
}

/// An RFC 3339 time as Unix milliseconds.
fn instant(text: &str) -> Option<UtcMillis> {
    let at = OffsetDateTime::parse(text, &Rfc3339).ok()?;
    i64::try_from(at.unix_timestamp_nanos().div_euclid(1_000_000)).ok().map(UtcMillis)
}

/// An optional time member: absent or empty is None; present and not RFC 3339 is malformed.
fn optional_instant(member: &Option<String>) -> Result<Option<UtcMillis>, SignInRefusal> {
    match member.as_deref().filter(|text| !text.is_empty()) {
        None => Ok(None),
        Some(text) => instant(text).map(Some).ok_or(SignInRefusal::HeaderMalformed),
    }
}

#[cfg(test)]
mod tests;
