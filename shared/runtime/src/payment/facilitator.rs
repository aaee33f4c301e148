//! The x402 facilitator client: `GET /supported` for the fee payer, `POST /verify` and
//! `POST /settle` (coinbase/x402 `specs/x402-specification-v2.md` section 7; v1 facilitators
//! take the same `{x402Version, paymentPayload, paymentRequirements}` body).
//!
//! Bounded: no proxy, no redirects, 1 s to connect, 4 s for `/supported` and `/verify`, 8 s
//! for `/settle` (headers and body), answers of at most 256 KiB. Errors are closed-form: the
//! facilitator's own text (`invalidReason`, `errorReason`, bodies) is never kept or printed.
//!
//! The answers are typed (`SupportedAnswer`, `VerifyAnswer`, `SettleAnswer`, private to this
//! file): the members the client reads, by the specification's names (`SupportedResponse`,
//! `VerifyResponse`, `SettleResponse`); any other member is ignored. Typed, not strict: the
//! body is parsed as one JSON value first (a repeated member: the last one counts; a number
//! beyond `f64`: not JSON), a body that is not a JSON object reads as an answer without
//! members, a member of another type than the one read, or null, reads as absent (`Loose`),
//! never as an error of the whole answer, and a struct is read only from a JSON object
//! (`Object`). What the members decide (verified, settled, refused, forged or unreadable) the
//! readers below decide. The network a settlement or a `/supported` kind names decides, so
//! it is compared as a [`Network`].

use std::collections::BTreeMap;
use std::time::Duration;

use payability_core::payment::solana::Base58Id;
use payability_core::payment::x402::{Network, Requirements, SettlementResponse, X402Version};
use reqwest::{Client, StatusCode, redirect};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};
use serde_json::{Value, json};

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
    /// `signers[<mainnet's CAIP-2 identifier>]` or `signers["solana:*"]` (first entry), else
    /// the first `kinds[]` entry for scheme `exact` on mainnet (CAIP-2 or v1 name) with
    /// `extra.feePayer`. It must be a base58 public key.
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
/// [`MAX_ANSWER_BYTES`] is `Malformed`; then the body typed as `T`, a body that is not a JSON
/// object read as `T` without members.
fn read_answer<T: DeserializeOwned + Default>(
    status: u16,
    body: &[u8],
) -> Result<(StatusCode, T), FacilitatorError> {
    let status = StatusCode::from_u16(status).map_err(|_| FacilitatorError::Malformed)?;
    status_usable(status)?;
    if body.len() > MAX_ANSWER_BYTES {
        return Err(FacilitatorError::Malformed);
    }
    let answer = serde_json::from_slice::<Object<T>>(body).ok().and_then(|object| object.0);
    Ok((status, answer.unwrap_or_default()))
}

/// Decodes a `GET /supported` answer (status and body bytes) into the Solana mainnet fee
/// payer: `signers[<mainnet's CAIP-2 identifier>]` or `signers["solana:*"]` (first entry),
/// else the first `kinds[]` entry for scheme `exact` on mainnet (CAIP-2 or v1 name) with
/// `extra.feePayer`; it must be a base58 public key. Pure: what [`Facilitator::fee_payer`]
/// does with the bytes it read.
pub fn read_supported_answer(status: u16, body: &[u8]) -> Result<Base58Id, FacilitatorError> {
    let (status, answer) = read_answer::<SupportedAnswer>(status, body)?;
    if !status.is_success() {
        return Err(FacilitatorError::Malformed);
    }
    let candidate = answer.signer().or_else(|| answer.kinds_fee_payer());
    candidate.and_then(Base58Id::pubkey).ok_or(FacilitatorError::Malformed)
}

/// Decodes a `POST /verify` answer (status and body bytes): `isValid: false` is `Refused`;
/// `isValid: true` with a 2xx status is verified (the payer kept only when it is a base58
/// public key); anything else is `Refused` for a 4xx and `Malformed` otherwise. Pure: what
/// [`Facilitator::verify`] does with the bytes it read.
pub fn read_verify_answer(status: u16, body: &[u8]) -> Result<Verified, FacilitatorError> {
    let (status, answer) = read_answer::<VerifyAnswer>(status, body)?;
    match answer.is_valid.0 {
        Some(false) => Err(FacilitatorError::Refused(listed(answer.invalid_reason))),
        Some(true) if status.is_success() => {
            Ok(Verified { payer: answer.payer.0.as_deref().and_then(Base58Id::pubkey) })
        }
        _ => Err(unreadable(status)),
    }
}

/// Decodes a `POST /settle` answer (status and body bytes) of a payment of `version`:
/// `success: false` is `Refused`; a success without a base58 64-byte signature, on another
/// network than Solana mainnet as the version names it, or naming a payer that is not a
/// public key is `Forged`; the echo is rebuilt from the checked fields only. Pure: what
/// [`Facilitator::settle`] does with the bytes it read.
pub fn read_settle_answer(
    version: X402Version,
    status: u16,
    body: &[u8],
) -> Result<Settled, FacilitatorError> {
    let (status, answer) = read_answer::<SettleAnswer>(status, body)?;
    match answer.success.0 {
        Some(false) => return Err(FacilitatorError::Refused(listed(answer.error_reason))),
        Some(true) if status.is_success() => {}
        _ => return Err(unreadable(status)),
    }
    let transaction = answer.transaction.0.as_deref().and_then(Base58Id::signature);
    let transaction = transaction.ok_or(FacilitatorError::Forged)?;
    let network = answer.network.0.as_deref().and_then(|name| Network::from_name(version, name));
    if network != Some(Network::SolanaMainnet) {
        return Err(FacilitatorError::Forged);
    }
    let payer = match answer.payer {
        None => None,
        Some(Loose(text)) => {
            Some(text.as_deref().and_then(Base58Id::pubkey).ok_or(FacilitatorError::Forged)?)
        }
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

/// The reason an answer names (`invalidReason`, `errorReason`), when it is a listed code.
fn listed(reason: Loose<String>) -> Option<FacilitatorReason> {
    reason.0.as_deref().and_then(FacilitatorReason::parse)
}

/// A member of an answer as the client reads it: its value when it is a `T`, else (another
/// type, or null) absent, as a missing member is; never an error of the whole answer. Not
/// for structs: [`Object`] reads those.
struct Loose<T>(Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Self(T::deserialize(value).ok()))
    }
}

/// An answer, or a member of one, that is read only when it is a JSON object: its members
/// typed as `T`; anything else (an array too, which serde would read into a struct element
/// by element) is absent.
struct Object<T>(Option<T>);

impl<T> Default for Object<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            object @ Value::Object(_) => Ok(Self(T::deserialize(object).ok())),
            _ => Ok(Self(None)),
        }
    }
}

/// The CAIP-2 pattern under which `/supported` lists the signers of every Solana network.
const ANY_SOLANA_NETWORK: &str = "solana:*";

/// A `GET /supported` answer (x402 `SupportedResponse`): the members read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct SupportedAnswer {
    /// `kinds[]`: a scheme on a network, each with its `extra`.
    kinds: Loose<Vec<Object<SupportedKind>>>,
    /// `signers`: the facilitator's signing addresses, by CAIP-2 network or pattern.
    signers: Loose<BTreeMap<String, Loose<Vec<Loose<String>>>>>,
}

/// An entry of `/supported`'s `kinds[]` (x402 `SupportedKind`): the members read.
#[derive(Default, Deserialize)]
#[serde(default)]
struct SupportedKind {
    /// The payment scheme.
    scheme: Loose<String>,
    /// The network, by either of its names.
    network: Loose<String>,
    /// Scheme-specific terms.
    extra: Object<KindExtra>,
}

/// The `extra` of a `kinds[]` entry: the member read.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct KindExtra {
    /// The account that pays the transaction fees.
    fee_payer: Loose<String>,
}

impl SupportedAnswer {
    /// The first entry of `signers[<mainnet's CAIP-2 identifier>]`, else of
    /// `signers["solana:*"]`: of the first of the two lists that has an entry (a list that is
    /// empty or not a list is passed over; a first entry that is not text names no one).
    fn signer(&self) -> Option<&str> {
        let signers = self.signers.0.as_ref()?;
        [Network::SolanaMainnet.caip2(), ANY_SOLANA_NETWORK]
            .into_iter()
            .find_map(|key| signers.get(key)?.0.as_ref()?.first())
            .and_then(|first| first.0.as_deref())
    }

    /// The `extra.feePayer` text of the first `kinds[]` entry that has one, for scheme `exact`
    /// (or no scheme named) on Solana mainnet (by either name).
    fn kinds_fee_payer(&self) -> Option<&str> {
        let kinds = self.kinds.0.as_ref()?;
        kinds.iter().filter_map(|kind| kind.0.as_ref()).find_map(|kind| {
            let name = kind.network.0.as_deref()?;
            let network = Network::from_caip2(name).or_else(|| Network::from_v1_name(name));
            let scheme_ok = kind.scheme.0.as_deref().is_none_or(|scheme| scheme == "exact");
            if !scheme_ok || network != Some(Network::SolanaMainnet) {
                return None;
            }
            kind.extra.0.as_ref()?.fee_payer.0.as_deref()
        })
    }
}

/// A `POST /verify` answer (x402 `VerifyResponse`): the members read.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct VerifyAnswer {
    /// Whether the payment would settle.
    is_valid: Loose<bool>,
    /// Why not: passed on only when it is a listed code.
    invalid_reason: Loose<String>,
    /// The payer.
    payer: Loose<String>,
}

/// A `POST /settle` answer (x402 `SettleResponse`): the members read.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct SettleAnswer {
    /// Whether the payment settled.
    success: Loose<bool>,
    /// Why not: passed on only when it is a listed code.
    error_reason: Loose<String>,
    /// The settlement transaction's signature.
    transaction: Loose<String>,
    /// The network, as the payment's version names it.
    network: Loose<String>,
    /// The payer: None when absent or null; otherwise it must be text (a base58 public key).
    payer: Option<Loose<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYER: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
    const FEE_PAYER: &str = "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5";

    fn verify(status: u16, body: &str) -> Result<Verified, FacilitatorError> {
        read_verify_answer(status, body.as_bytes())
    }

    fn fee_payer(body: &str) -> Result<String, FacilitatorError> {
        read_supported_answer(200, body.as_bytes()).map(|payer| payer.as_str().to_owned())
    }

    fn settle(body: &str) -> Result<Option<Base58Id>, FacilitatorError> {
        read_settle_answer(X402Version::V2, 200, body.as_bytes()).map(|settled| settled.payer)
    }

    #[test]
    fn a_repeated_member_counts_last_and_an_unreadable_number_is_not_json() {
        assert_eq!(
            verify(200, r#"{"isValid": false, "isValid": true}"#),
            Ok(Verified { payer: None })
        );
        assert_eq!(
            verify(200, r#"{"isValid": true, "isValid": false}"#),
            Err(FacilitatorError::Refused(None))
        );
        assert_eq!(
            verify(200, r#"{"isValid": true, "ignored": 1e400}"#),
            Err(FacilitatorError::Malformed)
        );
    }

    #[test]
    fn a_member_of_another_type_is_absent_not_an_error() {
        let reason = FacilitatorReason::parse("insufficient_funds");
        let cases = [
            (r#"{"isValid": true, "payer": 5}"#, Ok(Verified { payer: None })),
            (r#"{"isValid": false, "invalidReason": 5}"#, Err(FacilitatorError::Refused(None))),
            (
                r#"{"isValid": false, "invalidReason": "insufficient_funds", "payer": []}"#,
                Err(FacilitatorError::Refused(reason)),
            ),
            (r#"{"isValid": "true"}"#, Err(FacilitatorError::Malformed)),
        ];
        for (body, want) in cases {
            assert_eq!(verify(200, body), want, "{body}");
        }
        assert_eq!(
            settle(r#"{"success": false, "errorReason": 7, "payer": 1}"#),
            Err(FacilitatorError::Refused(None))
        );
        let kind = format!(
            r#"{{"kinds": [{{"scheme": 5, "network": "solana", "extra": {{"feePayer": "{FEE_PAYER}"}}}}]}}"#
        );
        assert_eq!(fee_payer(&kind), Ok(FEE_PAYER.to_owned()), "a scheme that is not text");
        let signers = format!(
            r#"{{"signers": {{"{}": [5], "solana:*": ["{PAYER}"]}}, "kinds": [{{"network": "solana", "extra": {{"feePayer": "{FEE_PAYER}"}}}}]}}"#,
            Network::SolanaMainnet.caip2()
        );
        assert_eq!(fee_payer(&signers), Ok(FEE_PAYER.to_owned()), "a first signer not text");
    }

    #[test]
    fn arrays_are_not_read_member_by_member() {
        assert_eq!(verify(200, r#"[true, null, "x"]"#), Err(FacilitatorError::Malformed));
        assert_eq!(verify(400, r#"[false]"#), Err(FacilitatorError::Refused(None)));
        let kind = format!(r#"{{"kinds": [["exact", "solana", {{"feePayer": "{FEE_PAYER}"}}]]}}"#);
        assert_eq!(fee_payer(&kind), Err(FacilitatorError::Malformed));
        let extra = format!(r#"{{"kinds": [{{"network": "solana", "extra": ["{FEE_PAYER}"]}}]}}"#);
        assert_eq!(fee_payer(&extra), Err(FacilitatorError::Malformed));
    }

    #[test]
    fn a_settlement_payer_may_be_absent_or_null_but_nothing_else() {
        let settled = |payer: &str| {
            format!(
                r#"{{"success": true, "transaction": "{}1", "network": "{}"{payer}}}"#,
                "5".repeat(87),
                Network::SolanaMainnet.caip2()
            )
        };
        assert_eq!(settle(&settled("")), Ok(None));
        assert_eq!(settle(&settled(r#", "payer": null"#)), Ok(None));
        assert_eq!(
            settle(&settled(&format!(r#", "payer": "{PAYER}""#))),
            Ok(Base58Id::pubkey(PAYER))
        );
        for other in [r#", "payer": []"#, r#", "payer": 1"#, r#", "payer": "0x12""#] {
            assert_eq!(settle(&settled(other)), Err(FacilitatorError::Forged), "{other}");
        }
    }
}
