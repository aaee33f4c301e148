//! Payment claims: ids, bindings, markers, transitions, resumes, the early-fetch lease and
//! each payer's latest settled purchase of an op and URL (what a signed-in payer collects).

use std::future::Future;

use super::common::{Base58Id, PaidOp, StoreError, UtcMillis};

/// How often one settled payment's verdict may be delivered again (a resume of an
/// undelivered claim, or a re-delivery of a delivered one whose answer was lost).
pub const MAX_RESUMES: u32 = 3;
/// How long after its claim a payment may still be in flight (its original request
/// settling and delivering; API Gateway ends every request within 30 s): a resume comes
/// only after this, so a concurrent duplicate never gets a second verdict.
pub const IN_FLIGHT_MS: i64 = 30_000;
/// How long a payment claim lives before TTL removes it, in milliseconds (24 h).
pub const CLAIM_TTL_MS: i64 = 24 * 60 * 60 * 1000;

/// Payment claims: each payment is used once; its marker moves only along a [`Transition`].
pub trait PaymentClaims: Send + Sync {
    /// Claims a payment for an op and a called URL, with its payer (conditional put, marker
    /// `verified`): exactly one concurrent claim wins. With an identifier, the claim and the
    /// identifier's mapping to this payment are one atomic write, refused
    /// ([`ClaimOutcome::IdentifierTaken`]) while the identifier names another payment claimed
    /// less than [`CLAIM_TTL_MS`] ago.
    fn claim(
        &self,
        claim: &NewClaim,
        now: UtcMillis,
    ) -> impl Future<Output = Result<ClaimOutcome, StoreError>> + Send;

    /// Takes the payer's early-fetch lease for its holder (one conditional write): true when
    /// no other payment of the payer holds an unexpired one at `now`, so a payer has at most
    /// one fetch running while its settlement is in flight.
    fn lease_early_fetch(
        &self,
        lease: &EarlyFetchLease,
        now: UtcMillis,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Gives back the payer's early-fetch lease if its holder still holds it (else writes
    /// nothing).
    fn release_early_fetch(
        &self,
        lease: &EarlyFetchLease,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The payment an identifier names, while its mapping is younger than [`CLAIM_TTL_MS`]
    /// (a strongly consistent read).
    fn identified(
        &self,
        identifier: &IdentifierBinding,
        now: UtcMillis,
    ) -> impl Future<Output = Result<Option<PaymentId>, StoreError>> + Send;

    /// The stored claim of a payment, if any (a strongly consistent read: it decides which
    /// answer a known payment gets; every move is still a conditional write).
    fn claim_of(
        &self,
        id: &PaymentId,
    ) -> impl Future<Output = Result<Option<StoredClaim>, StoreError>> + Send;

    /// The payment of a payer's latest settled purchase of an op and called URL (recorded by
    /// [`Transition::Settled`]), while its mapping is younger than [`CLAIM_TTL_MS`] (a
    /// strongly consistent read).
    fn purchase_of(
        &self,
        purchase: &PurchaseBinding,
        now: UtcMillis,
    ) -> impl Future<Output = Result<Option<PaymentId>, StoreError>> + Send;

    /// Moves a claim's marker (conditional on [`Transition::from`]), recording the
    /// settlement transaction when the move carries one, and with it (one atomic write) the
    /// payer's purchase mapping when it carries that.
    fn advance(
        &self,
        id: &PaymentId,
        transition: &Transition,
    ) -> impl Future<Output = Result<AdvanceOutcome, StoreError>> + Send;

    /// Resume: a retry of a settled, unexpired payment for the same op and called URL, at
    /// most [`MAX_RESUMES`] times, one conditional write: a `settled` claim after it left
    /// flight (an undelivered verdict), or a `delivered` one (its answer maybe lost); a claim
    /// without a binding (written before bindings were kept) resumes only from `settled`.
    /// Returns its settlement transaction and payer.
    fn resume(
        &self,
        retry: &Retry,
        now: UtcMillis,
    ) -> impl Future<Output = Result<ResumeOutcome, StoreError>> + Send;
}

/// A payment's identity: the SHA-256 of its transaction's message (what every signature
/// signs), so that no re-encoding, trailing byte or value in a slot someone else fills makes
/// one transfer two payments. Never a hash of a fetched challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PaymentId(pub [u8; 32]);

impl PaymentId {
    /// The claim key as stored.
    pub fn key(&self) -> String {
        format!("payment:message-sha256:{}", hex32(&self.0))
    }

    /// Parses a claim key ([`PaymentId::key`]).
    pub fn parse_key(key: &str) -> Option<Self> {
        key.strip_prefix("payment:message-sha256:").and_then(parse_hex32).map(Self)
    }
}

/// The called URL a claim is bound to: HMAC-SHA256 of the URL under a key only the service
/// holds (derived from the signing seed), so a retry of the payment is recognised for the
/// same URL while the store never holds the URL or a hash anyone else can recompute.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UrlBinding(pub [u8; 32]);

impl UrlBinding {
    /// The binding as stored: 64 lowercase hex digits.
    pub fn hex(&self) -> String {
        hex32(&self.0)
    }

    /// Parses 64 lowercase hex digits.
    pub fn parse(text: &str) -> Option<Self> {
        parse_hex32(text).map(Self)
    }
}

impl std::fmt::Debug for UrlBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UrlBinding(..)")
    }
}

/// A `payment-identifier` id as the store knows it: HMAC-SHA256 of the id under a key only
/// the service holds (never the id itself, which the buyer chose).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdentifierBinding(pub [u8; 32]);

impl IdentifierBinding {
    /// The key of its mapping item: `payment-identifier:hmac-sha256:<64 hex digits>`.
    pub fn key(&self) -> String {
        format!("payment-identifier:hmac-sha256:{}", hex32(&self.0))
    }
}

impl std::fmt::Debug for IdentifierBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdentifierBinding(..)")
    }
}

/// A payer's purchase of an op and a called URL as the store knows it: HMAC-SHA256 of the
/// wallet, the op and the URL's binding under a key only the service holds. It keys the
/// mapping to the latest settled payment of that purchase, which a request signed by the
/// wallet collects again.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PurchaseBinding(pub [u8; 32]);

impl PurchaseBinding {
    /// The key of its mapping item: `purchase:hmac-sha256:<64 hex digits>`.
    pub fn key(&self) -> String {
        format!("purchase:hmac-sha256:{}", hex32(&self.0))
    }
}

impl std::fmt::Debug for PurchaseBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PurchaseBinding(..)")
    }
}

/// A payer's purchase as a settlement records it: its binding, and when it settled (the
/// mapping lives [`CLAIM_TTL_MS`] from then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettledPurchase {
    /// The payer's purchase of the op and URL.
    pub binding: PurchaseBinding,
    /// When it settled.
    pub at: UtcMillis,
}

/// A payer's early-fetch lease as one payment asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlyFetchLease {
    /// The payer whose one lease it is.
    pub payer: Base58Id,
    /// The payment that holds it.
    pub holder: PaymentId,
    /// When it expires by itself (its request died without giving it back).
    pub until: UtcMillis,
}

impl EarlyFetchLease {
    /// The key of the payer's lease: `early-fetch:wallet:<wallet>`.
    pub fn key(&self) -> String {
        format!("early-fetch:wallet:{}", self.payer.as_str())
    }
}

/// 32 bytes as 64 lowercase hex digits.
fn hex32(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 64 lowercase hex digits as 32 bytes.
fn parse_hex32(text: &str) -> Option<[u8; 32]> {
    let b = text.as_bytes();
    if b.len() != 64 || !b.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

/// What a new claim records: the payment, the op, the called URL's binding, the payer the
/// facilitator named at `/verify` (so a resumed delivery records it in the ledger) and the
/// payment's `payment-identifier` id, if it carries one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClaim {
    /// The payment claimed.
    pub id: PaymentId,
    /// The op the payment pays for.
    pub op: PaidOp,
    /// The called URL's binding.
    pub url: UrlBinding,
    /// The payer's wallet, when the facilitator named one.
    pub payer: Option<Base58Id>,
    /// The payment's identifier, mapped to this payment with the claim (both or neither).
    pub identifier: Option<IdentifierBinding>,
}

/// A retry of a known payment, as [`PaymentClaims::resume`] is asked it: the payment, and
/// the op and called URL its claim must have been made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// The payment retried.
    pub id: PaymentId,
    /// The op the retry asks for.
    pub op: PaidOp,
    /// The binding of the URL the retry calls.
    pub url: UrlBinding,
}

/// Where a claimed payment stands. Each marker is reached by exactly one [`Transition`],
/// except `Verified`, which the claim itself writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimMarker {
    /// The facilitator verified the payment; `/settle` has not been called.
    Verified,
    /// `/settle` was called and its outcome is not known yet (in flight, or its answer was
    /// lost, late or not a clean success): only the chain can tell.
    Settling,
    /// The payment settled (the claim holds its transaction); its verdict is owed.
    Settled,
    /// The payment provably never settled: its transaction is not on chain and its
    /// blockhash expired, so it can never land.
    NotSettled,
    /// The verdict was handed to the transport.
    Delivered,
}

impl ClaimMarker {
    /// Every marker, in the order a claim moves through them.
    pub const ALL: [Self; 5] =
        [Self::Verified, Self::Settling, Self::Settled, Self::NotSettled, Self::Delivered];

    /// The marker as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Verified => "verified",
            Self::Settling => "settling",
            Self::Settled => "settled",
            Self::NotSettled => "not_settled",
            Self::Delivered => "delivered",
        }
    }

    /// The marker of a stored text.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|marker| marker.as_str() == text)
    }
}

/// The moves a claim can make, each one conditional write from one marker to the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transition {
    /// verified -> settling: this request is about to call `/settle`.
    Settle,
    /// settling -> settled, recording the settlement transaction and, when the payer is
    /// known, mapping the payer's purchase to this payment.
    Settled {
        /// The settlement transaction.
        tx: Base58Id,
        /// The payer's purchase of this op and URL, when the facilitator named the payer.
        purchase: Option<SettledPurchase>,
    },
    /// settling -> not_settled: the chain proves the payment can never land.
    NeverSettled,
    /// settled -> delivered: the verdict is being answered.
    Deliver,
}

impl Transition {
    /// The marker the claim must be at.
    pub fn from(&self) -> ClaimMarker {
        match self {
            Self::Settle => ClaimMarker::Verified,
            Self::Settled { .. } | Self::NeverSettled => ClaimMarker::Settling,
            Self::Deliver => ClaimMarker::Settled,
        }
    }

    /// The marker the claim moves to.
    pub fn to(&self) -> ClaimMarker {
        match self {
            Self::Settle => ClaimMarker::Settling,
            Self::Settled { .. } => ClaimMarker::Settled,
            Self::NeverSettled => ClaimMarker::NotSettled,
            Self::Deliver => ClaimMarker::Delivered,
        }
    }

    /// The settlement transaction this move records, if any.
    pub fn tx(&self) -> Option<&Base58Id> {
        match self {
            Self::Settled { tx, .. } => Some(tx),
            _ => None,
        }
    }

    /// The purchase mapping this move records, if any.
    pub fn purchase(&self) -> Option<&SettledPurchase> {
        match self {
            Self::Settled { purchase, .. } => purchase.as_ref(),
            _ => None,
        }
    }
}

/// A stored claim, as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredClaim {
    /// The op the payment was claimed for.
    pub op: PaidOp,
    /// Where it stands.
    pub marker: ClaimMarker,
    /// When it was claimed.
    pub claimed_at: UtcMillis,
    /// How often its verdict was resumed.
    pub resumes: u32,
    /// The settlement transaction, once settled.
    pub tx: Option<Base58Id>,
    /// The called URL's binding (None on a claim written before bindings were kept).
    pub url: Option<UrlBinding>,
    /// The payer's wallet, when the facilitator named one at `/verify`.
    pub payer: Option<Base58Id>,
}

/// A claim's attributes as both backends store them (text as stored, before validation).
#[derive(Debug, Clone, Copy)]
pub struct StoredAttributes<'a> {
    /// `op`.
    pub op: &'a str,
    /// `marker`.
    pub marker: &'a str,
    /// `claimed_at_ms`.
    pub claimed_at_ms: i64,
    /// `resumes`.
    pub resumes: i64,
    /// `payment_tx`, once settled.
    pub tx: Option<&'a str>,
    /// `url_binding`.
    pub url: Option<&'a str>,
    /// `payer_wallet`.
    pub payer: Option<&'a str>,
}

impl StoredClaim {
    /// A claim from its stored attributes (both backends store the same ones); anything this
    /// code does not write is [`StoreError::Corrupt`].
    pub fn from_stored(stored: StoredAttributes<'_>) -> Result<Self, StoreError> {
        let op = PaidOp::parse(stored.op);
        let base58 = |text: Option<&str>| {
            text.map(|text| Base58Id::parse(text).ok_or(StoreError::Corrupt)).transpose()
        };
        let url = stored.url.map(|url| UrlBinding::parse(url).ok_or(StoreError::Corrupt));
        Ok(Self {
            op: op.ok_or(StoreError::Corrupt)?,
            marker: ClaimMarker::parse(stored.marker).ok_or(StoreError::Corrupt)?,
            claimed_at: UtcMillis(stored.claimed_at_ms),
            resumes: u32::try_from(stored.resumes).map_err(|_| StoreError::Corrupt)?,
            tx: base58(stored.tx)?,
            url: url.transpose()?,
            payer: base58(stored.payer)?,
        })
    }
}

/// The outcome of claiming a payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimOutcome {
    /// This call claimed it (marker `verified`).
    Claimed,
    /// It was claimed before; nothing was written.
    AlreadyClaimed,
    /// Its identifier names another unexpired payment; nothing was written.
    IdentifierTaken,
}

/// The outcome of moving a claim's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdvanceOutcome {
    /// The marker moved.
    Advanced,
    /// The claim is missing or not at the expected marker; nothing was written.
    NotAtMarker,
}

/// The outcome of a resume (another delivery of a settled payment's verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeOutcome {
    /// The payment was settled (or delivered, and its answer maybe lost): deliver its verdict
    /// again without settling again.
    Resumed {
        /// The settlement transaction recorded with the claim.
        tx: Base58Id,
        /// The payer's wallet recorded with the claim.
        payer: Option<Base58Id>,
    },
    /// No claim, another op or URL, not settled, expired, settled but still in flight, or
    /// resumed [`MAX_RESUMES`] times already.
    Refused,
}
