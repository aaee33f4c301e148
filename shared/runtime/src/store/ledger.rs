//! The append-only ledger: its entries, keys, CAD block and refunds, and the trait that appends.

use std::future::Future;

use payability_core::grade::{CheckState, MemoState};
use payability_core::report::verdict_line;

use super::common::{Base58Id, PaidOp, StoreError, UtcMillis};
use super::fx::CadRate;
use super::metrics::Counter;

/// Key prefix of the check ledger.
pub(super) const CHECK_LEDGER_PREFIX: &str = "pvc:ledger:";
/// Key prefix of the memo ledger (the specification's `kv_prefix`).
pub(super) const MEMO_LEDGER_PREFIX: &str = "pvm:ledger:";
/// How the CAD fair-market value is established.
pub(super) const CAD_BASIS: &str = "Bank of Canada daily USD/CAD (series FXUSDCAD) of the UTC transaction date, or of the latest publication day before it when that date had none; USDC valued at par with USD";

/// The append-only ledger of paid (and house) verdicts: the closed field list only.
pub trait Ledger: Send + Sync {
    /// Appends an entry and adds one to its metrics counter ([`LedgerEntry::counter`]) of
    /// the entry's UTC day, in one atomic write: both or neither, so a verdict is counted
    /// exactly when its entry is new. Its key is its op's prefix and its payment id; an entry
    /// is never overwritten: an existing key is [`AppendOutcome::AlreadyRecorded`] and
    /// counts nothing.
    fn record(
        &self,
        entry: &LedgerEntry,
    ) -> impl Future<Output = Result<AppendOutcome, StoreError>> + Send;

    /// Entries still waiting for their CAD rate, oldest first, at most `limit`.
    fn cad_pending(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<LedgerEntry>, StoreError>> + Send;

    /// Fills the CAD block of a pending entry (only while it is still pending).
    fn fill_cad(
        &self,
        key: &LedgerKey,
        rate: &CadRate,
    ) -> impl Future<Output = Result<FillOutcome, StoreError>> + Send;

    /// Sets the `refund` flag of a paid entry (only while it is unset; a house entry was
    /// never paid, so it is never refunded). The refund itself is paid out of band.
    fn mark_refunded(
        &self,
        key: &LedgerKey,
    ) -> impl Future<Output = Result<RefundOutcome, StoreError>> + Send;
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
        Some(verdict_line(self.verdict.op(), self.verdict.state(), &self.at.to_rfc3339_millis()?))
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
