//! The free pre-check allowance: its limits, counters per proven wallet and per source, and
//! decisions. A wallet's allowance is spent only by a pre-check its wallet signed (x402
//! sign-in-with-x); an unsigned pre-check spends its source's.

use std::future::Future;
use std::net::IpAddr;

use super::common::{Base58Id, StoreError, UtcDay, UtcMillis};

/// Pre-checks a proven wallet may use per UTC day (the specification's allowance).
pub const FREE_PER_DAY: u32 = 100;
/// Least time between two pre-checks of one proven wallet, in milliseconds.
pub const FREE_MIN_INTERVAL_MS: i64 = 5_000;
/// Unsigned pre-checks one source (an IPv4 address, or an IPv6 /64) may use per UTC day:
/// the spec's per-wallet allowance, so one honest caller on one source gets all of it.
pub const FREE_PER_SOURCE_PER_DAY: u32 = 100;
/// Least time between two unsigned pre-checks of one source, in milliseconds.
pub const FREE_SOURCE_MIN_INTERVAL_MS: i64 = 5_000;
/// Signed pre-checks one source may use per UTC day, whatever wallets sign them (new
/// wallets cost nothing to make): ten wallets' allowances, no interval of its own.
pub const FREE_SIGNED_PER_SOURCE_PER_DAY: u32 = 1_000;
/// How long a free-tier counter lives after its day, in milliseconds (48 h).
pub const FREE_TIER_TTL_MS: i64 = 48 * 60 * 60 * 1000;

/// Free pre-check allowance per counter and UTC day, both rules in one conditional update.
pub trait FreeTier: Send + Sync {
    /// Uses one pre-check of one counter if it has one left and the last was long enough
    /// ago ([`CallerKey::allowance`]).
    fn try_use(
        &self,
        caller: &CallerKey,
        now: UtcMillis,
    ) -> impl Future<Output = Result<FreeTierDecision, StoreError>> + Send;

    /// Uses one pre-check of the caller's first counter and, when it has one, of its second:
    /// both must allow. The first is spent first; when the second refuses, the first's use is
    /// given back (a conditional write: only while that use is still its latest, which the
    /// first counter's interval makes ours), so a refusal by either spends neither. The
    /// refusal reported is the first's, else the second's; `Allowed.used` is the first's
    /// count.
    fn try_use_both(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> impl Future<Output = Result<FreeTierDecision, StoreError>> + Send;

    /// What [`FreeTier::try_use_both`] would decide at `now`, writing nothing (consistent
    /// reads): lets a signed pre-check leave its nonce unspent when its allowance is already
    /// refused. Advisory only: a concurrent use may still take the allowance before it is
    /// spent, which `try_use_both` then refuses.
    fn would_allow(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> impl Future<Output = Result<FreeTierDecision, StoreError>> + Send;
}

/// One free-tier allowance (a counter item): a proven wallet's, or a source's (its unsigned
/// pre-checks, or its signed ones). A source is the request's address (API Gateway's
/// `sourceIp`, the peer address under `serve`); an IPv6 source counts as its /64 (one
/// subscriber's usual allocation, so rotating addresses inside it gains nothing), an
/// IPv4-mapped IPv6 address as its IPv4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallerKey {
    /// A wallet that signed the pre-check.
    Wallet(Base58Id),
    /// The unsigned pre-checks of a source.
    SourceIp(IpAddr),
    /// The signed pre-checks of a source, whichever wallets signed them.
    SignedSourceIp(IpAddr),
}

impl CallerKey {
    /// The counter key for the UTC day of `now`: `free:wallet:<wallet>:<day>`,
    /// `free:ip:<source>:<day>` or `free:signed-ip:<source>:<day>`, a source written as its
    /// IPv4 address or as `<ipv6 /64 network>/64`.
    pub fn key_on(&self, now: UtcMillis) -> Result<String, StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        let source = |ip: &IpAddr| match source_network(*ip) {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("{v6}/64"),
        };
        Ok(match self {
            Self::Wallet(w) => format!("free:wallet:{}:{}", w.as_str(), day.as_str()),
            Self::SourceIp(ip) => format!("free:ip:{}:{}", source(ip), day.as_str()),
            Self::SignedSourceIp(ip) => format!("free:signed-ip:{}:{}", source(ip), day.as_str()),
        })
    }

    /// The allowance of this counter: pre-checks per UTC day and the least interval in ms.
    pub fn allowance(&self) -> (u32, i64) {
        match self {
            Self::Wallet(_) => (FREE_PER_DAY, FREE_MIN_INTERVAL_MS),
            Self::SourceIp(_) => (FREE_PER_SOURCE_PER_DAY, FREE_SOURCE_MIN_INTERVAL_MS),
            Self::SignedSourceIp(_) => (FREE_SIGNED_PER_SOURCE_PER_DAY, 0),
        }
    }
}

/// The free-tier rule on today's counter (`used`, `last_ms`), if the caller has one, under an
/// allowance (per day, least interval in ms). An allowance without an interval is never too
/// soon, even for a `now` read before a concurrent use was committed.
pub fn free_tier_decision(
    counter: Option<(u32, i64)>,
    now: UtcMillis,
    (per_day, interval_ms): (u32, i64),
) -> FreeTierDecision {
    match counter {
        None => FreeTierDecision::Allowed { used: 1 },
        Some((used, _)) if used >= per_day => FreeTierDecision::DailyCapReached,
        Some((_, last_ms)) if interval_ms > 0 && last_ms > now.0.saturating_sub(interval_ms) => {
            FreeTierDecision::TooSoon
        }
        Some((used, _)) => FreeTierDecision::Allowed { used: used + 1 },
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

/// Everything one free pre-check spends, in order: an unsigned one its source's allowance; a
/// signed one its wallet's, then its source's signed pre-checks. Both must allow; a refusal
/// by either spends neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeCaller {
    /// The counter spent first (it has an interval, so its latest use is this one's).
    pub first: CallerKey,
    /// The counter spent second, if any.
    pub then: Option<CallerKey>,
}

impl FreeCaller {
    /// An unsigned pre-check from `source`.
    pub fn unsigned(source: IpAddr) -> Self {
        Self { first: CallerKey::SourceIp(source), then: None }
    }

    /// A pre-check `wallet` signed, from `source`.
    pub fn signed(wallet: Base58Id, source: IpAddr) -> Self {
        Self { first: CallerKey::Wallet(wallet), then: Some(CallerKey::SignedSourceIp(source)) }
    }
}

/// The outcome of asking for a free pre-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreeTierDecision {
    /// Allowed; this is the caller's `used`-th pre-check today (for a [`FreeCaller`]: its
    /// first counter's).
    Allowed {
        /// Pre-checks used today, this one included.
        used: u32,
    },
    /// The last pre-check was less than the allowance's interval (5,000 ms) ago.
    TooSoon,
    /// All of today's pre-checks of the allowance are used.
    DailyCapReached,
}
