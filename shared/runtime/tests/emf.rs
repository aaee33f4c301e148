//! The Embedded Metric Format lines of real answers, driven through `Service::handle` on a temp
//! SQLite store with a loopback seller: a canary in the submitted URL, in a header value and
//! in the seller's challenge (body, `PAYMENT-REQUIRED` header and a header of its own) never
//! reaches an EMF line, and each answer is counted where the alarms and dashboard read it.

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, Method};
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::payment::solana::{Base58Id, associated_token_account};
use payability_core::policy::AddressRule;
use payability_core::price::USDC_MINT;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, Service};
use payability_runtime::routes::Route;
use payability_runtime::settings::keys::KeyPublication;
use payability_runtime::store::UtcMillis;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::telemetry::emf::{self, METRICS, NAMESPACE};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};

/// The canary: any case of it in an EMF line fails the test.
const CANARY: &str = "emfcanary";
const OPERATOR_WALLET: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const FEE_PAYER: &str = "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5";
const SELLER: &str = "AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o";
const BUYER: &str = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const HOUSE_TOKEN: &str = "house-token-of-the-emf-tests";

fn now() -> UtcMillis {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
    UtcMillis(i64::try_from(ms).unwrap_or(i64::MAX))
}

/// A seller on loopback whose every answer is a 402 full of the canary; the URL it is asked
/// about carries the canary in its path and query.
fn start_seller() -> (StandIn, String) {
    let path = format!("/{CANARY}-path?{CANARY}=q");
    let seller = StandIn::replying_with(|origin| {
        let resource = format!("{origin}{path}");
        let answered = AtomicUsize::new(0);
        move |_: &Recorded| {
            let token_account = associated_token_account(SELLER, USDC_MINT).expect("an ATA");
            let memo = format!("{CANARY}-memo-{}", answered.fetch_add(1, Ordering::SeqCst));
            let description = format!("{CANARY} description");
            let challenge = own_challenge(&ChallengeTerms {
                resource_url: &resource,
                description: &description,
                pay_to: SELLER,
                fee_payer: FEE_PAYER,
                token_account: &token_account,
                memo: &memo,
            });
            Reply::status(402)
                .header("content-type", "application/json")
                .header("payment-required", challenge.payment_required)
                .header(&format!("x-{CANARY}"), format!("{CANARY}-header"))
                .body(challenge.body)
        }
    });
    let url = seller.url(&path);
    (seller, url)
}

fn service(dir: &ScratchDir) -> Service<SqliteStore> {
    let db = dir.join("store.sqlite3");
    let store = SqliteStore::open(&db).expect("a fresh SQLite store");
    let closed = closed_port();
    let config = ServiceConfig {
        operator_wallet: Base58Id::pubkey(OPERATOR_WALLET).unwrap(),
        facilitator_url: None,
        fee_payer: Base58Id::pubkey(FEE_PAYER),
        solana_rpc_url: None,
        public_base_url: Some("http://127.0.0.1:1".to_owned()),
        house_token: Some(HOUSE_TOKEN.to_owned()),
        store: StoreChoice::Embedded(db),
        address_rule: AddressRule::AllowPrivate,
        valet_origin: format!("http://127.0.0.1:{closed}"),
        keys: KeyPublication::default(),
    };
    Service::new(config, &[9; 32], store, now).unwrap_or_else(|e| panic!("the service: {e}"))
}

fn request(path: &str, body: Value, headers: &[(&'static str, String)]) -> ApiRequest {
    let mut map = HeaderMap::new();
    map.insert("content-type", HeaderValue::from_static("application/json"));
    for (name, value) in headers {
        map.insert(*name, HeaderValue::from_str(value).expect("a header value"));
    }
    ApiRequest {
        method: Method::POST,
        path: path.to_owned(),
        query: None,
        headers: map,
        body: body.to_string().into_bytes(),
        source_ip: Some(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        public_base_url: None,
        request_id: format!("emf-{CANARY}-request-id"),
    }
}

/// Sends one request and returns its status and its one EMF object.
async fn send(service: &Service<SqliteStore>, request: ApiRequest) -> (u16, Value) {
    let response = service.handle(request).await;
    let lines = emf::take_captured();
    assert_eq!(lines.len(), 1, "one EMF line per request: {lines:?}");
    let line = &lines[0];
    assert!(!line.to_ascii_lowercase().contains(CANARY), "an EMF line carries the canary: {line}");
    assert!(!line.contains(HOUSE_TOKEN), "an EMF line carries the house token: {line}");
    let object: Value = serde_json::from_str(line).expect("an EMF line is one JSON object");
    assert_only_listed(&object);
    (response.status().as_u16(), object)
}

/// Keys of the object: `_aws`, the dimensions and metrics of [`METRICS`], nothing else.
fn assert_only_listed(object: &Value) {
    for (key, value) in object.as_object().expect("an object") {
        let listed = key == "_aws"
            || [emf::ROUTE, emf::STATE, emf::RULE].contains(&key.as_str())
            || METRICS.iter().any(|(name, _)| name == key);
        assert!(listed, "{key} is neither a dimension nor a listed metric");
        if key != "_aws" && !value.is_u64() {
            assert!(value.is_string(), "{key}: {value}");
        }
    }
    for directive in object["_aws"]["CloudWatchMetrics"].as_array().expect("directives") {
        assert_eq!(directive["Namespace"], NAMESPACE);
    }
}

#[tokio::test]
async fn no_emf_line_carries_a_url_a_header_value_or_a_fetched_value() {
    emf::capture_on_this_thread();
    let (_seller, url) = start_seller();
    let dir = ScratchDir::new("emf");
    let service = service(&dir);
    let house = [("authorization", format!("Bearer {HOUSE_TOKEN}"))];

    // A house check and a house memo fetch the seller's canary challenge.
    for (path, route) in [("/check", "check"), ("/toll/payability/memo", "memo")] {
        let (status, object) = send(&service, request(path, json!({"url": url}), &house)).await;
        assert_eq!(status, 200, "{object}");
        assert_eq!(object[emf::ROUTE], route);
        assert_eq!(object[emf::HOUSE_VERDICTS], 1, "{object}");
        assert!(object.get(emf::PAID_VERDICTS).is_none(), "a house verdict is not paid use");
        assert!(object[emf::STATE].is_string(), "{object}");
    }

    // Without a facilitator an unpaid request is refused 503 before any challenge: a
    // facilitator failure, counted by its rule.
    let (status, object) = send(&service, request("/check", json!({"url": url}), &[])).await;
    assert_eq!(status, 503);
    assert_eq!(object[emf::RULE], "payments_unavailable");
    assert_eq!(object[emf::REFUSALS], 1);
    assert_eq!(object[emf::FACILITATOR_FAILURES], 1);

    // A payment header that is the canary.
    let payment = [("payment-signature", format!("{CANARY}-payment"))];
    let (status, object) = send(&service, request("/memo", json!({"url": url}), &payment)).await;
    assert!(status >= 400, "{object}");
    assert!(object[emf::RULE].is_string(), "a malformed payment names its rule: {object}");

    // A free pre-check of the canary URL naming a wallet unsigned (the sign-in challenge),
    // then an unsigned one, then one out of policy.
    let body = json!({"url": url, "caller": BUYER});
    let (status, object) = send(&service, request("/precheck", body, &[])).await;
    assert_eq!((status, &object[emf::RULE]), (402, &json!("sign_in_as_caller")), "{object}");
    let (status, object) = send(&service, request("/precheck", json!({"url": url}), &[])).await;
    assert_eq!(status, 200, "{object}");
    assert_eq!(object[emf::FREE_PRECHECKS], 1);
    let body = json!({"url": format!("ftp://{CANARY}:{CANARY}@{CANARY}.example/")});
    let (status, object) = send(&service, request("/check", body, &house)).await;
    assert_eq!(status, 400);
    assert!(object[emf::RULE].is_string(), "{object}");

    // A path of the caller's is never a dimension.
    let (status, object) = send(&service, request(&format!("/{CANARY}"), json!({}), &[])).await;
    assert_eq!(status, 404);
    assert_eq!(object[emf::ROUTE], "none");
    assert_eq!(object[emf::RULE], "not_covered");
}

/// A function serving only some routes (as each Lambda function does) answers another
/// function's route 404 `not_found` and a path not ours as every function does, and its EMF
/// line names the route resolved from the path either way.
#[tokio::test]
async fn a_function_answers_only_its_own_routes_and_counts_the_rest_by_their_route() {
    emf::capture_on_this_thread();
    let dir = ScratchDir::new("emf-served");
    let service = service(&dir);
    let served = [Route::Precheck];
    for (path, status, route, rule) in [
        ("/check", 404, "check", Some("not_found")),
        ("/toll/payability/metrics", 404, "metrics", Some("not_found")),
        (&format!("/{CANARY}"), 404, "none", Some("not_covered")),
        ("/precheck", 200, "precheck", None),
    ] {
        let body = json!({"url": "http://127.0.0.1:1/"});
        let response = service.handle_served(&served, request(path, body, &[])).await;
        let lines = emf::take_captured();
        assert_eq!(lines.len(), 1, "one EMF line per request: {lines:?}");
        assert!(!lines[0].contains(CANARY), "{}", lines[0]);
        let object: Value = serde_json::from_str(&lines[0]).expect("one JSON object");
        assert_eq!(response.status().as_u16(), status, "{path}: {object}");
        assert_eq!(object[emf::ROUTE], route, "{path}");
        assert_eq!(object[emf::RULE].as_str(), rule, "{path}: {object}");
    }
}

/// A `tools/call` over `POST /mcp` of `tool` with `arguments`.
fn mcp_call(tool: &str, arguments: Value, headers: &[(&'static str, String)]) -> ApiRequest {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    request("/mcp", body, headers)
}

/// An MCP tool call is counted as the route the tool is (a house verdict as check's, a free
/// pre-check as the pre-check's), so the alarms and the dashboard see MCP use; the other
/// methods are the MCP route's. No line carries the canary.
#[tokio::test]
async fn an_mcp_tool_call_is_counted_as_its_route() {
    emf::capture_on_this_thread();
    let (_seller, url) = start_seller();
    let dir = ScratchDir::new("emf-mcp");
    let service = service(&dir);
    let house = [("authorization", format!("Bearer {HOUSE_TOKEN}"))];

    let (status, object) = send(&service, mcp_call("check", json!({"url": url}), &house)).await;
    assert_eq!(status, 200, "MCP answers 200");
    assert_eq!(object[emf::ROUTE], "check", "{object}");
    assert_eq!(object[emf::HOUSE_VERDICTS], 1, "{object}");
    assert!(object[emf::STATE].is_string(), "{object}");

    let arguments = json!({"url": url});
    let (_, object) = send(&service, mcp_call("precheck", arguments, &[])).await;
    assert_eq!(
        (object[emf::ROUTE].clone(), object[emf::FREE_PRECHECKS].clone()),
        (json!("precheck"), json!(1))
    );

    let (_, object) = send(&service, mcp_call("memo", json!({"url": url}), &[])).await;
    assert_eq!(object[emf::ROUTE], "memo", "{object}");
    assert_eq!(object[emf::FACILITATOR_FAILURES], 1, "no facilitator: {object}");

    let initialize = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}});
    let (_, object) = send(&service, request("/mcp", initialize, &[])).await;
    assert_eq!(object[emf::ROUTE], "mcp", "{object}");
}
