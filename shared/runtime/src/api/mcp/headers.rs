//! The Streamable HTTP transport's request metadata (MCP 2026-07-28 `transports/
//! streamable-http`, "Request Metadata"): the headers that mirror the body, checked against
//! it, and the era a POST is served in ([`era`]). A header sent twice, not visible ASCII or
//! unequal to the body is [`McpError::HeaderMismatch`]; nothing received is echoed.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderMap;
use serde_json::{Map, Value};

use crate::mcp::era::{self, Era, stateless_meta};
use crate::mcp::error::{Header, MAX_MCP_NAME_HEADER_BYTES, McpError};
use crate::mcp::versions::{HANDSHAKE_VERSIONS, STATELESS_VERSIONS};

/// The header naming the protocol version (both eras send it after `initialize`).
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// The header mirroring the method (stateless era).
const METHOD: &str = "mcp-method";

/// The header mirroring `params.name` of `tools/call` (stateless era).
const NAME: &str = "mcp-name";

/// The one value of header `name`, as text: None when absent; sent twice, or not visible
/// ASCII, is a mismatch of `which`.
fn single<'a>(
    headers: &'a HeaderMap,
    name: &str,
    which: Header,
) -> Result<Option<&'a str>, McpError> {
    let mut values = headers.get_all(name).iter();
    let (first, second) = (values.next(), values.next());
    match (first, second) {
        (None, _) => Ok(None),
        (Some(value), None) => {
            value.to_str().map(Some).map_err(|_| McpError::HeaderMismatch(which))
        }
        (Some(_), Some(_)) => Err(McpError::HeaderMismatch(which)),
    }
}

/// An `Mcp-Name` value as the name it carries: verbatim, or the UTF-8 inside the
/// `=?base64?…?=` sentinel (canonical standard base64); None for a broken sentinel.
fn decoded_name(value: &str) -> Option<String> {
    let Some(encoded) = value.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    let bytes = STANDARD.decode(encoded).ok()?;
    // Canonical only: one name, one header value (trailing bits set decode, and differ here).
    (STANDARD.encode(&bytes) == encoded).then_some(())?;
    String::from_utf8(bytes).ok()
}

/// Whether the request's protocol-version header, if any, names a stateless revision or one
/// we do not speak: the request is answered as the stateless era answers (400 and 404).
pub(super) fn names_no_handshake_version(headers: &HeaderMap) -> bool {
    match single(headers, PROTOCOL_VERSION, Header::ProtocolVersion) {
        Ok(None) => false,
        Ok(Some(version)) => !HANDSHAKE_VERSIONS.contains(&version),
        Err(_) => true,
    }
}

/// The era a POST of `method` with `params` is served in, its headers checked against its
/// body: a request whose `_meta` names no version is in the handshake era unless its
/// `MCP-Protocol-Version` names a stateless revision (its `_meta` is then incomplete) or one
/// we do not speak (unsupported); one whose `_meta` does must send `MCP-Protocol-Version`
/// equal to it, `Mcp-Method` equal to the method and, for `tools/call`, `Mcp-Name` equal to
/// the tool's name, before the version it names is checked.
pub(super) fn era(
    headers: &HeaderMap,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Era, McpError> {
    let version = single(headers, PROTOCOL_VERSION, Header::ProtocolVersion)?;
    let Some(meta) = stateless_meta(method, params)? else {
        return match version {
            None => Ok(Era::Handshake),
            Some(v) if HANDSHAKE_VERSIONS.contains(&v) => Ok(Era::Handshake),
            Some(v) if STATELESS_VERSIONS.contains(&v) => Err(McpError::MetaIncomplete),
            Some(v) => Err(McpError::unsupported(v)),
        };
    };
    if version != Some(meta.version.as_str()) {
        return Err(McpError::HeaderMismatch(Header::ProtocolVersion));
    }
    if single(headers, METHOD, Header::Method)? != Some(method) {
        return Err(McpError::HeaderMismatch(Header::Method));
    }
    if method == "tools/call" {
        let name = single(headers, NAME, Header::Name)?
            .filter(|name| name.len() <= MAX_MCP_NAME_HEADER_BYTES)
            .and_then(decoded_name);
        let body = params.get("name").and_then(Value::as_str);
        if name.is_none() || name.as_deref() != body {
            return Err(McpError::HeaderMismatch(Header::Name));
        }
    }
    era::era(Some(&meta))
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use serde_json::json;

    use super::*;
    use crate::mcp::era::{CLIENT_CAPABILITIES_META, PROTOCOL_VERSION_META};

    const MODERN: Era = Era::Stateless { payment_extension: false };

    /// Headers sent, the body's tool name, and the era or the error code answered.
    type Vector<'a> = (Vec<(&'a str, &'a [u8])>, &'a str, Result<Era, i64>);

    /// A stateless `tools/call` of `name`, as the 2026-07-28 SDKs send it.
    fn call(name: &str) -> Map<String, Value> {
        let params = json!({
            "name": name, "arguments": {},
            "_meta": {PROTOCOL_VERSION_META: "2026-07-28", CLIENT_CAPABILITIES_META: {}},
        });
        let Value::Object(params) = params else { unreachable!() };
        params
    }

    fn headers(pairs: &[(&str, &[u8])]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            let name = http::HeaderName::from_bytes(name.as_bytes()).unwrap();
            headers.append(name, HeaderValue::from_bytes(value).unwrap());
        }
        headers
    }

    /// (headers, method, body's tool name, the era or the error code): every mirrored header
    /// right, missing, twice, malformed and unequal; the sentinel form and its abuses.
    #[test]
    fn mirrored_headers_are_held_to_the_body() {
        let v = ("mcp-protocol-version", b"2026-07-28".as_slice());
        let m = ("mcp-method", b"tools/call".as_slice());
        let n = ("mcp-name", b"check".as_slice());
        let long_name = "c".repeat(2_000);
        let long = format!("=?base64?{}?=", STANDARD.encode(&long_name));
        let vectors: Vec<Vector> = vec![
            (vec![v, m, n], "check", Ok(MODERN)),
            (vec![v, m, ("mcp-name", b"=?base64?Y2hlY2s=?=")], "check", Ok(MODERN)),
            (vec![v, m, ("mcp-name", b"=?base64?w6k=?=")], "\u{e9}", Ok(MODERN)),
            (vec![m, n], "check", Err(-32020)),
            (vec![("mcp-protocol-version", b"2025-11-25"), m, n], "check", Err(-32020)),
            (vec![v, v, m, n], "check", Err(-32020)),
            (vec![("mcp-protocol-version", b"2026-07-28, 2025-11-25"), m, n], "check", Err(-32020)),
            (vec![v, n], "check", Err(-32020)),
            (vec![v, ("mcp-method", b"tools/list"), n], "check", Err(-32020)),
            (vec![v, ("mcp-method", b"TOOLS/CALL"), n], "check", Err(-32020)),
            (vec![v, m, m, n], "check", Err(-32020)),
            (vec![v, m], "check", Err(-32020)),
            (vec![v, m, ("mcp-name", b"memo")], "check", Err(-32020)),
            (vec![v, m, n, n], "check", Err(-32020)),
            (vec![v, m, ("mcp-name", b"\xe9")], "\u{e9}", Err(-32020)),
            (vec![v, m, ("mcp-name", b"=?base64?Y2hlY2s?=")], "check", Err(-32020)),
            (vec![v, m, ("mcp-name", b"=?base64?Y2hlY2t=?=")], "check", Err(-32020)),
            (vec![v, m, ("mcp-name", b"=?base64?/w==?=")], "check", Err(-32020)),
            (vec![v, m, ("mcp-name", b"=?base64?")], "=?base64?", Ok(MODERN)),
            (vec![v, m, ("mcp-name", long.as_bytes())], &long_name, Err(-32020)),
        ];
        for (pairs, name, expected) in vectors {
            let got = era(&headers(&pairs), "tools/call", &call(name)).map_err(|e| e.code());
            assert_eq!(got, expected, "{pairs:?} {name}");
        }
    }

    /// A request whose `_meta` names no version: the handshake era, unless its header names a
    /// stateless revision or one we do not speak.
    #[test]
    fn a_request_without_meta_is_in_the_handshake_era_its_header_allows() {
        let bare = Map::new();
        let vectors: [(&[u8], Result<Era, i64>); 5] = [
            (b"2025-11-25", Ok(Era::Handshake)),
            (b"2024-11-05", Ok(Era::Handshake)),
            (b"2026-07-28", Err(-32602)),
            (b"1900-01-01", Err(-32022)),
            (b"latest", Err(-32022)),
        ];
        for (version, expected) in vectors {
            let got = era(&headers(&[("mcp-protocol-version", version)]), "tools/list", &bare);
            assert_eq!(got.map_err(|e| e.code()), expected, "{version:?}");
        }
        assert_eq!(era(&HeaderMap::new(), "tools/list", &bare), Ok(Era::Handshake));
        let unsupported = era(&headers(&[("mcp-protocol-version", b"1900-01-01")]), "ping", &bare);
        assert_eq!(unsupported, Err(McpError::unsupported("1900-01-01")));
    }
}
