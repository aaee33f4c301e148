//! JSON-RPC 2.0 answered over HTTP, as the JSON-RPC routes (MCP, A2A, the page's relay) answer
//! it: a result or a closed-form error (a code and a static message, never a received value)
//! with HTTP 200, unless the transport names another status. What each method means, and the
//! message of each of its errors, is the transport's own (`mcp/`, `a2a/error.rs`); reading a
//! message is [`crate::jsonrpc`]'s.

use http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use crate::jsonrpc::Success;
pub(super) use crate::jsonrpc::{Envelope, Failure, Malformed, code, read};

use super::respond::{ApiResponse, json_response};

/// The answer carrying `result` for the request `id`.
pub(super) fn result(id: &Value, result: impl Serialize) -> ApiResponse {
    json_response(StatusCode::OK, &Success::new(id, result))
}

/// The answer carrying the error `code` with its static `message` for the request `id`
/// (null when the request had none that could be read).
pub(super) fn error(id: &Value, code: i64, message: &'static str) -> ApiResponse {
    failure(&Failure::plain(id, code, message), StatusCode::OK)
}

/// The answer carrying `failure` with `status`: 200 but where the transport names another
/// (MCP's stateless era answers its errors 400 and 404).
pub(super) fn failure(failure: &Failure, status: StatusCode) -> ApiResponse {
    json_response(status, failure)
}

/// The answer MCP and A2A give a body that is not one request: its code and static message,
/// under the id read (the page's relay says less, [`error`] directly).
pub(super) fn malformed(malformed: &Malformed) -> ApiResponse {
    failure(&malformed.failure(), StatusCode::OK)
}
