//! The pre-check, transport-free, whatever carries it (`POST /precheck`, whose HTTP adapter is
//! `http/precheck_route.rs`, the MCP tool, the A2A skill): the free, metered URL-policy
//! verdict. It never fetches and returns no state and no factor: whether the URL is in policy
//! (or the refusal naming the violation), signed, with the disclosure, honesty and retention
//! lines. An unsigned pre-check spends its source's allowance; one signed by a wallet (x402
//! sign-in-with-x) spends that wallet's, and a pre-check that names a wallet without its
//! signature spends nothing and is asked to sign in.

use std::net::{IpAddr, Ipv4Addr};

use http::StatusCode;
use payability_core::challenge::OwnChallenge;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{ProvenWallet, SignInProof, SignInRefusal};
use payability_core::precheck::signed_precheck;
use serde::Deserialize;
use serde_json::{Value, json};

use super::purchase::fields_of;
use super::request::ApiRequest;
use super::respond::{ApiResponse, error, json_response};
use super::service::{Service, Stores};
use super::sign_in_proof::SignInFailure;
use crate::rules::{ApiError, Refusal};
use crate::store::{Base58Id, Counter, FreeCaller, FreeTierDecision, UtcMillis};

/// The body of a pre-check.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrecheckBody {
    url: String,
    caller: Option<String>,
    op: Option<String>,
}

/// How a pre-check ends short of its signed answer.
pub(super) enum PrecheckStop {
    /// A closed-form error.
    Error(ApiError),
    /// The caller's free allowance is spent (`refusal` says how): the op asked about is
    /// offered for pay instead.
    Exhausted { op: PaidOp, refusal: Refusal },
    /// The pre-check must be signed (again) by a wallet: the sign-in challenge of the route,
    /// carrying `refusal`'s rule (no payment offered).
    SignIn { refusal: Refusal },
}

/// A pre-check's end as a JSON transport (MCP, A2A) carries it: the answer, the sign-in
/// challenge it waits on, or a closed-form refusal; each the JSON answer the route gives.
pub(super) enum PrecheckEnd {
    /// The signed answer (200).
    Answered(ApiResponse),
    /// The sign-in challenge (a v2 `PaymentRequired` offering no payment), as the transport
    /// carries our challenges.
    SignIn(ApiResponse),
    /// A closed-form error; a spent allowance is the refusal naming the paid call to make
    /// instead (no challenge: the pre-check itself takes no payment).
    Refused(ApiResponse),
}

impl PrecheckEnd {
    /// The JSON answer, whichever end it is.
    pub(super) fn response(self) -> ApiResponse {
        match self {
            Self::Answered(response) | Self::SignIn(response) | Self::Refused(response) => response,
        }
    }
}

/// What the sign-in challenge of the pre-check route describes.
const SIGN_IN_DESCRIPTION: &str =
    "The free URL-policy pre-check, signed by the wallet whose allowance it spends";

/// The stop for a refused proof: 400 for a malformed one, else a fresh sign-in challenge.
fn refused(refusal: SignInRefusal) -> PrecheckStop {
    match refusal.is_malformed() {
        true => PrecheckStop::Error(ApiError::SignInMalformed(refusal)),
        false => PrecheckStop::SignIn { refusal: Refusal::SignIn(refusal) },
    }
}

impl<S: Stores> Service<S> {
    /// A spent allowance's stop (counted): the op asked about, offered for pay instead.
    async fn allowance_refused(&self, refused: FreeTierDecision, op: PaidOp) -> PrecheckStop {
        self.count(Counter::FreeTierRefusal).await;
        let refusal = match refused {
            FreeTierDecision::TooSoon => Refusal::FreeTooSoon,
            _ => Refusal::FreeDailyCapReached,
        };
        PrecheckStop::Exhausted { op, refusal }
    }

    /// Spends a signed pre-check's nonce only if its allowance would allow it now, so a proof
    /// the allowance refuses writes nothing (and may be presented again once it allows).
    ///
    /// The order is: read the allowance (no write), spend the nonce (one conditional write),
    /// then consume the allowance (`try_use_both`, atomic as ever). The allowance is still
    /// enforced only by that last conditional write, and a granted pre-check has spent its
    /// nonce exactly once before anything is granted. Consuming the allowance first and the
    /// nonce second would let a replayed proof (its nonce already spent) burn the wallet's
    /// allowance, or need a give-back that can itself fail; this order loses nothing of the
    /// wallet's: the only loss is a race, a concurrent use taking the last allowance between
    /// the read and the consumption, where this proof's nonce is spent and the refusal is
    /// answered (the caller signs a fresh challenge, as it must for any new pre-check).
    async fn spend_proof_if_allowed(
        &self,
        proven: &ProvenWallet,
        caller: &FreeCaller,
        op: PaidOp,
        now: UtcMillis,
    ) -> Result<(), PrecheckStop> {
        match self.store.would_allow(caller, now).await {
            Ok(FreeTierDecision::Allowed { .. }) => {}
            Ok(refused) => return Err(self.allowance_refused(refused, op).await),
            Err(_) => return Err(PrecheckStop::Error(ApiError::StoreUnavailable)),
        }
        match self.spend_nonce(proven, now).await {
            Ok(()) => Ok(()),
            Err(SignInFailure::Refused(refusal)) => Err(refused(refusal)),
            Err(SignInFailure::StoreUnavailable) => {
                Err(PrecheckStop::Error(ApiError::StoreUnavailable))
            }
        }
    }

    /// The sign-in challenge of the pre-check route (this request's public URL), carrying
    /// `refusal`'s rule.
    pub(super) fn precheck_sign_in(
        &self,
        refusal: Refusal,
        request: &ApiRequest,
    ) -> Result<OwnChallenge, ApiError> {
        let resource_url = self.request_url(request)?;
        let sign_in = self.sign_in_declaration(&resource_url);
        let error = refusal.error_text();
        Ok(self.sign_in_only(&resource_url, SIGN_IN_DESCRIPTION, &error, sign_in))
    }

    /// A pre-check over a JSON transport: `offer` carries our sign-in challenge as the
    /// transport carries challenges; a spent allowance names the paid op under `pay_with`
    /// (`pay_with_tool`, `pay_with_skill`: how the transport names a call).
    pub(super) async fn precheck_end(
        &self,
        arguments: Value,
        proof: Option<Result<SignInProof, SignInRefusal>>,
        request: &ApiRequest,
        offer: fn(OwnChallenge) -> ApiResponse,
        pay_with: &'static str,
    ) -> PrecheckEnd {
        match self.precheck_answer(arguments, proof, request).await {
            Ok(answer) => PrecheckEnd::Answered(json_response(StatusCode::OK, &answer)),
            Err(PrecheckStop::Error(refused)) => PrecheckEnd::Refused(error(refused)),
            Err(PrecheckStop::SignIn { refusal }) => {
                match self.precheck_sign_in(refusal, request) {
                    Ok(challenge) => {
                        PrecheckEnd::SignIn(offer(challenge).with_rule(refusal.rule()))
                    }
                    Err(refused) => PrecheckEnd::Refused(error(refused)),
                }
            }
            Err(PrecheckStop::Exhausted { op, refusal }) => {
                let mut body =
                    json!({"error": {"rule": refusal.rule(), "message": refusal.message()}});
                body[pay_with] = json!(op.as_str());
                let response = json_response(StatusCode::PAYMENT_REQUIRED, &body);
                PrecheckEnd::Refused(response.with_rule(refusal.rule()))
            }
        }
    }

    /// The signed pre-check of `body` (`{url, caller?, op?}`, from any transport) with the
    /// sign-in proof the request carries, spending the allowance it may spend: a signed
    /// pre-check the signing wallet's (its nonce spent first, only when the allowance would
    /// allow it: [`Service::spend_proof_if_allowed`]), then its source's signed
    /// pre-checks; an unsigned one its source's; one that names a wallet unsigned, nothing
    /// (the sign-in challenge).
    pub(super) async fn precheck_answer(
        &self,
        body: Value,
        proof: Option<Result<SignInProof, SignInRefusal>>,
        request: &ApiRequest,
    ) -> Result<Value, PrecheckStop> {
        let body: PrecheckBody = fields_of(body).map_err(PrecheckStop::Error)?;
        let route = match body.op.as_deref().map(PaidOp::parse) {
            None => PaidOp::Check,
            Some(Some(op)) => op,
            Some(None) => return Err(PrecheckStop::Error(ApiError::OpUnknown)),
        };
        let named = match body.caller.as_deref() {
            Some(wallet) => match Base58Id::parse(wallet) {
                Some(wallet) => Some(wallet),
                None => return Err(PrecheckStop::Error(ApiError::CallerNotAWallet)),
            },
            None => None,
        };
        // A request whose source is unknown counts against 0.0.0.0 (shared).
        let source = request.source_ip.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let now = (self.clock)();
        let (caller, proven) = match proof {
            None if named.is_some() => {
                return Err(PrecheckStop::SignIn { refusal: Refusal::SignInAsCaller });
            }
            None => (FreeCaller::unsigned(source), None),
            Some(proof) => {
                let resource_url = self
                    .request_url(request)
                    .map_err(|_| PrecheckStop::Error(ApiError::BaseUrlUnknown))?;
                let proven = self.verified(&resource_url, proof).map_err(refused)?;
                if named.is_some_and(|named| named != proven.wallet) {
                    return Err(PrecheckStop::Error(ApiError::CallerNotTheSigner));
                }
                (FreeCaller::signed(proven.wallet.clone(), source), Some(proven))
            }
        };
        if let Some(proven) = &proven {
            self.spend_proof_if_allowed(proven, &caller, route, now).await?;
        }
        match self.store.try_use_both(&caller, now).await {
            Ok(FreeTierDecision::Allowed { .. }) => self.count(Counter::Precheck).await,
            Ok(refused) => return Err(self.allowance_refused(refused, route).await),
            Err(_) => return Err(PrecheckStop::Error(ApiError::StoreUnavailable)),
        }
        let rule = self.config.address_rule;
        signed_precheck(&body.url, route, rule, now, &self.signer)
            .ok_or(PrecheckStop::Error(ApiError::ClockOutOfRange))
    }
}
