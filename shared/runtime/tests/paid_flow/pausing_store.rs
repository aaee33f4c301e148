//! A store wrapper that delegates every call and can be told to stop for good right before or
//! right after one named operation, signalling when it gets there so the test can kill the
//! request at that exact point; or, given [`StoreFaults`], to fail or delay calls as they
//! choose (the soak).
//!
//! The delegation is mechanical on purpose: each method is `self.around("<method name>",
//! self.inner.<method>(..))`. When a store trait changes shape, mirror the trait here the same
//! way; a [`Point`] names an operation by its trait method name.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use payability_core::payment::siwx::ProofNonce;
use payability_runtime::store::*;
use tokio::sync::Notify;

/// Longest a paused call stays paused when the test never kills it.
const PAUSE_LIMIT: Duration = Duration::from_secs(50);

/// Where to stop: before or after the named store operation (its trait method name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// Right before the call reaches the store.
    Before(&'static str),
    /// Right after the store answered, before the caller sees the answer.
    After(&'static str),
}

impl Point {
    /// Verify answered, the claim not yet written.
    pub const BEFORE_CLAIM: Point = Point::Before("claim");
    /// The claim written (marker `verified`).
    pub const AFTER_CLAIM: Point = Point::After("claim");
    /// Settled (and fetched), the ledger entry not yet written nor counted.
    pub const BEFORE_RECORD: Point = Point::Before("record");
    /// The ledger entry written and counted (one atomic write), nothing after it.
    pub const AFTER_RECORD: Point = Point::After("record");
}

/// What happens to one store call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreFault {
    /// It runs as it would.
    None,
    /// It fails before reaching the store (`Unavailable`).
    FailBefore,
    /// It runs, then its caller sees `Unavailable` (the write landed, its answer is lost).
    FailAfter,
    /// It runs after this long.
    Delay(Duration),
}

/// Chooses what happens to each store call, by its operation (trait method) name.
pub trait StoreFaults: Send + Sync {
    /// This call's fault.
    fn choose(&self, operation: &'static str) -> StoreFault;
}

#[derive(Default)]
struct Pauses {
    /// The armed point, and whether the call stopped there waits for a release (else it
    /// stops for good).
    armed: Mutex<Option<(Point, bool)>>,
    reached: Notify,
    released: Notify,
    faults: Mutex<Option<Arc<dyn StoreFaults>>>,
}

impl std::fmt::Debug for Pauses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pauses").field("armed", &self.armed).finish_non_exhaustive()
    }
}

/// The test's handle on a [`PausingStore`] the service owns.
#[derive(Debug, Clone, Default)]
pub struct PauseControl(Arc<Pauses>);

impl PauseControl {
    /// The next call that passes `point` stops there for good (until its request is dropped).
    pub fn pause(&self, point: Point) {
        *self.0.armed.lock().unwrap() = Some((point, false));
    }

    /// The next call that passes `point` stops there until [`Self::release`].
    pub fn hold(&self, point: Point) {
        *self.0.armed.lock().unwrap() = Some((point, true));
    }

    /// Lets a call held by [`Self::hold`] go on.
    pub fn release(&self) {
        self.0.released.notify_one();
    }

    /// Resolves once a call has stopped at the armed point.
    pub async fn reached(&self) {
        self.0.reached.notified().await;
    }

    /// Disarms a pause that was not reached.
    pub fn disarm(&self) {
        *self.0.armed.lock().unwrap() = None;
    }

    /// From now on `faults` chooses what happens to every call (None: nothing).
    pub fn set_faults(&self, faults: Option<Arc<dyn StoreFaults>>) {
        *self.0.faults.lock().unwrap() = faults;
    }
}

/// A store that delegates to `inner` and can stop at one [`Point`].
pub struct PausingStore<S> {
    inner: S,
    control: PauseControl,
}

impl<S> PausingStore<S> {
    /// Wraps a store; nothing is armed.
    pub fn new(inner: S) -> Self {
        Self { inner, control: PauseControl::default() }
    }

    /// The handle the test keeps.
    pub fn control(&self) -> PauseControl {
        self.control.clone()
    }

    /// Stops here if `point` is armed (disarming it and signalling): for good, or until
    /// released.
    async fn trap(&self, point: Point) {
        let held = {
            let mut armed = self.control.0.armed.lock().unwrap();
            match *armed {
                Some((at, until_released)) if at == point => {
                    *armed = None;
                    Some(until_released)
                }
                _ => None,
            }
        };
        let Some(until_released) = held else {
            return;
        };
        self.control.0.reached.notify_one();
        match until_released {
            true => {
                let released = self.control.0.released.notified();
                let _ = tokio::time::timeout(PAUSE_LIMIT, released).await;
            }
            false => tokio::time::sleep(PAUSE_LIMIT).await,
        }
    }

    /// Runs one delegated call between its two traps, with the fault chosen for it.
    async fn around<T>(
        &self,
        operation: &'static str,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let faults = self.control.0.faults.lock().unwrap().clone();
        let fault = faults.map_or(StoreFault::None, |faults| faults.choose(operation));
        self.trap(Point::Before(operation)).await;
        match fault {
            StoreFault::FailBefore => return Err(StoreError::Unavailable),
            StoreFault::Delay(pause) => tokio::time::sleep(pause.min(PAUSE_LIMIT)).await,
            StoreFault::None | StoreFault::FailAfter => {}
        }
        let answer = call.await;
        self.trap(Point::After(operation)).await;
        match fault {
            StoreFault::FailAfter => Err(StoreError::Unavailable),
            _ => answer,
        }
    }
}

impl<S: Ledger> Ledger for PausingStore<S> {
    async fn record(&self, entry: &LedgerEntry) -> Result<AppendOutcome, StoreError> {
        self.around("record", self.inner.record(entry)).await
    }

    async fn cad_pending(&self, limit: usize) -> Result<Vec<LedgerEntry>, StoreError> {
        self.around("cad_pending", self.inner.cad_pending(limit)).await
    }

    async fn fill_cad(&self, key: &LedgerKey, rate: &CadRate) -> Result<FillOutcome, StoreError> {
        self.around("fill_cad", self.inner.fill_cad(key, rate)).await
    }

    async fn mark_refunded(&self, key: &LedgerKey) -> Result<RefundOutcome, StoreError> {
        self.around("mark_refunded", self.inner.mark_refunded(key)).await
    }
}

impl<S: PaymentClaims> PaymentClaims for PausingStore<S> {
    async fn claim(&self, claim: &NewClaim, now: UtcMillis) -> Result<ClaimOutcome, StoreError> {
        self.around("claim", self.inner.claim(claim, now)).await
    }

    async fn lease_early_fetch(
        &self,
        lease: &EarlyFetchLease,
        now: UtcMillis,
    ) -> Result<bool, StoreError> {
        self.around("lease_early_fetch", self.inner.lease_early_fetch(lease, now)).await
    }

    async fn release_early_fetch(&self, lease: &EarlyFetchLease) -> Result<(), StoreError> {
        self.around("release_early_fetch", self.inner.release_early_fetch(lease)).await
    }

    async fn identified(
        &self,
        identifier: &IdentifierBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        self.around("identified", self.inner.identified(identifier, now)).await
    }

    async fn purchase_of(
        &self,
        purchase: &PurchaseBinding,
        now: UtcMillis,
    ) -> Result<Option<PaymentId>, StoreError> {
        self.around("purchase_of", self.inner.purchase_of(purchase, now)).await
    }

    async fn claim_of(&self, id: &PaymentId) -> Result<Option<StoredClaim>, StoreError> {
        self.around("claim_of", self.inner.claim_of(id)).await
    }

    async fn advance(
        &self,
        id: &PaymentId,
        transition: &Transition,
    ) -> Result<AdvanceOutcome, StoreError> {
        self.around("advance", self.inner.advance(id, transition)).await
    }

    async fn resume(&self, retry: &Retry, now: UtcMillis) -> Result<ResumeOutcome, StoreError> {
        self.around("resume", self.inner.resume(retry, now)).await
    }
}

impl<S: FreeTier> FreeTier for PausingStore<S> {
    async fn try_use(
        &self,
        caller: &CallerKey,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        self.around("try_use", self.inner.try_use(caller, now)).await
    }

    async fn try_use_both(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        self.around("try_use_both", self.inner.try_use_both(caller, now)).await
    }

    async fn would_allow(
        &self,
        caller: &FreeCaller,
        now: UtcMillis,
    ) -> Result<FreeTierDecision, StoreError> {
        self.around("would_allow", self.inner.would_allow(caller, now)).await
    }
}

impl<S: ProofNonces> ProofNonces for PausingStore<S> {
    async fn spend_nonce(
        &self,
        nonce: &ProofNonce,
        until: UtcMillis,
        now: UtcMillis,
    ) -> Result<NonceSpend, StoreError> {
        self.around("spend_nonce", self.inner.spend_nonce(nonce, until, now)).await
    }
}

impl<S: Metrics> Metrics for PausingStore<S> {
    async fn increment(&self, counter: Counter, now: UtcMillis) -> Result<(), StoreError> {
        self.around("increment", self.inner.increment(counter, now)).await
    }

    async fn days(
        &self,
        first_day: &UtcDay,
        last_day: &UtcDay,
    ) -> Result<Vec<DayCounts>, StoreError> {
        self.around("days", self.inner.days(first_day, last_day)).await
    }

    async fn record_day0(&self, at: UtcMillis) -> Result<Day0Outcome, StoreError> {
        self.around("record_day0", self.inner.record_day0(at)).await
    }

    async fn day0(&self) -> Result<Option<UtcMillis>, StoreError> {
        self.around("day0", self.inner.day0()).await
    }
}

impl<S: RateCache> RateCache for PausingStore<S> {
    async fn get(&self, date: &UtcDay) -> Result<Option<CadRate>, StoreError> {
        self.around("get", self.inner.get(date)).await
    }

    async fn put(&self, date: &UtcDay, rate: &CadRate) -> Result<(), StoreError> {
        self.around("put", self.inner.put(date, rate)).await
    }
}
