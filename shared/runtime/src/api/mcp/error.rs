//! The JSON-RPC errors MCP's methods answer ([`McpError`], a closed list: a code and a static
//! message, never a received value). A body that is not one request is JSON-RPC's own
//! ([`crate::api::jsonrpc::Malformed`]).

use serde_json::Value;

use crate::api::jsonrpc::{self, code};
use crate::api::respond::ApiResponse;

/// A JSON-RPC error this endpoint answers to a request it read (closed list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum McpError {
    /// A method this endpoint does not offer.
    MethodNotFound,
    /// `params` of another shape, or a tool that is not ours.
    InvalidParams,
}

impl McpError {
    /// The JSON-RPC error code.
    pub(super) fn code(self) -> i64 {
        match self {
            Self::MethodNotFound => code::METHOD_NOT_FOUND,
            Self::InvalidParams => code::INVALID_PARAMS,
        }
    }

    /// A static explanation.
    fn message(self) -> &'static str {
        match self {
            Self::MethodNotFound => {
                "this endpoint offers initialize, ping, tools/list and tools/call (and accepts notifications)"
            }
            Self::InvalidParams => {
                "params must be an object; tools/call needs the name of one of the listed tools and object arguments"
            }
        }
    }

    /// The answer carrying this error for the request `id`.
    pub(super) fn answer(self, id: &Value) -> ApiResponse {
        jsonrpc::error(id, self.code(), self.message())
    }
}
