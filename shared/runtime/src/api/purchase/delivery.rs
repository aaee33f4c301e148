//! After the money: grade the target (fetched alongside the settlement, or now), write the
//! ledger entry and its count in one atomic write (unique per settled transaction, so a
//! verdict is counted exactly when its entry is new), mark the claim delivered and answer.
//! The Solana fee and the CAD rate are looked up alongside the fetch (or the grading of an
//! early capture) and wait at most [`SIDE_LOOKUP_GRACE`] beyond it; otherwise the entry
//! records them as pending.

use payability_core::op::PaidOp;
use payability_core::payment::receipt::{ReceiptClaims, signed_receipt};
use payability_core::payment::x402::{SettlementResponse, X402Version};
use payability_core::policy::TargetUrl;
use payability_core::price::PRICE_USDC_UNITS;

use super::offer::Offer;
use super::outcome::PurchaseOutcome;
use crate::api::service::{Service, Stores};
use crate::budget::{Budget, FEE_LOOKUP_BOUND, SIDE_LOOKUP_GRACE, alongside};
use crate::payment::solana_rpc::transaction_fee;
use crate::rules::ApiError;
use crate::store::*;
use crate::verdict::{Fetched, Verdict, fetch_and_grade, graded};

/// Attempts at a paid verdict's ledger write.
const LEDGER_WRITE_ATTEMPTS: usize = 3;

/// A settled payment whose verdict is owed.
pub(in crate::api) struct Delivery {
    /// The claim of the payment that settled (the one presented, or the first one sent with
    /// its identifier).
    claim: PaymentId,
    /// The settlement transaction.
    tx: Base58Id,
    /// The payer's wallet, when known.
    payer: Option<Base58Id>,
    /// The settlement answer echoed in `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`.
    settlement: SettlementResponse,
    /// True when this request settled it (a ledger entry for the transaction must be new);
    /// false when an earlier request did (a resume, or a settlement found on chain).
    fresh: bool,
    /// True when the claim is already `delivered` (its answer maybe lost): delivered again,
    /// the marker stays.
    delivered: bool,
}

impl Delivery {
    /// A settlement this request made.
    pub(super) fn fresh(
        claim: PaymentId,
        tx: Base58Id,
        payer: Option<Base58Id>,
        settlement: SettlementResponse,
    ) -> Self {
        Self { claim, tx, payer, settlement, fresh: true, delivered: false }
    }

    /// A settlement an earlier request made (its answer was not kept: rebuilt from the
    /// transaction and our network), with the payer its claim recorded; `delivered` when its
    /// verdict was answered before.
    pub(super) fn resumed(
        claim: PaymentId,
        tx: Base58Id,
        payer: Option<Base58Id>,
        version: X402Version,
        delivered: bool,
    ) -> Self {
        let settlement = SettlementResponse::settled(version, &tx, None);
        Self { claim, tx, payer, settlement, fresh: false, delivered }
    }
}

impl<S: Stores> Service<S> {
    /// Grades `early` (fetched alongside the settlement) or fetches and grades now (the fee
    /// and rate lookups alongside), records and delivers the verdict.
    pub(super) async fn deliver(
        &self,
        offer: &Offer<'_>,
        target: &TargetUrl,
        delivery: Delivery,
        early: Option<Fetched>,
        budget: &Budget,
    ) -> PurchaseOutcome {
        let today = UtcDay::of((self.clock)());
        let side = async {
            let fee = self.fee_of(&delivery.tx);
            let rate = async {
                match &today {
                    Some(day) => self.rates.rate(day, &self.store).await,
                    None => None,
                }
            };
            tokio::join!(fee, rate)
        };
        let verdict = async {
            match early {
                Some(fetched) => graded(target, fetched, (self.clock)(), false),
                None => self.verdict(offer.route, target, false).await,
            }
        };
        let (verdict, side) = alongside(verdict, side, SIDE_LOOKUP_GRACE).await;
        let Some(verdict) = verdict else {
            return PurchaseOutcome::error(ApiError::ClockOutOfRange);
        };
        let (fee_lamports, rate) = side.unwrap_or((None, None));
        let payer =
            Payer::Paid { wallet: delivery.payer.clone(), tx: delivery.tx.clone(), fee_lamports };
        let entry = ledger_entry(&verdict, payer, rate);
        match self.record_paid(&entry, budget).await {
            Some(AppendOutcome::Appended) => {
                // An outside paid entry is new: Day-0 is its instant unless one was recorded
                // before (first write wins). House entries never come here.
                if !matches!(
                    budget.after_settle(self.store.record_day0(entry.at)).await,
                    Some(Ok(_))
                ) {
                    tracing::warn!(rule = "day0_write_failed", "Day-0 was not recorded");
                }
            }
            Some(AppendOutcome::AlreadyRecorded) if delivery.fresh => {
                tracing::error!(rule = "settlement_already_recorded", "no second verdict");
                let _ = self.store.advance(&delivery.claim, &Transition::Deliver).await;
                return PurchaseOutcome::error(ApiError::SettlementAlreadyRecorded);
            }
            Some(AppendOutcome::AlreadyRecorded) => {}
            None => {
                tracing::error!(
                    rule = "ledger_write_failed",
                    "a delivered verdict has no ledger entry"
                );
            }
        }
        if !delivery.delivered
            && !matches!(
                budget
                    .after_settle(self.store.advance(&delivery.claim, &Transition::Deliver))
                    .await,
                Some(Ok(AdvanceOutcome::Advanced))
            )
        {
            tracing::warn!(rule = "delivery_unrecorded", "a delivered claim is not marked");
        }
        let settlement = match (offer.receipt_did, &delivery.payer) {
            (Some(did), Some(payer)) => {
                let claims = ReceiptClaims {
                    resource_url: receipt_resource(offer.resource_url),
                    payer: payer.as_str(),
                    transaction: delivery.tx.as_str(),
                    issued_at_s: verdict.at.0.div_euclid(1_000),
                };
                delivery.settlement.with_receipt(signed_receipt(&self.signer, did, &claims))
            }
            _ => delivery.settlement,
        };
        self.delivered(verdict, Some(settlement))
    }

    /// Writes a paid verdict's ledger entry and its count. Money moved, so a write that failed
    /// or ran out of time is tried again, [`LEDGER_WRITE_ATTEMPTS`] in all; an entry found
    /// written after such a try is this request's own (its answer was lost after it landed).
    /// None: no attempt was known to land.
    async fn record_paid(&self, entry: &LedgerEntry, budget: &Budget) -> Option<AppendOutcome> {
        let mut tried = false;
        for _ in 0..LEDGER_WRITE_ATTEMPTS {
            match budget.after_settle(self.store.record(entry)).await {
                Some(Ok(AppendOutcome::AlreadyRecorded)) if tried => {
                    return Some(AppendOutcome::Appended);
                }
                Some(Ok(outcome)) => return Some(outcome),
                Some(Err(_)) | None => tried = true,
            }
        }
        None
    }

    /// A house check: no payment; the report and the ledger say `house: true`.
    pub(super) async fn deliver_house(
        &self,
        route: PaidOp,
        target: &TargetUrl,
        today: UtcDay,
    ) -> PurchaseOutcome {
        let rate = self.rates.rate(&today, &self.store);
        let (verdict, rate) =
            alongside(self.verdict(route, target, true), rate, SIDE_LOOKUP_GRACE).await;
        let Some(verdict) = verdict else {
            return PurchaseOutcome::error(ApiError::ClockOutOfRange);
        };
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).expect("the system random source works");
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let house_id = HouseId::parse(&hex).expect("32 lowercase hex digits");
        let entry = ledger_entry(&verdict, Payer::House { id: house_id }, rate.flatten());
        match self.store.record(&entry).await {
            Ok(AppendOutcome::Appended) => {}
            Ok(AppendOutcome::AlreadyRecorded) | Err(_) => {
                tracing::error!(
                    rule = "ledger_write_failed",
                    "a house verdict has no ledger entry"
                );
            }
        }
        self.delivered(verdict, None)
    }

    /// The verdict signed, with the settlement it was bought with (none for a house check).
    fn delivered(
        &self,
        verdict: Verdict,
        settlement: Option<SettlementResponse>,
    ) -> PurchaseOutcome {
        let report = Box::new(verdict.report.sign(&self.signer));
        PurchaseOutcome::Delivered { report, settlement }
    }

    /// Fetches the target (once, or twice for memo), grades, and assembles the unsigned
    /// report; None only when the clock is outside the years a report can carry.
    async fn verdict(&self, op: PaidOp, target: &TargetUrl, house: bool) -> Option<Verdict> {
        fetch_and_grade(&self.fetcher, op, target, self.clock, house).await
    }

    /// The Solana fee of a settlement, when an RPC is configured and answers in time.
    async fn fee_of(&self, tx: &Base58Id) -> Option<u64> {
        let rpc_url = self.config.solana_rpc_url.as_ref()?;
        transaction_fee(&self.rpc_client, rpc_url, tx.as_str(), FEE_LOOKUP_BOUND).await
    }

    /// Adds one to a metrics counter; a failure is logged, never fatal.
    pub(in crate::api) async fn count(&self, counter: Counter) {
        if self.store.increment(counter, (self.clock)()).await.is_err() {
            tracing::warn!(
                rule = "metrics_write_failed",
                counter = counter.name(),
                "a count was lost"
            );
        }
    }
}

/// The ledger entry of a verdict.
fn ledger_entry(verdict: &Verdict, payer: Payer, rate: Option<CadRate>) -> LedgerEntry {
    LedgerEntry {
        payer,
        at: verdict.at,
        price_usdc_units: PRICE_USDC_UNITS,
        cad: CadBlock { rate, refund: false },
        criteria_version: CriteriaVersion::current(),
        verdict: verdict.recorded,
    }
}

/// The `resourceUrl` a receipt names: the paid route's URL without its query (or fragment),
/// so every transport's receipt names the route alone (`/check`, `/memo`, `/mcp`, `/a2a`) and a
/// shared receipt never discloses the URL a `GET ?url=` purchase checked (the x402
/// offer-receipt extension's receipt is privacy-minimal: it names the paid resource).
fn receipt_resource(resource_url: &str) -> &str {
    resource_url.split(['?', '#']).next().unwrap_or(resource_url)
}
