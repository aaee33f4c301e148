//! The JSON-RPC errors MCP's methods answer ([`McpError`], a closed list: a code and a static
//! message, never a received value but for a requested protocol version that has a
//! version's shape). A message that is not one request is JSON-RPC's own
//! ([`crate::jsonrpc::Malformed`]).

use serde_json::{Value, json};

use super::versions::supported_versions;
use crate::jsonrpc::code;

/// MCP 2026-07-28's `HeaderMismatch`: an HTTP header is missing, malformed or disagrees with
/// the body.
pub const HEADER_MISMATCH: i64 = -32020;

/// MCP 2026-07-28's `UnsupportedProtocolVersionError`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The longest `Mcp-Name` header read, in bytes as sent (a tool name is a few bytes; the
/// base64 form of a longer one is refused unread).
pub const MAX_MCP_NAME_HEADER_BYTES: usize = 1_024;

/// A request header of the Streamable HTTP transport that mirrors the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// `MCP-Protocol-Version`: `_meta["io.modelcontextprotocol/protocolVersion"]`.
    ProtocolVersion,
    /// `Mcp-Method`: the request's `method`.
    Method,
    /// `Mcp-Name`: `params.name` of `tools/call`.
    Name,
}

/// A JSON-RPC error this endpoint answers to a request it read (closed list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpError {
    /// A method this server does not offer in the request's era.
    MethodNotFound,
    /// `params` of another shape, or a tool that is not ours.
    InvalidParams,
    /// A stateless request (or `server/discover`) whose `_meta` lacks its version or the
    /// client's capabilities.
    MetaIncomplete,
    /// A mirrored header missing, sent twice, malformed or unequal to the body.
    HeaderMismatch(Header),
    /// A protocol version this server does not speak; `requested` is the version named when
    /// it has a version's shape (`YYYY-MM-DD`), else empty.
    UnsupportedVersion {
        /// The requested version, when it is ten characters of the form `YYYY-MM-DD`.
        requested: String,
    },
}

impl McpError {
    /// The unsupported-version error for `requested`, which it names only when it has a
    /// version's shape.
    pub fn unsupported(requested: &str) -> Self {
        let bytes = requested.as_bytes();
        let dated = bytes.len() == 10
            && bytes.iter().enumerate().all(|(i, b)| match i {
                4 | 7 => *b == b'-',
                _ => b.is_ascii_digit(),
            });
        Self::UnsupportedVersion {
            requested: if dated { requested.to_owned() } else { String::new() },
        }
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i64 {
        match self {
            Self::MethodNotFound => code::METHOD_NOT_FOUND,
            Self::InvalidParams | Self::MetaIncomplete => code::INVALID_PARAMS,
            Self::HeaderMismatch(_) => HEADER_MISMATCH,
            Self::UnsupportedVersion { .. } => UNSUPPORTED_PROTOCOL_VERSION,
        }
    }

    /// A static explanation.
    pub fn message(&self) -> &'static str {
        match self {
            Self::MethodNotFound => {
                "this server offers server/discover, tools/list and tools/call (MCP 2026-07-28), and initialize, ping, tools/list and tools/call (the handshake revisions); notifications are accepted"
            }
            Self::InvalidParams => {
                "params must be an object (its _meta an object); tools/call needs the name of one of the listed tools and object arguments"
            }
            Self::MetaIncomplete => {
                "a 2026-07-28 request (server/discover included) carries params._meta with io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object)"
            }
            Self::HeaderMismatch(Header::ProtocolVersion) => {
                "the MCP-Protocol-Version header must be sent once, as visible ASCII, equal to params._meta[\"io.modelcontextprotocol/protocolVersion\"]"
            }
            Self::HeaderMismatch(Header::Method) => {
                "the Mcp-Method header must be sent once, as visible ASCII, equal to the request's method"
            }
            Self::HeaderMismatch(Header::Name) => {
                "the Mcp-Name header must be sent once with tools/call, as visible ASCII or =?base64?...?= of UTF-8, at most 1,024 bytes, equal to params.name"
            }
            Self::UnsupportedVersion { .. } => "Unsupported protocol version",
        }
    }

    /// The JSON-RPC `error` object: code, message and, for an unsupported version, the
    /// versions spoken.
    pub fn object(&self) -> Value {
        let mut error = json!({"code": self.code(), "message": self.message()});
        if let Self::UnsupportedVersion { requested } = self {
            error["data"] = json!({"supported": supported_versions(), "requested": requested});
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsupported_version_is_named_only_when_it_has_a_versions_shape() {
        let named = |v: &str| match McpError::unsupported(v) {
            McpError::UnsupportedVersion { requested } => requested,
            _ => unreachable!(),
        };
        assert_eq!(named("1900-01-01"), "1900-01-01");
        for hostile in ["2026-07-28, 2025-11-25", "<script>", "2026-07-2x", "", "19000-01-01"] {
            assert_eq!(named(hostile), "", "{hostile}");
        }
        let object = McpError::unsupported("1900-01-01").object();
        assert_eq!(object["code"], UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(object["data"]["supported"][0], "2026-07-28");
        assert_eq!(McpError::MethodNotFound.object().get("data"), None);
    }
}
