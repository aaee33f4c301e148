//! `POST /mcp` in MCP 2026-07-28's stateless era, beside the handshake era of `mcp.rs`:
//! `server/discover`, the envelope and cache hints of every result, x402's two bindings of
//! an offer (the tool result, and `payment_required` for a client that advertises
//! `org.x402/payment`), a paid call, and the refusals (a header unequal to the body, an
//! unspoken version, an unknown method) answered with their 2026-07-28 statuses, nothing
//! run. The official SDK's view of the same is `shared/cli/tests/mcp_stateless.rs`.

use http::{HeaderMap, HeaderValue, Method};
use payability_runtime::api::ApiRequest;
use serde_json::{Value, json};

use crate::paid_flow::world::{MCP, Transport, World};

/// The revision these requests speak.
const VERSION: &str = "2026-07-28";

/// `params._meta` of a 2026-07-28 request, advertising x402's extension when `x402` is set,
/// with `extra` members (a payment, a proof) added.
fn meta(x402: bool, extra: Value) -> Value {
    let extensions = if x402 { json!({"org.x402/payment": {}}) } else { json!({}) };
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions},
    });
    if let Value::Object(extra) = extra {
        meta.as_object_mut().unwrap().extend(extra);
    }
    meta
}

/// A `POST /mcp` of `method` with `params`, its headers mirroring the body as the 2026-07-28
/// clients send them.
fn post(method: &str, params: Value) -> ApiRequest {
    let mut headers = HeaderMap::new();
    headers.insert("mcp-protocol-version", HeaderValue::from_static(VERSION));
    headers.insert("mcp-method", method.parse().unwrap());
    if let Some(name) = params["name"].as_str() {
        headers.insert("mcp-name", name.parse().unwrap());
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    ApiRequest {
        method: Method::POST,
        path: MCP.to_owned(),
        query: None,
        headers,
        body: body.to_string().into_bytes(),
        source_ip: Some("127.0.0.1".parse().unwrap()),
        public_base_url: None,
        request_id: "mcp-stateless-test".to_owned(),
    }
}

/// `tools/call` of `name` with `arguments` and the `_meta` given.
fn call(name: &str, arguments: Value, meta: Value) -> ApiRequest {
    post("tools/call", json!({"name": name, "arguments": arguments, "_meta": meta}))
}

/// Sends `request`; the HTTP status and the JSON-RPC answer.
async fn send(world: &World, request: ApiRequest) -> (u16, Value) {
    let response = world.service.handle(request).await;
    (response.status().as_u16(), serde_json::from_slice(response.body()).expect("JSON-RPC"))
}

#[tokio::test]
async fn discover_names_both_eras_the_tools_and_x402s_extension_publicly() {
    let world = World::start().await;
    let (status, answer) =
        send(&world, post("server/discover", json!({"_meta": meta(false, json!({}))}))).await;
    assert_eq!(status, 200, "{answer}");
    let result = &answer["result"];
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    assert_eq!(result["capabilities"]["extensions"], json!({"org.x402/payment": {}}), "{answer}");
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": false}));
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "payability-verdict");
    assert!(result["instructions"].as_str().is_some_and(|i| i.contains("payment_required")));
    let hints = (&result["resultType"], &result["cacheScope"], &result["ttlMs"]);
    assert_eq!(hints, (&json!("complete"), &json!("public"), &json!(300_000)));
}

/// Each result's type and cache hints: the tool list and the criteria are the same for every
/// caller; a pre-check, an offer and a verdict are the caller's own.
#[tokio::test]
async fn every_result_carries_its_type_and_true_cache_hints() {
    let world = World::start().await;
    let url = world.target.url();
    let requests = [
        (
            "tools/list",
            post("tools/list", json!({"_meta": meta(false, json!({}))})),
            "public",
            300_000,
        ),
        ("criteria", call("criteria", json!({}), meta(false, json!({}))), "public", 300_000),
        ("precheck", call("precheck", json!({"url": url}), meta(false, json!({}))), "private", 0),
        ("check", call("check", json!({"url": url}), meta(false, json!({}))), "private", 0),
    ];
    for (what, request, scope, ttl) in requests {
        let (status, answer) = send(&world, request).await;
        let result = &answer["result"];
        assert_eq!(status, 200, "{what}: {answer}");
        let hints = (&result["resultType"], &result["cacheScope"], &result["ttlMs"]);
        assert_eq!(hints, (&json!("complete"), &json!(scope), &json!(ttl)), "{what}: {answer}");
    }
    assert_eq!(world.target.hits(), 0, "an unpaid check fetches nothing");
}

/// x402's bindings of one offer: without the extension, the tool result of the handshake era
/// (plus its 2026-07-28 envelope); with it, `payment_required` carrying the same
/// `PaymentRequired`. A sign-in challenge offers no payment, so it stays a tool result.
#[tokio::test]
async fn an_offer_is_payment_required_only_for_a_client_of_the_extension() {
    let world = World::start().await;
    let url = world.target.url();
    let (_, plain) = send(&world, call("check", json!({"url": url}), meta(false, json!({})))).await;
    let tool_result = &plain["result"];
    assert_eq!(
        (&tool_result["isError"], &tool_result["resultType"]),
        (&json!(true), &json!("complete"))
    );
    let (status, bound) =
        send(&world, call("check", json!({"url": url}), meta(true, json!({})))).await;
    let result = &bound["result"];
    assert_eq!((status, &result["resultType"]), (200, &json!("payment_required")), "{bound}");
    assert_eq!((&result["cacheScope"], &result["ttlMs"]), (&json!("private"), &json!(0)));
    assert!(result.get("isError").is_none() && result.get("content").is_none(), "{bound}");
    let offered = &result["paymentRequired"];
    assert_eq!(offered["x402Version"], 2, "{bound}");
    // The same terms; each offer has its own memo.
    let terms = |offer: &Value| {
        let mut accepted = offer["accepts"][0].clone();
        accepted["extra"].as_object_mut().expect("extra").remove("memo");
        accepted
    };
    assert_eq!(terms(offered), terms(&tool_result["structuredContent"]), "the same offer");

    let caller = json!({"url": url, "caller": "11111111111111111111111111111111"});
    let (_, sign_in) = send(&world, call("precheck", caller, meta(true, json!({})))).await;
    let result = &sign_in["result"];
    assert_eq!((&result["resultType"], &result["isError"]), (&json!("complete"), &json!(true)));
    assert_eq!(result["structuredContent"]["accepts"], json!([]), "offers no payment: {sign_in}");
    assert_eq!(world.facilitator.verify_calls(), 0);
}

/// A paid call in the stateless era is the same purchase: the verdict, the settlement in
/// `_meta`, settled once.
#[tokio::test]
async fn a_paid_call_settles_once_and_carries_the_settlement() {
    let world = World::start().await;
    let payment = world.fresh_payment_via(Transport::Mcp).await;
    let paid = meta(true, json!({"x402/payment": payment.payload()}));
    let (status, answer) =
        send(&world, call("check", json!({"url": world.target.url()}), paid)).await;
    let result = &answer["result"];
    assert_eq!((status, &result["isError"]), (200, &json!(false)), "{answer}");
    assert_eq!(result["structuredContent"]["op"], "check", "{answer}");
    assert_eq!(result["_meta"]["x402/payment-response"]["success"], true, "{answer}");
    assert_eq!((&result["cacheScope"], &result["ttlMs"]), (&json!("private"), &json!(0)));
    assert_eq!((world.facilitator.settle_calls(), world.target.hits()), (1, 1));
}

/// Refusals of the stateless era (request => status and code), each with nothing run: not
/// verified, not settled, not fetched.
#[tokio::test]
async fn refusals_take_their_2026_07_28_statuses_and_run_nothing() {
    let world = World::start().await;
    let payment = world.fresh_payment_via(Transport::Mcp).await;
    let paid = || meta(false, json!({"x402/payment": payment.payload()}));
    let check = || call("check", json!({"url": world.target.url()}), paid());
    let with = |mut request: ApiRequest, name: &'static str, value: &'static str| {
        request.headers.insert(name, HeaderValue::from_static(value));
        request
    };
    let without = |mut request: ApiRequest, name: &'static str| {
        request.headers.remove(name);
        request
    };
    let mut old_meta = paid();
    old_meta["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let vectors: Vec<(&str, ApiRequest, u16, i64)> = vec![
        ("no version header", without(check(), "mcp-protocol-version"), 400, -32020),
        (
            "another version header",
            with(check(), "mcp-protocol-version", "2025-11-25"),
            400,
            -32020,
        ),
        ("no method header", without(check(), "mcp-method"), 400, -32020),
        ("another method header", with(check(), "mcp-method", "tools/list"), 400, -32020),
        ("no name header", without(check(), "mcp-name"), 400, -32020),
        ("another tool named", with(check(), "mcp-name", "memo"), 400, -32020),
        (
            "an unspoken version",
            with(
                call("check", json!({"url": world.target.url()}), old_meta),
                "mcp-protocol-version",
                "1900-01-01",
            ),
            400,
            -32022,
        ),
        ("ping is gone", post("ping", json!({"_meta": meta(false, json!({}))})), 404, -32601),
        (
            "initialize is gone",
            post("initialize", json!({"_meta": meta(false, json!({}))})),
            404,
            -32601,
        ),
        (
            "no capabilities",
            post(
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}),
            ),
            400,
            -32602,
        ),
        ("a tool not ours", call("nope", json!({}), paid()), 400, -32602),
    ];
    for (what, request, status, code) in vectors {
        let (got, answer) = send(&world, request).await;
        assert_eq!((got, &answer["error"]["code"]), (status, &json!(code)), "{what}: {answer}");
        assert_eq!(answer["id"], 7, "{what}");
    }
    let (_, unsupported) =
        send(&world, with(post("tools/list", json!({})), "mcp-protocol-version", "1900-01-01"))
            .await;
    assert_eq!(unsupported["error"]["data"]["requested"], "1900-01-01", "{unsupported}");
    assert_eq!(unsupported["error"]["data"]["supported"][0], VERSION, "{unsupported}");
    let ran =
        (world.facilitator.verify_calls(), world.facilitator.settle_calls(), world.target.hits());
    assert_eq!(ran, (0, 0, 0), "nothing run");
}
