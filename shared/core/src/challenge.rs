//! Our own 402 challenge: the v1 JSON body and the v2 `PAYMENT-REQUIRED` header that an
//! unpaid `/check` or `/memo` answers. It must grade POPULATED under `check` and, with a fresh
//! memo per challenge, BOUND under `memo`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// USDC mint on Solana mainnet.
pub const USDC_MINT: &str = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/// Solana mainnet as x402 v1 names it.
pub const NETWORK_V1: &str = "solana";
/// Solana mainnet as x402 v2 names it (CAIP-2).
pub const NETWORK_V2: &str = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
/// The price of one verdict in USDC base units ($0.01).
pub const PRICE_USDC_UNITS: &str = "10000";
/// How long a payer has to complete the payment, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 60;

/// What varies between our challenges.
#[derive(Debug, Clone, Copy)]
pub struct ChallengeTerms<'a> {
    /// The route's public URL (`resource`).
    pub resource_url: &'a str,
    /// What the payment buys, in one sentence.
    pub description: &'a str,
    /// The operator wallet that is paid.
    pub pay_to: &'a str,
    /// The facilitator's fee payer.
    pub fee_payer: &'a str,
    /// The associated token account of (pay_to, USDC mint).
    pub token_account: &'a str,
    /// A fresh memo for this challenge (empty: no `extra.memo`, for v1 settlement only).
    pub memo: &'a str,
}

/// A challenge ready to serve: the JSON body and the base64 header value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnChallenge {
    /// The v1 JSON body.
    pub body: Vec<u8>,
    /// The v2 `PAYMENT-REQUIRED` header value (standard base64 of JSON).
    pub payment_required: String,
}

/// The `extra` object both versions carry: fee payer, token account and, unless the terms'
/// memo is empty, the memo.
fn extra(terms: &ChallengeTerms<'_>) -> Value {
    let mut extra = json!({
        "feePayer": terms.fee_payer,
        "usdc_token_account": terms.token_account,
    });
    if !terms.memo.is_empty() {
        extra["memo"] = json!(terms.memo);
    }
    extra
}

/// The v1 payment requirements: `accepts[0]` of the challenge body, and what a v1 payment is
/// verified and settled against. An empty `terms.memo` leaves `extra.memo` out (v1 clients
/// put no memo in the transaction, so v1 payments are forwarded with memo-less requirements).
pub fn requirements_v1(terms: &ChallengeTerms<'_>) -> Value {
    json!({
        "scheme": "exact",
        "network": NETWORK_V1,
        "maxAmountRequired": PRICE_USDC_UNITS,
        "amount": PRICE_USDC_UNITS,
        "resource": terms.resource_url,
        "description": terms.description,
        "mimeType": "application/json",
        "payTo": terms.pay_to,
        "maxTimeoutSeconds": MAX_TIMEOUT_SECONDS,
        "asset": USDC_MINT,
        "extra": extra(terms),
    })
}

/// The v2 payment requirements: `accepts[0]` of the `PAYMENT-REQUIRED` header, what a v2
/// payment's `accepted` must echo, and what it is verified and settled against. An empty
/// `terms.memo` leaves `extra.memo` out.
pub fn requirements_v2(terms: &ChallengeTerms<'_>) -> Value {
    json!({
        "scheme": "exact",
        "network": NETWORK_V2,
        "amount": PRICE_USDC_UNITS,
        "asset": USDC_MINT,
        "payTo": terms.pay_to,
        "maxTimeoutSeconds": MAX_TIMEOUT_SECONDS,
        "extra": extra(terms),
    })
}

/// What a challenge says besides its terms: why it is served, and how to call the route.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChallengeNotes<'a> {
    /// The `error` text of both legs (`"<rule>: <message>"`); empty: `"payment_required"`.
    pub error: &'a str,
    /// The v2 discovery extensions (`extensions`, e.g. `{"bazaar": …}`), if any.
    pub extensions: Option<&'a Value>,
    /// The v1 `accepts[0].outputSchema` (how to call the route, what it answers), if any.
    pub output_schema: Option<&'a Value>,
}

/// Builds our challenge for the given terms (v1 body and v2 header, one requirement each).
pub fn own_challenge(terms: &ChallengeTerms<'_>) -> OwnChallenge {
    own_challenge_with(terms, &ChallengeNotes::default())
}

/// Builds our challenge with its notes placed in both legs.
pub fn own_challenge_with(terms: &ChallengeTerms<'_>, notes: &ChallengeNotes<'_>) -> OwnChallenge {
    let error = if notes.error.is_empty() { "payment_required" } else { notes.error };
    let mut offer_v1 = requirements_v1(terms);
    if let Some(schema) = notes.output_schema {
        offer_v1["outputSchema"] = schema.clone();
    }
    let body = json!({
        "x402Version": 1,
        "error": error,
        "accepts": [offer_v1],
    });
    let mut header = json!({
        "x402Version": 2,
        "error": error,
        "resource": {
            "url": terms.resource_url,
            "description": terms.description,
            "mimeType": "application/json",
        },
        "accepts": [requirements_v2(terms)],
    });
    if let Some(extensions) = notes.extensions {
        header["extensions"] = extensions.clone();
    }
    OwnChallenge {
        body: body.to_string().into_bytes(),
        payment_required: STANDARD.encode(header.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
    use crate::grade::{CheckState, MemoState, grade_check, grade_memo};

    fn terms(memo: &str) -> ChallengeTerms<'_> {
        ChallengeTerms {
            resource_url: "https://api.example/check",
            description: "One signed payability verdict",
            pay_to: "Operator1111111111111111111111111111111111",
            fee_payer: "FeePayer111111111111111111111111111111111",
            token_account: "TokenAccount111111111111111111111111111111",
            memo,
        }
    }

    fn served(memo: &str) -> FetchOutcome {
        let challenge = own_challenge(&terms(memo));
        FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: Some(CapturedHeader::of(challenge.payment_required.as_bytes())),
            body: CapturedBody::Complete(challenge.body),
        })
    }

    #[test]
    fn own_challenge_grades_populated_and_bound() {
        let first = served("pvm_0123456789abcdef");
        let second = served("pvm_fedcba9876543210");
        assert_eq!(grade_check("https://api.example/check", &first).state, CheckState::Populated);
        assert_eq!(grade_memo(&first, &second).state, MemoState::Bound);
    }

    #[test]
    fn requirements_are_exactly_the_served_accepts() {
        let terms = terms("pvm_0123456789abcdef");
        let challenge = own_challenge(&terms);
        let body: Value = serde_json::from_slice(&challenge.body).unwrap();
        let header: Value =
            serde_json::from_slice(&STANDARD.decode(&challenge.payment_required).unwrap()).unwrap();
        assert_eq!(body["accepts"], json!([requirements_v1(&terms)]));
        assert_eq!(header["accepts"], json!([requirements_v2(&terms)]));
        assert_eq!(requirements_v2(&terms)["extra"]["memo"], "pvm_0123456789abcdef");
        assert_eq!(requirements_v1(&terms)["extra"]["memo"], "pvm_0123456789abcdef");
        assert_eq!(requirements_v2(&terms)["network"], NETWORK_V2);
        assert_eq!(requirements_v1(&terms)["network"], NETWORK_V1);
    }

    #[test]
    fn requirements_of_memo_less_terms_carry_no_memo_key() {
        for requirements in [requirements_v1(&terms("")), requirements_v2(&terms(""))] {
            let extra = requirements["extra"].as_object().unwrap();
            assert!(!extra.contains_key("memo"));
            assert_eq!(extra.len(), 2);
        }
    }
}
