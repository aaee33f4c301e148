//! How the paid routes meet HTTP clients and x402 SDKs: a paid `GET ?url=` like the POST, a
//! probe without a URL answered with the 402, a paid request without one refused before
//! `/verify`, `HEAD`, CORS preflight, `405` with `Allow`, `no-store`, the public toll paths,
//! and the refusal's rule in both legs of a 402.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderValue, Method};
use payability_runtime::api::ApiRequest;
use serde_json::Value;

use crate::paid_flow::world::{CHECK, World};

/// A request with a method, a path, an optional query and body, and an optional payment.
fn request(
    world: &World,
    method: Method,
    path: &str,
    query: Option<String>,
    body: &[u8],
    payment: Option<&crate::paid_flow::payment::Payment>,
) -> ApiRequest {
    let mut request = world.request(path, payment);
    request.method = method;
    request.query = query;
    request.body = body.to_vec();
    request
}

/// The `error` of both legs of a 402: the v1 body's and the v2 header's.
fn both_errors(answer: &crate::paid_flow::world::Answer) -> (String, String) {
    let header = answer.headers.get("payment-required").expect("a PAYMENT-REQUIRED header");
    let decoded: Value =
        serde_json::from_slice(&STANDARD.decode(header.as_bytes()).unwrap()).unwrap();
    (
        answer.body["error"].as_str().unwrap_or_default().to_owned(),
        decoded["error"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test]
async fn a_paid_get_with_the_url_in_its_query_buys_one_verdict() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let query = format!(
        "url={}",
        url::form_urlencoded::byte_serialize(world.target.url().as_bytes()).collect::<String>()
    );
    let answer =
        world.send(request(&world, Method::GET, CHECK, Some(query), b"", Some(&payment))).await;
    assert!(answer.is_verdict(), "{answer}");
    assert_eq!(answer.body["url"], world.target.url().as_str());
    assert_eq!(world.facilitator.settle_calls(), 1);
}

#[tokio::test]
async fn a_probe_without_a_url_gets_the_402_and_a_paid_request_without_one_is_refused_before_verify()
 {
    let world = World::start().await;
    for (method, body) in
        [(Method::GET, &b""[..]), (Method::POST, &b""[..]), (Method::HEAD, &b""[..])]
    {
        let answer = world.send(request(&world, method.clone(), CHECK, None, body, None)).await;
        assert_eq!(answer.status, 402, "{method}: {answer}");
        let (v1, v2) = both_errors(&answer);
        assert!(v2.starts_with("payment_required: "), "{method}: {v2}");
        let head = method == Method::HEAD;
        assert!(if head { v1.is_empty() } else { v1 == v2 }, "{method}: {v1} / {v2}");
        assert_eq!(answer.headers["cache-control"], "no-store", "{method}");
    }
    let payment = world.fresh_payment().await;
    let answer = world.send(request(&world, Method::GET, CHECK, None, b"", Some(&payment))).await;
    assert_eq!((answer.status, answer.body["error"]["rule"].clone()), (400, "url_missing".into()));
    assert_eq!(world.facilitator.verify_calls(), 0, "refused before verify: nothing charged");
    assert_eq!(world.target.hits(), 0);
}

#[tokio::test]
async fn a_refused_payment_says_why_in_both_legs() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    world.facilitator.set_verify_mode(crate::paid_flow::chain::VerifyMode::Refuse);
    let answer = world.post_check(&payment).await;
    assert_eq!(answer.status, 402, "{answer}");
    let (v1, v2) = both_errors(&answer);
    assert!(v1.starts_with("payment_not_verified: "), "{v1}");
    assert_eq!(v1, v2, "the v2 header says what the v1 body says");
}

#[tokio::test]
async fn http_conventions_head_options_allow_cors_and_toll_paths() {
    let world = World::start().await;
    let preflight = world.send(request(&world, Method::OPTIONS, CHECK, None, b"", None)).await;
    assert_eq!(preflight.status, 204);
    assert_eq!(preflight.headers["allow"], "GET, POST, HEAD, OPTIONS");
    let allowed = preflight.headers["access-control-allow-headers"].to_str().unwrap();
    assert!(allowed.contains("payment-signature") && allowed.contains("x-payment"), "{allowed}");
    let exposed = preflight.headers["access-control-expose-headers"].to_str().unwrap();
    for name in ["payment-required", "payment-response", "x-payment-response"] {
        assert!(exposed.contains(name), "{exposed}");
    }
    assert_eq!(preflight.headers["access-control-allow-origin"], "*");

    let wrong = world.send(request(&world, Method::DELETE, CHECK, None, b"", None)).await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.headers["allow"], "GET, POST, HEAD, OPTIONS");

    let head = world.send(request(&world, Method::HEAD, "/criteria", None, b"", None)).await;
    assert_eq!((head.status, head.body.clone()), (200, Value::Null), "HEAD answers without a body");

    let mut toll = request(&world, Method::GET, "/toll/payability/criteria", None, b"", None);
    toll.headers.insert("accept", HeaderValue::from_static("application/json"));
    let criteria = world.send(toll).await;
    assert_eq!(criteria.status, 200, "the specification's public path answers");
    let memo =
        world.send(request(&world, Method::POST, "/toll/payability/memo", None, b"", None)).await;
    assert_eq!(memo.status, 402, "{memo}");
}

#[tokio::test]
async fn a_payment_sent_to_the_free_precheck_is_refused_before_verify() {
    let world = World::start().await;
    let payment = world.fresh_payment().await;
    let body = format!("{{\"url\":\"{}\"}}", world.target.url());
    let answer = world
        .send(request(&world, Method::POST, "/precheck", None, body.as_bytes(), Some(&payment)))
        .await;
    assert_eq!(answer.status, 400, "{answer}");
    assert_eq!(answer.body["error"]["rule"], "precheck_takes_no_payment");
    assert_eq!(world.facilitator.verify_calls(), 0);
}

#[tokio::test]
async fn a_body_that_is_an_array_of_the_fields_is_the_wrong_shape() {
    let world = World::start().await;
    let body = format!("[\"{}\"]", world.target.url());
    let answer =
        world.send(request(&world, Method::POST, CHECK, None, body.as_bytes(), None)).await;
    assert_eq!(
        (answer.status, answer.body["error"]["rule"].clone()),
        (400, "body_wrong_shape".into())
    );
}
