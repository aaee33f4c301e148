//! The service under test: a temp SQLite store, a fixed clock, a facilitator URL that refuses
//! connections (so the configured fee payer is advertised), house checks on, private
//! targets allowed (the loopback seller), and the requests and answers of `Service::handle`.

use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};

use http::{HeaderMap, HeaderValue, Method};
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service};
use payability_runtime::settings::keys::KeyPublication;
use payability_runtime::store::UtcMillis;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::sqlite::SqliteStore;
pub use payability_tests::answer::Answer;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::Value;

/// The operator wallet that is paid.
pub const OPERATOR_WALLET: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
/// The fee payer advertised (the facilitator cannot be reached).
pub const FEE_PAYER: &str = "AXmhKMjW8gDUZT1vZ9FPQf6qxrNie4V6VMtUv1mu5MP1";
/// The house bearer token.
pub const HOUSE_TOKEN: &str = "house-token-of-the-discovery-tests";
/// The local base URL the service names (never called).
pub const BASE: &str = "http://127.0.0.1:8402";

/// 2026-03-02T12:00:00.000Z.
fn clock() -> UtcMillis {
    UtcMillis(1_772_452_800_000)
}

/// The service and its scratch store.
pub struct World {
    pub service: Service<SqliteStore>,
    _dir: ScratchDir,
}

impl World {
    /// The service with the local base URL.
    pub fn start() -> Self {
        Self::with_base(Some(BASE))
    }

    /// The service with this configured public base URL (None: each request's own).
    pub fn with_base(base: Option<&str>) -> Self {
        let dir = ScratchDir::new("discovery");
        let db = dir.join("store.sqlite3");
        let store = SqliteStore::open(&db).expect("a SQLite store");
        let closed = format!("http://127.0.0.1:{}", closed_port());
        let config = ServiceConfig {
            operator_wallet: Base58Id::pubkey(OPERATOR_WALLET).unwrap(),
            facilitator_url: Some(closed.clone()),
            fee_payer: Base58Id::pubkey(FEE_PAYER),
            solana_rpc_url: None,
            public_base_url: base.map(str::to_owned),
            house_token: Some(HOUSE_TOKEN.to_owned()),
            store: StoreChoice::Embedded(db),
            address_rule: AddressRule::AllowPrivate,
            valet_origin: closed,
            keys: KeyPublication::default(),
        };
        let service = Service::new(config, &[9; 32], store, clock).expect("the service");
        Self { service, _dir: dir }
    }

    /// A request without a body, query or payment.
    pub fn request(method: Method, path: &str) -> ApiRequest {
        ApiRequest {
            method,
            path: path.to_owned(),
            query: None,
            headers: HeaderMap::new(),
            body: Vec::new(),
            source_ip: Some(Ipv4Addr::new(192, 0, 2, 1).into()),
            public_base_url: None,
            request_id: "discovery-test".to_owned(),
        }
    }

    /// Answers a request.
    pub async fn send(&self, request: ApiRequest) -> Answer {
        self.service.handle(request).await.into_http().into()
    }

    /// `GET <path>`.
    pub async fn get(&self, path: &str) -> Answer {
        self.send(Self::request(Method::GET, path)).await
    }

    /// A request of the method with `?url=` (GET, HEAD) or a `{"url"}` body (POST).
    pub async fn call(&self, method: Method, path: &str, url: Option<&str>) -> Answer {
        let mut request = Self::request(method.clone(), path);
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
        let mut request = Self::request(Method::POST, path);
        request.body = serde_json::to_vec(&serde_json::json!({"url": url})).unwrap();
        let bearer = HeaderValue::from_str(&format!("Bearer {HOUSE_TOKEN}")).unwrap();
        request.headers.insert(http::header::AUTHORIZATION, bearer);
        self.send(request).await
    }

    /// `POST /precheck` with a JSON body, from a source of the named caller's own (every
    /// free pre-check spends its source's allowance too, 5,000 ms apart: one caller, one
    /// source).
    pub async fn precheck(&self, body: Value) -> Answer {
        let mut request = Self::request(Method::POST, "/precheck");
        request.body = serde_json::to_vec(&body).unwrap();
        let caller = body["caller"].as_str().unwrap_or_default();
        let octet = caller.bytes().fold(0u8, u8::wrapping_add) % 250 + 1;
        request.source_ip = Some(Ipv4Addr::new(198, 51, 100, octet).into());
        self.send(request).await
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
