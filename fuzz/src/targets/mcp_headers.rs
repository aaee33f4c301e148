//! `POST /mcp`'s era on arbitrary headers and bodies: the mirrored headers of MCP 2026-07-28
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` with its base64 sentinel) held to the
//! body. Checked against an independent reading: a request is served statelessly only when
//! its `_meta` names 2026-07-28 with the client's capabilities and every mirrored header was
//! sent once and equals the body; in the handshake era only when its `_meta` names no version,
//! it is not `server/discover` and its version header, if any, is a handshake revision; any
//! refusal is -32020, -32022 or -32602.
//!
//! Input: a count byte, then that many headers (a selector byte naming the header, its value
//! as a length-prefixed byte string), then the JSON-RPC body.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_runtime::api::fuzzing::{Era, read_mcp_era};
use serde_json::Value;

use crate::frame::Frame;

/// The JSON-RPC transports' body cap, and the headers' frame.
pub const MAX_LEN: usize = 262_144;

/// The headers a selector byte names (by its value modulo the length).
pub const HEADER_NAMES: [&str; 5] =
    ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "accept"];

/// The handshake revisions and the stateless one, as MCP names them.
const HANDSHAKE: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const STATELESS: &str = "2026-07-28";

pub fn run(data: &[u8]) {
    let mut frame = Frame::new(data);
    let count = frame.u8() % 8;
    let headers: Vec<(&str, &[u8])> = (0..count)
        .map(|_| (HEADER_NAMES[usize::from(frame.u8()) % HEADER_NAMES.len()], frame.bytes()))
        .collect();
    let body = frame.rest();
    let Some(read) = read_mcp_era(&headers, body) else {
        return;
    };
    let request: Value = serde_json::from_slice(body).expect("a call is JSON");
    let method = request["method"].as_str().expect("a call names its method");
    let params = request.get("params").and_then(Value::as_object).cloned().unwrap_or_default();
    // What a server is handed: values without control characters (but tab).
    let sent = |name: &str| -> Vec<&[u8]> {
        headers
            .iter()
            .filter(|(n, value)| {
                *n == name && value.iter().all(|b| *b == b'\t' || (*b >= 0x20 && *b != 0x7f))
            })
            .map(|(_, value)| *value)
            .collect()
    };
    let meta = params.get("_meta").and_then(Value::as_object);
    let version = meta.and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"));
    match read {
        Ok(Era::Stateless { payment_extension }) => {
            assert_eq!(
                version.and_then(Value::as_str),
                Some(STATELESS),
                "served a stateless version"
            );
            let capabilities =
                meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
            assert!(capabilities.is_some_and(Value::is_object), "capabilities were sent");
            let extension = capabilities
                .and_then(|c| c.get("extensions"))
                .and_then(|e| e.get("org.x402/payment"))
                .is_some_and(Value::is_object);
            assert_eq!(payment_extension, extension, "the extension exactly when advertised");
            assert_eq!(sent("mcp-protocol-version"), [STATELESS.as_bytes()], "the version header");
            assert_eq!(sent("mcp-method"), [method.as_bytes()], "the method header");
            if method == "tools/call" {
                let [name] = sent("mcp-name")[..] else { panic!("one Mcp-Name") };
                assert!(name.len() <= 1_024, "a name over the bound was read");
                let body_name = params.get("name").and_then(Value::as_str).expect("a name");
                assert_eq!(decoded(name).as_deref(), Some(body_name), "the name header");
            }
        }
        Ok(Era::Handshake) => {
            assert!(version.is_none() && method != "server/discover", "a stateless request");
            let versions = sent("mcp-protocol-version");
            assert!(versions.len() <= 1, "a version header sent twice was read");
            if let Some(version) = versions.first() {
                assert!(HANDSHAKE.iter().any(|v| v.as_bytes() == *version), "an unspoken version");
            }
        }
        Err(code) => assert!([-32020, -32022, -32602].contains(&code), "code {code}"),
    }
}

/// An `Mcp-Name` value as the name it carries, read independently: verbatim, or the UTF-8 of
/// the canonical standard base64 between `=?base64?` and `?=`.
fn decoded(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?;
    match text.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) {
        None => Some(text.to_owned()),
        Some(encoded) => {
            let bytes = STANDARD.decode(encoded).ok()?;
            (STANDARD.encode(&bytes) == encoded).then(|| String::from_utf8(bytes).ok())?
        }
    }
}
