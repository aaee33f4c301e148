//! An MCP server as the doctor saw it, and the checks of x402's MCP binding over it: the era it
//! answered in, whether it lists the tools the seller named, and each named tool's unpaid call
//! in the tool-result binding (both eras) and, on 2026-07-28 when the server advertises it, the
//! `org.x402/payment` extension binding (coinbase/x402 `specs/transports-v2/mcp.md`). The
//! challenge each call carries then gets the terms checks an HTTP challenge gets.

use serde_json::Value;

use super::examine::{Challenge, Findings, Outcome, examine_terms};
use super::list::CheckId;

/// The era an MCP server answered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpEra {
    /// 2026-07-28: it answered `server/discover`; whether that advertised `org.x402/payment`.
    Stateless {
        /// `capabilities.extensions` names `org.x402/payment`.
        payment_extension: bool,
    },
    /// The handshake era: it answered `initialize`.
    Handshake,
}

/// One named tool's unpaid calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpCall {
    /// The `result` of the unpaid `tools/call` (the client advertising no extension).
    pub result: Option<Value>,
    /// On 2026-07-28 with the extension advertised: the `result` of the unpaid call whose
    /// client advertises it too.
    pub extension_result: Option<Value>,
}

/// An MCP server as the doctor saw it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpObservation {
    /// The era it answered in; None when it answered neither `server/discover` nor
    /// `initialize`.
    pub era: Option<McpEra>,
    /// Its `tools/list` lists every tool named.
    pub listed: bool,
    /// Each named tool's calls, in the order named.
    pub calls: Vec<McpCall>,
}

/// The PaymentRequired of a tool-result binding: `isError`, an object `structuredContent` with
/// `x402Version`, and `content[0].text` the same object, or it as `x402/error`'s `data`.
fn tool_result_challenge(result: &Value) -> Option<&Value> {
    let structured = result.get("structuredContent").filter(|s| s.get("x402Version").is_some())?;
    let text = result.pointer("/content/0/text").and_then(Value::as_str)?;
    let parsed: Value = serde_json::from_str(text).ok()?;
    let same = &parsed == structured || parsed.pointer("/x402~1error/data") == Some(structured);
    (result.get("isError") == Some(&Value::Bool(true)) && same).then_some(structured)
}

/// The offers' terms a buyer pays: two challenges offering the same (their memos may differ).
fn same_terms(a: &Value, b: &Value) -> bool {
    let terms = |challenge: &Value| -> Option<Vec<[Value; 5]>> {
        let accepts = challenge.get("accepts")?.as_array()?;
        let fields = ["scheme", "network", "amount", "asset", "payTo"];
        Some(
            accepts
                .iter()
                .map(|offer| fields.map(|f| offer.get(f).cloned().unwrap_or_default()))
                .collect(),
        )
    };
    a.get("x402Version") == b.get("x402Version") && terms(a).is_some() && terms(a) == terms(b)
}

/// Examines one MCP server: one outcome per check (the HTTP-only checks not applicable).
pub fn examine_mcp(seen: &McpObservation) -> Findings {
    let mut findings = Findings::none();
    findings.set(CheckId::McpAnswers, Outcome::of(seen.era.is_some() && seen.listed));
    let Some(era) = seen.era else {
        return findings;
    };
    let challenges: Vec<Option<&Value>> = seen
        .calls
        .iter()
        .map(|call| call.result.as_ref().and_then(tool_result_challenge))
        .collect();
    findings.set(CheckId::McpToolResult, Outcome::over(&challenges, Option::is_some));
    if let McpEra::Stateless { payment_extension } = era {
        let complete = |call: &McpCall| {
            call.result.as_ref().and_then(|r| r.get("resultType")).and_then(Value::as_str)
                == Some("complete")
        };
        findings.set(CheckId::McpResultType, Outcome::over(&seen.calls, complete));
        if payment_extension {
            let bound = seen.calls.iter().zip(&challenges).map(|(call, challenge)| {
                let answer = call.extension_result.as_ref();
                let kind = answer.and_then(|a| a.get("resultType")).and_then(Value::as_str);
                let offered = answer.and_then(|a| a.get("paymentRequired"));
                kind == Some("payment_required")
                    && offered
                        .zip(*challenge)
                        .is_some_and(|(offered, tool)| same_terms(offered, tool))
            });
            findings.set(CheckId::McpPaymentExtension, Outcome::over(bound, |ok| ok));
        }
    }
    for challenge in challenges.into_iter().flatten() {
        let mut terms = Findings::none();
        let read = Challenge::of(challenge);
        let decoded = read.as_ref().and_then(Challenge::document);
        terms.set(CheckId::ChallengeDecodes, Outcome::of(decoded.is_some()));
        if let (Some(read), Some(document)) = (&read, decoded) {
            match read.version() {
                Some(version) => {
                    terms.set(CheckId::VersionKnown, Outcome::Pass);
                    examine_terms(&mut terms, version, document, &read.offers(), None);
                }
                None => terms.set(CheckId::VersionKnown, Outcome::Fail),
            }
        }
        findings.merge(&terms);
    }
    findings
}
