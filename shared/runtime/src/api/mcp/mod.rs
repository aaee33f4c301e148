//! `POST /mcp`: MCP's Streamable HTTP transport in its stateless form (one JSON-RPC 2.0
//! request per POST, answered with JSON; no session, no SSE stream, no server-to-client
//! request), the second transport of one purchase ([`super::purchase`]). The tools are the
//! free routes `criteria` and `precheck` and the paid ones `check` and `memo` ([`tools`]); a
//! paid call is the same purchase as `POST /check`, its payment in
//! `params._meta["x402/payment"]` and the settlement in `result._meta["x402/payment-response"]`
//! (coinbase/x402 `specs/transports-v2/mcp.md`), answered by [`call`].
//!
//! Every request gets HTTP 200 with a JSON-RPC response, errors included (closed form: a code
//! and a static message, never a received value); a notification (no `id`) gets 202 and no
//! body. The body cap, the methods (`POST` only: 405 otherwise) and the log line are the
//! route's, as for every route; a request from a browser on another origin is 403
//! `origin_forbidden` (the transport's DNS-rebinding rule).

mod call;
mod error;
mod tools;

use http::StatusCode;
use serde_json::{Value, json};

use super::jsonrpc::{self, Envelope};
use super::request::ApiRequest;
use super::respond::{ApiResponse, error};
use super::service::{Service, Stores};
use crate::rules::ApiError;
use error::McpError;

/// The request headers an MCP client sends beside its body (the Streamable HTTP transport's
/// protocol version, after `initialize`): allowed in a CORS preflight.
pub(super) const REQUEST_HEADERS: [&str; 1] = ["mcp-protocol-version"];

/// The MCP revisions this endpoint speaks, newest first: `initialize` answers the client's
/// when it is one of them, else the newest.
const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `tools/call`'s params, read as the fuzz targets see them (the `fuzzing` feature): the call,
/// its payment decoded as a paid tool decodes it, or the JSON-RPC error code.
#[cfg(feature = "fuzzing")]
pub(super) fn read_tool_call(params: Value) -> Result<super::agent_call::AgentCall, i64> {
    use payability_core::payment::x402::decode_payment_object;

    let call = call::read_call(params).map_err(McpError::code)?;
    let Value::Object(arguments) = call.arguments else {
        unreachable!("read_call takes object arguments only")
    };
    Ok(super::agent_call::AgentCall {
        route: call.tool.route(),
        arguments,
        task_id: None,
        context_id: None,
        payment: call.payment.as_ref().map(decode_payment_object),
        proof: call.proof,
    })
}

/// The `initialize` result: the revision agreed, the one capability (tools, a fixed list)
/// and who we are.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let agreed = PROTOCOL_VERSIONS.into_iter().find(|v| Some(*v) == asked);
    json!({
        "protocolVersion": agreed.unwrap_or(PROTOCOL_VERSIONS[0]),
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "payability-verdict", "version": env!("CARGO_PKG_VERSION")},
        "instructions": tools::instructions(),
    })
}

impl<S: Stores> Service<S> {
    /// `POST /mcp`: one JSON-RPC request, answered; a browser's foreign `Origin` is 403
    /// `origin_forbidden` first.
    pub(super) async fn mcp(&self, request: &ApiRequest) -> ApiResponse {
        if !self.origin_allowed(request) {
            return error(ApiError::OriginForbidden);
        }
        let mut call = match jsonrpc::read(&request.body) {
            Ok(Envelope::Call(call)) => call,
            // A notification (`notifications/initialized`, a cancellation): nothing to answer.
            Ok(Envelope::Notification) => return ApiResponse::empty(StatusCode::ACCEPTED),
            Err(malformed) => return malformed.answer(),
        };
        let Some(params) = call.object_params() else {
            return McpError::InvalidParams.answer(&call.id);
        };
        let (id, params) = (call.id, Value::Object(params));
        match call.method.as_str() {
            "initialize" => jsonrpc::result(&id, initialize(&params)),
            "ping" => jsonrpc::result(&id, json!({})),
            "tools/list" => jsonrpc::result(&id, json!({"tools": tools::listed()})),
            "tools/call" => match self.call_tool(request, params).await {
                Ok(answer) => {
                    let telemetry = *answer.telemetry();
                    jsonrpc::result(&id, answer).with_telemetry(telemetry)
                }
                Err(refused) => refused.answer(&id),
            },
            _ => McpError::MethodNotFound.answer(&id),
        }
    }
}
