//! The results MCP's methods answer with, in both eras: what `initialize` and
//! `server/discover` say, the tool list, a tool's result ([`ToolResult`]) and x402's
//! `payment_required` result ([`PaymentRequiredResult`]). A stateless (2026-07-28) result
//! carries `resultType` and cache hints that are true ([`Cache`]); a handshake-era one is
//! what today's clients read, byte for byte.

use payability_core::payment::x402::SettlementResponse;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::era::{Era, PAYMENT_EXTENSION, SERVER_INFO_META, agreed_handshake_version};
use super::tools::{Offer, instructions};
use super::versions::supported_versions;

/// How long a public result stays fresh, in milliseconds: what the server speaks, its tools
/// and the criteria document (the rule and the signing keys) change only with a deployment,
/// and five minutes bounds how long a client keeps an old key set after one.
pub const PUBLIC_TTL_MS: u64 = 300_000;

/// Who may cache a result, and for how long (MCP 2026-07-28 `server/utilities/caching`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// The same for every caller: shared caches may keep it for [`PUBLIC_TTL_MS`].
    Public,
    /// This caller's alone (a pre-check, a verdict, an offer): immediately stale.
    Private,
}

/// The fields every stateless result carries: its type and its cache hints.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    result_type: &'static str,
    cache_scope: &'static str,
    ttl_ms: u64,
}

impl Envelope {
    /// A completed result with these cache hints.
    pub fn complete(cache: Cache) -> Self {
        let (cache_scope, ttl_ms) = match cache {
            Cache::Public => ("public", PUBLIC_TTL_MS),
            Cache::Private => ("private", 0),
        };
        Self { result_type: "complete", cache_scope, ttl_ms }
    }

    /// x402's `payment_required` result: this caller's alone, never cached.
    fn payment_required() -> Self {
        Self { result_type: "payment_required", cache_scope: "private", ttl_ms: 0 }
    }

    /// The envelope of a result in `era`: none in the handshake era.
    pub fn of(era: Era, cache: Cache) -> Option<Self> {
        match era {
            Era::Handshake => None,
            Era::Stateless { .. } => Some(Self::complete(cache)),
        }
    }
}

/// The `capabilities` both eras announce: tools, a fixed list; in the stateless era the
/// service also offers x402's extension binding.
fn capabilities(offer: Offer, era: Era) -> Value {
    let mut capabilities = json!({"tools": {"listChanged": false}});
    if offer == Offer::Service && era != Era::Handshake {
        capabilities["extensions"] = json!({PAYMENT_EXTENSION: {}});
    }
    capabilities
}

/// Who we are.
fn server_info() -> Value {
    json!({"name": "payability-verdict", "version": env!("CARGO_PKG_VERSION")})
}

/// The `initialize` result (handshake era): the revision agreed, the capabilities and who we
/// are.
pub fn initialize(params: &Value, offer: Offer) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    json!({
        "protocolVersion": agreed_handshake_version(asked),
        "capabilities": capabilities(offer, Era::Handshake),
        "serverInfo": server_info(),
        "instructions": instructions(offer),
    })
}

/// The `server/discover` result (stateless era): every revision spoken, the capabilities,
/// who we are and the instructions; public.
pub fn discover(offer: Offer) -> Value {
    let era = Era::Stateless { payment_extension: false };
    let mut result = json!({
        "supportedVersions": supported_versions(),
        "capabilities": capabilities(offer, era),
        "_meta": {SERVER_INFO_META: server_info()},
        "instructions": instructions(offer),
    });
    merge(&mut result, Envelope::complete(Cache::Public));
    result
}

/// The `tools/list` result in `era`; public.
pub fn tools_list(era: Era, offer: Offer) -> Value {
    let mut result = json!({"tools": super::tools::listed(offer)});
    if let Some(envelope) = Envelope::of(era, Cache::Public) {
        merge(&mut result, envelope);
    }
    result
}

/// Adds an envelope's fields to a result object.
fn merge(result: &mut Value, envelope: Envelope) {
    let Value::Object(fields) = serde_json::to_value(envelope).expect("an envelope serialises")
    else {
        unreachable!("an envelope is an object")
    };
    result.as_object_mut().expect("results are objects").extend(fields);
}

/// An MCP tool result (`CallToolResult`): an answer's JSON carried twice, as MCP asks, as
/// `structuredContent` and, the same bytes, as the one text item.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    #[serde(flatten)]
    envelope: Option<Envelope>,
    content: [TextContent; 1],
    structured_content: Box<RawValue>,
    is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<SettlementMeta>,
}

/// A text content item.
#[derive(Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// The `_meta` of a result that answers a payment.
#[derive(Serialize)]
struct SettlementMeta {
    #[serde(rename = "x402/payment-response")]
    payment_response: SettlementResponse,
}

impl SettlementMeta {
    /// The `_meta` carrying the settlement answer, when one is said.
    fn of(settlement: Option<SettlementResponse>) -> Option<Self> {
        settlement.map(|payment_response| Self { payment_response })
    }
}

impl ToolResult {
    /// The result carrying `json` (an answer's UTF-8 JSON text), `isError` unless `success`,
    /// with the envelope of `era` and `cache`.
    pub fn new(json: String, success: bool, era: Era, cache: Cache) -> Self {
        let structured_content =
            RawValue::from_string(json.clone()).expect("a tool result carries JSON");
        Self {
            envelope: Envelope::of(era, cache),
            content: [TextContent { kind: "text", text: json }],
            structured_content,
            is_error: !success,
            meta: None,
        }
    }

    /// The result with the settlement answer in `_meta["x402/payment-response"]`.
    pub fn with_settlement(mut self, settlement: Option<SettlementResponse>) -> Self {
        self.meta = SettlementMeta::of(settlement);
        self
    }
}

/// x402's extension binding (`org.x402/payment`): `resultType: "payment_required"` with our
/// v2 `PaymentRequired` as `paymentRequired`; the tool did not run. Private, never cached.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequiredResult {
    #[serde(flatten)]
    envelope: Envelope,
    payment_required: Box<RawValue>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<SettlementMeta>,
}

impl PaymentRequiredResult {
    /// The result carrying `payment_required` (our v2 `PaymentRequired` JSON) and the
    /// settlement answer, when one is said.
    pub fn new(payment_required: String, settlement: Option<SettlementResponse>) -> Self {
        Self {
            envelope: Envelope::payment_required(),
            payment_required: RawValue::from_string(payment_required)
                .expect("a PaymentRequired is JSON"),
            meta: SettlementMeta::of(settlement),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handshake_result_is_unchanged_and_a_stateless_one_carries_its_type_and_hints() {
        let old =
            serde_json::to_value(ToolResult::new("{}".into(), true, Era::Handshake, Cache::Public))
                .unwrap();
        assert_eq!(
            old,
            json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {}, "isError": false})
        );
        let era = Era::Stateless { payment_extension: false };
        let new =
            serde_json::to_value(ToolResult::new("{\"a\":1}".into(), false, era, Cache::Private))
                .unwrap();
        assert_eq!(
            (&new["resultType"], &new["cacheScope"], &new["ttlMs"], &new["isError"]),
            (&json!("complete"), &json!("private"), &json!(0), &json!(true))
        );
        let listed = tools_list(era, Offer::Service);
        assert_eq!(
            (&listed["cacheScope"], &listed["ttlMs"]),
            (&json!("public"), &json!(PUBLIC_TTL_MS))
        );
        assert_eq!(tools_list(Era::Handshake, Offer::Service).as_object().unwrap().len(), 1);
        let discovered = discover(Offer::Service);
        assert_eq!(discovered["capabilities"]["extensions"], json!({"org.x402/payment": {}}));
        assert_eq!(discover(Offer::Local)["capabilities"].get("extensions"), None);
        assert_eq!(
            initialize(&json!({}), Offer::Service)["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
    }
}
