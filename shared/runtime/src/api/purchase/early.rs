//! The fetch alongside the settlement: after `/verify` and the claim, the target is fetched
//! (memo: both fetches, back to back) while `/settle` runs. The capture stays in memory and
//! is graded and answered only once the payment settled; a settlement that fails or whose
//! outcome is unknown drops it (and a fetch still running) and answers as ever.
//!
//! Failed settlements must not buy free fetches in bulk: a payer fetches early only while it
//! holds its early-fetch lease (one per payer, in the store, until its settlement ends or
//! [`EARLY_FETCH_LEASE`] passes); a payer with another payment still settling fetches after
//! its own settlement, as a request with no payer named does. The lease is waited for at most
//! [`EARLY_FETCH_LEASE_BOUND`], so the longest path stays the serial one the budget reserves.

use std::sync::atomic::{AtomicBool, Ordering};

use payability_core::op::PaidOp;
use payability_core::policy::TargetUrl;
use payability_core::report::UtcMillis;

use super::delivery::Delivery;
use super::offer::Payment;
use super::stop::Stop;
use crate::api::service::{Service, Stores};
use crate::budget::{Budget, EARLY_FETCH_LEASE, EARLY_FETCH_LEASE_BOUND};
use crate::store::{Base58Id, EarlyFetchLease, UrlBinding};
use crate::verdict::Fetched;

impl<S: Stores> Service<S> {
    /// `/settle` (see [`Service::settle`]) with the fetch alongside when the payer's lease is
    /// free; the capture is returned only with a settled payment.
    pub(super) async fn settle_and_fetch(
        &self,
        route: PaidOp,
        target: &TargetUrl,
        payment: &Payment,
        url: &UrlBinding,
        payer: Option<Base58Id>,
        budget: &Budget,
    ) -> Result<(Delivery, Option<Fetched>), Stop> {
        let Some(wallet) = payer.clone() else {
            return Ok((self.settle(payment, payer, url, budget).await?, None));
        };
        let now = (self.clock)();
        let until = UtcMillis(now.0.saturating_add(EARLY_FETCH_LEASE.as_millis() as i64));
        let lease = EarlyFetchLease { payer: wallet, holder: payment.id, until };
        let leased = AtomicBool::new(false);
        let settle = self.settle(payment, payer, url, budget);
        let early = async {
            if !self.lease(&lease, now).await {
                return None;
            }
            leased.store(true, Ordering::SeqCst);
            Some(Fetched::fetch(&self.fetcher, route, target).await)
        };
        tokio::pin!(settle, early);
        let (settled, fetched) = tokio::select! {
            settled = &mut settle => match settled {
                Ok(delivery) => (Ok(delivery), early.await),
                // Not settled (or not known): a fetch still running is dropped here.
                Err(answer) => (Err(answer), None),
            },
            fetched = &mut early => (settle.await, fetched),
        };
        if leased.load(Ordering::SeqCst) && self.store.release_early_fetch(&lease).await.is_err() {
            tracing::warn!(rule = "early_fetch_lease_kept", "a lease waits for its expiry");
        }
        Ok((settled?, fetched))
    }

    /// Takes the payer's early-fetch lease within [`EARLY_FETCH_LEASE_BOUND`]; false when
    /// another of its payments holds it, or the store does not answer in time.
    async fn lease(&self, lease: &EarlyFetchLease, now: UtcMillis) -> bool {
        let lease = self.store.lease_early_fetch(lease, now);
        matches!(tokio::time::timeout(EARLY_FETCH_LEASE_BOUND, lease).await, Ok(Ok(true)))
    }
}
