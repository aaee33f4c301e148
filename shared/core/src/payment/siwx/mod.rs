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

use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use url::{Position, Url};

use super::solana::{Base58Id, decode_pubkey, decode_signature};
use super::x402::NETWORK_V2;
use crate::report::UtcMillis;
pub use message::siws_message;
pub use nonce::{NonceKey, ProofNonce, issue_nonce, our_nonce};
pub use proof::{MAX_PROOF_HEADER_BYTES, SignInProof, decode_proof_header};

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

/// Why a sign-in proof was refused (closed form: a rule id and a static message, never a
/// received value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignInRefusal {
    /// The header value is longer than [`MAX_PROOF_HEADER_BYTES`].
    HeaderTooLarge,
    /// The header is not standard base64 of a JSON object with the proof's members.
    HeaderMalformed,
    /// Not version 1 of a Solana mainnet `ed25519` proof.
    ChainUnsupported,
    /// `domain` is not this service's.
    DomainMismatch,
    /// `uri` is not this route's URL.
    UriMismatch,
    /// The nonce was not issued by this service with this `issuedAt`.
    NonceUnknown,
    /// The nonce was spent by an earlier proof.
    NonceUsed,
    /// Issued more than [`PROOF_LIFETIME_MS`] ago, or past its `expirationTime`.
    Expired,
    /// `issuedAt` lies in the future, or `notBefore` is not reached.
    NotYetValid,
    /// The signature is not the address's over the message.
    SignatureInvalid,
}

impl SignInRefusal {
    /// Every refusal, for tables and tests.
    pub const ALL: [Self; 10] = [
        Self::HeaderTooLarge,
        Self::HeaderMalformed,
        Self::ChainUnsupported,
        Self::DomainMismatch,
        Self::UriMismatch,
        Self::NonceUnknown,
        Self::NonceUsed,
        Self::Expired,
        Self::NotYetValid,
        Self::SignatureInvalid,
    ];

    /// The stable snake_case rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::HeaderTooLarge => "sign_in_header_too_large",
            Self::HeaderMalformed => "sign_in_header_malformed",
            Self::ChainUnsupported => "sign_in_chain_unsupported",
            Self::DomainMismatch => "sign_in_domain_mismatch",
            Self::UriMismatch => "sign_in_uri_mismatch",
            Self::NonceUnknown => "sign_in_nonce_unknown",
            Self::NonceUsed => "sign_in_nonce_used",
            Self::Expired => "sign_in_expired",
            Self::NotYetValid => "sign_in_not_yet_valid",
            Self::SignatureInvalid => "sign_in_signature_invalid",
        }
    }

    /// A static, human-readable explanation.
    pub fn message(self) -> &'static str {
        match self {
            Self::HeaderTooLarge => "the SIGN-IN-WITH-X value is longer than 16384 bytes",
            Self::HeaderMalformed => {
                "SIGN-IN-WITH-X must be base64 of a JSON object with the sign-in-with-x proof's string members (domain, address, uri, version, chainId, type, nonce, issuedAt, signature; RFC 3339 times)"
            }
            Self::ChainUnsupported => {
                "the proof must be version 1, chainId solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp and type ed25519"
            }
            Self::DomainMismatch => "the proof's domain is not this service's",
            Self::UriMismatch => "the proof's uri is not the URL of the route it is sent to",
            Self::NonceUnknown => {
                "the proof's nonce and issuedAt are not a challenge this service issued; sign the sign-in-with-x challenge of a fresh 402"
            }
            Self::NonceUsed => {
                "the proof's nonce was used before; sign the sign-in-with-x challenge of a fresh 402"
            }
            Self::Expired => {
                "the proof's challenge was issued more than 5 minutes ago, or its expirationTime has passed; sign a fresh challenge"
            }
            Self::NotYetValid => "the proof's issuedAt or notBefore lies in the future",
            Self::SignatureInvalid => {
                "the signature is not an Ed25519 signature of the proof's address over its sign-in message"
            }
        }
    }

    /// True for the refusals that mean "not a well-formed proof header" (HTTP 400); the others
    /// are answered with a fresh challenge to sign.
    pub fn is_malformed(self) -> bool {
        matches!(self, Self::HeaderTooLarge | Self::HeaderMalformed)
    }
}

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
        "supportedChains": [{"chainId": NETWORK_V2, "type": SIGNATURE_TYPE}],
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
        || proof.chain_id != NETWORK_V2
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
