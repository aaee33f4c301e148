//! The JSON-RPC transports' readers of outside bytes as public functions, for the fuzz
//! targets (`fuzz/`, the only builder of the `fuzzing` feature): the envelope every
//! transport reads first, MCP's era (its mirrored headers held to its body), MCP's
//! `tools/call` and A2A's message. Each answers what its endpoint
//! reads, before anything is bought, fetched or stored.

use serde_json::{Map, Value};

pub use super::agent_call::AgentCall;
use super::jsonrpc::{self, Envelope};
pub use crate::mcp::era::Era;

/// A body as the JSON-RPC transports read it.
#[derive(Debug, Clone, PartialEq)]
pub enum EnvelopeRead {
    /// A request: its id, its method and its `params` (null when absent).
    Call {
        /// The id to answer under.
        id: Value,
        /// The method named.
        method: String,
        /// The `params`, as sent.
        params: Value,
    },
    /// A notification: nothing is answered.
    Notification,
    /// Not one request: the error code answered, under the id read (null when none).
    Malformed {
        /// The id answered under.
        id: Value,
        /// The JSON-RPC error code.
        code: i64,
    },
}

/// Reads a body as one JSON-RPC 2.0 request (MCP, A2A and the page's relay alike).
pub fn read_envelope(body: &[u8]) -> EnvelopeRead {
    match jsonrpc::read(body) {
        Ok(Envelope::Call(call)) => {
            EnvelopeRead::Call { id: call.id, method: call.method, params: call.params }
        }
        Ok(Envelope::Notification) => EnvelopeRead::Notification,
        Err(malformed) => EnvelopeRead::Malformed { id: malformed.id, code: malformed.kind.code() },
    }
}

/// The era `POST /mcp` serves a request in, from its headers (name and value bytes; a value
/// no HTTP server hands over, with a control character, is left out) and its body: None when
/// the body is not one call with object params, else the era or the JSON-RPC error code.
pub fn read_mcp_era(headers: &[(&str, &[u8])], body: &[u8]) -> Option<Result<Era, i64>> {
    let mut map = http::HeaderMap::new();
    for (name, value) in headers {
        let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_bytes(value))
        else {
            continue;
        };
        map.append(name, value);
    }
    super::mcp::read_era(&map, body)
}

/// Reads MCP `tools/call`'s params: the call, or the JSON-RPC error code.
pub fn read_tool_call(params: Value) -> Result<AgentCall, i64> {
    super::mcp::read_tool_call(params)
}

/// Reads A2A `SendMessage`'s (or `message/send`'s) params: the call, or the JSON-RPC error
/// code.
pub fn read_message(params: Map<String, Value>) -> Result<AgentCall, i64> {
    super::a2a::read_message(params)
}
