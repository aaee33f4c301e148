//! The x402 facilitator client: `GET /supported` for the fee payer, `POST /verify` and
//! `POST /settle` (coinbase/x402 `specs/x402-specification-v2.md` section 7; v1 facilitators
//! take the same `{x402Version, paymentPayload, paymentRequirements}` body).
//!
//! Bounded: no proxy, no redirects, 1 s to connect, 4 s for `/supported` and `/verify`, 8 s
//! for `/settle` (headers and body), answers of at most 256 KiB. Errors are closed-form: the
//! facilitator's own text (`invalidReason`, `errorReason`, bodies) is never kept or printed.

use std::time::Duration;

use payability_core::payment::solana::Base58Id;
use payability_core::payment::x402::{
    NETWORK_V1, NETWORK_V2, Requirements, SettlementResponse, X402Version,
};
use reqwest::{Client, StatusCode, redirect};
use serde_json::{Map, Value, json};

use crate::capped_body::{BodyError, read_capped};

/// Time allowed to open a connection to the facilitator.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Time allowed for a whole `/supported` or `/verify` exchange.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(4);
/// Time allowed for a whole `/settle` exchange (it waits for the chain).
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(8);
/// Largest facilitator answer read, in bytes.
pub const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// Why a facilitator call did not yield a usable answer (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FacilitatorError {
    /// No answer in time: connection refused or reset, timeout, or a 5xx / 408 / 429 status.
    Unavailable,
    /// The facilitator refused the payment: `isValid` / `success` false, or a 4xx to
    /// `/verify` or `/settle` (a 4xx to `/supported` is `Malformed`); with its reason when
    /// that is one of [`FacilitatorReason::CODES`].
    Refused(Option<FacilitatorReason>),
    /// A settlement claimed success without a Solana signature on our network.
    Forged,
    /// The answer could not be read (not JSON, wrong shape, over the size cap, a redirect), or
    /// the facilitator URL is not an absolute http(s) URL.
    Malformed,
}

impl FacilitatorError {
    /// The stable snake_case rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::Unavailable => "facilitator_unavailable",
            Self::Refused(_) => "facilitator_refused",
            Self::Forged => "facilitator_forged",
            Self::Malformed => "facilitator_malformed",
        }
    }

    /// A static, human-readable explanation.
    pub fn message(self) -> &'static str {
        match self {
            Self::Unavailable => {
                "the payment facilitator did not answer in time; nothing was settled, do not pay now"
            }
            Self::Refused(_) => "the payment facilitator refused this payment",
            Self::Forged => {
                "the payment facilitator's settlement answer does not name a Solana mainnet transaction"
            }
            Self::Malformed => "the payment facilitator's answer could not be read",
        }
    }
}

/// Why a facilitator refused a payment, when it names a code of the closed lists: the x402
/// specification's error codes (v2, section 9) and the SVM `exact` scheme's verify and settle
/// codes (coinbase/x402 `mechanisms/svm` `exact/facilitator/errors.ts`). Passed on to the
/// buyer as a rule id; any other text the facilitator sends is dropped, never repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FacilitatorReason(&'static str);

impl FacilitatorReason {
    /// Every code passed on.
    pub const CODES: [&'static str; 33] = [
        "insufficient_funds",
        "invalid_exact_evm_payload_authorization_valid_after",
        "invalid_exact_evm_payload_authorization_valid_before",
        "invalid_exact_evm_payload_authorization_value",
        "invalid_exact_evm_payload_signature",
        "invalid_exact_evm_payload_recipient_mismatch",
        "invalid_network",
        "invalid_payload",
        "invalid_payment_requirements",
        "invalid_scheme",
        "unsupported_scheme",
        "invalid_x402_version",
        "invalid_transaction_state",
        "unexpected_verify_error",
        "unexpected_settle_error",
        "invalid_exact_svm_unsupported_scheme",
        "invalid_exact_svm_network_mismatch",
        "invalid_exact_svm_payload_missing_fee_payer",
        "invalid_exact_svm_fee_payer_not_managed_by_facilitator",
        "invalid_exact_svm_payload_transaction",
        "invalid_exact_svm_payload_transaction_could_not_be_decoded",
        "invalid_exact_svm_payload_signature_invalid",
        "invalid_exact_svm_payload_no_transfer_instruction",
        "invalid_exact_svm_payload_mint_mismatch",
        "invalid_exact_svm_payload_recipient_mismatch",
        "invalid_exact_svm_payload_amount_mismatch",
        "invalid_exact_svm_payload_memo_mismatch",
        "invalid_exact_svm_payload_memo_count",
        "invalid_exact_svm_payload_unknown_instruction",
        "invalid_exact_svm_transaction_simulation_failed",
        "invalid_exact_svm_transaction_failed",
        "duplicate_settlement",
        "settlement_pending",
    ];

    /// The reason of a listed code, or None for any other text.
    pub fn parse(text: &str) -> Option<Self> {
        Self::CODES.into_iter().find(|code| *code == text).map(Self)
    }

    /// Every reason, in list order.
    pub fn all() -> impl Iterator<Item = Self> {
        Self::CODES.into_iter().map(Self)
    }

    /// The code, as the lists spell it.
    pub fn code(self) -> &'static str {
        self.0
    }
}

/// The listed reason an answer names under `field` (`invalidReason`, `errorReason`), if any.
fn reason_in(answer: Option<&Map<String, Value>>, field: &str) -> Option<FacilitatorReason> {
    answer?.get(field)?.as_str().and_then(FacilitatorReason::parse)
}

impl std::fmt::Display for FacilitatorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for FacilitatorError {}

/// A successful `/verify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The payer the facilitator names, when it is a base58 public key.
    pub payer: Option<Base58Id>,
}

/// A successful `/settle` on the payment's network, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// The transaction signature (base58, 64 bytes).
    pub transaction: Base58Id,
    /// The payer the facilitator names (a base58 public key), if any.
    pub payer: Option<Base58Id>,
    /// The settlement response to echo in `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`:
    /// rebuilt from the checked fields only, never the facilitator's bytes.
    pub response: SettlementResponse,
}

/// The per-call time limits (the defaults are the published ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Connection set-up.
    pub connect: Duration,
    /// `/supported` and `/verify`, whole exchange.
    pub request: Duration,
    /// `/settle`, whole exchange.
    pub settle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self { connect: CONNECT_TIMEOUT, request: REQUEST_TIMEOUT, settle: SETTLE_TIMEOUT }
    }
}

/// The facilitator client; build it once and reuse it.
#[derive(Clone)]
pub struct Facilitator {
    client: Client,
    base: String,
    timeouts: Timeouts,
}

impl std::fmt::Debug for Facilitator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Facilitator { .. }")
    }
}

impl Facilitator {
    /// Builds the client for a facilitator base URL (`/supported`, `/verify` and `/settle` are
    /// appended to it) with the published timeouts.
    pub fn new(base_url: &str) -> Result<Self, FacilitatorError> {
        Self::with_timeouts(base_url, Timeouts::default())
    }

    /// Builds the client with other time limits (tests of the bounds themselves).
    pub fn with_timeouts(base_url: &str, timeouts: Timeouts) -> Result<Self, FacilitatorError> {
        let parsed = url::Url::parse(base_url).map_err(|_| FacilitatorError::Malformed)?;
        if !matches!(parsed.scheme(), "http" | "https")
            || parsed.host().is_none()
            || parsed.query().is_some()
            || parsed.fragment().is_some()
        {
            return Err(FacilitatorError::Malformed);
        }
        let client = crate::http_client::builder()
            .no_proxy()
            .redirect(redirect::Policy::none())
            .connect_timeout(timeouts.connect)
            .build()
            .map_err(|_| FacilitatorError::Malformed)?;
        let base = parsed.as_str().trim_end_matches('/').to_owned();
        Ok(Self { client, base, timeouts })
    }

    /// The Solana mainnet fee payer the facilitator signs with, from `GET /supported`:
    /// `signers["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]` or `signers["solana:*"]` (first
    /// entry), else the first `kinds[]` entry for scheme `exact` on mainnet (CAIP-2 or v1
    /// `solana`) with `extra.feePayer`. It must be a base58 public key.
    pub async fn fee_payer(&self) -> Result<Base58Id, FacilitatorError> {
        let request = self.client.get(self.url("/supported"));
        let (status, body) = self.exchange(request, self.timeouts.request).await?;
        read_supported_answer(status.as_u16(), &body)
    }

    /// `POST /verify`; `isValid: false` is `Refused`.
    pub async fn verify(
        &self,
        version: X402Version,
        payment_payload: &Value,
        requirements: &Requirements,
    ) -> Result<Verified, FacilitatorError> {
        let (status, body) = self
            .post("/verify", version, payment_payload, requirements, self.timeouts.request)
            .await?;
        read_verify_answer(status.as_u16(), &body)
    }

    /// `POST /settle`; `success: false` is `Refused`; a success without a base58 64-byte
    /// signature, on another network, or naming a payer that is not a public key is `Forged`.
    pub async fn settle(
        &self,
        version: X402Version,
        payment_payload: &Value,
        requirements: &Requirements,
    ) -> Result<Settled, FacilitatorError> {
        let (status, body) = self
            .post("/settle", version, payment_payload, requirements, self.timeouts.settle)
            .await?;
        read_settle_answer(version, status.as_u16(), &body)
    }

    /// The full URL of an endpoint under the base.
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Posts `{x402Version, paymentPayload, paymentRequirements}`; returns the status and the
    /// answer's bytes. 5xx, 408, 429 and transport failures are `Unavailable`; redirects and
    /// over-cap answers are `Malformed`.
    async fn post(
        &self,
        path: &str,
        version: X402Version,
        payment_payload: &Value,
        requirements: &Requirements,
        timeout: Duration,
    ) -> Result<(StatusCode, Vec<u8>), FacilitatorError> {
        let body = json!({
            "x402Version": version,
            "paymentPayload": payment_payload,
            "paymentRequirements": requirements,
        });
        let request = self.client.post(self.url(path)).json(&body);
        self.exchange(request, timeout).await
    }

    /// Sends a request and reads its capped body, all within `timeout`.
    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        timeout: Duration,
    ) -> Result<(StatusCode, Vec<u8>), FacilitatorError> {
        let request = request.header(reqwest::header::ACCEPT, "application/json").timeout(timeout);
        let call = async {
            let response = request.send().await.map_err(|_| FacilitatorError::Unavailable)?;
            let status = response.status();
            status_usable(status)?;
            match read_capped(response, MAX_ANSWER_BYTES).await {
                Ok(body) => Ok((status, body)),
                Err(BodyError::Broken) => Err(FacilitatorError::Unavailable),
                Err(BodyError::OverCap) => Err(FacilitatorError::Malformed),
            }
        };
        tokio::time::timeout(timeout, call).await.unwrap_or(Err(FacilitatorError::Unavailable))
    }
}

/// Whether an answer's status lets its body be read: 5xx, 408 and 429 are `Unavailable`;
/// anything but 2xx and (other) 4xx, redirects included, is `Malformed`.
fn status_usable(status: StatusCode) -> Result<(), FacilitatorError> {
    if status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
    {
        return Err(FacilitatorError::Unavailable);
    }
    if !(status.is_success() || status.is_client_error()) {
        return Err(FacilitatorError::Malformed);
    }
    Ok(())
}

/// The status and body of an answer as the client reads them: the status rule of
/// [`status_usable`] (a code outside 100 to 999 is `Malformed`), a body over
/// [`MAX_ANSWER_BYTES`] is `Malformed`; then the body as a JSON object, when it is one.
fn read_answer(
    status: u16,
    body: &[u8],
) -> Result<(StatusCode, Option<Map<String, Value>>), FacilitatorError> {
    let status = StatusCode::from_u16(status).map_err(|_| FacilitatorError::Malformed)?;
    status_usable(status)?;
    if body.len() > MAX_ANSWER_BYTES {
        return Err(FacilitatorError::Malformed);
    }
    Ok((status, json_object(body)))
}

/// Decodes a `GET /supported` answer (status and body bytes) into the Solana mainnet fee
/// payer: `signers["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]` or `signers["solana:*"]`
/// (first entry), else the first `kinds[]` entry for scheme `exact` on mainnet (CAIP-2 or v1
/// `solana`) with `extra.feePayer`; it must be a base58 public key. Pure: what
/// [`Facilitator::fee_payer`] does with the bytes it read.
pub fn read_supported_answer(status: u16, body: &[u8]) -> Result<Base58Id, FacilitatorError> {
    let (status, answer) = read_answer(status, body)?;
    if !status.is_success() {
        return Err(FacilitatorError::Malformed);
    }
    let answer = answer.ok_or(FacilitatorError::Malformed)?;
    let candidate = signer_fee_payer(&answer).or_else(|| kinds_fee_payer(&answer));
    candidate.and_then(Base58Id::pubkey).ok_or(FacilitatorError::Malformed)
}

/// Decodes a `POST /verify` answer (status and body bytes): `isValid: false` is `Refused`;
/// `isValid: true` with a 2xx status is verified (the payer kept only when it is a base58
/// public key); anything else is `Refused` for a 4xx and `Malformed` otherwise. Pure: what
/// [`Facilitator::verify`] does with the bytes it read.
pub fn read_verify_answer(status: u16, body: &[u8]) -> Result<Verified, FacilitatorError> {
    let (status, answer) = read_answer(status, body)?;
    match answer.as_ref().and_then(|a| a.get("isValid")).and_then(Value::as_bool) {
        Some(false) => Err(FacilitatorError::Refused(reason_in(answer.as_ref(), "invalidReason"))),
        Some(true) if status.is_success() => {
            let payer = answer.as_ref().and_then(|a| a.get("payer")).and_then(Value::as_str);
            Ok(Verified { payer: payer.and_then(Base58Id::pubkey) })
        }
        _ => Err(unreadable(status)),
    }
}

/// Decodes a `POST /settle` answer (status and body bytes) of a payment of `version`:
/// `success: false` is `Refused`; a success without a base58 64-byte signature, on another
/// network than the version's, or naming a payer that is not a public key is `Forged`; the
/// echo is rebuilt from the checked fields only. Pure: what [`Facilitator::settle`] does with
/// the bytes it read.
pub fn read_settle_answer(
    version: X402Version,
    status: u16,
    body: &[u8],
) -> Result<Settled, FacilitatorError> {
    let (status, answer) = read_answer(status, body)?;
    let Some(answer) = answer else {
        return Err(unreadable(status));
    };
    match answer.get("success").and_then(Value::as_bool) {
        Some(false) => {
            return Err(FacilitatorError::Refused(reason_in(Some(&answer), "errorReason")));
        }
        Some(true) if status.is_success() => {}
        _ => return Err(unreadable(status)),
    }
    let transaction = answer.get("transaction").and_then(Value::as_str);
    let transaction = transaction.and_then(Base58Id::signature).ok_or(FacilitatorError::Forged)?;
    if answer.get("network").and_then(Value::as_str) != Some(version.network()) {
        return Err(FacilitatorError::Forged);
    }
    let payer = match answer.get("payer") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) => Some(Base58Id::pubkey(p).ok_or(FacilitatorError::Forged)?),
        Some(_) => return Err(FacilitatorError::Forged),
    };
    let response = SettlementResponse::settled(version, &transaction, payer.clone());
    Ok(Settled { transaction, payer, response })
}

/// An answer without the expected field: a 4xx is the facilitator refusing, anything else is
/// unreadable.
fn unreadable(status: StatusCode) -> FacilitatorError {
    if status.is_client_error() {
        FacilitatorError::Refused(None)
    } else {
        FacilitatorError::Malformed
    }
}

/// Parses a JSON object, or None.
fn json_object(bytes: &[u8]) -> Option<Map<String, Value>> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// `signers[mainnet]` or `signers["solana:*"]`, first entry.
fn signer_fee_payer(answer: &Map<String, Value>) -> Option<&str> {
    let signers = answer.get("signers")?.as_object()?;
    [NETWORK_V2, "solana:*"]
        .iter()
        .find_map(|key| signers.get(*key).and_then(Value::as_array).and_then(|a| a.first()))
        .and_then(Value::as_str)
}

/// The first `kinds[]` entry for `exact` on Solana mainnet with an `extra.feePayer`.
fn kinds_fee_payer(answer: &Map<String, Value>) -> Option<&str> {
    answer.get("kinds")?.as_array()?.iter().find_map(|kind| {
        let network = kind.get("network").and_then(Value::as_str)?;
        let scheme_ok = kind.get("scheme").and_then(Value::as_str).is_none_or(|s| s == "exact");
        if !scheme_ok || !(network == NETWORK_V2 || network == NETWORK_V1) {
            return None;
        }
        kind.get("extra")?.get("feePayer")?.as_str()
    })
}
