//! The values the store keeps. Every stored string is typed and either derived from our own
//! data (states, times, the verdict line) or validated (base58 ids), so no stored item can
//! hold a URL, a challenge value, a fragment or a plain hash of one. The one value derived
//! from a URL is a claim's [`UrlBinding`]: an HMAC under a key only the service holds, on the
//! claim only (24 h TTL), never in the ledger.

use std::collections::BTreeMap;
use std::net::IpAddr;

use payability_core::grade::{CheckState, MemoState};
pub use payability_core::report::UtcMillis;
use payability_core::report::{Op, verdict_line};

/// Pre-checks a caller wallet may use per UTC day (the specification's allowance).
pub const FREE_PER_DAY: u32 = 100;
/// Least time between two pre-checks of one caller wallet, in milliseconds.
pub const FREE_MIN_INTERVAL_MS: i64 = 5_000;
/// Pre-checks one source (an IPv4 address, or an IPv6 /64) may use per UTC day, whatever
/// wallets its requests name: the spec's per-wallet allowance, so one honest caller on one
/// source gets all of it and no source gets more by rotating wallet strings.
pub const FREE_PER_SOURCE_PER_DAY: u32 = 100;
/// Least time between two pre-checks of one source, in milliseconds.
pub const FREE_SOURCE_MIN_INTERVAL_MS: i64 = 5_000;
/// The key of the Day-0 item in the metrics store: the UTC instant of the first outside paid
/// ledger entry (written once, first write wins; house entries never write it).
pub const DAY0_KEY: &str = "day0";
/// How often one settled payment's verdict may be delivered again (a resume of an
/// undelivered claim, or a re-delivery of a delivered one whose answer was lost).
pub const MAX_RESUMES: u32 = 3;
/// How long after its claim a payment may still be in flight (its original request
/// settling and delivering; API Gateway ends every request within 30 s): a resume comes
/// only after this, so a concurrent duplicate never gets a second verdict.
pub const IN_FLIGHT_MS: i64 = 30_000;
/// How long a payment claim lives before TTL removes it, in milliseconds (24 h).
pub const CLAIM_TTL_MS: i64 = 24 * 60 * 60 * 1000;
/// Most days one metrics read covers (the last ones of the asked range).
pub const MAX_METRICS_DAYS: i64 = 366;
/// One day in milliseconds.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;
/// How long a free-tier counter lives after its day, in milliseconds (48 h).
pub const FREE_TIER_TTL_MS: i64 = 48 * 60 * 60 * 1000;
/// Key prefix of the check ledger.
pub const CHECK_LEDGER_PREFIX: &str = "pvc:ledger:";
/// Key prefix of the memo ledger (the specification's `kv_prefix`).
pub const MEMO_LEDGER_PREFIX: &str = "pvm:ledger:";
/// How the CAD fair-market value is established.
pub const CAD_BASIS: &str = "Bank of Canada daily USD/CAD (series FXUSDCAD) of the UTC transaction date, or of the latest publication day before it when that date had none; USDC valued at par with USD";

/// Why the store could not answer (closed form; never carries an SDK message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreError {
    /// The store could not be reached, timed out, or kept throttling: answer 503.
    Unavailable,
    /// A stored item does not have the shape this code writes.
    Corrupt,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "the store is unavailable",
            Self::Corrupt => "a stored item has an unexpected shape",
        })
    }
}

impl std::error::Error for StoreError {}

/// A UTC calendar day, `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcDay(String);

impl UtcDay {
    /// The UTC day of an instant (None outside the years 0000 to 9999).
    pub fn of(at: UtcMillis) -> Option<Self> {
        at.to_rfc3339_millis().map(|s| Self(s[..10].to_owned()))
    }

    /// Parses `YYYY-MM-DD` (digits and dashes in that shape only).
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        let shape_ok = b.len() == 10
            && b.iter()
                .enumerate()
                .all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
        shape_ok.then(|| Self(text.to_owned()))
    }

    /// The day as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The day's first instant.
    pub fn midnight(&self) -> Option<UtcMillis> {
        UtcMillis::parse_rfc3339_millis(&format!("{}T00:00:00.000Z", self.0))
    }

    /// The day `days` later (earlier when negative).
    pub fn shifted(&self, days: i64) -> Option<Self> {
        Self::of(UtcMillis(self.midnight()?.0.checked_add(days.checked_mul(DAY_MS)?)?))
    }
}

/// A base58 identifier (a Solana wallet or a transaction signature), validated so that no
/// other text can be stored in its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Base58Id(String);

impl Base58Id {
    /// Accepts 32 to 88 characters of the Bitcoin base58 alphabet.
    pub fn parse(text: &str) -> Option<Self> {
        const ALPHABET: &str = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        let ok = (32..=88).contains(&text.len()) && text.chars().all(|c| ALPHABET.contains(c));
        ok.then(|| Self(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The paid ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PaidOp {
    /// `POST /check`.
    Check,
    /// `POST /memo`.
    Memo,
}

impl PaidOp {
    /// The op's name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Check => "check",
            Self::Memo => "memo",
        }
    }
}

/// A USD/CAD rate as published: a decimal string and the date it was published for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CadRate {
    /// CAD per USD, digits with one decimal point (e.g. `1.3971`).
    usd_cad: String,
    /// The publication date the rate is of.
    pub rate_date: UtcDay,
}

impl CadRate {
    /// Accepts a plain positive decimal of at most 16 characters.
    pub fn new(usd_cad: &str, rate_date: UtcDay) -> Option<Self> {
        let mut parts = usd_cad.split('.');
        let digits = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        let ok = usd_cad.len() <= 16
            && digits(parts.next())
            && digits(parts.next())
            && parts.next().is_none();
        ok.then(|| Self { usd_cad: usd_cad.to_owned(), rate_date })
    }

    /// The rate as text.
    pub fn usd_cad(&self) -> &str {
        &self.usd_cad
    }
}

/// The CAD fair-market-value block of a ledger entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CadBlock {
    /// The rate, or None while it is pending (never guessed).
    pub rate: Option<CadRate>,
    /// Whether the price was refunded.
    pub refund: bool,
}

impl CadBlock {
    /// True while no rate is recorded.
    pub fn cad_pending(&self) -> bool {
        self.rate.is_none()
    }
}

/// The verdict a ledger entry records: the op and its state (and the check's risk flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LedgerVerdict {
    /// A check verdict.
    Check {
        /// The payability state.
        state: CheckState,
        /// The description-length risk flag.
        description_overlong: bool,
    },
    /// A memo verdict.
    Memo {
        /// The memo-binding state.
        state: MemoState,
    },
}

impl LedgerVerdict {
    /// The op of the verdict.
    pub fn op(&self) -> PaidOp {
        match self {
            Self::Check { .. } => PaidOp::Check,
            Self::Memo { .. } => PaidOp::Memo,
        }
    }

    /// The state as printed.
    pub fn state(&self) -> &'static str {
        match self {
            Self::Check { state, .. } => state.as_str(),
            Self::Memo { state } => state.as_str(),
        }
    }
}

/// What paid for a verdict: an outside payment, or the house.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payer {
    /// A settled outside payment.
    Paid {
        /// The payer's wallet, as the facilitator names it (None when it names none).
        wallet: Option<Base58Id>,
        /// The settlement transaction signature (also the entry's key).
        tx: Base58Id,
        /// The Solana fee in lamports, None until the RPC answers.
        fee_lamports: Option<u64>,
    },
    /// A house check (the operator's own, unpaid).
    House {
        /// The entry's key.
        id: HouseId,
    },
}

/// The id of a house check's ledger entry: 32 lowercase hex digits, validated so that no
/// other text can reach a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HouseId(String);

impl HouseId {
    /// Accepts exactly 32 lowercase hex digits.
    pub fn parse(text: &str) -> Option<Self> {
        let ok = text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        ok.then(|| Self(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A criteria version, `payability/v1@<revision>` (revision: digits and dots), validated so
/// that old entries stay readable after a new revision and no other text is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CriteriaVersion(String);

impl CriteriaVersion {
    /// The version this code grades under.
    pub fn current() -> Self {
        let criteria = payability_core::criteria::CRITERIA_ID;
        Self(format!("{criteria}@{}", payability_core::criteria::CRITERIA_REVISION))
    }

    /// Accepts `payability/v1@` followed by digits and dots.
    pub fn parse(text: &str) -> Option<Self> {
        let revision = text.strip_prefix("payability/v1@")?;
        let ok = !revision.is_empty() && revision.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        ok.then(|| Self(text.to_owned()))
    }

    /// The version as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The key of a ledger entry: its op's prefix and its payment id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerKey(String);

impl LedgerKey {
    /// The key of a paid entry of `op` settled by transaction `tx` (the key
    /// [`LedgerEntry::key`] gives that entry): how an operator names an entry.
    pub fn paid(op: PaidOp, tx: &Base58Id) -> Self {
        Self(format!("{}{}", ledger_prefix(op), tx.as_str()))
    }

    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The key prefix of an op's ledger.
fn ledger_prefix(op: PaidOp) -> &'static str {
    match op {
        PaidOp::Check => CHECK_LEDGER_PREFIX,
        PaidOp::Memo => MEMO_LEDGER_PREFIX,
    }
}

/// One ledger entry: the specification's closed field list and nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    /// Who paid (wallet, tx id, fee) or the house.
    pub payer: Payer,
    /// The verdict's check end.
    pub at: UtcMillis,
    /// The price in USDC base units.
    pub price_usdc_units: u64,
    /// The CAD fair-market-value block.
    pub cad: CadBlock,
    /// The criteria version, e.g. `payability/v1@1.1.0`.
    pub criteria_version: CriteriaVersion,
    /// The verdict (op, state, risk flag).
    pub verdict: LedgerVerdict,
}

impl LedgerEntry {
    /// The entry's key: `pvc:ledger:` or `pvm:ledger:` and the payment id.
    pub fn key(&self) -> LedgerKey {
        let op = self.verdict.op();
        match &self.payer {
            Payer::Paid { tx, .. } => LedgerKey::paid(op, tx),
            Payer::House { id } => LedgerKey(format!("{}house-{}", ledger_prefix(op), id.as_str())),
        }
    }

    /// The metrics counter the entry's verdict is counted under.
    pub fn counter(&self) -> Counter {
        match (&self.payer, self.verdict) {
            (Payer::House { .. }, verdict) => Counter::House(verdict.op()),
            (Payer::Paid { .. }, LedgerVerdict::Check { state, .. }) => Counter::PaidCheck(state),
            (Payer::Paid { .. }, LedgerVerdict::Memo { state }) => Counter::PaidMemo(state),
        }
    }

    /// The published verdict line, derived from the op, the state and the time (core's
    /// builder, the one the report uses).
    pub fn verdict_line(&self) -> Option<String> {
        let op = match self.verdict.op() {
            PaidOp::Check => Op::Check,
            PaidOp::Memo => Op::Memo,
        };
        Some(verdict_line(op, self.verdict.state(), &self.at.to_rfc3339_millis()?))
    }
}

/// The outcome of appending to the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The entry was written.
    Appended,
    /// An entry with this key exists; nothing was written.
    AlreadyRecorded,
}

/// The outcome of filling a pending CAD block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillOutcome {
    /// The rate was recorded.
    Filled,
    /// The entry is missing or no longer pending; nothing was written.
    NotPending,
}

/// The outcome of marking a ledger entry refunded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundOutcome {
    /// The entry's `refund` flag was set.
    Refunded,
    /// No entry has this key, it is already refunded, or it is a house entry (never paid);
    /// nothing was written.
    NotRefundable,
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

/// The key of a payer's early-fetch lease: `early-fetch:wallet:<wallet>`.
pub fn early_fetch_key(payer: &Base58Id) -> String {
    format!("early-fetch:wallet:{}", payer.as_str())
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

/// What a new claim records beside its payment id: the op, the called URL's binding, the
/// payer the facilitator named at `/verify` (so a resumed delivery records it in the ledger)
/// and the payment's `payment-identifier` id, if it carries one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClaim {
    /// The op the payment pays for.
    pub op: PaidOp,
    /// The called URL's binding.
    pub url: UrlBinding,
    /// The payer's wallet, when the facilitator named one.
    pub payer: Option<Base58Id>,
    /// The payment's identifier, mapped to this payment with the claim (both or neither).
    pub identifier: Option<IdentifierBinding>,
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
    /// settling -> settled, recording the settlement transaction.
    Settled(Base58Id),
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
            Self::Settled(_) | Self::NeverSettled => ClaimMarker::Settling,
            Self::Deliver => ClaimMarker::Settled,
        }
    }

    /// The marker the claim moves to.
    pub fn to(&self) -> ClaimMarker {
        match self {
            Self::Settle => ClaimMarker::Settling,
            Self::Settled(_) => ClaimMarker::Settled,
            Self::NeverSettled => ClaimMarker::NotSettled,
            Self::Deliver => ClaimMarker::Delivered,
        }
    }

    /// The settlement transaction this move records, if any.
    pub fn tx(&self) -> Option<&Base58Id> {
        match self {
            Self::Settled(tx) => Some(tx),
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
        let op = [PaidOp::Check, PaidOp::Memo].into_iter().find(|o| o.as_str() == stored.op);
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

/// One free-tier allowance (a counter item): a wallet's, or a source's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallerKey {
    /// The wallet a request names.
    Wallet(Base58Id),
    /// The request's source address (API Gateway's `sourceIp`, the peer address under
    /// `serve`). An IPv6 source counts as its /64 (one subscriber's usual allocation, so
    /// rotating addresses inside it gains nothing); an IPv4-mapped IPv6 address as its IPv4.
    SourceIp(IpAddr),
}

impl CallerKey {
    /// The counter key for a UTC day: `free:wallet:<wallet>:<day>`, `free:ip:<ipv4>:<day>`
    /// or `free:ip:<ipv6 /64 network>/64:<day>`.
    pub fn key(&self, day: &UtcDay) -> String {
        match self {
            Self::Wallet(w) => format!("free:wallet:{}:{}", w.as_str(), day.as_str()),
            Self::SourceIp(ip) => match source_network(*ip) {
                IpAddr::V4(v4) => format!("free:ip:{v4}:{}", day.as_str()),
                IpAddr::V6(v6) => format!("free:ip:{v6}/64:{}", day.as_str()),
            },
        }
    }

    /// The allowance of this counter: pre-checks per UTC day and the least interval in ms.
    pub fn allowance(&self) -> (u32, i64) {
        match self {
            Self::Wallet(_) => (FREE_PER_DAY, FREE_MIN_INTERVAL_MS),
            Self::SourceIp(_) => (FREE_PER_SOURCE_PER_DAY, FREE_SOURCE_MIN_INTERVAL_MS),
        }
    }
}

/// The network a source address is counted as: an IPv4 address itself, an IPv4-mapped IPv6
/// address as its IPv4, any other IPv6 address as its /64 network address.
fn source_network(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(std::net::Ipv6Addr::from(
                u128::from(v6) & 0xffff_ffff_ffff_ffff_0000_0000_0000_0000,
            )),
        },
    }
}

/// Everything one free pre-check spends: its source's allowance always, and the allowance
/// of the wallet it names, if any. Both must allow; a refusal by either spends neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeCaller {
    /// The request's source address.
    pub source: IpAddr,
    /// The wallet the request names (`caller`), if any.
    pub wallet: Option<Base58Id>,
}

impl FreeCaller {
    /// The source's counter.
    pub fn source_key(&self) -> CallerKey {
        CallerKey::SourceIp(self.source)
    }

    /// The named wallet's counter, if any.
    pub fn wallet_key(&self) -> Option<CallerKey> {
        self.wallet.clone().map(CallerKey::Wallet)
    }
}

/// The outcome of recording Day-0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Day0Outcome {
    /// This write set Day-0.
    Recorded,
    /// Day-0 was set before; nothing was written.
    AlreadyRecorded,
}

/// The outcome of asking for a free pre-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreeTierDecision {
    /// Allowed; this is the caller's `used`-th pre-check today (for a [`FreeCaller`]: its
    /// source's count).
    Allowed {
        /// Pre-checks used today, this one included.
        used: u32,
    },
    /// The last pre-check was less than the allowance's interval (5,000 ms) ago.
    TooSoon,
    /// All of today's pre-checks (100) are used.
    DailyCapReached,
}

/// A metrics counter: a closed set of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// A free pre-check answered.
    Precheck,
    /// A free pre-check refused for the allowance.
    FreeTierRefusal,
    /// A paid check delivered, by state.
    PaidCheck(CheckState),
    /// A paid memo check delivered, by state.
    PaidMemo(MemoState),
    /// A house check or memo check delivered.
    House(PaidOp),
    /// A payment that failed verification or settlement.
    PaymentFailure,
    /// A refund.
    Refund,
}

impl Counter {
    /// The counter's stored name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Precheck => "precheck",
            Self::FreeTierRefusal => "free_tier_refusal",
            Self::PaidCheck(state) => match state {
                CheckState::Populated => "paid_check_populated",
                CheckState::AmountsOnly => "paid_check_amounts_only",
                CheckState::Unconfigured => "paid_check_unconfigured",
                CheckState::HeaderMissing => "paid_check_header_missing",
                CheckState::ResourceMismatch => "paid_check_resource_mismatch",
                CheckState::NotA402 => "paid_check_not_a_402",
            },
            Self::PaidMemo(state) => match state {
                MemoState::Bound => "paid_memo_bound",
                MemoState::MemoReused => "paid_memo_memo_reused",
                MemoState::LegMismatch => "paid_memo_leg_mismatch",
                MemoState::MemoAbsent => "paid_memo_memo_absent",
                MemoState::NotA402 => "paid_memo_not_a_402",
            },
            Self::House(PaidOp::Check) => "house_check",
            Self::House(PaidOp::Memo) => "house_memo",
            Self::PaymentFailure => "payment_failure",
            Self::Refund => "refund",
        }
    }
}

/// The counts of one UTC day, by counter name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCounts {
    /// The day.
    pub day: UtcDay,
    /// Count per counter name (names from [`Counter::name`] only).
    pub counts: BTreeMap<String, u64>,
}
