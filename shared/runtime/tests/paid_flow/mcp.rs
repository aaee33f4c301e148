//! How `POST /mcp` meets MCP clients: the JSON-RPC envelope (a table of requests and the
//! error codes they get), notifications, `initialize`, `ping`, `tools/list`, the free tools,
//! the refusals a paid tool gives before any payment is read, the challenge in
//! `structuredContent` and one paid call end to end. The kill points over MCP are in
//! `kill_points.rs`.

use http::{HeaderMap, Method};
use payability_core::payment::x402::MAX_PAYMENT_PAYLOAD_BYTES;
use payability_runtime::api::ApiRequest;
use serde_json::{Value, json};

use crate::paid_flow::expect;
use crate::paid_flow::world::{MCP, Transport, World};

/// A `POST /mcp` of `body` from loopback.
fn mcp_post(body: &[u8]) -> ApiRequest {
    ApiRequest {
        method: Method::POST,
        path: MCP.to_owned(),
        query: None,
        headers: HeaderMap::new(),
        body: body.to_vec(),
        source_ip: Some("127.0.0.1".parse().unwrap()),
        public_base_url: None,
        request_id: "mcp-test".to_owned(),
    }
}

/// Sends `body` and reads the JSON-RPC answer (HTTP 200 always).
async fn rpc(world: &World, body: &[u8]) -> Value {
    let response = world.service.handle(mcp_post(body)).await;
    assert_eq!(response.status(), 200, "every JSON-RPC request is answered 200");
    serde_json::from_slice(response.body()).expect("a JSON-RPC answer")
}

/// `tools/call` of `name` with `arguments` (and `_meta` when given).
fn call(name: &str, arguments: Value, meta: Option<Value>) -> Vec<u8> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        .to_string()
        .into_bytes()
}

#[tokio::test]
async fn the_envelope_is_json_rpc_2_with_closed_form_errors() {
    let world = World::start().await;
    // request body => the error code, and the id echoed
    let vectors: [(&str, i64, Value); 11] = [
        ("not json", -32700, Value::Null),
        ("[]", -32600, Value::Null),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, -32600, Value::Null),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600, json!(1)),
        (r#"{"jsonrpc":"2.0","id":"a","params":{}}"#, -32600, json!("a")),
        (r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#, -32601, json!(2)),
        (r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}"#, -32602, json!(3)),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}"#,
            -32602,
            json!(4),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"check","arguments":[1]}}"#,
            -32602,
            json!(5),
        ),
    ];
    for (body, code, id) in vectors {
        let answer = rpc(&world, body.as_bytes()).await;
        assert_eq!(answer["jsonrpc"], "2.0", "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
        assert_eq!(answer["id"], id, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(!message.is_empty() && !message.contains("nope"), "closed form: {answer}");
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "no error reached the facilitator");
}

#[tokio::test]
async fn notifications_get_202_and_other_methods_than_post_405() {
    let world = World::start().await;
    let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let accepted = world.service.handle(mcp_post(notification)).await;
    assert_eq!((accepted.status().as_u16(), accepted.body().len()), (202, 0));
    for method in [Method::GET, Method::DELETE] {
        let request = ApiRequest { method: method.clone(), ..mcp_post(b"") };
        let refused = world.service.handle(request).await;
        assert_eq!(refused.status(), 405, "{method}: no SSE stream, no session to delete");
    }
}

#[tokio::test]
async fn initialize_agrees_a_revision_and_ping_answers() {
    let world = World::start().await;
    // the client's revision => the one agreed
    for (asked, agreed) in [("2025-06-18", "2025-06-18"), ("1999-01-01", "2025-11-25")] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": asked, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        }});
        let answer = rpc(&world, body.to_string().as_bytes()).await;
        assert_eq!(answer["result"]["protocolVersion"], agreed, "{answer}");
        assert_eq!(answer["result"]["capabilities"]["tools"]["listChanged"], false);
        assert_eq!(answer["result"]["serverInfo"]["name"], "payability-verdict");
    }
    let pong = rpc(&world, br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
}

#[tokio::test]
async fn tools_list_names_the_free_and_paid_tools_with_their_schemas() {
    let world = World::start().await;
    let answer = rpc(&world, br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
    let tools = answer["result"]["tools"].as_array().expect("a tool list").clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["criteria", "precheck", "check", "memo"]);
    for tool in &tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()), "{tool}");
    }
    for (tool, report) in [(&tools[2], "CheckReport"), (&tools[3], "MemoReport")] {
        assert_eq!(tool["inputSchema"]["required"], json!(["url"]), "{tool}");
        let output = &tool["outputSchema"];
        assert_eq!(output["$ref"], format!("#/components/schemas/{report}"), "{tool}");
        assert!(output["components"]["schemas"][report].is_object(), "standalone: {tool}");
    }
}

#[tokio::test]
async fn the_free_tools_answer_without_payment() {
    let world = World::start().await;
    let criteria = rpc(&world, &call("criteria", json!({}), None)).await;
    let result = &criteria["result"];
    assert_eq!(result["isError"], false, "{criteria}");
    assert!(result["structuredContent"]["signing_keys"].is_array(), "{criteria}");

    let url = world.target.url();
    let precheck = rpc(&world, &call("precheck", json!({"url": url}), None)).await;
    let result = &precheck["result"];
    assert_eq!(
        (result["isError"].clone(), result["structuredContent"]["in_policy"].clone()),
        (json!(false), json!(true))
    );
    assert!(result["structuredContent"]["signature"].is_object(), "signed: {precheck}");

    let too_soon = rpc(&world, &call("precheck", json!({"url": url}), None)).await;
    let refused = &too_soon["result"]["structuredContent"];
    assert_eq!(too_soon["result"]["isError"], true, "{too_soon}");
    assert_eq!(refused["error"]["rule"], "free_precheck_too_soon", "{too_soon}");
    assert_eq!(refused["pay_with_tool"], "check", "names the tool to pay instead");
    assert!(refused.get("accepts").is_none(), "no challenge for the pre-check itself");

    let payment = world.fresh_payment_via(Transport::Mcp).await;
    let meta = json!({"x402/payment": payment.payload()});
    let paid = rpc(&world, &call("precheck", json!({"url": url}), Some(meta))).await;
    let rule = &paid["result"]["structuredContent"]["error"]["rule"];
    assert_eq!(rule, "precheck_takes_no_payment", "{paid}");
    assert_eq!(world.facilitator.verify_calls(), 0, "a free tool never reads a payment");
}

#[tokio::test]
async fn a_paid_tool_refuses_bad_arguments_free_before_reading_the_payment() {
    let world = World::start().await;
    let payment = world.fresh_payment_via(Transport::Mcp).await;
    let meta = json!({"x402/payment": payment.payload()});
    // arguments => the rule of the free refusal
    let vectors = [
        (json!({}), "body_wrong_shape"),
        (json!({"url": world.target.url(), "extra": 1}), "body_wrong_shape"),
        (json!({"url": 7}), "body_wrong_shape"),
        (json!({"url": "ftp://seller.example/api"}), "scheme_not_http"),
    ];
    for (arguments, rule) in vectors {
        let answer = rpc(&world, &call("check", arguments.clone(), Some(meta.clone()))).await;
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{arguments}: {answer}");
        assert_eq!(result["structuredContent"]["error"]["rule"], rule, "{arguments}: {answer}");
        assert!(result.get("_meta").is_none(), "nothing said of a settlement: {answer}");
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "refused before /verify");
    assert_eq!(world.target.hits(), 0, "nothing fetched");
}

#[tokio::test]
async fn an_unpaid_call_gets_the_v2_challenge_and_a_paid_one_the_verdict() {
    let world = World::start().await;
    let url = world.target.url();
    let unpaid = rpc(&world, &call("check", json!({"url": url}), None)).await;
    let result = &unpaid["result"];
    assert_eq!(result["isError"], true, "{unpaid}");
    let challenge = &result["structuredContent"];
    assert_eq!(challenge["x402Version"], 2, "{unpaid}");
    assert_eq!(
        challenge["resource"]["url"],
        format!("{}/mcp", crate::paid_flow::world::PUBLIC_BASE_URL)
    );
    let input = &challenge["extensions"]["bazaar"]["info"]["input"];
    assert_eq!((input["type"].clone(), input["tool"].clone()), (json!("mcp"), json!("check")));
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, challenge, "the text item is the same object");

    let payment = world.fresh_payment_via(Transport::Mcp).await;
    let paid = world.buy(Transport::Mcp, &payment).await;
    assert!(paid.is_verdict(), "{paid}");
    let settlement = paid.settlement().expect("_meta x402/payment-response");
    assert_eq!(settlement["success"], true, "{settlement}");
    expect::nothing_of_the_capture(&paid);
    // The same payment over HTTP: the same purchase, for its payer signed in (not paid twice).
    let unsigned = world.buy(Transport::Http, &payment).await;
    expect::sign_in_as_payer(&unsigned);
    let over_http = world.buy_signed(Transport::Http, &payment).await;
    assert!(over_http.is_verdict(), "{over_http}");
    expect::paid_once(&world, &payment, &[paid, unsigned, over_http]);
}

/// `payment` with a top-level `padding` member that makes its compact JSON `bytes` long.
fn padded(mut payment: Value, bytes: usize) -> Value {
    payment["padding"] = json!("");
    let base = serde_json::to_vec(&payment).unwrap().len();
    payment["padding"] = json!("x".repeat(bytes - base));
    assert_eq!(serde_json::to_vec(&payment).unwrap().len(), bytes);
    payment
}

/// An MCP payment has the payment header's bound: its JSON (compact, as a header carries it)
/// at most [`MAX_PAYMENT_PAYLOAD_BYTES`], what a header at the 16,384-byte cap decodes to. A
/// larger one is refused as a header over the cap is, free, and never reaches `/verify`.
#[tokio::test]
async fn an_mcp_payment_is_bounded_as_the_payment_header_is() {
    let world = World::start().await;
    let url = world.target.url();
    // the payment's JSON bytes => refused before /verify
    let vectors = [
        (250_000, true),
        (MAX_PAYMENT_PAYLOAD_BYTES + 1, true),
        (MAX_PAYMENT_PAYLOAD_BYTES, false),
    ];
    for (bytes, refused) in vectors {
        let payment = world.fresh_payment_via(Transport::Mcp).await;
        let meta = json!({"x402/payment": padded(payment.payload(), bytes)});
        let before = world.facilitator.verify_calls();
        let answer = rpc(&world, &call("check", json!({"url": url}), Some(meta))).await;
        let forwarded = world.facilitator.verify_calls() - before;
        let rule = answer["result"]["structuredContent"]["error"]["rule"].as_str();
        match refused {
            true => assert_eq!((rule, forwarded), (Some("payment_header_too_large"), 0), "{bytes}"),
            false => assert_eq!(forwarded, 1, "{bytes}: {answer}"),
        }
    }
}

/// The `Origin` header, and whether a route that keeps the DNS-rebinding rule serves it: none
/// (a non-browser client), the world's public base URL's origin (case aside) or the request's
/// own base's (`https://abc123.execute-api.us-east-1.amazonaws.com/v1`) is served; any other,
/// a look-alike or one with a path, is not.
pub(crate) const ORIGIN_VECTORS: [(Option<&str>, bool); 11] = [
    (None, true),
    (Some(crate::paid_flow::world::PUBLIC_BASE_URL), true),
    (Some("HTTP://127.0.0.1:1"), true),
    (Some("https://abc123.execute-api.us-east-1.amazonaws.com"), true),
    (Some("https://evil.example"), false),
    (Some("null"), false),
    (Some("http://127.0.0.1:2"), false),
    (Some("http://localhost:1"), false),
    (Some("http://127.0.0.1:1/mcp"), false),
    (Some("https://abc123.execute-api.us-east-1.amazonaws.com.evil.example"), false),
    (Some(""), false),
];

/// A browser's `Origin` is checked (the MCP transport's DNS-rebinding rule): no `Origin` (a
/// non-browser client), the configured public base URL's origin or the request's own base's
/// is served; any other is 403 `origin_forbidden`, nothing run.
#[tokio::test]
async fn a_foreign_browser_origin_is_refused() {
    let world = World::start().await;
    let own_base = "https://abc123.execute-api.us-east-1.amazonaws.com/v1";
    for (origin, served) in ORIGIN_VECTORS {
        let payment = world.fresh_payment_via(Transport::Mcp).await;
        let meta = json!({"x402/payment": payment.payload()});
        let mut request = mcp_post(&call("check", json!({"url": world.target.url()}), Some(meta)));
        request.public_base_url = Some(own_base.to_owned());
        if let Some(origin) = origin {
            request.headers.insert("origin", origin.parse().unwrap());
        }
        let before = world.facilitator.verify_calls();
        let response = world.service.handle(request).await;
        let ran = world.facilitator.verify_calls() - before;
        let answer: Value = serde_json::from_slice(response.body()).expect("a JSON answer");
        let status = response.status().as_u16();
        match served {
            true => assert_eq!((status, ran), (200, 1), "{origin:?}: {answer}"),
            false => assert_eq!(
                (status, answer["error"]["rule"].as_str(), ran),
                (403, Some("origin_forbidden"), 0),
                "{origin:?}: {answer}"
            ),
        }
    }
}
