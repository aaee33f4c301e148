//! The era a request is in ([`Era`]). A dual-era server chooses per request (MCP 2026-07-28
//! `basic/versioning`): a request whose `params._meta` names its protocol version (and
//! `server/discover`, which only the stateless era has) is served by the stateless revision it
//! names; any other by the handshake era, where `initialize` agreed the revision.

use serde_json::{Map, Value};

use super::error::McpError;
use super::versions::{HANDSHAKE_VERSIONS, STATELESS_VERSIONS};

/// The `_meta` key a stateless request names its protocol version under.
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

/// The `_meta` key a stateless request carries the client's capabilities under.
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";

/// The `_meta` key the server names itself under in `server/discover`.
pub const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// The x402 MCP extension's identifier (x402 `specs/transports-v2/mcp.md`, extension binding).
pub const PAYMENT_EXTENSION: &str = "org.x402/payment";

/// The method only the stateless era has: what the server speaks and offers.
pub const DISCOVER: &str = "server/discover";

/// How a request is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// Before 2026-07-28: `initialize` agreed a revision; results carry no `resultType`.
    Handshake,
    /// 2026-07-28: the request carried its version and the client's capabilities.
    Stateless {
        /// Whether the client advertised the x402 extension (`org.x402/payment`) in its
        /// per-request capabilities: only then may a result be `payment_required`.
        payment_extension: bool,
    },
}

/// What a stateless request's `params._meta` says: the version it names, unchecked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatelessMeta {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, as sent.
    pub version: String,
    /// Whether `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` names
    /// `org.x402/payment`.
    pub payment_extension: bool,
}

/// Reads the era-deciding part of `params`: None for a handshake-era request (its `_meta`
/// names no version and the method is not `server/discover`); the stateless meta otherwise,
/// whose `_meta` must be an object naming the version (a string) and the client's
/// capabilities (an object), else [`McpError::MetaIncomplete`].
pub fn stateless_meta(
    method: &str,
    params: &Map<String, Value>,
) -> Result<Option<StatelessMeta>, McpError> {
    let meta = match params.get("_meta") {
        None => None,
        Some(Value::Object(meta)) => Some(meta),
        Some(_) => return Err(McpError::InvalidParams),
    };
    let version = meta.and_then(|meta| meta.get(PROTOCOL_VERSION_META));
    if version.is_none() && method != DISCOVER {
        return Ok(None);
    }
    let (Some(Value::String(version)), Some(Value::Object(capabilities))) =
        (version, meta.and_then(|meta| meta.get(CLIENT_CAPABILITIES_META)))
    else {
        return Err(McpError::MetaIncomplete);
    };
    let payment_extension = capabilities
        .get("extensions")
        .and_then(Value::as_object)
        .is_some_and(|extensions| extensions.get(PAYMENT_EXTENSION).is_some_and(Value::is_object));
    Ok(Some(StatelessMeta { version: version.clone(), payment_extension }))
}

/// The era of a request whose `_meta` is `meta` (from [`stateless_meta`]): the handshake era
/// for none; the stateless one when it names a stateless revision we speak, else
/// [`McpError::UnsupportedVersion`].
pub fn era(meta: Option<&StatelessMeta>) -> Result<Era, McpError> {
    match meta {
        None => Ok(Era::Handshake),
        Some(meta) if STATELESS_VERSIONS.contains(&meta.version.as_str()) => {
            Ok(Era::Stateless { payment_extension: meta.payment_extension })
        }
        Some(meta) => Err(McpError::unsupported(&meta.version)),
    }
}

/// The revision `initialize` agrees: the client's when it is a handshake revision we speak,
/// else the newest.
pub fn agreed_handshake_version(asked: Option<&str>) -> &'static str {
    HANDSHAKE_VERSIONS.into_iter().find(|v| Some(*v) == asked).unwrap_or(HANDSHAKE_VERSIONS[0])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// (method, params, the era, or the error code) for every shape of `_meta`.
    #[test]
    fn a_request_is_in_the_era_its_meta_names() {
        let caps = json!({});
        let x402 = json!({"extensions": {"org.x402/payment": {}}});
        let modern = |version: Value, caps: &Value| json!({"_meta": {PROTOCOL_VERSION_META: version, CLIENT_CAPABILITIES_META: caps}});
        let vectors: [(&str, Value, Result<Era, i64>); 12] = [
            ("tools/list", json!({}), Ok(Era::Handshake)),
            ("initialize", json!({"protocolVersion": "2025-11-25"}), Ok(Era::Handshake)),
            ("tools/call", json!({"_meta": {"x402/payment": {}}}), Ok(Era::Handshake)),
            (
                "tools/list",
                modern(json!("2026-07-28"), &caps),
                Ok(Era::Stateless { payment_extension: false }),
            ),
            (
                "tools/call",
                modern(json!("2026-07-28"), &x402),
                Ok(Era::Stateless { payment_extension: true }),
            ),
            (
                "tools/call",
                modern(json!("2026-07-28"), &json!({"extensions": {"org.x402/payment": true}})),
                Ok(Era::Stateless { payment_extension: false }),
            ),
            ("server/discover", json!({}), Err(-32602)),
            (
                "server/discover",
                json!({"_meta": {PROTOCOL_VERSION_META: "2026-07-28"}}),
                Err(-32602),
            ),
            ("tools/list", modern(json!(["2026-07-28"]), &caps), Err(-32602)),
            ("tools/list", json!({"_meta": "2026-07-28"}), Err(-32602)),
            ("tools/list", modern(json!("2025-11-25"), &caps), Err(-32022)),
            ("server/discover", modern(json!("1900-01-01"), &caps), Err(-32022)),
        ];
        for (method, params, expected) in vectors {
            let Value::Object(params) = params.clone() else { unreachable!() };
            let got = stateless_meta(method, &params)
                .and_then(|meta| era(meta.as_ref()))
                .map_err(|e| e.code());
            assert_eq!(got, expected, "{method} {params:?}");
        }
    }

    #[test]
    fn initialize_agrees_a_handshake_revision() {
        assert_eq!(agreed_handshake_version(Some("2025-06-18")), "2025-06-18");
        assert_eq!(agreed_handshake_version(Some("2026-07-28")), "2025-11-25");
        assert_eq!(agreed_handshake_version(None), "2025-11-25");
    }
}
