//! Every answer the service gives that is not a success: one closed list of rule ids, shared
//! by the HTTP adapter, the MCP tools and the telemetry. Errors ([`ApiError`]: status, rule
//! id, static message) answer `{"error": {"rule", "message"}}`; payment refusals
//! ([`Refusal`]) answer 402 with a fresh challenge whose `error`, in the v2
//! `PAYMENT-REQUIRED` header and in the v1 body alike, is `"<rule>: <message>"`. OpenAPI and
//! the criteria document list both from [`ApiError::all`] and [`Refusal::all`]; the EMF
//! `Rule` dimension takes its values from [`closed`].

use std::sync::{LazyLock, OnceLock};

use http::StatusCode;
use payability_core::payment::siwx::SignInRefusal;
use payability_core::payment::x402::PaymentRefusal;
use payability_core::policy::PolicyRefusal;
use payability_core::price::price_usd;

use crate::payment::facilitator::FacilitatorReason;

/// Every rule id of the closed list ([`ApiError::all`] and [`Refusal::all`]).
pub fn closed() -> &'static [&'static str] {
    static RULES: OnceLock<Vec<&'static str>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut rules: Vec<&'static str> =
            ApiError::all().into_iter().map(ApiError::rule).collect();
        rules.extend(Refusal::all().into_iter().map(Refusal::rule));
        rules
    })
}

/// An error answer: its status, stable rule id and static message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    /// The body is over [`crate::api::MAX_REQUEST_BODY_BYTES`].
    BodyTooLarge,
    /// The body is not JSON.
    BodyNotJson,
    /// The body is JSON of another shape (unknown fields included).
    BodyWrongShape,
    /// A pre-check's `op` is neither `check` nor `memo`.
    OpUnknown,
    /// A pre-check's `caller` is not a base58 wallet.
    CallerNotAWallet,
    /// A signed pre-check's `caller` names another wallet than the one that signed.
    CallerNotTheSigner,
    /// A paid request carries no URL to check (and a payment).
    UrlMissing,
    /// The submitted URL breaks the target-URL policy.
    UrlRefused(PolicyRefusal),
    /// A GET's public URL is too long for its paid retry to fit API Gateway's request quota.
    UrlTooLongForGet,
    /// The payment header is not a well-formed payment.
    PaymentMalformed(PaymentRefusal),
    /// The `SIGN-IN-WITH-X` header is not a well-formed proof.
    SignInMalformed(SignInRefusal),
    /// A payment was sent to the free pre-check.
    PrecheckTakesNoPayment,
    /// No such route.
    NotFound,
    /// A POST to a path this service does not offer.
    NotCovered,
    /// The route does not answer this method.
    MethodNotAllowed,
    /// A `POST /mcp` from a browser whose `Origin` is not this service's own.
    OriginForbidden,
    /// The payment's verdict was delivered as often as it may be, or the payment is for the
    /// other op or another called URL.
    PaymentAlreadyUsed,
    /// A `payment-identifier` id is not 16 to 128 characters of `[A-Za-z0-9_-]`.
    PaymentIdentifierInvalid,
    /// The payment's `payment-identifier` id names another payment.
    PaymentIdentifierConflict,
    /// Another request is carrying this payment now.
    PaymentInFlight,
    /// `/settle` was called and its outcome is not known yet.
    SettlementOutcomeUnknown,
    /// The request ran out of time before `/settle` was called.
    PaymentNotStarted,
    /// `/verify` could not be had; `/settle` was never called.
    FacilitatorUnavailable,
    /// No facilitator or fee payer is configured or reachable.
    PaymentsUnavailable,
    /// The store cannot be reached.
    StoreUnavailable,
    /// The service clock is outside the years a report can carry.
    ClockOutOfRange,
    /// The service does not know its own public URL.
    BaseUrlUnknown,
    /// The facilitator named a settlement that already bought a verdict.
    SettlementAlreadyRecorded,
}

impl ApiError {
    /// Every error, each wrapped refusal included.
    pub fn all() -> Vec<Self> {
        let mut all = vec![
            Self::BodyTooLarge,
            Self::BodyNotJson,
            Self::BodyWrongShape,
            Self::OpUnknown,
            Self::CallerNotAWallet,
            Self::CallerNotTheSigner,
            Self::UrlMissing,
        ];
        all.extend(PolicyRefusal::ALL.map(Self::UrlRefused));
        all.push(Self::UrlTooLongForGet);
        all.extend(
            PaymentRefusal::ALL
                .into_iter()
                .filter(|r| r.is_malformed())
                .map(Self::PaymentMalformed),
        );
        all.extend(
            SignInRefusal::ALL.into_iter().filter(|r| r.is_malformed()).map(Self::SignInMalformed),
        );
        all.extend([
            Self::PrecheckTakesNoPayment,
            Self::NotFound,
            Self::NotCovered,
            Self::MethodNotAllowed,
            Self::OriginForbidden,
            Self::PaymentAlreadyUsed,
            Self::PaymentIdentifierInvalid,
            Self::PaymentIdentifierConflict,
            Self::PaymentInFlight,
            Self::SettlementOutcomeUnknown,
            Self::PaymentNotStarted,
            Self::FacilitatorUnavailable,
            Self::PaymentsUnavailable,
            Self::StoreUnavailable,
            Self::ClockOutOfRange,
            Self::BaseUrlUnknown,
            Self::SettlementAlreadyRecorded,
        ]);
        all
    }

    /// The HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            Self::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UrlTooLongForGet => StatusCode::URI_TOO_LONG,
            Self::BodyNotJson
            | Self::BodyWrongShape
            | Self::OpUnknown
            | Self::CallerNotAWallet
            | Self::CallerNotTheSigner
            | Self::UrlMissing
            | Self::UrlRefused(_)
            | Self::PaymentMalformed(_)
            | Self::SignInMalformed(_)
            | Self::PaymentIdentifierInvalid
            | Self::PrecheckTakesNoPayment => StatusCode::BAD_REQUEST,
            Self::NotFound | Self::NotCovered => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::OriginForbidden => StatusCode::FORBIDDEN,
            Self::PaymentAlreadyUsed | Self::PaymentIdentifierConflict | Self::PaymentInFlight => {
                StatusCode::CONFLICT
            }
            Self::SettlementAlreadyRecorded => StatusCode::BAD_GATEWAY,
            Self::SettlementOutcomeUnknown
            | Self::PaymentNotStarted
            | Self::FacilitatorUnavailable
            | Self::PaymentsUnavailable
            | Self::StoreUnavailable
            | Self::ClockOutOfRange
            | Self::BaseUrlUnknown => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The stable snake_case rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::BodyTooLarge => "body_too_large",
            Self::BodyNotJson => "body_not_json",
            Self::BodyWrongShape => "body_wrong_shape",
            Self::OpUnknown => "op_unknown",
            Self::CallerNotAWallet => "caller_not_a_wallet",
            Self::CallerNotTheSigner => "caller_not_the_signer",
            Self::UrlMissing => "url_missing",
            Self::UrlRefused(refusal) => refusal.rule(),
            Self::UrlTooLongForGet => "url_too_long_for_get",
            Self::PaymentMalformed(refusal) => refusal.rule(),
            Self::SignInMalformed(refusal) => refusal.rule(),
            Self::PrecheckTakesNoPayment => "precheck_takes_no_payment",
            Self::NotFound => "not_found",
            Self::NotCovered => "not_covered",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::OriginForbidden => "origin_forbidden",
            Self::PaymentAlreadyUsed => "payment_already_used",
            Self::PaymentIdentifierInvalid => "payment_identifier_invalid",
            Self::PaymentIdentifierConflict => "payment_identifier_conflict",
            Self::PaymentInFlight => "payment_in_flight",
            Self::SettlementOutcomeUnknown => "settlement_outcome_unknown",
            Self::PaymentNotStarted => "payment_not_started",
            Self::FacilitatorUnavailable => "facilitator_unavailable",
            Self::PaymentsUnavailable => "payments_unavailable",
            Self::StoreUnavailable => "store_unavailable",
            Self::ClockOutOfRange => "clock_out_of_range",
            Self::BaseUrlUnknown => "base_url_unknown",
            Self::SettlementAlreadyRecorded => "settlement_already_recorded",
        }
    }

    /// The static, human-readable message.
    pub fn message(self) -> &'static str {
        match self {
            Self::BodyTooLarge => "request bodies are capped at 262,144 bytes",
            Self::BodyNotJson => "the request body must be one JSON object",
            Self::BodyWrongShape => {
                "the request body does not have this route's shape (see /openapi.json); unknown fields are refused"
            }
            Self::OpUnknown => "op must be \"check\" or \"memo\"",
            Self::CallerNotAWallet => "caller must be a base58 Solana wallet",
            Self::CallerNotTheSigner => {
                "caller names another wallet than the one that signed SIGN-IN-WITH-X; name the signing wallet, or leave caller out"
            }
            Self::UrlMissing => {
                "a paid request names the endpoint to check: a JSON body {\"url\": \"<endpoint>\"} or, with GET, the query ?url=<endpoint>; nothing was charged"
            }
            Self::UrlRefused(refusal) => refusal.message(),
            Self::UrlTooLongForGet => {
                "with GET, this request's URL (path and query) is over 2,000 bytes: its paid retry would not fit an API gateway's request limit; send POST with the JSON body {\"url\": \"<endpoint>\"} instead; nothing was charged"
            }
            Self::PaymentMalformed(refusal) => refusal.message(),
            Self::SignInMalformed(refusal) => refusal.message(),
            Self::PrecheckTakesNoPayment => {
                "the free pre-check takes no payment; pay POST /check or POST /memo for a verdict; nothing was charged"
            }
            Self::NotFound => "no such route",
            Self::NotCovered => "NOT COVERED: this service offers the check and memo ops only",
            Self::MethodNotAllowed => {
                "this route does not answer this method (see the Allow header)"
            }
            Self::OriginForbidden => {
                "this endpoint serves requests without an Origin header or from its own origin only"
            }
            Self::PaymentAlreadyUsed => "this payment was already used; a payment buys one verdict",
            Self::PaymentIdentifierInvalid => {
                "extensions.payment-identifier.info.id must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -; this service did not verify or settle this payment"
            }
            Self::PaymentIdentifierConflict => {
                "this payment identifier was sent with another payment first; a payment identifier names one payment; this service did not verify or settle this payment; retry the first payment with its identifier, or make a new purchase with a new identifier"
            }
            Self::PaymentInFlight => {
                "this payment is being processed by another request; retry this same payment in 30 seconds; do not pay again"
            }
            Self::SettlementOutcomeUnknown => {
                "whether this payment settled is not known yet; retry this same payment (do not pay again) in 30 seconds to receive its verdict if it settled, or a final answer if it did not"
            }
            Self::PaymentNotStarted => {
                "this request ran out of time before settlement; this service did not settle the payment; retry this same payment in 30 seconds"
            }
            Self::FacilitatorUnavailable => {
                "the payment facilitator cannot be reached; this service did not settle the payment; retry later"
            }
            Self::PaymentsUnavailable => {
                "payments are not configured or the facilitator cannot be reached; do not pay"
            }
            Self::StoreUnavailable => {
                "the service's store cannot be reached; do not pay now; a payment already sent: retry it later, do not pay again"
            }
            Self::ClockOutOfRange => "the service clock is out of range; do not pay",
            Self::BaseUrlUnknown => "the service does not know its own public URL; do not pay",
            Self::SettlementAlreadyRecorded => {
                "the facilitator named a settlement that already bought a verdict; no second verdict is released"
            }
        }
    }

    /// Seconds to wait before retrying the same request, for the answers that ask for it.
    pub fn retry_after(self) -> Option<&'static str> {
        match self {
            Self::PaymentInFlight
            | Self::SettlementOutcomeUnknown
            | Self::PaymentNotStarted
            | Self::StoreUnavailable => Some("30"),
            _ => None,
        }
    }
}

/// Why a payment is refused with a fresh challenge (HTTP 402).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No payment was presented.
    PaymentRequired,
    /// The payment is well formed but for other terms.
    Terms(PaymentRefusal),
    /// The facilitator did not verify it (with its reason when it names a listed code).
    NotVerified(Option<FacilitatorReason>),
    /// The chain proves it never settled and never can.
    NotSettled,
    /// The payment is known and may be public on chain: only a request signed by the wallet
    /// that paid gets its verdict (the challenge offers no new payment).
    SignInAsPayer,
    /// A request signed in, with no payment, and the wallet has no settled purchase of this
    /// op and URL to collect.
    NothingToCollect,
    /// A pre-check names a wallet without that wallet's signature (the challenge offers no
    /// payment: sign in).
    SignInAsCaller,
    /// The sign-in proof is well formed but refused.
    SignIn(SignInRefusal),
    /// The free pre-checks of this caller are less than 5,000 ms apart.
    FreeTooSoon,
    /// The free pre-checks of this caller's UTC day are used.
    FreeDailyCapReached,
}

impl Refusal {
    /// Every refusal, each wrapped payment refusal included.
    pub fn all() -> Vec<Self> {
        let mut all = vec![Self::PaymentRequired];
        all.extend(PaymentRefusal::ALL.into_iter().filter(|r| !r.is_malformed()).map(Self::Terms));
        all.push(Self::NotVerified(None));
        all.extend(FacilitatorReason::all().map(|reason| Self::NotVerified(Some(reason))));
        all.extend([
            Self::NotSettled,
            Self::SignInAsPayer,
            Self::NothingToCollect,
            Self::SignInAsCaller,
        ]);
        all.extend(SignInRefusal::ALL.into_iter().filter(|r| !r.is_malformed()).map(Self::SignIn));
        all.extend([Self::FreeTooSoon, Self::FreeDailyCapReached]);
        all
    }

    /// The stable snake_case rule id.
    pub fn rule(self) -> &'static str {
        match self {
            Self::PaymentRequired => "payment_required",
            Self::Terms(refusal) => refusal.rule(),
            Self::NotVerified(None) => "payment_not_verified",
            Self::NotVerified(Some(reason)) => reason.code(),
            Self::NotSettled => "payment_not_settled",
            Self::SignInAsPayer => "sign_in_as_payer",
            Self::NothingToCollect => "sign_in_nothing_to_collect",
            Self::SignInAsCaller => "sign_in_as_caller",
            Self::SignIn(refusal) => refusal.rule(),
            Self::FreeTooSoon => "free_precheck_too_soon",
            Self::FreeDailyCapReached => "free_precheck_daily_cap",
        }
    }

    /// The static, human-readable message.
    pub fn message(self) -> &'static str {
        match self {
            Self::PaymentRequired => {
                static PAY: LazyLock<String> = LazyLock::new(|| {
                    format!(
                        "pay {} in USDC on Solana with this challenge, then repeat the request with the payment",
                        price_usd()
                    )
                });
                &PAY
            }
            Self::Terms(refusal) => refusal.message(),
            Self::NotVerified(_) => {
                "the facilitator did not verify this payment; nothing was charged"
            }
            Self::NotSettled => {
                "this payment did not settle and its transaction can no longer land; nothing was charged; pay again with this challenge"
            }
            Self::SignInAsPayer => {
                "this payment is known here and its verdict goes only to the wallet that paid: repeat this request with a SIGN-IN-WITH-X proof from that wallet (sign-in-with-x, declared in this challenge); this challenge offers no new payment and none is needed"
            }
            Self::NothingToCollect => {
                "the signed-in wallet has no settled purchase of this op and URL in the last 24 hours to receive again (a payment whose settlement outcome was unknown is collected by retrying that same payment); pay with this challenge for a verdict"
            }
            Self::SignInAsCaller => {
                "a pre-check that names a wallet spends that wallet's free allowance: repeat it with a SIGN-IN-WITH-X proof from that wallet (sign-in-with-x, declared in this challenge), or leave caller out to use this source's allowance; nothing was spent"
            }
            Self::SignIn(refusal) => refusal.message(),
            Self::FreeTooSoon => {
                "free pre-checks of one allowance are at least 5,000 ms apart; wait, or pay this challenge at the route it names for a verdict"
            }
            Self::FreeDailyCapReached => {
                "the free pre-checks of this allowance for this UTC day are used (100 per signed-in wallet, 100 unsigned per source, 1,000 signed per source); pay this challenge at the route it names for a verdict"
            }
        }
    }

    /// True when the challenge answering this refusal offers a payment; false for the sign-in
    /// challenges (`accepts` empty: sign in, do not pay).
    pub fn offers_payment(self) -> bool {
        !matches!(self, Self::SignInAsPayer | Self::SignInAsCaller)
    }

    /// The `error` text both legs of the 402 carry: `"<rule>: <message>"`.
    pub fn error_text(self) -> String {
        format!("{}: {}", self.rule(), self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_one_status_and_one_message_and_no_two_rules_collide() {
        let mut seen = std::collections::BTreeSet::new();
        for error in ApiError::all() {
            assert!(seen.insert(error.rule()), "{} twice", error.rule());
            assert!(!error.message().is_empty());
        }
        for refusal in Refusal::all() {
            assert!(seen.insert(refusal.rule()), "{} twice", refusal.rule());
            assert!(refusal.error_text().starts_with(&format!("{}: ", refusal.rule())));
        }
    }
}
