//! Why a sign-in proof was refused ([`SignInRefusal`]): a closed list, each a stable rule id
//! and a static message.

/// Why a sign-in proof was refused (closed form: a rule id and a static message, never a
/// received value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignInRefusal {
    /// The header value is longer than [`super::MAX_PROOF_HEADER_BYTES`].
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
    /// Issued more than [`super::PROOF_LIFETIME_MS`] ago, or past its `expirationTime`.
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
