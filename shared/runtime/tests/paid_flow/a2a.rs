//! How `POST /a2a` meets A2A clients: the JSON-RPC envelope (a table of requests and the error
//! codes they get), the methods it does not offer, the extension's activation and echo, the
//! free skills, the refusals a paid skill gives before any payment is read, both wire shapes
//! (A2A 1.0's `SendMessage`, A2A 0.3's `message/send`) through a whole paid round continued by
//! task id, and one payment bought over A2A delivered again over HTTP and MCP by the same
//! rules. The kill points, receipts, replays and hostile proofs over A2A are in their own
//! files (`Transport::ALL`).

use http::{HeaderMap, HeaderValue, Method};
use payability_core::payment::x402::MAX_PAYMENT_PAYLOAD_BYTES;
use payability_runtime::api::ApiRequest;
use serde_json::{Value, json};

use crate::paid_flow::expect;
use crate::paid_flow::world::{A2A, PUBLIC_BASE_URL, Transport, World, X402_A2A_EXTENSION};

/// The x402 extension's URI as x402's own A2A transport text names it.
const X402_A2A_EXTENSION_V01: &str = "https://github.com/google-a2a/a2a-x402/v0.1";

/// Request headers, by name.
type Headers<'a> = &'a [(&'static str, &'a str)];

/// A `POST /a2a` of `body` from loopback with `headers`.
fn a2a_post(body: &[u8], headers: Headers<'_>) -> ApiRequest {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        map.insert(*name, HeaderValue::from_str(value).unwrap());
    }
    ApiRequest {
        method: Method::POST,
        path: A2A.to_owned(),
        query: None,
        headers: map,
        body: body.to_vec(),
        source_ip: Some("127.0.0.1".parse().unwrap()),
        public_base_url: None,
        request_id: "a2a-test".to_owned(),
    }
}

/// Sends `body` with the x402 extension activated; reads the JSON-RPC answer (HTTP 200 always).
async fn rpc(world: &World, body: &Value) -> Value {
    let headers = [("a2a-extensions", X402_A2A_EXTENSION)];
    let response = world.service.handle(a2a_post(body.to_string().as_bytes(), &headers)).await;
    assert_eq!(response.status(), 200, "every JSON-RPC request is answered 200");
    serde_json::from_slice(response.body()).expect("a JSON-RPC answer")
}

/// `method` sending `message` (JSON-RPC id 1).
fn send(method: &str, message: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}})
}

/// An A2A 1.0 message with one data part.
fn data_message(data: Value) -> Value {
    json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"data": data}]})
}

#[tokio::test]
async fn the_envelope_is_json_rpc_2_with_closed_form_errors() {
    let world = World::start().await;
    let url = world.target.url();
    // request body => the error code, and the id echoed
    let vectors: [(Value, i64, Value); 12] = [
        (json!("not an object"), -32600, Value::Null),
        (json!([{"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}]), -32600, Value::Null),
        (json!({"jsonrpc": "2.0", "id": null, "method": "SendMessage"}), -32600, Value::Null),
        (json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}), -32601, json!(2)),
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage", "params": []}),
            -32602,
            json!(3),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 4, "method": "SendMessage", "params": {}}),
            -32602,
            json!(4),
        ),
        (send("SendMessage", json!({"parts": [{"text": "hello, agent"}]})), -32602, json!(1)),
        (
            send("SendMessage", data_message(json!({"skill": "refund", "url": url}))),
            -32602,
            json!(1),
        ),
        (send("SendMessage", json!({"taskId": "task-7", "parts": []})), -32001, json!(1)),
        (
            json!({"jsonrpc": "2.0", "id": "g", "method": "GetTask", "params": {"id": "x"}}),
            -32001,
            json!("g"),
        ),
        (json!({"jsonrpc": "2.0", "id": 5, "method": "SendStreamingMessage"}), -32004, json!(5)),
        (
            json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/pushNotificationConfig/set"}),
            -32004,
            json!(6),
        ),
    ];
    for (body, code, id) in vectors {
        let answer = rpc(&world, &body).await;
        assert_eq!(answer["jsonrpc"], "2.0", "{body}: {answer}");
        assert_eq!(
            (answer["error"]["code"].clone(), answer["id"].clone()),
            (json!(code), id),
            "{body}: {answer}"
        );
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(
            !message.is_empty() && !message.contains("refund") && !message.contains("task-7"),
            "closed form: {answer}"
        );
    }
    let not_json = world.service.handle(a2a_post(b"{", &[])).await;
    let answer: Value = serde_json::from_slice(not_json.body()).unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    let other_version = a2a_post(
        send("SendMessage", data_message(json!({"skill": "criteria"}))).to_string().as_bytes(),
        &[("a2a-version", "2.0")],
    );
    let answer: Value =
        serde_json::from_slice(world.service.handle(other_version).await.body()).unwrap();
    assert_eq!(answer["error"]["code"], -32009, "{answer}");
    assert_eq!(world.facilitator.verify_calls(), 0, "no error reached the facilitator");
    assert_eq!(world.target.hits(), 0, "nothing fetched");
}

#[tokio::test]
async fn a_paid_skill_needs_the_extension_which_either_uri_activates_and_the_answer_echoes() {
    let world = World::start().await;
    let message =
        send("SendMessage", data_message(json!({"skill": "check", "url": world.target.url()})));
    let body = message.to_string();
    // the activating headers => whether the skill ran, and the URI echoed
    let vectors: [(Headers<'_>, Option<&str>); 4] = [
        (&[], None),
        (&[("a2a-extensions", "https://other.example/ext")], None),
        (&[("a2a-extensions", X402_A2A_EXTENSION)], Some(X402_A2A_EXTENSION)),
        (&[("x-a2a-extensions", X402_A2A_EXTENSION_V01)], Some(X402_A2A_EXTENSION_V01)),
    ];
    for (headers, echoed) in vectors {
        let response = world.service.handle(a2a_post(body.as_bytes(), headers)).await;
        let answer: Value = serde_json::from_slice(response.body()).unwrap();
        let http = response.into_http();
        match echoed {
            None => assert_eq!(answer["error"]["code"], -32008, "{headers:?}: {answer}"),
            Some(uri) => {
                let state = &answer["result"]["task"]["status"]["state"];
                assert_eq!(state, "TASK_STATE_INPUT_REQUIRED", "{headers:?}: {answer}");
                for name in ["a2a-extensions", "x-a2a-extensions"] {
                    assert_eq!(http.headers()[name], uri, "{name} echoes the activation");
                }
            }
        }
    }
    // The free skills need no extension.
    let criteria = send("SendMessage", data_message(json!({"skill": "criteria"}))).to_string();
    let answer: Value = serde_json::from_slice(
        world.service.handle(a2a_post(criteria.as_bytes(), &[])).await.body(),
    )
    .unwrap();
    assert_eq!(answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
}

#[tokio::test]
async fn the_free_skills_answer_without_payment() {
    let world = World::start().await;
    let criteria =
        rpc(&world, &send("SendMessage", json!({"parts": [{"text": "criteria"}]}))).await;
    let task = &criteria["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{criteria}");
    assert_eq!(task["artifacts"][0]["name"], "criteria");
    assert!(task["artifacts"][0]["parts"][0]["data"]["signing_keys"].is_array(), "{criteria}");
    assert!(
        task["status"]["message"].get("metadata").is_none(),
        "nothing of a payment: {criteria}"
    );

    let url = world.target.url();
    let precheck =
        rpc(&world, &send("SendMessage", data_message(json!({"skill": "precheck", "url": url}))))
            .await;
    let answer = &precheck["result"]["task"]["artifacts"][0]["parts"][0]["data"];
    assert_eq!(answer["in_policy"], true, "{precheck}");
    assert!(answer["signature"].is_object(), "signed: {precheck}");

    let too_soon =
        rpc(&world, &send("SendMessage", data_message(json!({"skill": "precheck", "url": url}))))
            .await;
    let task = &too_soon["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED", "{too_soon}");
    let refused = &task["status"]["message"]["parts"][1]["data"];
    assert_eq!(refused["error"]["rule"], "free_precheck_too_soon", "{too_soon}");
    assert_eq!(refused["pay_with_skill"], "check", "names the skill to pay instead");

    let payment = world.fresh_payment_via(Transport::A2a).await;
    let mut paying = data_message(json!({"skill": "precheck", "url": url}));
    paying["metadata"] = json!({"x402.payment.payload": payment.payload()});
    let paid = rpc(&world, &send("SendMessage", paying)).await;
    let task = &paid["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "a payment was presented: {paid}");
    assert_eq!(
        task["status"]["message"]["metadata"]["x402.payment.error"],
        "precheck_takes_no_payment"
    );
    assert_eq!(world.facilitator.verify_calls(), 0, "a free skill never reads a payment");
}

#[tokio::test]
async fn a_paid_skill_refuses_bad_arguments_free_before_reading_the_payment() {
    let world = World::start().await;
    let payment = world.fresh_payment_via(Transport::A2a).await;
    // the data part => the rule of the free refusal
    let vectors = [
        (json!({"skill": "check"}), "body_wrong_shape"),
        (json!({"skill": "check", "url": world.target.url(), "extra": 1}), "body_wrong_shape"),
        (json!({"skill": "check", "url": 7}), "body_wrong_shape"),
        (json!({"skill": "check", "url": "ftp://seller.example/api"}), "scheme_not_http"),
        (json!({"skill": "check", "url": "https://seller.example/api#frag"}), "fragment_in_url"),
    ];
    for (data, rule) in vectors {
        for paying in [false, true] {
            let mut message = data_message(data.clone());
            if paying {
                message["metadata"] = json!({"x402.payment.payload": payment.payload()});
            }
            let answer = rpc(&world, &send("SendMessage", message)).await;
            let task = &answer["result"]["task"];
            let state = if paying { "TASK_STATE_FAILED" } else { "TASK_STATE_REJECTED" };
            assert_eq!(task["status"]["state"], state, "{data}: {answer}");
            let error = &task["status"]["message"]["parts"][1]["data"]["error"];
            assert_eq!(error["rule"], rule, "{data}: {answer}");
            let metadata = &task["status"]["message"]["metadata"];
            assert!(
                metadata.get("x402.payment.receipts").is_none(),
                "nothing said of a settlement: {answer}"
            );
        }
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "refused before /verify");
    assert_eq!(world.target.hits(), 0, "nothing fetched");
}

/// The standalone flow in both wire shapes: the unpaid message gets a task in input-required
/// with our v2 challenge; the message continuing it by task id with the payment completes it
/// with the signed report and the receipt.
#[tokio::test]
async fn both_wire_shapes_pay_a_task_continued_by_its_id() {
    let world = World::start().await;
    let url = world.target.url();
    // (method, the shape's state names, parts and result wrapping)
    for (method, waiting, completed) in [
        ("SendMessage", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"),
        ("message/send", "input-required", "completed"),
    ] {
        let v03 = method == "message/send";
        let text = if v03 {
            json!({"kind": "text", "text": format!("check {url}")})
        } else {
            json!({"text": format!("check {url}")})
        };
        let first = json!({"messageId": "m-1", "role": if v03 { "user" } else { "ROLE_USER" }, "contextId": "ctx-buyer", "parts": [text]});
        let answer = rpc(&world, &send(method, first)).await;
        let task = if v03 { answer["result"].clone() } else { answer["result"]["task"].clone() };
        assert_eq!(task["status"]["state"], waiting, "{answer}");
        assert_eq!(task["contextId"], "ctx-buyer", "the buyer's context is kept: {answer}");
        assert_eq!(task.get("kind").is_some(), v03, "0.3 names every object's kind: {answer}");
        let status = &task["status"]["message"];
        assert_eq!(status["role"], if v03 { "agent" } else { "ROLE_AGENT" });
        assert!(status["parts"][0]["text"].is_string(), "{answer}");
        assert!(task["status"]["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')), "{answer}");
        let metadata = &status["metadata"];
        assert_eq!(metadata["x402.payment.status"], "payment-required", "{answer}");
        let required = &metadata["x402.payment.required"];
        assert_eq!(required["x402Version"], 2, "{answer}");
        assert_eq!(required["resource"]["url"], format!("{PUBLIC_BASE_URL}/a2a"));
        assert!(
            required["extensions"].get("bazaar").is_none(),
            "bazaar describes HTTP and MCP only"
        );
        assert!(required["extensions"]["sign-in-with-x"].is_object(), "{answer}");
        assert!(metadata.get("x402.payment.error").is_none(), "nothing was refused: {answer}");

        let header = base64_of(required);
        let payment = crate::paid_flow::payment::Payment::v2(&header);
        let mut paying = json!({"messageId": "m-2", "role": "ROLE_USER", "taskId": task["id"], "contextId": "ctx-buyer",
                               "parts": [{"text": "Here is the payment."}],
                               "metadata": {"x402.payment.status": "payment-submitted", "x402.payment.payload": payment.payload()}});
        if v03 {
            paying["kind"] = json!("message");
        }
        let answer = rpc(&world, &send(method, paying)).await;
        let done = if v03 { answer["result"].clone() } else { answer["result"]["task"].clone() };
        assert_eq!(done["status"]["state"], completed, "{answer}");
        assert_eq!(done["id"], task["id"], "the same task");
        let report = &done["artifacts"][0]["parts"][0]["data"];
        assert_eq!(
            (report["op"].clone(), report["state"].clone()),
            (json!("check"), json!("POPULATED")),
            "{answer}"
        );
        assert_eq!(done["artifacts"][0]["parts"][0].get("mediaType").is_some(), !v03);
        let metadata = &done["status"]["message"]["metadata"];
        assert_eq!(metadata["x402.payment.status"], "payment-completed", "{answer}");
        let receipt = &metadata["x402.payment.receipts"][0];
        assert_eq!(receipt["success"], true, "{answer}");
        assert_eq!(receipt["network"], "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
        assert!(receipt["extensions"]["offer-receipt"].is_object(), "the signed receipt: {answer}");
    }
    assert_eq!(world.target.hits(), 2, "one fetch per paid check");
}

/// One payment, one verdict across the three transports: a payment that bought a verdict over
/// A2A buys it again over HTTP and MCP only for its payer, signed in.
#[tokio::test]
async fn a_payment_used_over_a2a_is_re_delivered_by_the_same_rules_over_http_and_mcp() {
    let world = World::start().await;
    let payment = world.fresh_payment_via(Transport::A2a).await;
    let paid = world.buy(Transport::A2a, &payment).await;
    assert!(paid.is_verdict(), "{paid}");
    expect::nothing_of_the_capture(&paid);
    let mut answers = vec![paid];
    for transport in [Transport::Http, Transport::Mcp, Transport::A2a] {
        let unsigned = world.buy(transport, &payment).await;
        expect::sign_in_as_payer(&unsigned);
        answers.push(unsigned);
    }
    let over_mcp = world.buy_signed(Transport::Mcp, &payment).await;
    assert!(over_mcp.is_verdict(), "{over_mcp}");
    answers.push(over_mcp);
    expect::paid_once(&world, &payment, &answers);
}

/// An A2A payment has the payment header's bound, as an MCP payment has.
#[tokio::test]
async fn an_a2a_payment_is_bounded_as_the_payment_header_is() {
    let world = World::start().await;
    for bytes in [250_000, MAX_PAYMENT_PAYLOAD_BYTES + 1] {
        let payment = world.fresh_payment_via(Transport::A2a).await;
        let mut padded = payment.payload();
        padded["padding"] = json!("");
        let base = serde_json::to_vec(&padded).unwrap().len();
        padded["padding"] = json!("x".repeat(bytes - base));
        let mut message = data_message(json!({"skill": "check", "url": world.target.url()}));
        message["metadata"] = json!({"x402.payment.payload": padded});
        let answer = rpc(&world, &send("SendMessage", message)).await;
        let metadata = &answer["result"]["task"]["status"]["message"]["metadata"];
        assert_eq!(metadata["x402.payment.error"], "payment_header_too_large", "{bytes}");
    }
    assert_eq!(world.facilitator.verify_calls(), 0, "never forwarded");
}

/// Standard base64 of a JSON value (the `PAYMENT-REQUIRED` header it would be).
fn base64_of(value: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(value.to_string())
}
