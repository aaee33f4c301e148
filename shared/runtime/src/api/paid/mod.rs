//! The paid routes and their payment gate, in the order that matters: free checks (body,
//! JSON, URL policy, store reachable), our challenge, the payment decoded and matched to our
//! requirements, the facilitator's verify, the claim (each payment used once), only then
//! the fetch and the grade, the settlement (only a settled payment releases the report),
//! the ledger, the metrics, delivery.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::StatusCode;
use payability_core::capture::FetchOutcome;
use payability_core::challenge::{NETWORK_V1, NETWORK_V2, requirements_v1, requirements_v2};
use payability_core::grade::{grade_check, grade_memo};
use payability_core::payment::memo::PaidRoute;
use payability_core::payment::x402::{
    DecodedPayment, PaymentRefusal, V1_PAYMENT_HEADER, V1_RESPONSE_HEADER, V2_PAYMENT_HEADER,
    V2_RESPONSE_HEADER, check_v2_accepted, decode_payment_header,
};
use payability_core::policy::{TargetUrl, vet_target_url};
use payability_core::report::{UnsignedReport, check_report, memo_report};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::respond::{ApiResponse, error, json_response, unavailable};
use super::service::{FEE_LOOKUP_BOUND, Offer, RATE_LOOKUP_BOUND, Service, Stores};
use crate::payment::facilitator::{FacilitatorError, Settled};
use crate::payment::solana_rpc::transaction_fee;
use crate::store::*;

/// The body of a paid request: the one endpoint to check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PaidBody {
    url: String,
}

/// Parses a JSON body into `T`, or the closed-form 400 for it.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    shape: &'static str,
) -> Result<T, ApiResponse> {
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        error(StatusCode::BAD_REQUEST, "body_not_json", "the request body must be one JSON object")
    })?;
    serde_json::from_value(value)
        .map_err(|_| error(StatusCode::BAD_REQUEST, "body_wrong_shape", shape))
}

/// The submitted URL, vetted free; a refusal is a 400 naming its rule.
pub(super) fn vetted(
    url: &str,
    rule: payability_core::policy::AddressRule,
) -> Result<TargetUrl, ApiResponse> {
    vet_target_url(url, rule).map_err(|r| error(StatusCode::BAD_REQUEST, r.rule(), r.message()))
}

/// The op a route sells, as the store names it.
fn paid_op(route: PaidRoute) -> PaidOp {
    match route {
        PaidRoute::Check => PaidOp::Check,
        PaidRoute::Memo => PaidOp::Memo,
    }
}

/// How the payment reached us, for the response header name and the network.
#[derive(Clone, Copy)]
enum Version {
    V1,
    V2,
}

impl Version {
    fn response_header(self) -> &'static str {
        match self {
            Self::V1 => V1_RESPONSE_HEADER,
            Self::V2 => V2_RESPONSE_HEADER,
        }
    }

    fn network(self) -> &'static str {
        match self {
            Self::V1 => NETWORK_V1,
            Self::V2 => NETWORK_V2,
        }
    }

    fn number(self) -> u8 {
        match self {
            Self::V1 => 1,
            Self::V2 => 2,
        }
    }
}

/// A payment that passed verify and its claim: what settlement and delivery need.
struct ClaimedPayment {
    version: Version,
    id: PaymentId,
    payload: Value,
    requirements: Value,
    payer: Option<Base58Id>,
    /// Set when the claim was already settled (a verified-marker resume).
    settled_tx: Option<Base58Id>,
}

impl<S: Stores> Service<S> {
    /// `GET /check`, `GET /memo`: the route's challenge, for crawlers and for self-checks.
    pub(super) async fn unpaid_challenge(
        &self,
        route: PaidRoute,
        request: &super::ApiRequest,
    ) -> ApiResponse {
        let resource_url = match self.resource_url(route, request) {
            Ok(url) => url,
            Err(response) => return response,
        };
        match self.fee_payer().await {
            Some(fee_payer) => {
                let offer = Offer { route, resource_url: &resource_url, fee_payer };
                self.challenge_response(&offer, "payment required")
            }
            None => payments_unavailable(),
        }
    }

    /// A 402 carrying our challenge; `reason` is static text placed in the body's `error`.
    pub(super) fn challenge_response(
        &self,
        offer: &Offer<'_>,
        reason: &'static str,
    ) -> ApiResponse {
        let challenge = self.challenge(offer);
        let mut body: Value =
            serde_json::from_slice(&challenge.body).expect("our challenge is JSON");
        body["error"] = json!(reason);
        json_response(StatusCode::PAYMENT_REQUIRED, &body)
            .with_header("payment-required", &challenge.payment_required)
    }

    /// `POST /check`, `POST /memo`.
    pub(super) async fn paid(&self, route: PaidRoute, request: &super::ApiRequest) -> ApiResponse {
        match self.paid_flow(route, request).await {
            Ok(response) | Err(response) => response,
        }
    }

    async fn paid_flow(
        &self,
        route: PaidRoute,
        request: &super::ApiRequest,
    ) -> Result<ApiResponse, ApiResponse> {
        let body: PaidBody =
            parse_body(&request.body, "the body must be {\"url\": \"<endpoint>\"}")?;
        let target = vetted(&body.url, self.config.address_rule)?;
        let resource_url = self.resource_url(route, request)?;
        self.store_reachable().await?;
        if self.is_house(&request.headers) {
            return Ok(self.deliver_house(route, &target).await);
        }
        let fee_payer = self.fee_payer().await.ok_or_else(payments_unavailable)?;
        let offer = Offer { route, resource_url: &resource_url, fee_payer };
        let v2 = request.headers.get(V2_PAYMENT_HEADER);
        let v1 = request.headers.get(V1_PAYMENT_HEADER);
        let (version, raw) = match (v2, v1) {
            (Some(raw), _) => (Version::V2, raw),
            (None, Some(raw)) => (Version::V1, raw),
            (None, None) => {
                return Ok(self.challenge_response(&offer, "payment required"));
            }
        };
        let decoded = match decode_payment_header(version.number(), raw.as_bytes()) {
            Ok(decoded) => decoded,
            Err(refusal) if refusal.is_malformed() => {
                return Err(error(StatusCode::BAD_REQUEST, refusal.rule(), refusal.message()));
            }
            Err(refusal) => {
                return Ok(self.challenge_response(&offer, refusal.message()));
            }
        };
        let requirements = match self.requirements_for(&offer, version, &decoded) {
            Ok(requirements) => requirements,
            Err(refusal) => {
                return Ok(self.challenge_response(&offer, refusal.message()));
            }
        };
        let payment = self.verify_and_claim(&offer, version, decoded, requirements).await?;
        Ok(self.fetch_settle_deliver(&offer, &target, payment).await)
    }

    /// A cheap read: a store that cannot be reached answers 503 before any payment is
    /// requested or taken.
    async fn store_reachable(&self) -> Result<(), ApiResponse> {
        let today = UtcDay::of((self.clock)()).ok_or_else(store_unavailable)?;
        self.store.get(&today).await.map(drop).map_err(|_| store_unavailable())
    }

    /// The requirements the facilitator checks the payment against: for v2 the `accepted`
    /// the client echoed (equal to ours, its memo one of ours and unexpired); for v1 ours,
    /// without a memo (v1 clients put none in the transaction).
    fn requirements_for(
        &self,
        offer: &Offer<'_>,
        version: Version,
        decoded: &DecodedPayment,
    ) -> Result<Value, PaymentRefusal> {
        // Empty memo: the terms carry none (v1), and v2's memo is checked apart.
        let route = offer.route;
        let terms = self.terms(offer, "");
        match version {
            Version::V2 => {
                let accepted =
                    decoded.accepted.as_ref().ok_or(PaymentRefusal::RequirementsMismatch)?;
                let now = (self.clock)();
                check_v2_accepted(accepted, &requirements_v2(&terms), &self.memo_key, route, now)?;
                Ok(accepted.clone())
            }
            Version::V1 => Ok(requirements_v1(&terms)),
        }
    }

    /// The facilitator's verify, then the claim; a used payment is refused (409) unless it
    /// is a settled, undelivered one being resumed.
    async fn verify_and_claim(
        &self,
        offer: &Offer<'_>,
        version: Version,
        decoded: DecodedPayment,
        requirements: Value,
    ) -> Result<ClaimedPayment, ApiResponse> {
        let route = offer.route;
        let transaction = STANDARD.decode(&decoded.transaction).map_err(|_| {
            error(
                StatusCode::BAD_REQUEST,
                "payment_header_malformed",
                "the payment transaction is not base64",
            )
        })?;
        let id = PaymentId::PayloadSha256(Sha256::digest(&transaction).into());
        let facilitator = self.facilitator.as_ref().ok_or_else(payments_unavailable)?;
        let now = (self.clock)();
        let op = paid_op(route);
        let verified =
            match facilitator.verify(version.number(), &decoded.payload, &requirements).await {
                Ok(verified) => verified,
                Err(FacilitatorError::Refused) => {
                    if self.store.is_claimed(&id).await.map_err(|_| store_unavailable())? {
                        return Err(already_used());
                    }
                    self.count(Counter::PaymentFailure).await;
                    return Err(self
                        .challenge_response(offer, "the facilitator did not verify this payment"));
                }
                Err(_) => return Err(facilitator_unavailable()),
            };
        let settled_tx =
            match self.store.claim(&id, op, now).await.map_err(|_| store_unavailable())? {
                ClaimOutcome::Claimed => None,
                ClaimOutcome::AlreadyClaimed => {
                    match self.store.resume(&id, op, now).await.map_err(|_| store_unavailable())? {
                        ResumeOutcome::Resumed { tx } => Some(tx),
                        ResumeOutcome::Refused => return Err(already_used()),
                    }
                }
            };
        Ok(ClaimedPayment {
            version,
            id,
            payload: decoded.payload,
            requirements,
            payer: verified.payer.as_deref().and_then(Base58Id::parse),
            settled_tx,
        })
    }

    /// Fetches and grades, settles (unless resumed), records and delivers.
    async fn fetch_settle_deliver(
        &self,
        offer: &Offer<'_>,
        target: &TargetUrl,
        payment: ClaimedPayment,
    ) -> ApiResponse {
        let route = offer.route;
        let Some((report, verdict)) = self.verdict(route, target, false).await else {
            return clock_out_of_range();
        };
        let (tx, payer, settlement) = match &payment.settled_tx {
            Some(tx) => {
                (tx.clone(), payment.payer.clone(), resumed_settlement(tx, payment.version))
            }
            None => match self.settle(&payment).await {
                Ok(settled) => settled,
                Err(failure) => {
                    self.count(Counter::PaymentFailure).await;
                    return match failure {
                        FacilitatorError::Refused => self.challenge_response(
                            offer,
                            "settlement failed; no verdict was released",
                        ),
                        _ => facilitator_unavailable(),
                    };
                }
            },
        };
        let payer = Payer::Paid { wallet: payer, tx, fee_lamports: None };
        self.record(self.ledger_entry(&report, verdict, payer).await).await;
        let _ = self.store.mark_delivered(&payment.id).await;
        let header = STANDARD.encode(settlement.to_string());
        let state = report.state;
        json_response(StatusCode::OK, &report.sign(&self.signer))
            .with_header(payment.version.response_header(), &header)
            .with_state(state)
    }

    /// Settles at the facilitator and records the settlement with the claim.
    async fn settle(
        &self,
        payment: &ClaimedPayment,
    ) -> Result<(Base58Id, Option<Base58Id>, Value), FacilitatorError> {
        let facilitator = self.facilitator.as_ref().ok_or(FacilitatorError::Unavailable)?;
        let Settled { transaction, payer, network, raw } = facilitator
            .settle(payment.version.number(), &payment.payload, &payment.requirements)
            .await?;
        if network != payment.version.network() {
            return Err(FacilitatorError::Forged);
        }
        let tx = Base58Id::parse(&transaction).ok_or(FacilitatorError::Forged)?;
        let _ = self.store.mark_settled(&payment.id, &tx).await;
        let payer = payment.payer.clone().or_else(|| payer.as_deref().and_then(Base58Id::parse));
        Ok((tx, payer, raw))
    }

    /// Fetches the target (once, or twice for memo), grades, and assembles the unsigned
    /// report with the verdict the ledger records.
    pub(super) async fn verdict(
        &self,
        route: PaidRoute,
        target: &TargetUrl,
        house: bool,
    ) -> Option<(UnsignedReport, LedgerVerdict)> {
        match route {
            PaidRoute::Check => {
                let outcome: FetchOutcome = self.fetcher.fetch(target).await;
                let verdict = grade_check(target.as_str(), &outcome);
                let recorded = LedgerVerdict::Check {
                    state: verdict.state,
                    description_overlong: verdict.factors.description_overlong,
                };
                Some((check_report(target, verdict, (self.clock)(), house).ok()?, recorded))
            }
            PaidRoute::Memo => {
                let [first, second] = self.fetcher.fetch_twice(target).await;
                let verdict = grade_memo(&first, &second);
                let recorded = LedgerVerdict::Memo { state: verdict.state };
                Some((memo_report(target, verdict, (self.clock)(), house).ok()?, recorded))
            }
        }
    }

    /// A house check: no payment; the report and the ledger say `house: true`.
    async fn deliver_house(&self, route: PaidRoute, target: &TargetUrl) -> ApiResponse {
        let Some((report, verdict)) = self.verdict(route, target, true).await else {
            return clock_out_of_range();
        };
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).expect("the system random source works");
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let house_id = HouseId::parse(&hex).expect("32 lowercase hex digits");
        self.record(self.ledger_entry(&report, verdict, Payer::House { id: house_id }).await).await;
        let state = report.state;
        json_response(StatusCode::OK, &report.sign(&self.signer)).with_state(state)
    }

    /// The ledger entry of a delivered verdict, with the Solana fee and the CAD rate when
    /// they can be had within their bounds (else pending, never guessed).
    async fn ledger_entry(
        &self,
        report: &UnsignedReport,
        verdict: LedgerVerdict,
        mut payer: Payer,
    ) -> Option<LedgerEntry> {
        let at = UtcMillis::parse_rfc3339_millis(&report.checked_at)?;
        if let (Payer::Paid { tx, fee_lamports, .. }, Some(rpc_url)) =
            (&mut payer, &self.config.solana_rpc_url)
        {
            *fee_lamports =
                transaction_fee(&self.rpc_client, rpc_url, tx.as_str(), FEE_LOOKUP_BOUND).await;
        }
        let day = UtcDay::of(at)?;
        let rate = tokio::time::timeout(
            RATE_LOOKUP_BOUND,
            crate::fx::rate_for(&day, &self.store, &self.valet),
        )
        .await
        .ok()
        .and_then(Result::ok)
        .flatten();
        Some(LedgerEntry {
            payer,
            at,
            price_usdc_units: 10_000,
            cad: CadBlock { rate, refund: false },
            criteria_version: CriteriaVersion::current(),
            verdict,
        })
    }

    /// Appends the entry and counts the verdict. A store failure here is logged, never
    /// turned into a lost verdict: the payment was settled, so the report is delivered.
    async fn record(&self, entry: Option<LedgerEntry>) {
        let Some(entry) = entry else {
            tracing::error!(
                rule = "ledger_entry_unbuildable",
                "a delivered verdict has no ledger entry"
            );
            return;
        };
        if self.store.append(&entry).await.is_err() {
            tracing::error!(
                rule = "ledger_write_failed",
                "a delivered verdict has no ledger entry"
            );
        }
        self.count(counter_of(&entry)).await;
    }

    /// Adds one to a metrics counter; a failure is logged, never fatal.
    pub(super) async fn count(&self, counter: Counter) {
        if self.store.increment(counter, (self.clock)()).await.is_err() {
            tracing::warn!(
                rule = "metrics_write_failed",
                counter = counter.name(),
                "a count was lost"
            );
        }
    }
}

/// The metrics counter of a ledger entry.
fn counter_of(entry: &LedgerEntry) -> Counter {
    match (&entry.payer, entry.verdict) {
        (Payer::House { .. }, verdict) => Counter::House(verdict.op()),
        (Payer::Paid { .. }, LedgerVerdict::Check { state, .. }) => Counter::PaidCheck(state),
        (Payer::Paid { .. }, LedgerVerdict::Memo { state }) => Counter::PaidMemo(state),
    }
}

/// The settlement response echoed on a resumed delivery (the original was not kept).
fn resumed_settlement(tx: &Base58Id, version: Version) -> Value {
    json!({"success": true, "transaction": tx.as_str(), "network": version.network()})
}

fn already_used() -> ApiResponse {
    error(
        StatusCode::CONFLICT,
        "payment_already_used",
        "this payment was already used; a payment buys one verdict",
    )
}

fn payments_unavailable() -> ApiResponse {
    unavailable(
        "payments_unavailable",
        "payments are not configured or the facilitator cannot be reached; do not pay",
    )
}

fn facilitator_unavailable() -> ApiResponse {
    unavailable(
        "facilitator_unavailable",
        "the payment facilitator cannot be reached; nothing was settled; do not pay",
    )
}

fn store_unavailable() -> ApiResponse {
    unavailable("store_unavailable", "the service's store cannot be reached; do not pay")
}

fn clock_out_of_range() -> ApiResponse {
    unavailable("clock_out_of_range", "the service clock is out of range; do not pay")
}
