//! Storage behind one small trait per capability, so each function holds exactly what its
//! IAM policy allows: the append-only ledger, payment claims, free-tier counters, metrics
//! counters and the CAD rate cache. Two implementations pass one contract suite: DynamoDB
//! (production) and SQLite (embedded, for local runs).

pub mod choice;
pub mod dynamodb;
pub mod ledger_record;
pub mod sqlite;
pub mod types;

use std::future::Future;

pub use types::*;

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

/// Payment claims: each payment is used once; its marker moves only along a [`Transition`].
pub trait PaymentClaims: Send + Sync {
    /// Claims a payment for an op and a called URL, with its payer (conditional put, marker
    /// `verified`): exactly one concurrent claim wins. With an identifier, the claim and the
    /// identifier's mapping to this payment are one atomic write, refused
    /// ([`ClaimOutcome::IdentifierTaken`]) while the identifier names another payment claimed
    /// less than [`CLAIM_TTL_MS`] ago.
    fn claim(
        &self,
        id: &PaymentId,
        claim: &NewClaim,
        now: UtcMillis,
    ) -> impl Future<Output = Result<ClaimOutcome, StoreError>> + Send;

    /// Takes a payer's early-fetch lease for `holder` until `until` (one conditional write):
    /// true when no other payment of the payer holds an unexpired one, so a payer has at most
    /// one fetch running while its settlement is in flight.
    fn lease_early_fetch(
        &self,
        payer: &Base58Id,
        holder: &PaymentId,
        now: UtcMillis,
        until: UtcMillis,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Gives back the payer's early-fetch lease if `holder` holds it (else writes nothing).
    fn release_early_fetch(
        &self,
        payer: &Base58Id,
        holder: &PaymentId,
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

    /// Moves a claim's marker (conditional on [`Transition::from`]), recording the
    /// settlement transaction when the move carries one.
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
        id: &PaymentId,
        op: PaidOp,
        url: &UrlBinding,
        now: UtcMillis,
    ) -> impl Future<Output = Result<ResumeOutcome, StoreError>> + Send;
}

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

/// Atomic per-day counts for `/metrics`: counts only, no content, no wallet.
pub trait Metrics: Send + Sync {
    /// Adds one to a counter of the UTC day of `now`.
    fn increment(
        &self,
        counter: Counter,
        now: UtcMillis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The counts of each UTC day from `first_day` to `last_day` inclusive (days with no
    /// count are omitted). At most the last [`MAX_METRICS_DAYS`] days of the range
    /// are read.
    fn days(
        &self,
        first_day: &UtcDay,
        last_day: &UtcDay,
    ) -> impl Future<Output = Result<Vec<DayCounts>, StoreError>> + Send;

    /// Records Day-0, the instant of the first outside paid ledger entry, with one
    /// conditional write: first write wins, a later one writes nothing. Called only after a
    /// paid (never a house) entry was appended.
    fn record_day0(
        &self,
        at: UtcMillis,
    ) -> impl Future<Output = Result<Day0Outcome, StoreError>> + Send;

    /// Day-0, once recorded (a strongly consistent read).
    fn day0(&self) -> impl Future<Output = Result<Option<UtcMillis>, StoreError>> + Send;
}

/// The per-date cache of published USD/CAD rates.
pub trait RateCache: Send + Sync {
    /// The cached rate for the transaction date, if any.
    fn get(
        &self,
        date: &UtcDay,
    ) -> impl Future<Output = Result<Option<CadRate>, StoreError>> + Send;

    /// Caches the rate that applies to a transaction date (first write wins).
    fn put(
        &self,
        date: &UtcDay,
        rate: &CadRate,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
