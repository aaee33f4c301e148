//! The free pre-check allowance: its limits, counters per wallet and source, and decisions.

use std::future::Future;
use std::net::IpAddr;

use super::common::{Base58Id, StoreError, UtcDay, UtcMillis};

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

    /// Uses one pre-check of the source's allowance and, when the request names a wallet,
    /// of the wallet's: both must allow. The source is spent first, so a source that is
    /// refused never touches the wallet it names; when the wallet refuses, the source's use
    /// is given back (a conditional write: only while that use is still its latest), so a
    /// refusal by either spends neither. The refusal reported is the source's, else the
    /// wallet's; `Allowed.used` is the source's count.
    fn try_use_both(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> impl Future<Output = Result<FreeTierDecision, StoreError>> + Send;
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
    /// The counter key for the UTC day of `now`: `free:wallet:<wallet>:<day>`,
    /// `free:ip:<ipv4>:<day>` or `free:ip:<ipv6 /64 network>/64:<day>`.
    pub fn key_on(&self, now: UtcMillis) -> Result<String, StoreError> {
        let day = UtcDay::of(now).ok_or(StoreError::Corrupt)?;
        Ok(match self {
            Self::Wallet(w) => format!("free:wallet:{}:{}", w.as_str(), day.as_str()),
            Self::SourceIp(ip) => match source_network(*ip) {
                IpAddr::V4(v4) => format!("free:ip:{v4}:{}", day.as_str()),
                IpAddr::V6(v6) => format!("free:ip:{v6}/64:{}", day.as_str()),
            },
        })
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
