//! Our own 402 challenge: the v1 JSON body and the v2 `PAYMENT-REQUIRED` header that an
//! unpaid `/check` or `/memo` answers. It must grade POPULATED under `check` and, with a fresh
//! memo per challenge, BOUND under `memo`. A sign-in challenge ([`sign_in_challenge`]) offers
//! no payment: it asks a request to repeat itself signed by a wallet.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::payment::x402::network::Network;
use crate::payment::x402::version::X402Version;
use crate::payment::x402::wire::{
    PaymentRequiredV1, PaymentRequiredV2, RequirementsV1, RequirementsV2, ResourceInfo, SvmExtra,
    UsdcUnits,
};
use crate::price::{PRICE_USDC_UNITS, USDC_MINT};

/// How long a payer has to complete the payment, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 60;
/// The media type of every paid answer.
const MIME_TYPE: &str = "application/json";

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

/// A challenge ready to serve: the JSON body, the v2 `PaymentRequired` and its header value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnChallenge {
    /// The v1 JSON body.
    pub body: Vec<u8>,
    /// The v2 `PaymentRequired` JSON (MCP's `structuredContent`).
    pub v2: Vec<u8>,
    /// The v2 `PAYMENT-REQUIRED` header value: standard base64 of [`Self::v2`].
    pub payment_required: String,
}

/// The `extra` object both versions carry: fee payer, token account and, unless the terms'
/// memo is empty, the memo.
fn extra(terms: &ChallengeTerms<'_>) -> SvmExtra {
    SvmExtra {
        fee_payer: terms.fee_payer.to_owned(),
        usdc_token_account: terms.token_account.to_owned(),
        memo: (!terms.memo.is_empty()).then(|| terms.memo.to_owned()),
    }
}

/// The v1 payment requirements: `accepts[0]` of the challenge body, and what a v1 payment is
/// verified and settled against. An empty `terms.memo` leaves `extra.memo` out (v1 clients
/// put no memo in the transaction, so v1 payments are forwarded with memo-less requirements).
pub fn requirements_v1(terms: &ChallengeTerms<'_>) -> RequirementsV1 {
    RequirementsV1 {
        scheme: "exact".to_owned(),
        network: Network::SolanaMainnet,
        max_amount_required: UsdcUnits(PRICE_USDC_UNITS),
        amount: UsdcUnits(PRICE_USDC_UNITS),
        resource: terms.resource_url.to_owned(),
        description: terms.description.to_owned(),
        mime_type: MIME_TYPE.to_owned(),
        pay_to: terms.pay_to.to_owned(),
        max_timeout_seconds: MAX_TIMEOUT_SECONDS,
        asset: USDC_MINT.to_owned(),
        extra: extra(terms),
        output_schema: None,
    }
}

/// The v2 payment requirements: `accepts[0]` of the `PAYMENT-REQUIRED` header, what a v2
/// payment's `accepted` must echo, and what it is verified and settled against. An empty
/// `terms.memo` leaves `extra.memo` out.
pub fn requirements_v2(terms: &ChallengeTerms<'_>) -> RequirementsV2 {
    RequirementsV2 {
        scheme: "exact".to_owned(),
        network: Network::SolanaMainnet,
        amount: UsdcUnits(PRICE_USDC_UNITS),
        asset: USDC_MINT.to_owned(),
        pay_to: terms.pay_to.to_owned(),
        max_timeout_seconds: MAX_TIMEOUT_SECONDS,
        extra: extra(terms),
    }
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
    let offer_v1 =
        RequirementsV1 { output_schema: notes.output_schema.cloned(), ..requirements_v1(terms) };
    let body = PaymentRequiredV1 {
        x402_version: X402Version::V1,
        error: error.to_owned(),
        accepts: vec![offer_v1],
    };
    let header = PaymentRequiredV2 {
        x402_version: X402Version::V2,
        error: error.to_owned(),
        resource: ResourceInfo {
            url: terms.resource_url.to_owned(),
            description: terms.description.to_owned(),
            mime_type: MIME_TYPE.to_owned(),
        },
        accepts: vec![requirements_v2(terms)],
        extensions: notes.extensions.cloned(),
    };
    served(&body, &header)
}

/// A sign-in challenge: a 402 that offers no payment (`accepts` empty in both legs) and whose
/// v2 header declares `extensions` (the `sign-in-with-x` challenge), for a request that must
/// repeat itself signed by a wallet, not pay.
pub fn sign_in_challenge(
    resource_url: &str,
    description: &str,
    error: &str,
    extensions: &Value,
) -> OwnChallenge {
    let body = PaymentRequiredV1 {
        x402_version: X402Version::V1,
        error: error.to_owned(),
        accepts: vec![],
    };
    let header = PaymentRequiredV2 {
        x402_version: X402Version::V2,
        error: error.to_owned(),
        resource: ResourceInfo {
            url: resource_url.to_owned(),
            description: description.to_owned(),
            mime_type: MIME_TYPE.to_owned(),
        },
        accepts: vec![],
        extensions: Some(extensions.clone()),
    };
    served(&body, &header)
}

/// The challenge's bytes: the v1 body, the v2 `PaymentRequired` and its base64 header value.
fn served(body: &PaymentRequiredV1, header: &PaymentRequiredV2) -> OwnChallenge {
    let v2 = serde_json::to_vec(header).expect("a challenge serializes");
    OwnChallenge {
        body: serde_json::to_vec(body).expect("a challenge serializes"),
        payment_required: STANDARD.encode(&v2),
        v2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
    use crate::grade::{CheckState, MemoState, grade_check, grade_memo};
    use serde_json::json;

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
        assert_eq!(requirements_v2(&terms).extra.memo.as_deref(), Some("pvm_0123456789abcdef"));
        assert_eq!(requirements_v1(&terms).extra.memo.as_deref(), Some("pvm_0123456789abcdef"));
        assert_eq!(json!(requirements_v2(&terms))["network"], Network::SolanaMainnet.caip2());
        assert_eq!(json!(requirements_v1(&terms))["network"], Network::SolanaMainnet.v1_name());
        assert_eq!(header["accepts"][0]["amount"], PRICE_USDC_UNITS.to_string());
        assert_eq!(body["accepts"][0]["maxAmountRequired"], PRICE_USDC_UNITS.to_string());
    }

    #[test]
    fn requirements_of_memo_less_terms_carry_no_memo_key() {
        let v1 = json!(requirements_v1(&terms("")));
        let v2 = json!(requirements_v2(&terms("")));
        for requirements in [v1, v2] {
            let extra = requirements["extra"].as_object().unwrap();
            assert!(!extra.contains_key("memo"));
            assert_eq!(extra.len(), 2);
        }
    }
}
