//! What a paid route offers one request ([`Offer`]) and our challenge for it
//! ([`Service::challenge`]): the terms ([`Service::terms`]), a fresh memo, the route's
//! discovery description, the `payment-identifier` declaration and a fresh sign-in challenge;
//! and a payment matched to those terms ([`Payment`]).

use payability_core::challenge::{
    ChallengeNotes, ChallengeTerms, OwnChallenge, own_challenge_with,
};
use payability_core::op::PaidOp;
use payability_core::payment::memo::{MEMO_LIFETIME_MS, issue_memo};
use payability_core::payment::siwx::SIGN_IN_WITH_X;
use payability_core::payment::x402::{DecodedPayment, Requirements};
use payability_core::report::UtcMillis;

use crate::api::call_style::CallStyle;
use crate::api::discovery;
use crate::api::service::{Service, Stores};
use crate::rules::Refusal;
use crate::store::PaymentId;

/// What a paid route offers one request: the route, its `resource` URL (the request's public
/// URL) and the fee payer.
pub(in crate::api) struct Offer<'a> {
    /// The op offered.
    pub(in crate::api) route: PaidOp,
    /// The request's public URL: `resource` in our challenge.
    pub(in crate::api) resource_url: &'a str,
    /// The facilitator's Solana fee payer.
    pub(in crate::api) fee_payer: &'a str,
    /// How the request names the endpoint (GET `?url=` or POST body): the 402 describes
    /// the route that way.
    pub(in crate::api) call: CallStyle,
    /// The `did:web` DID a delivered verdict's receipt is signed under (none: no receipt).
    pub(in crate::api) receipt_did: Option<&'a str>,
}

/// A decoded payment matched to our terms: everything the facilitator and the store need.
pub(super) struct Payment {
    /// The payment as the transport decoded it.
    pub(super) decoded: DecodedPayment,
    /// The requirements the facilitator checks it against.
    pub(super) requirements: Requirements,
    /// The claim key: the SHA-256 of the transaction message.
    pub(super) id: PaymentId,
    /// The op it pays for.
    pub(super) op: PaidOp,
}

impl<S: Stores> Service<S> {
    /// Our challenge for an offer answering `refusal` (`"<rule>: <message>"` in both legs):
    /// the payment offered with a fresh, tagged, expiring memo, the route's discovery
    /// description (the bazaar extension in the v2 header, `outputSchema` in the v1 body) for
    /// the method of the request being answered, the `payment-identifier` declaration (v2
    /// header only: v1 has no `extensions`) and a fresh sign-in challenge; or, when the
    /// refusal offers no payment, the sign-in challenge alone.
    pub(super) fn challenge(&self, offer: &Offer<'_>, refusal: Refusal) -> OwnChallenge {
        let error = refusal.error_text();
        let sign_in = self.sign_in_declaration(offer.resource_url);
        if !refusal.offers_payment() {
            let description = self.terms(offer, "").description;
            return self.sign_in_only(offer.resource_url, description, &error, sign_in);
        }
        let now = (self.clock)();
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).expect("the system random source works");
        let expires = UtcMillis(now.0 + MEMO_LIFETIME_MS);
        let memo = issue_memo(&self.memo_key, offer.route, expires, nonce);
        let described = discovery::description(offer.route, offer.call);
        let mut extensions = described.extensions.clone();
        extensions[discovery::PAYMENT_IDENTIFIER] = discovery::payment_identifier_declaration();
        if let Some(sign_in) = sign_in {
            extensions[SIGN_IN_WITH_X] = sign_in;
        }
        let notes = ChallengeNotes {
            error: &error,
            extensions: Some(&extensions),
            output_schema: Some(&described.output_schema),
        };
        own_challenge_with(&self.terms(offer, &memo), &notes)
    }

    /// The terms of our challenge for an offer.
    pub(super) fn terms<'a>(&'a self, offer: &Offer<'a>, memo: &'a str) -> ChallengeTerms<'a> {
        ChallengeTerms {
            resource_url: offer.resource_url,
            description: match offer.route {
                PaidOp::Check => "One signed challenge payability verdict (payability/v1 check)",
                PaidOp::Memo => "One signed memo-binding verdict (payability/v1 memo)",
            },
            pay_to: self.config.operator_wallet.as_str(),
            fee_payer: offer.fee_payer,
            token_account: &self.token_account,
            memo,
        }
    }
}
