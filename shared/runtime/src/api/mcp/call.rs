//! `tools/call`: a tool's answer as an MCP tool result. The answer is the one the route gives
//! over HTTP (the same functions, the same closed-form errors, the same purchase), its JSON
//! carried twice as MCP asks: as `structuredContent` and, the same bytes, as the one text
//! item. Anything but a delivered answer is `isError`; a paid tool's challenge is the v2
//! `PaymentRequired` (MCP payments are v2 only), and the settlement answer, when there is
//! one, is `_meta["x402/payment-response"]`.

use http::StatusCode;
use payability_core::challenge::OwnChallenge;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{
    SIGN_IN_WITH_X, SignInProof, SignInRefusal, decode_proof_header,
};
use payability_core::payment::x402::{SettlementResponse, decode_payment_object};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::error::McpError;
use super::tools::Tool;
use crate::api::call_style::CallStyle;
use crate::api::discovery::criteria_response;
use crate::api::purchase::Presented;
use crate::api::request::ApiRequest;
use crate::api::respond::{ApiResponse, error, json_response_bytes};
use crate::api::service::{Service, Stores};
use crate::rules::ApiError;
use crate::telemetry::Telemetry;

/// The `_meta` key of the payment a paid call carries.
const PAYMENT_META_KEY: &str = "x402/payment";

/// The `params` of `tools/call`.
#[derive(Deserialize)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

/// An MCP tool result (`CallToolResult`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolResult {
    content: [TextContent; 1],
    structured_content: Box<RawValue>,
    is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<SettlementMeta>,
    /// What the log line and the EMF line read of the answer.
    #[serde(skip)]
    telemetry: Telemetry,
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

impl ToolResult {
    /// The result of `tool` carrying an answer's JSON body (`isError` unless it is a 2xx),
    /// with its telemetry, standing for the route's answer.
    fn of(tool: Tool, response: ApiResponse, settlement: Option<SettlementResponse>) -> Self {
        let status = response.status();
        let telemetry =
            Telemetry { stands_for: Some((tool.route(), status)), ..*response.telemetry() };
        let text = String::from_utf8(response.body().to_vec()).expect("our answers are UTF-8 JSON");
        let structured_content = RawValue::from_string(text.clone()).expect("our answers are JSON");
        Self {
            content: [TextContent { kind: "text", text }],
            structured_content,
            is_error: !status.is_success(),
            meta: settlement.map(|payment_response| SettlementMeta { payment_response }),
            telemetry,
        }
    }

    /// What the log line and the EMF line read of this result.
    pub(super) fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }
}

/// The sign-in proof in `_meta["sign-in-with-x"]`: the `SIGN-IN-WITH-X` header's text, decoded
/// by the header's own rules (anything but a string is malformed).
fn proof_of(value: &Value) -> Result<SignInProof, SignInRefusal> {
    let text = value.as_str().ok_or(SignInRefusal::HeaderMalformed)?;
    decode_proof_header(text.as_bytes())
}

/// A `tools/call`, read: the tool named, its arguments and what its `_meta` carries.
pub(super) struct ToolCall {
    /// The tool named.
    pub(super) tool: Tool,
    /// Its arguments (an object; `{}` when absent).
    pub(super) arguments: Value,
    /// `_meta["x402/payment"]`, as sent (decoded only by a paid tool).
    pub(super) payment: Option<Value>,
    /// `_meta["sign-in-with-x"]`, decoded.
    pub(super) proof: Option<Result<SignInProof, SignInRefusal>>,
}

/// Reads `tools/call`'s params: params of another shape, a tool that is not ours or
/// arguments that are not an object are invalid.
pub(super) fn read_call(params: Value) -> Result<ToolCall, McpError> {
    let params: CallParams = serde_json::from_value(params).map_err(|_| McpError::InvalidParams)?;
    let tool = Tool::named(&params.name).ok_or(McpError::InvalidParams)?;
    let arguments = match params.arguments {
        None => json!({}),
        Some(arguments @ Value::Object(_)) => arguments,
        Some(_) => return Err(McpError::InvalidParams),
    };
    let mut meta = params.meta.unwrap_or_default();
    let payment = meta.remove(PAYMENT_META_KEY);
    let proof = meta.get(SIGN_IN_WITH_X).map(proof_of);
    Ok(ToolCall { tool, arguments, payment, proof })
}

impl<S: Stores> Service<S> {
    /// `tools/call`: the named tool's result; params of another shape or a tool that is not
    /// ours are a JSON-RPC error.
    pub(super) async fn call_tool(
        &self,
        request: &ApiRequest,
        params: Value,
    ) -> Result<ToolResult, McpError> {
        let ToolCall { tool, arguments, payment, proof } = read_call(params)?;
        Ok(match tool {
            // A free tool never reads a payment: nothing is verified, nothing settled.
            Tool::Criteria => {
                ToolResult::of(tool, criteria_response(self.publication().keys), None)
            }
            Tool::Precheck if payment.is_some() => {
                ToolResult::of(tool, error(ApiError::PrecheckTakesNoPayment), None)
            }
            Tool::Precheck => self.precheck_result(arguments, proof, request).await,
            Tool::Paid(op) => {
                let payment = payment.as_ref().map(decode_payment_object);
                let presented = Presented { payment, proof };
                self.paid_result(op, arguments, presented, request).await
            }
        })
    }

    /// The pre-check tool: the signed answer or a closed-form error. A spent allowance is the
    /// refusal as an error naming the paid tool to call instead (no challenge: the official
    /// client would pay it and retry the pre-check, which takes no payment); a pre-check to
    /// sign is the sign-in challenge (a v2 `PaymentRequired` offering no payment).
    async fn precheck_result(
        &self,
        arguments: Value,
        proof: Option<Result<SignInProof, SignInRefusal>>,
        request: &ApiRequest,
    ) -> ToolResult {
        let end = self.precheck_end(arguments, proof, request, mcp_offer, "pay_with_tool").await;
        ToolResult::of(Tool::Precheck, end.response(), None)
    }

    /// A paid tool: the purchase of its arguments, as over HTTP.
    async fn paid_result(
        &self,
        op: PaidOp,
        arguments: Value,
        presented: Presented,
        request: &ApiRequest,
    ) -> ToolResult {
        let outcome = self.buy_with_arguments(op, arguments, CallStyle::Mcp, presented, request);
        let (answer, settlement) = outcome.await.answer(mcp_offer);
        ToolResult::of(Tool::Paid(op), answer, settlement)
    }
}

/// Our challenge as an MCP tool's answer: the v2 `PaymentRequired` as its JSON (MCP
/// payments are v2 only).
fn mcp_offer(challenge: OwnChallenge) -> ApiResponse {
    json_response_bytes(StatusCode::PAYMENT_REQUIRED, challenge.v2)
}
