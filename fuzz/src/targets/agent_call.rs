//! The JSON-RPC transports' readers on an arbitrary body: the envelope every transport reads
//! first, then, as its endpoint would, MCP's `tools/call` params or A2A's message. The envelope
//! is exactly JSON-RPC 2.0's (an independent reading below); a call read names one of the agent
//! calls with object arguments and carries a payment and a proof exactly when its metadata
//! does; a payment decodes as the same payload does over MCP (one payment whatever transport);
//! an A2A task id carries its call back; everything else is a closed-form error code.
//!
//! Input: the request body.

use payability_core::payment::x402::decode_payment_object;
use payability_runtime::api::fuzzing::{
    AgentCall, EnvelopeRead, read_envelope, read_message, read_tool_call,
};
use payability_runtime::routes::Route;
use serde_json::{Map, Value, json};

/// The JSON-RPC transports' body cap.
pub const MAX_LEN: usize = 262_144;

/// JSON-RPC's own invalid-params code (A2A's "no skill" shares it).
const INVALID_PARAMS: i64 = -32602;
/// A2A's "task not found".
const TASK_NOT_FOUND: i64 = -32001;

pub fn run(data: &[u8]) {
    let read = read_envelope(data);
    let Ok(json) = serde_json::from_slice::<Value>(data) else {
        assert_eq!(read, EnvelopeRead::Malformed { id: Value::Null, code: -32700 }, "not JSON");
        return;
    };
    assert_eq!(read, json_rpc(&json), "the envelope differs from JSON-RPC 2.0");
    let EnvelopeRead::Call { method, params, .. } = read else {
        return;
    };
    let params = match params {
        Value::Null => Map::new(),
        Value::Object(params) => params,
        _ => return,
    };
    match method.as_str() {
        "tools/call" => tool_call(params),
        "SendMessage" | "message/send" => message(params),
        _ => {}
    }
}

/// What JSON-RPC 2.0 makes of a JSON value: a request needs `"jsonrpc": "2.0"`, a string
/// method, and, to be answered, a string or integer id; `params`, when present, is structured.
fn json_rpc(json: &Value) -> EnvelopeRead {
    const INVALID_REQUEST: i64 = -32600;
    let invalid = |id: Option<&Value>| EnvelopeRead::Malformed {
        id: id.cloned().unwrap_or(Value::Null),
        code: INVALID_REQUEST,
    };
    let Value::Object(object) = json else {
        return invalid(None);
    };
    let id = object.get("id");
    let id_valid = match id {
        None | Some(Value::String(_)) => true,
        Some(Value::Number(number)) => number.is_i64() || number.is_u64(),
        Some(_) => false,
    };
    if !id_valid {
        return invalid(None);
    }
    let Some(Value::String(method)) = object.get("method") else {
        return invalid(id);
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(id);
    }
    let Some(id) = id else {
        return EnvelopeRead::Notification;
    };
    let params = match object.get("params") {
        None => Value::Null,
        Some(params @ (Value::Object(_) | Value::Array(_))) => params.clone(),
        Some(_) => return invalid(Some(id)),
    };
    EnvelopeRead::Call { id: id.clone(), method: method.clone(), params }
}

/// MCP's `tools/call`: valid exactly for one of our tools' names with object (or absent)
/// arguments and an object (or absent) `_meta`.
fn tool_call(params: Map<String, Value>) {
    let named = params.get("name").and_then(Value::as_str).and_then(agent_call_named);
    let arguments = params.get("arguments").unwrap_or(&Value::Null);
    let meta = params.get("_meta").unwrap_or(&Value::Null);
    let valid = named.is_some()
        && matches!(arguments, Value::Null | Value::Object(_))
        && matches!(meta, Value::Null | Value::Object(_));
    let read = read_tool_call(Value::Object(params.clone()));
    let call = match read {
        Ok(call) => call,
        Err(code) => {
            assert!(!valid, "a valid tools/call was refused");
            assert_eq!(code, INVALID_PARAMS);
            return;
        }
    };
    assert!(valid, "an invalid tools/call was read");
    assert_eq!(Some(call.route), named);
    let want_arguments = match arguments {
        Value::Object(arguments) => arguments.clone(),
        _ => Map::new(),
    };
    assert_eq!(call.arguments, want_arguments, "the arguments, as sent");
    assert_eq!((call.task_id.as_ref(), call.context_id.as_ref()), (None, None));
    let meta = meta.as_object().cloned().unwrap_or_default();
    assert_carried(&call, &meta, "x402/payment");
}

/// A2A's message: a call names one of the skills; its task id, sent back, names the same call;
/// an error is invalid params, or task not found for a task id this endpoint did not issue.
fn message(params: Map<String, Value>) {
    let sent = params.get("message").cloned().unwrap_or(Value::Null);
    let call = match read_message(params) {
        Ok(call) => call,
        Err(code) => {
            let task_id = sent.get("taskId").and_then(Value::as_str).unwrap_or("");
            if task_id.is_empty() {
                assert_eq!(code, INVALID_PARAMS, "a new message's refusal");
            } else {
                assert!([INVALID_PARAMS, TASK_NOT_FOUND].contains(&code), "code {code}");
            }
            return;
        }
    };
    assert!(Route::AGENT_CALLS.contains(&call.route), "a skill that is not an agent call");
    let context = sent.get("contextId").and_then(Value::as_str).filter(|id| !id.is_empty());
    assert_eq!(call.context_id.as_deref(), context, "the context, as sent");
    let metadata = sent.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    assert_carried(&call, &metadata, "x402.payment.payload");

    let task_id = call.task_id.clone().expect("an A2A call has a task id");
    let continued = json!({"message": {"taskId": task_id, "parts": [{"text": "criteria"}]}});
    let Value::Object(continued) = continued else { unreachable!("an object literal") };
    let again = read_message(continued).expect("a task id we issued names its call");
    assert_eq!((again.route, &again.arguments), (call.route, &call.arguments), "the call again");
    assert_eq!(again.task_id, call.task_id, "the same task");
}

/// A payment and a sign-in proof are carried exactly when `metadata` holds them; a payment
/// without fractional-looking numbers decodes as the same payload does over MCP.
fn assert_carried(call: &AgentCall, metadata: &Map<String, Value>, payment_key: &str) {
    let payload = metadata.get(payment_key);
    assert_eq!(call.payment.is_some(), payload.is_some(), "a payment exactly when sent");
    assert_eq!(call.proof.is_some(), metadata.contains_key("sign-in-with-x"), "a proof when sent");
    if let (Some(decoded), Some(payload)) = (&call.payment, payload)
        && !has_float(payload)
    {
        assert_eq!(decoded, &decode_payment_object(payload), "one payment whatever transport");
    }
}

/// The agent call named `name`, if it is one.
fn agent_call_named(name: &str) -> Option<Route> {
    Route::AGENT_CALLS.into_iter().find(|route| route.name() == name)
}

/// Whether a JSON value holds a number serde reads as a float (A2A reads whole ones as
/// integers first, as a protobuf `Struct` client sends them).
fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(fields) => fields.values().any(has_float),
        _ => false,
    }
}
