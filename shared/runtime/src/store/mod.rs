//! Storage behind one small trait per capability, so each function holds exactly what its
//! IAM policy allows: the append-only ledger, payment claims, free-tier counters, metrics
//! counters, sign-in nonces and the CAD rate cache. Two implementations pass one contract
//! suite: DynamoDB (production) and SQLite (embedded, for local runs).
//!
//! Every stored string is typed and either derived from our own data (states, times, the
//! verdict line) or validated (base58 ids), so no stored item can hold a URL, a challenge
//! value, a fragment or a plain hash of one. The one value derived from a URL is a claim's
//! [`UrlBinding`]: an HMAC under a key only the service holds, on the claim and in the
//! payer's [`PurchaseBinding`] (itself an HMAC) only (24 h TTL), never in the ledger.

pub mod choice;
mod claims;
mod common;
pub mod dynamodb;
mod free_tier;
mod fx;
mod ledger;
pub mod ledger_record;
mod metrics;
mod nonces;
pub mod sqlite;

pub use claims::{
    AdvanceOutcome, CLAIM_TTL_MS, ClaimMarker, ClaimOutcome, EarlyFetchLease, IN_FLIGHT_MS,
    IdentifierBinding, MAX_RESUMES, NewClaim, PaymentClaims, PaymentId, PurchaseBinding,
    ResumeOutcome, Retry, SettledPurchase, StoredAttributes, StoredClaim, Transition, UrlBinding,
};
pub use common::{Base58Id, DAY_MS, PaidOp, StoreError, UtcDay, UtcMillis};
pub use free_tier::{
    CallerKey, FREE_MIN_INTERVAL_MS, FREE_PER_DAY, FREE_PER_SOURCE_PER_DAY,
    FREE_SIGNED_PER_SOURCE_PER_DAY, FREE_SOURCE_MIN_INTERVAL_MS, FREE_TIER_TTL_MS, FreeCaller,
    FreeTier, FreeTierDecision, free_tier_decision,
};
pub use fx::{CadRate, RateCache};
pub use ledger::{
    AppendOutcome, CadBlock, CriteriaVersion, FillOutcome, HouseId, Ledger, LedgerEntry, LedgerKey,
    LedgerVerdict, Payer, RefundOutcome,
};
pub use metrics::{Counter, DAY0_KEY, Day0Outcome, DayCounts, MAX_METRICS_DAYS, Metrics};
pub use nonces::{NonceSpend, ProofNonces, nonce_key};
