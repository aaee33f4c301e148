//! `tools/call`: a tool's answer as an MCP result. The answer is the one the route gives over
//! HTTP (the same functions, the same closed-form errors, the same purchase), carried as a
//! tool result ([`ToolResult`]: `structuredContent` and, the same bytes, the one text item;
//! `isError` for anything but a delivered answer). A paid tool's challenge is the v2
//! `PaymentRequired` (MCP payments are v2 only): in the tool result, or, for a 2026-07-28
//! client that advertised x402's `org.x402/payment` extension, as a `payment_required`
//! result ([`PaymentRequiredResult`]) when it offers a payment. The settlement answer, when
//! there is one, is `_meta["x402/payment-response"]` in both.

use http::StatusCode;
use payability_core::challenge::OwnChallenge;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SignInProof, SignInRefusal};
use payability_core::payment::x402::{SettlementResponse, decode_payment_object};
use serde::Serialize;
use serde_json::Value;

use crate::api::call_style::CallStyle;
use crate::api::discovery::criteria_response;
use crate::api::purchase::{Presented, PurchaseOutcome};
use crate::api::request::ApiRequest;
use crate::api::respond::{ApiResponse, error, json_response_bytes};
use crate::api::service::{Service, Stores};
use crate::mcp::era::Era;
use crate::mcp::error::McpError;
use crate::mcp::results::{Cache, PaymentRequiredResult, ToolResult};
use crate::mcp::tools::{Tool, ToolCall, read_call};
use crate::rules::ApiError;
use crate::telemetry::Telemetry;

/// What `tools/call` answers: a tool result, or x402's `payment_required` result.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum CallAnswer {
    /// The tool's answer (or its refusal) as a tool result.
    Tool(ToolResult),
    /// The extension binding's offer: the tool did not run.
    PaymentRequired(PaymentRequiredResult),
}

/// An answer's telemetry, standing for the route's answer.
fn standing_for(tool: Tool, response: &ApiResponse) -> Telemetry {
    Telemetry { stands_for: Some((tool.route(), response.status())), ..*response.telemetry() }
}

/// The UTF-8 JSON text of one of our answers.
fn text_of(response: &ApiResponse) -> String {
    String::from_utf8(response.body().to_vec()).expect("our answers are UTF-8 JSON")
}

/// The tool result of `tool` carrying an answer's JSON body (`isError` unless it is a 2xx) in
/// `era`: the criteria are public, every other answer its caller's.
fn tool_result(
    tool: Tool,
    response: ApiResponse,
    settlement: Option<SettlementResponse>,
    era: Era,
) -> (CallAnswer, Telemetry) {
    let cache = if tool == Tool::Criteria { Cache::Public } else { Cache::Private };
    let result = ToolResult::new(text_of(&response), response.status().is_success(), era, cache);
    (CallAnswer::Tool(result.with_settlement(settlement)), standing_for(tool, &response))
}

impl<S: Stores> Service<S> {
    /// `tools/call` in `era`: the named tool's result with its telemetry; params of another
    /// shape or a tool that is not ours are a JSON-RPC error.
    pub(super) async fn call_tool(
        &self,
        request: &ApiRequest,
        params: Value,
        era: Era,
    ) -> Result<(CallAnswer, Telemetry), McpError> {
        let ToolCall { tool, arguments, payment, proof } = read_call(params)?;
        Ok(match tool {
            // A free tool never reads a payment: nothing is verified, nothing settled.
            Tool::Criteria => {
                tool_result(tool, criteria_response(self.publication().keys), None, era)
            }
            Tool::Precheck if payment.is_some() => {
                tool_result(tool, error(ApiError::PrecheckTakesNoPayment), None, era)
            }
            Tool::Precheck => self.precheck_result(arguments, proof, request, era).await,
            Tool::Paid(op) => {
                let payment = payment.as_ref().map(decode_payment_object);
                let presented = Presented { payment, proof };
                self.paid_result(op, arguments, presented, request, era).await
            }
        })
    }

    /// The pre-check tool: the signed answer or a closed-form error. A spent allowance is the
    /// refusal as an error naming the paid tool to call instead (no challenge: the official
    /// client would pay it and retry the pre-check, which takes no payment); a pre-check to
    /// sign is the sign-in challenge (a v2 `PaymentRequired` offering no payment, so a tool
    /// result in both eras).
    async fn precheck_result(
        &self,
        arguments: Value,
        proof: Option<Result<SignInProof, SignInRefusal>>,
        request: &ApiRequest,
        era: Era,
    ) -> (CallAnswer, Telemetry) {
        let end = self.precheck_end(arguments, proof, request, mcp_offer, "pay_with_tool").await;
        tool_result(Tool::Precheck, end.response(), None, era)
    }

    /// A paid tool: the purchase of its arguments, as over HTTP. An offer of a payment goes to
    /// a client of the extension binding as `payment_required`.
    async fn paid_result(
        &self,
        op: PaidOp,
        arguments: Value,
        presented: Presented,
        request: &ApiRequest,
        era: Era,
    ) -> (CallAnswer, Telemetry) {
        let outcome =
            self.buy_with_arguments(op, arguments, CallStyle::Mcp, presented, request).await;
        let offers_payment = matches!(
            &outcome,
            PurchaseOutcome::Offer { refusal, .. } if refusal.offers_payment()
        );
        let (answer, settlement) = outcome.answer(mcp_offer);
        let tool = Tool::Paid(op);
        if offers_payment && era == (Era::Stateless { payment_extension: true }) {
            let result = PaymentRequiredResult::new(text_of(&answer), settlement);
            return (CallAnswer::PaymentRequired(result), standing_for(tool, &answer));
        }
        tool_result(tool, answer, settlement, era)
    }
}

/// Our challenge as an MCP tool's answer: the v2 `PaymentRequired` as its JSON (MCP
/// payments are v2 only).
fn mcp_offer(challenge: OwnChallenge) -> ApiResponse {
    json_response_bytes(StatusCode::PAYMENT_REQUIRED, challenge.v2)
}
