//! The service: its settings, signing key, store, fetcher and payment clients, built once
//! per process (per Lambda cold start) and shared by every request.
//!
//! [`Service`]'s methods live beside what they serve: each file below (under `api/`) adds
//! one `impl<S: Stores> Service<S>` block, with the methods of what it names.
//!
//! - `service.rs`: building the service ([`Service::new`]), its signer, the fee payer, the public
//!   base and request URLs, the sign-in challenge, the house credential.
//! - `mod.rs`: dispatch: every entry point (`handle`, `handle_served`, `handle_mcp`, `handle_a2a`),
//!   admission, the route's answer, the published keys.
//! - `reads.rs`: `GET /metrics`.
//! - `sign_in_proof.rs`: a sign-in proof verified for a route's URL, its nonce spent.
//! - `precheck.rs`: the pre-check, transport-free: its signed answer, its sign-in challenge, its
//!   end over a JSON transport.
//! - `purchase/call.rs`: the seam: a transport's paid call bought (`buy`, `buy_with_arguments`).
//! - `purchase/mod.rs`: one purchase's state machine: the offer's challenge, matching, claiming, a
//!   known payment, a resume.
//! - `purchase/offer.rs`: our challenge for an offer and its terms.
//! - `purchase/payer.rs`: the payer proven by sign-in: its proof, its nonce spent, its purchase
//!   collected.
//! - `purchase/settlement.rs`: `/verify`, `/settle` and the chain's word on an unknown settlement.
//! - `purchase/early.rs`: the fetch alongside the settlement, under the payer's lease.
//! - `purchase/delivery.rs`: the verdict graded, recorded and delivered; the house's; the counters.
//! - `http/mod.rs`: `GET` and `POST` `/check` and `/memo`.
//! - `http/precheck_route.rs`: `POST /precheck`.
//! - `mcp/mod.rs`: `POST /mcp`: one JSON-RPC request, the origin rule.
//! - `mcp/call.rs`: `tools/call`: each tool's result.
//! - `a2a/mod.rs`: `POST /a2a`: one JSON-RPC request, the extensions echoed.
//! - `a2a/skills.rs`: `SendMessage`: each skill's answer as a task.
//!
//! `POST /rpc`, the page's Solana RPC relay (`page/rpc.rs`), is a function of the few fields it
//! uses (the RPC URL, [`Service::rpc_client`], [`Service::blockhashes`], the clock), not a method.

use payability_core::challenge::{OwnChallenge, sign_in_challenge};
use payability_core::op::PaidOp;
use payability_core::payment::memo::MemoKey;
use payability_core::payment::siwx::{
    NonceKey, SIGN_IN_WITH_X, SignInScope, declaration, issue_nonce, nonce::NONCE_RANDOM_BYTES,
};
use payability_core::payment::solana::{Base58Id, associated_token_account};
use payability_core::report::UtcMillis;
use payability_core::signing::ReportSigner;
use subtle::ConstantTimeEq;
use tokio::sync::OnceCell;

use super::binding::BindingKey;
use super::config::ServiceConfig;
use super::page::BlockhashCache;
use super::request::ApiRequest;
use crate::base_url::Base;
use crate::budget::FEE_LOOKUP_BOUND;
use crate::fetch::Fetcher;
use crate::fx::{BankOfCanadaValet, RateLookups};
use crate::payment::facilitator::Facilitator;
use crate::routes::TOLL_PREFIX;
use crate::rules::ApiError;
use crate::store::{FreeTier, Ledger, Metrics, PaymentClaims, ProofNonces, RateCache};

/// Every store capability the HTTP service uses.
pub trait Stores: Ledger + PaymentClaims + FreeTier + Metrics + ProofNonces + RateCache {}

impl<T: Ledger + PaymentClaims + FreeTier + Metrics + ProofNonces + RateCache> Stores for T {}

/// Why the service could not be built (closed form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceError {
    /// An HTTP client could not be built.
    ClientUnavailable,
    /// The operator wallet has no associated token account (not a valid public key).
    NoTokenAccount,
    /// The signing seed's public key is not the one the settings pin.
    SigningKeyNotPinned,
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ClientUnavailable => "an HTTP client could not be built",
            Self::NoTokenAccount => "the operator wallet has no USDC associated token account",
            Self::SigningKeyNotPinned => {
                let pinned = crate::settings::SIGNING_PUBLIC_KEY.name();
                return write!(f, "configuration: {pinned} is not the signing seed's public key");
            }
        })
    }
}

impl std::error::Error for ServiceError {}

/// The running service.
pub struct Service<S> {
    pub(super) config: ServiceConfig,
    pub(super) signer: ReportSigner,
    pub(super) memo_key: MemoKey,
    /// Tags the nonces of our sign-in challenges.
    pub(super) nonce_key: NonceKey,
    /// Keys the called-URL binding a payment claim keeps.
    pub(super) binding_key: BindingKey,
    pub(super) fetcher: Fetcher,
    pub(super) facilitator: Option<Facilitator>,
    fee_payer: OnceCell<Base58Id>,
    pub(super) token_account: String,
    pub(super) store: S,
    pub(super) rpc_client: reqwest::Client,
    /// The blockhash `POST /rpc` last read, reused for 2 s across requests.
    pub(super) blockhashes: BlockhashCache,
    pub(super) rates: RateLookups,
    pub(super) clock: fn() -> UtcMillis,
}

impl<S: Stores> Service<S> {
    /// Builds the service; `signing_seed` is the Ed25519 seed (it also keys the memo tags).
    pub fn new(
        config: ServiceConfig,
        signing_seed: &[u8; 32],
        store: S,
        clock: fn() -> UtcMillis,
    ) -> Result<Self, ServiceError> {
        let fetcher =
            Fetcher::new(config.address_rule).map_err(|_| ServiceError::ClientUnavailable)?;
        let facilitator = match &config.facilitator_url {
            Some(url) => Some(Facilitator::new(url).map_err(|_| ServiceError::ClientUnavailable)?),
            None => None,
        };
        let token_account = associated_token_account(
            config.operator_wallet.as_str(),
            payability_core::price::USDC_MINT,
        )
        .ok_or(ServiceError::NoTokenAccount)?;
        let rpc_client = crate::http_client::builder()
            .no_proxy()
            .timeout(FEE_LOOKUP_BOUND)
            .build()
            .map_err(|_| ServiceError::ClientUnavailable)?;
        let valet = BankOfCanadaValet::new(&config.valet_origin)
            .map_err(|_| ServiceError::ClientUnavailable)?;
        let signer = ReportSigner::from_seed(signing_seed);
        if config.keys.pinned.as_ref().is_some_and(|pinned| pinned != signer.descriptor()) {
            return Err(ServiceError::SigningKeyNotPinned);
        }
        Ok(Self {
            signer,
            memo_key: MemoKey::derive(signing_seed),
            nonce_key: NonceKey::derive(signing_seed),
            binding_key: BindingKey::derive(signing_seed),
            fetcher,
            facilitator,
            fee_payer: OnceCell::new(),
            token_account,
            store,
            rpc_client,
            blockhashes: BlockhashCache::default(),
            rates: RateLookups::new(valet),
            clock,
            config,
        })
    }

    /// The signer of reports and pre-check answers.
    pub fn signer(&self) -> &ReportSigner {
        &self.signer
    }

    /// The facilitator's Solana fee payer, read once from `/supported` (else the configured
    /// fallback); None while neither is known: paid routes then answer 503.
    pub(super) async fn fee_payer(&self) -> Option<&str> {
        let facilitator = self.facilitator.as_ref()?;
        let fetched = self
            .fee_payer
            .get_or_try_init(|| async {
                match facilitator.fee_payer().await {
                    Ok(fee_payer) => Ok(fee_payer),
                    Err(_) => self.config.fee_payer.clone().ok_or(()),
                }
            })
            .await;
        fetched.ok().map(Base58Id::as_str)
    }

    /// The DNS-rebinding rule of the routes a browser may reach with a body (`/mcp`, `/a2a`,
    /// `/precheck`, `/rpc`): a request without `Origin` (not a browser's) is served, and one
    /// whose `Origin` is this service's own: the configured public base URL's origin, or the
    /// base the platform reports for this request.
    pub(super) fn origin_allowed(&self, request: &ApiRequest) -> bool {
        let Some(origin) = request.headers.get(http::header::ORIGIN) else {
            return true;
        };
        let ours = [&self.config.public_base_url, &request.public_base_url];
        ours.into_iter()
            .flatten()
            .filter_map(|base| Base::parse(base))
            .any(|base| origin.as_bytes().eq_ignore_ascii_case(base.origin.as_bytes()))
    }

    /// The API's public base URL: the configured one, else the one the platform reports for
    /// this request; 503 `base_url_unknown` when neither is known.
    pub(super) fn base_url<'a>(&'a self, request: &'a ApiRequest) -> Result<&'a str, ApiError> {
        let base = self.config.public_base_url.as_deref().or(request.public_base_url.as_deref());
        Ok(base.ok_or(ApiError::BaseUrlUnknown)?.trim_end_matches('/'))
    }

    /// The public URL of a paid route (`resource` in the challenge a pre-check answers).
    pub(super) fn route_url(
        &self,
        route: PaidOp,
        request: &ApiRequest,
    ) -> Result<String, ApiError> {
        Ok(format!("{}/{}", self.base_url(request)?, route.as_str()))
    }

    /// The public URL of this request (`resource` in a paid route's challenge): the base URL,
    /// the path as it arrived (its `/toll/payability` prefix once, when the base already ends
    /// with it) and the query as it arrived, serialised as a WHATWG URL (`url` crate): the
    /// called URL a buyer who submits this request's URL is graded against.
    pub(super) fn request_url(&self, request: &ApiRequest) -> Result<String, ApiError> {
        let base = self.base_url(request)?;
        let path = match base.ends_with(TOLL_PREFIX) {
            true => request.path.strip_prefix(TOLL_PREFIX).unwrap_or(&request.path),
            false => &request.path,
        };
        let query = request.query.as_deref().map(|query| format!("?{query}")).unwrap_or_default();
        url::Url::parse(&format!("{base}{path}{query}"))
            .map(String::from)
            .map_err(|_| ApiError::BaseUrlUnknown)
    }

    /// A sign-in challenge for `resource_url` carrying `error`: no payment offered, the
    /// `sign-in-with-x` declaration (when one could be made) its only extension.
    pub(super) fn sign_in_only(
        &self,
        resource_url: &str,
        description: &str,
        error: &str,
        sign_in: Option<serde_json::Value>,
    ) -> OwnChallenge {
        let mut extensions = serde_json::json!({});
        if let Some(sign_in) = sign_in {
            extensions[SIGN_IN_WITH_X] = sign_in;
        }
        sign_in_challenge(resource_url, description, error, &extensions)
    }

    /// A fresh sign-in challenge (`extensions["sign-in-with-x"]`) for requests to
    /// `resource_url`: its domain and route, a nonce tagged with this instant. None for a URL
    /// without a host or a clock outside the years a timestamp can carry.
    pub(super) fn sign_in_declaration(&self, resource_url: &str) -> Option<serde_json::Value> {
        let scope = SignInScope::of(resource_url)?;
        let now = (self.clock)();
        let mut random = [0u8; NONCE_RANDOM_BYTES];
        getrandom::fill(&mut random).expect("the system random source works");
        declaration(&scope, &issue_nonce(&self.nonce_key, now, random), now)
    }

    /// True when the request carries `Authorization: Bearer <house token>`: the scheme in any
    /// case and one or more spaces after it (RFC 9110 11.4), the token compared in constant
    /// time.
    pub(super) fn is_house(&self, headers: &http::HeaderMap) -> bool {
        let Some(expected) = &self.config.house_token else {
            return false;
        };
        let presented = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|value| {
                let value = value.as_bytes();
                let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
                scheme.eq_ignore_ascii_case(b"bearer").then(|| rest.trim_ascii_start())
            })
            .unwrap_or_default();
        bool::from(presented.ct_eq(expected.as_bytes()))
    }
}
