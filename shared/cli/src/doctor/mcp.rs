//! `--mcp URL`: the doctor's look at an MCP server, as an MCP client that pays nothing. It
//! asks `server/discover` first (2026-07-28), else shakes hands (`initialize`, then
//! `notifications/initialized`); lists the tools; and calls each tool `--tool` names (without
//! it, each tool whose listing declares a price), with `--arguments`, without payment: once as a client advertising no extension and, on 2026-07-28
//! when the server advertises `org.x402/payment`, once as one advertising it. What the server
//! answers stays in memory; the core's checks read it ([`McpObservation`]).

use payability_core::doctor::{McpCall, McpEra, McpObservation};
use payability_core::policy::TargetUrl;
use payability_runtime::fetch::{Fetcher, McpAnswer};
use payability_runtime::mcp::era::{
    CLIENT_CAPABILITIES_META, DISCOVER, PAYMENT_EXTENSION, PROTOCOL_VERSION_META,
};
use payability_runtime::mcp::versions::{HANDSHAKE_VERSIONS, STATELESS_VERSIONS};
use serde_json::{Value, json};

/// Pages of `tools/list` read, at most, looking for the tools named.
const TOOL_PAGES: usize = 10;
/// Most tools called that declare a price, without `--tool`.
const MAX_DECLARED_CALLED: usize = 32;

/// A tool whose listing declares an x402 price, as the x402 MCP packages of the ecosystem write
/// it: `annotations.paymentHint: true` (with `paymentPriceUSD`, `paymentNetworks`).
fn declares_a_price(tool: &Value) -> bool {
    tool.pointer("/annotations/paymentHint") == Some(&Value::Bool(true))
}

/// A session with one MCP server: its era, and what each request must carry.
struct Session<'a> {
    fetcher: &'a Fetcher,
    target: &'a TargetUrl,
    /// The handshake's agreed revision and session id (None on 2026-07-28).
    handshake: Option<(String, Option<String>)>,
    next_id: u64,
}

impl Session<'_> {
    /// One request: on 2026-07-28 with its `_meta` (the client's capabilities: the x402
    /// extension when `extension`) and the mirrored headers; in the handshake era with the
    /// agreed revision and the session.
    async fn request(
        &mut self,
        method: &str,
        mut params: Value,
        extension: bool,
    ) -> Option<McpAnswer> {
        self.next_id += 1;
        let mut headers = Vec::new();
        match &self.handshake {
            None => {
                let capabilities = match extension {
                    true => json!({"extensions": {PAYMENT_EXTENSION: {}}}),
                    false => json!({}),
                };
                params["_meta"] = json!({
                    PROTOCOL_VERSION_META: STATELESS_VERSIONS[0],
                    CLIENT_CAPABILITIES_META: capabilities,
                });
                headers.push(("mcp-protocol-version", STATELESS_VERSIONS[0].to_owned()));
                headers.push(("mcp-method", method.to_owned()));
                if let Some(name) = params.get("name").and_then(Value::as_str) {
                    // A tool name is ASCII (the command line refuses any other), so verbatim.
                    headers.push(("mcp-name", name.to_owned()));
                }
            }
            Some((version, session)) => {
                headers.push(("mcp-protocol-version", version.clone()));
                if let Some(session) = session {
                    headers.push(("mcp-session-id", session.clone()));
                }
            }
        }
        let message =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        self.fetcher.mcp(self.target, &message, &headers).await
    }
}

/// The era the server answers in, and its session when it is the handshake's.
async fn open<'a>(fetcher: &'a Fetcher, target: &'a TargetUrl) -> Option<(McpEra, Session<'a>)> {
    let mut session = Session { fetcher, target, handshake: None, next_id: 0 };
    if let Some(answer) = session.request(DISCOVER, json!({}), false).await {
        let result = answer.message.get("result");
        let speaks = result
            .and_then(|r| r.get("supportedVersions"))
            .and_then(Value::as_array)
            .is_some_and(|versions| versions.iter().any(|v| v == STATELESS_VERSIONS[0]));
        if speaks {
            let advertised = result
                .and_then(|r| r.pointer("/capabilities/extensions"))
                .and_then(Value::as_object)
                .is_some_and(|extensions| extensions.contains_key(PAYMENT_EXTENSION));
            return Some((McpEra::Stateless { payment_extension: advertised }, session));
        }
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": HANDSHAKE_VERSIONS[0],
        "capabilities": {},
        "clientInfo": {"name": "payability-doctor", "version": env!("CARGO_PKG_VERSION")},
    }});
    let answer = fetcher.mcp(target, &initialize, &[]).await?;
    let version = answer.message.pointer("/result/protocolVersion")?.as_str()?.to_owned();
    let mut headers = vec![("mcp-protocol-version", version.clone())];
    if let Some(id) = &answer.session {
        headers.push(("mcp-session-id", id.clone()));
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    fetcher.mcp(target, &initialized, &headers).await;
    session.handshake = Some((version, answer.session));
    session.next_id = 1;
    Some((McpEra::Handshake, session))
}

/// Looks at the MCP server at `target`: its era, whether it lists `tools`, and each one's
/// unpaid calls with `arguments`.
pub(crate) async fn observe(
    fetcher: &Fetcher,
    target: &TargetUrl,
    tools: &[String],
    arguments: &Value,
) -> McpObservation {
    let Some((era, mut session)) = open(fetcher, target).await else {
        return McpObservation::default();
    };
    let (mut names, mut declared): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut cursor: Option<Value> = None;
    for _ in 0..TOOL_PAGES {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let Some(answer) = session.request("tools/list", params, false).await else { break };
        let result = answer.message.get("result");
        let listed = result.and_then(|r| r.get("tools")).and_then(Value::as_array);
        for tool in listed.into_iter().flatten() {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            if declares_a_price(tool) {
                declared.push(name.to_owned());
            }
            names.push(name.to_owned());
        }
        cursor = result.and_then(|r| r.get("nextCursor")).filter(|c| !c.is_null()).cloned();
        if cursor.is_none() {
            break;
        }
    }
    // Without --tool, the tools whose listing declares a price: at most MAX_DECLARED_CALLED,
    // and a server declaring more fails mcp-answers (name them with --tool), never a silent cap.
    let (named, listed) = match tools.is_empty() {
        true => {
            let within = declared.len() <= MAX_DECLARED_CALLED;
            declared.truncate(MAX_DECLARED_CALLED);
            (declared, within)
        }
        false => (tools.to_vec(), tools.iter().all(|tool| names.contains(tool))),
    };
    let extension = matches!(era, McpEra::Stateless { payment_extension: true });
    let mut calls = Vec::new();
    for tool in &named {
        let params = json!({"name": tool, "arguments": arguments});
        let result =
            |answer: Option<McpAnswer>| answer.and_then(|a| a.message.get("result").cloned());
        let plain = result(session.request("tools/call", params.clone(), false).await);
        let extended = match extension {
            true => result(session.request("tools/call", params, true).await),
            false => None,
        };
        calls.push(McpCall { result: plain, extension_result: extended });
    }
    McpObservation { era: Some(era), listed, calls }
}
