//! The discovery tests' requests of the one in-process [`World`] (`paid_flow/world.rs`:
//! the service on a temp SQLite store, its clock at the world's start, house checks on,
//! private targets allowed), and a loopback seller whose 402 has the core's shape.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};

use http::{HeaderValue, Method};
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_runtime::api::ApiRequest;
use payability_tests::standin::{Recorded, Reply, StandIn};
use serde_json::Value;

use crate::paid_flow::sign_in;
use crate::paid_flow::world::{Answer, HOUSE_TOKEN, OPERATOR_WALLET, World, with_proof};

/// The fee payer the seller's challenge names.
pub const FEE_PAYER: &str = "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1";

/// The `Accept` a browser sends when it opens a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

impl World {
    /// A request without a body, query or payment.
    pub fn bare(method: Method, path: &str) -> ApiRequest {
        ApiRequest {
            method,
            path: path.to_owned(),
            query: None,
            headers: http::HeaderMap::new(),
            body: Vec::new(),
            source_ip: Some(Ipv4Addr::new(192, 0, 2, 1).into()),
            public_base_url: None,
            request_id: "discovery-test".to_owned(),
        }
    }

    /// `GET <path>`.
    pub async fn get(&self, path: &str) -> Answer {
        self.send(Self::bare(Method::GET, path)).await
    }

    /// `GET <path>` as a browser asks (`Accept` names HTML first): what the page route answers
    /// the page to; the other routes answer it as any GET.
    pub async fn browse(&self, path: &str) -> Answer {
        self.send(Self::browsing(Method::GET, path)).await
    }

    /// A bare request of `method` with a browser's `Accept`.
    pub fn browsing(method: Method, path: &str) -> ApiRequest {
        let mut request = Self::bare(method, path);
        let accept = http::HeaderValue::from_static(BROWSER_ACCEPT);
        request.headers.insert(http::header::ACCEPT, accept);
        request
    }

    /// A request of the method with `?url=` (GET, HEAD) or a `{"url"}` body (POST).
    pub async fn call(&self, method: Method, path: &str, url: Option<&str>) -> Answer {
        let mut request = Self::bare(method.clone(), path);
        if let Some(url) = url {
            if method == Method::POST {
                request.body = serde_json::to_vec(&serde_json::json!({"url": url})).unwrap();
            } else {
                let encoded: String =
                    url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
                request.query = Some(format!("url={encoded}"));
            }
        }
        self.send(request).await
    }

    /// A house check (no payment) of `url` on a paid route.
    pub async fn house(&self, path: &str, url: &str) -> Answer {
        let mut request = Self::bare(Method::POST, path);
        request.body = serde_json::to_vec(&serde_json::json!({"url": url})).unwrap();
        let bearer = HeaderValue::from_str(&format!("Bearer {HOUSE_TOKEN}")).unwrap();
        request.headers.insert(http::header::AUTHORIZATION, bearer);
        self.send(request).await
    }

    /// `POST /precheck` with a JSON body, from a source of the body's own (an unsigned
    /// pre-check spends its source's allowance, 5,000 ms apart: one body, one source).
    pub async fn precheck(&self, body: Value) -> Answer {
        self.send(Self::precheck_request(&body)).await
    }

    /// `POST /precheck` with a JSON body naming `wallet` as caller, signed by it: the sign-in
    /// challenge the unsigned pre-check gets, signed, and the pre-check sent again with it.
    pub async fn signed_precheck(
        &self,
        mut body: Value,
        wallet: &ed25519_dalek::SigningKey,
    ) -> Answer {
        body["caller"] = sign_in::address(wallet).into();
        let challenge = self.precheck(body.clone()).await;
        assert_eq!((challenge.status, challenge.rule()), (402, Some("sign_in_as_caller")));
        let header = challenge.header("payment-required").expect("a sign-in challenge");
        let proof = sign_in::proof(header, wallet);
        self.send(with_proof(Self::precheck_request(&body), &proof)).await
    }

    /// The pre-check request of `body`, from the body's own source.
    fn precheck_request(body: &Value) -> ApiRequest {
        let mut request = Self::bare(Method::POST, "/precheck");
        request.body = serde_json::to_vec(body).unwrap();
        let octet = request.body.iter().fold(0u8, |sum, b| sum.wrapping_add(*b)) % 250 + 1;
        request.source_ip = Some(Ipv4Addr::new(198, 51, 100, octet).into());
        request
    }

    /// The served OpenAPI document.
    pub async fn openapi(&self) -> Value {
        let answer = self.get("/openapi.json").await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.body
    }
}

/// A loopback seller answering every request with a 402 carrying a challenge of the core's
/// shape (a fresh memo per answer) for its own URL; it stops when dropped.
pub struct Seller {
    stand_in: StandIn,
}

impl Seller {
    pub async fn start() -> Self {
        let stand_in = StandIn::replying_with(|origin| {
            let url = format!("{origin}/api");
            let served = AtomicU32::new(0);
            move |_: &Recorded| {
                let memo = format!("pvm_seller_{:04}", served.fetch_add(1, Ordering::SeqCst) + 1);
                let challenge = own_challenge(&ChallengeTerms {
                    resource_url: &url,
                    description: "A seller's resource",
                    pay_to: OPERATOR_WALLET,
                    fee_payer: FEE_PAYER,
                    token_account: "5Hr7wZg7oBpVhH5nngRqzr5W7ZFUfCsfEhbziZJak7fr",
                    memo: &memo,
                });
                Reply::status(402)
                    .header("content-type", "application/json")
                    .header("payment-required", challenge.payment_required)
                    .body(challenge.body)
            }
        });
        Self { stand_in }
    }

    /// The seller's resource URL.
    pub fn url(&self) -> String {
        self.stand_in.url("/api")
    }
}
