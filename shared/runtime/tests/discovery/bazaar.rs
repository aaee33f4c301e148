//! Every 402 describes its route for the request's method (the bazaar extension in the v2
//! header, `outputSchema` in the v1 body), validates by the rules of @x402/extensions'
//! bazaar (`validateDiscoveryExtensionSpec`, and `info` against `schema`), keeps the v2
//! header under 8 KB, and still grades POPULATED (check) and BOUND (memo) with the core.

use http::Method;
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::{CheckState, MemoState, grade_check, grade_memo};
use payability_core::policy::{AddressRule, vet_target_url};
use payability_runtime::rules::Refusal;
use serde_json::{Value, json};

use crate::discovery::schema::{assert_valid, errors};
use crate::paid_flow::world::{Answer, PUBLIC_BASE_URL, World};

/// x402-conformance P6 warns above this many bytes of `PAYMENT-REQUIRED`.
const HEADER_WARN_BYTES: usize = 8 * 1024;

/// `validateDiscoveryExtensionSpec` of @x402/extensions 2.27.0, rule for rule.
fn spec_errors(extension: &Value) -> Vec<String> {
    let input = &extension["info"]["input"];
    let mut found = Vec::new();
    if !input.is_object() {
        return vec!["info.input is not an object".into()];
    }
    if input["type"] != "http" {
        return vec![format!("info.input.type {}", input["type"])];
    }
    let method = input["method"].as_str();
    let body_methods = ["POST", "PUT", "PATCH"];
    let methods = ["GET", "HEAD", "DELETE", "POST", "PUT", "PATCH"];
    if method.is_some_and(|m| !methods.contains(&m)) {
        found.push(format!("info.input.method {method:?}"));
    }
    if let Some(body_type) = input.get("bodyType") {
        if !["json", "form-data", "text"].contains(&body_type.as_str().unwrap_or("")) {
            found.push(format!("info.input.bodyType {body_type}"));
        }
        if method.is_some_and(|m| !body_methods.contains(&m)) {
            found.push(format!("bodyType with method {method:?}"));
        }
    }
    found
}

/// What x402scan's validator extracts from a v2 header (`extractSchemas` of
/// @agentcash/discovery): the input schema and the output (example) schema.
fn v2_schemas(header: &Value) -> (bool, bool) {
    let properties = &header["extensions"]["bazaar"]["schema"]["properties"];
    let input = &properties["input"]["properties"];
    let has_input = input["body"].is_object() || input["queryParams"].is_object();
    let has_output = properties["output"]["properties"]["example"].is_object();
    (has_input, has_output)
}

/// Checks one 402 as answered to `method`.
fn check_described(answer: &Answer, method: &Method, route: &str, at: &str) {
    assert_eq!(answer.status, 402, "{at}: {}", answer.body);
    let header = answer.payment_required();
    let bazaar = &header["extensions"]["bazaar"];
    assert!(bazaar.is_object(), "{at}: extensions.bazaar");
    let expected = if method == Method::POST { "POST" } else { "GET" };
    assert_eq!(bazaar["info"]["input"]["method"], expected, "{at}: the request's method");
    assert_eq!(spec_errors(bazaar), Vec::<String>::new(), "{at}");
    // `validateDiscoveryExtension`: info against schema (JSON Schema 2020-12).
    let schema = &bazaar["schema"];
    assert_valid(schema, schema, &bazaar["info"], &format!("{at}: info against schema"));
    assert!(!schema.to_string().contains("$ref"), "{at}: no reference in the bazaar schema");
    assert_eq!(v2_schemas(&header), (true, true), "{at}: x402scan finds input and output schemas");
    let output = &bazaar["info"]["output"];
    assert_eq!(output["type"], "json", "{at}");
    assert_eq!(output["example"]["op"], route, "{at}: the example is this route's report");
    // Input: the example request names the example endpoint where the method puts it.
    let input = &bazaar["info"]["input"];
    if method == Method::POST {
        assert_eq!(
            (&input["bodyType"], &input["body"]["url"]),
            (&json!("json"), &json!("https://seller.example/api")),
            "{at}"
        );
    } else {
        assert_eq!(input["queryParams"]["url"], "https://seller.example/api", "{at}");
        assert!(input.get("bodyType").is_none(), "{at}");
    }

    // v1: accepts[0].outputSchema, as `extractDiscoveryInfoV1` reads it.
    if method != Method::HEAD {
        let offer = &answer.body["accepts"][0];
        let v1 = &offer["outputSchema"];
        assert_eq!(v1["input"]["type"], "http", "{at}: v1");
        assert_eq!(v1["input"]["method"], expected, "{at}: v1 method");
        assert_ne!(v1["input"]["discoverable"], false, "{at}: v1 discoverable");
        let fields = if method == Method::POST { "bodyFields" } else { "queryParams" };
        assert_eq!(v1["input"][fields]["url"]["required"], true, "{at}: v1 {fields}");
        assert!(v1["output"].is_object(), "{at}: v1 output");
        // One example: the v1 body's in full (never echoed), the header's abridged from it.
        for key in ["op", "state", "verdict_line"] {
            assert_eq!(v1["output"][key], output["example"][key], "{at}: one example, {key}");
        }
        assert_eq!(output["example"].as_object().unwrap().len(), 3, "{at}: abridged");
        assert_eq!(answer.body["error"], header["error"], "{at}: one error in both legs");
    }
}

#[tokio::test]
async fn every_402_describes_its_route_for_the_requests_method() {
    let world = World::start().await;
    for route in ["check", "memo"] {
        let path = format!("/{route}");
        let toll = format!("/toll/payability/{route}");
        let cases = [
            (Method::GET, path.as_str(), None),
            (Method::GET, path.as_str(), Some("https://seller.example/api")),
            (Method::HEAD, path.as_str(), None),
            (Method::POST, path.as_str(), None),
            (Method::POST, path.as_str(), Some("https://seller.example/api")),
            (Method::GET, toll.as_str(), Some("https://seller.example/api")),
            (Method::POST, toll.as_str(), None),
        ];
        for (method, at_path, url) in cases {
            let answer = world.call(method.clone(), at_path, url).await;
            check_described(&answer, &method, route, &format!("{method} {at_path} {url:?}"));
        }
    }
    // The pre-check's 402 (the allowance used) describes the op's paid route, as a POST.
    let body = json!({"url": "https://seller.example/api", "op": "memo"});
    assert_eq!(world.precheck(body.clone()).await.status, 200);
    let refused = world.precheck(body).await;
    check_described(&refused, &Method::POST, "memo", "POST /precheck (too soon)");
    assert_eq!(refused.payment_required()["resource"]["url"], format!("{PUBLIC_BASE_URL}/memo"));
}

#[tokio::test]
async fn the_bazaar_example_validates_against_its_schema_and_openapi_has_the_full_report() {
    let world = World::start().await;
    let openapi = world.openapi().await;
    for route in ["check", "memo"] {
        let answer = world.get(&format!("/{route}")).await;
        let full = &openapi["paths"][format!("/{route}")]["post"]["responses"]["200"]["content"]["application/json"]
            ["example"];
        assert_eq!(full, &answer.body["accepts"][0]["outputSchema"]["output"], "{route}");
        assert_eq!(full["op"], route, "the full example report is in /openapi.json");
        let header = answer.payment_required();
        let bazaar = &header["extensions"]["bazaar"];
        let example_schema = &bazaar["schema"]["properties"]["output"]["properties"]["example"];
        let example = &bazaar["info"]["output"]["example"];
        assert!(errors(example_schema, example_schema, example).is_empty());
        // A report missing a key, or with an unknown one, does not validate.
        let mut missing = example.clone();
        missing.as_object_mut().unwrap().remove("state");
        assert!(!errors(example_schema, example_schema, &missing).is_empty());
        let mut extra = example.clone();
        extra["surprise"] = json!(1);
        assert!(!errors(example_schema, example_schema, &extra).is_empty());
    }
}

fn capture(answer: &Answer) -> FetchOutcome {
    FetchOutcome::Captured(Capture {
        status: answer.status,
        payment_required: answer
            .header("payment-required")
            .map(|h| CapturedHeader::of(h.as_bytes())),
        body: CapturedBody::Complete(answer.bytes.clone()),
    })
}

/// A long public base URL (an API Gateway domain, a stage and the public prefix).
const LONG_BASE: &str =
    "https://abcdefghij.execute-api.ap-southeast-2.amazonaws.com/production-stage/toll/payability";

#[tokio::test]
async fn our_402_stays_under_8_kb_and_names_its_own_request_populated_and_bound() {
    let longest_error = Refusal::all().into_iter().map(|r| r.error_text().len()).max().unwrap();
    let seller = "url=https%3A%2F%2Fseller.example%2Fx";
    // (base, method, path, query as it arrived, the public URL a buyer called: WHATWG
    // serialised, percent-encoding kept as it arrived)
    let vectors: [(&str, Method, &str, Option<&str>, String); 11] = [
        (LONG_BASE, Method::GET, "/check", None, format!("{LONG_BASE}/check")),
        (LONG_BASE, Method::GET, "/check", Some(seller), format!("{LONG_BASE}/check?{seller}")),
        (LONG_BASE, Method::GET, "/memo", Some(seller), format!("{LONG_BASE}/memo?{seller}")),
        (LONG_BASE, Method::POST, "/check", None, format!("{LONG_BASE}/check")),
        (LONG_BASE, Method::POST, "/memo", None, format!("{LONG_BASE}/memo")),
        // The base already ends with the public prefix: it is named once.
        (
            LONG_BASE,
            Method::GET,
            "/toll/payability/check",
            Some(seller),
            format!("{LONG_BASE}/check?{seller}"),
        ),
        (PUBLIC_BASE_URL, Method::GET, "/toll/payability/memo", Some(seller), {
            format!("{PUBLIC_BASE_URL}/toll/payability/memo?{seller}")
        }),
        (
            PUBLIC_BASE_URL,
            Method::HEAD,
            "/check",
            Some(seller),
            format!("{PUBLIC_BASE_URL}/check?{seller}"),
        ),
        (
            PUBLIC_BASE_URL,
            Method::POST,
            "/memo",
            Some("v=1"),
            format!("{PUBLIC_BASE_URL}/memo?v=1"),
        ),
        // Unencoded separators stay as they came; `'` is escaped as WHATWG does in a special
        // URL's query; an existing escape is kept, its case too.
        (
            PUBLIC_BASE_URL,
            Method::GET,
            "/check",
            Some("url=https://seller.example/a?b=c&q='%7b'"),
            format!("{PUBLIC_BASE_URL}/check?url=https://seller.example/a?b=c&q=%27%7b%27"),
        ),
        (PUBLIC_BASE_URL, Method::GET, "/memo", Some(""), format!("{PUBLIC_BASE_URL}/memo?")),
    ];
    for (base, method, path, query, public_url) in vectors {
        let at = format!("{method} {base} {path} {query:?}");
        let world = World::with_base(Some(base)).await;
        let call = || {
            let mut request = World::bare(method.clone(), path);
            request.query = query.map(str::to_owned);
            world.send(request)
        };
        let (first, second) = (call().await, call().await);
        // The called URL of a buyer who submits the public URL: the engine's own vetting.
        let called = vet_target_url(&public_url, AddressRule::AllowPrivate).expect("a URL");
        assert_eq!(called.as_str(), public_url, "{at}: the public URL is WHATWG serialised");
        let header = first.payment_required();
        assert_eq!(header["resource"]["url"], public_url, "{at}: v2 resource.url");
        if method != Method::HEAD {
            assert_eq!(first.body["accepts"][0]["resource"], public_url, "{at}: v1 resource");
        }
        let served = first.header("payment-required").unwrap().len();
        let served_error = header["error"].as_str().unwrap().len();
        // The largest this header gets: the longest refusal's error instead of this one
        // (base64: 4 bytes per 3, rounded up).
        let worst = served + (longest_error - served_error).div_ceil(3) * 4 + 4;
        println!("{at}: PAYMENT-REQUIRED {served} bytes (largest refusal: {worst})");
        assert!(worst < HEADER_WARN_BYTES, "{at}: {worst} bytes");
        if method != Method::HEAD {
            let graded = grade_check(called.as_str(), &capture(&first));
            assert_eq!(graded.state, CheckState::Populated, "{at}: {graded:?}");
        }
        if path.ends_with("/memo") && method != Method::HEAD {
            let graded = grade_memo(&capture(&first), &capture(&second));
            assert_eq!(graded.state, MemoState::Bound, "{at}: {graded:?}");
        }
    }
}

#[tokio::test]
async fn a_get_too_long_for_its_paid_retry_is_refused_free_and_a_post_is_not() {
    let bound = payability_runtime::api::MAX_GET_RESOURCE_URL_BYTES;
    let world = World::start().await;
    // The query that makes `<PUBLIC_BASE_URL>/check?<query>` exactly `length` bytes long: a URL of the
    // seller with as many escaped '/' as fit (the URL itself stays under 2,048 bytes), then 'a'.
    let query = |length: usize| {
        let mut query = "url=https://seller.example/".to_owned();
        let total = |query: &str| PUBLIC_BASE_URL.len() + "/check?".len() + query.len();
        while total(&query) + 3 <= length {
            query.push_str("%2F");
        }
        while total(&query) < length {
            query.push('a');
        }
        query
    };
    // (method, query, status)
    let vectors = [
        (Method::GET, query(bound), 402),
        (Method::GET, query(bound + 1), 414),
        (Method::HEAD, query(bound + 1), 414),
        // A backslash is echoed escaped (two bytes in JSON).
        (Method::GET, query(bound - 1) + "\\", 414),
        (Method::GET, query(bound - 2) + "\\", 402),
        (Method::POST, query(bound + 1), 402),
    ];
    for (method, query, status) in vectors {
        let at =
            format!("{method} of {} bytes", PUBLIC_BASE_URL.len() + "/check?".len() + query.len());
        let mut request = World::bare(method.clone(), "/check");
        request.query = Some(query);
        let answer = world.send(request).await;
        assert_eq!(answer.status, status, "{at}: {}", answer.body);
        if status == 414 {
            assert!(answer.header("payment-required").is_none(), "{at}: no offer to pay");
            if method != Method::HEAD {
                assert_eq!(answer.body["error"]["rule"], "url_too_long_for_get", "{at}");
            }
        }
    }
}
