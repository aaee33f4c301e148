//! The tools answered on this machine ([`Local`]), free, as the command line answers them:
//! `criteria` is `payability criteria`'s document, `check` and `memo` are `payability
//! check` and `payability memo` of one URL (the same fetcher under the same target policy,
//! the same rule, signed with the same local key), `doctor` is `payability doctor` of one
//! URL (no probe; only this server offers it), and `precheck` is the service's
//! pre-check answer (core's `signed_precheck`, the same bytes but the key) without its allowance: nothing is metered
//! here. A refusal is the closed-form `{"error": {"rule", "message"}}` the command line
//! writes, as an `isError` result; no received value is echoed.

use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::doctor::{ProbeAnswers, examine};
use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, vet_target_url};
use payability_core::precheck::signed_precheck;
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use payability_runtime::mcp::era::Era;
use payability_runtime::mcp::results::{Cache, ToolResult};
use payability_runtime::mcp::tools::{Tool, ToolCall};
use payability_runtime::rules::ApiError;
use payability_runtime::store::Base58Id;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::escape;
use crate::exit::CLOCK_OUT_OF_RANGE;
use crate::targets::Problem;

/// The rule of a call that carries a payment: this server takes none.
pub(crate) const TAKES_NO_PAYMENT: (&str, &str) = (
    "local_takes_no_payment",
    "payability mcp runs on this machine and takes no payment: every tool is free here; call \
     it again without _meta[\"x402/payment\"]; nothing was charged",
);

/// What answers the tools: the local key, the bounded fetcher and the target policy's
/// address rule.
pub(crate) struct Local {
    /// The local signing key.
    pub(crate) signer: ReportSigner,
    /// The bounded fetcher, under `rule`.
    pub(crate) fetcher: Fetcher,
    /// The target policy's address rule (`--allow-private`, else the setting).
    pub(crate) rule: AddressRule,
}

/// A refusal: a rule id and static words (the command line's [`Problem`]).
type Refused = Problem;

/// The arguments of `check` and `memo`, as the service reads them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PaidArguments {
    url: String,
}

/// The arguments of `precheck`, as the service reads them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrecheckArguments {
    url: String,
    caller: Option<String>,
    op: Option<String>,
}

/// The closed-form error of `error` (the service's rule id and message).
fn api_error(error: ApiError) -> Refused {
    Problem::refused(error.rule(), error.message())
}

/// The closed-form error of a rule the command line names (`(rule, message)`).
fn refused((rule, message): (&'static str, &'static str)) -> Refused {
    Problem::refused(rule, message)
}

/// A tool's arguments as `T` (an object of its fields, none unknown), else `body_wrong_shape`.
fn arguments_of<T: DeserializeOwned>(arguments: Value) -> Result<T, Refused> {
    serde_json::from_value(arguments).map_err(|_| api_error(ApiError::BodyWrongShape))
}

/// The arguments of `doctor`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DoctorArguments {
    url: String,
}

/// The closed-form error JSON the command line writes.
fn error_json(refused: &Refused) -> String {
    escape::json_line(&json!({"error": {"rule": refused.rule, "message": refused.message}}))
}

impl Local {
    /// `tools/call` of a tool read by `read_call`, answered in `era`: the criteria are public,
    /// every other answer the caller's.
    pub(crate) async fn call(&self, call: ToolCall, era: Era) -> ToolResult {
        let ToolCall { tool, arguments, payment, proof: _ } = call;
        let cache = if tool == Tool::Criteria { Cache::Public } else { Cache::Private };
        let answer = match (tool, payment) {
            (_, Some(_)) => Err(refused(TAKES_NO_PAYMENT)),
            (Tool::Criteria, None) => Ok(self.criteria()),
            (Tool::Precheck, None) => self.precheck(arguments),
            (Tool::Paid(op), None) => self.verdict(op, arguments).await,
        };
        match answer {
            Ok(json) => ToolResult::new(json, true, era, cache),
            Err(refused) => ToolResult::new(error_json(&refused), false, era, cache),
        }
    }

    /// `tools/call` of `doctor` (the tool only this server offers): `payability doctor` of one
    /// URL, no probe; a URL out of policy is its refusal, nothing fetched. `params` is the
    /// call's, read here as `read_call` reads the others'.
    pub(crate) async fn doctor(&self, params: &Value, era: Era) -> ToolResult {
        let payment = params.pointer("/_meta/x402~1payment").is_some();
        let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let answer = match payment {
            true => Err(refused(TAKES_NO_PAYMENT)),
            false => self.examine(arguments).await,
        };
        match answer {
            Ok(json) => ToolResult::new(json, true, era, Cache::Private),
            Err(refused) => ToolResult::new(error_json(&refused), false, era, Cache::Private),
        }
    }

    /// The doctor's findings on the URL of `arguments`.
    async fn examine(&self, arguments: Value) -> Result<String, Refused> {
        let arguments: DoctorArguments = arguments_of(arguments)?;
        let target =
            vet_target_url(&arguments.url, self.rule).map_err(crate::local::refusal_problem)?;
        let seen = self.fetcher.observe(&target).await;
        let findings = examine(&seen, &ProbeAnswers::default());
        Ok(crate::doctor::findings_json(None, &seen.url, &findings))
    }

    /// The criteria document with the local key's descriptor (`payability criteria`).
    fn criteria(&self) -> String {
        let key = SigningKeyEntry {
            descriptor: self.signer.descriptor().clone(),
            valid_from: None,
            valid_until: None,
        };
        escape::json_line(&criteria_document(vec![key]))
    }

    /// The pre-check: whether the URL is in the target policy, signed; never fetches. A
    /// `caller` must be a wallet, and is otherwise unused (nothing is metered here).
    fn precheck(&self, arguments: Value) -> Result<String, Refused> {
        let arguments: PrecheckArguments = arguments_of(arguments)?;
        let op = match arguments.op.as_deref().map(PaidOp::parse) {
            None => PaidOp::Check,
            Some(Some(op)) => op,
            Some(None) => return Err(api_error(ApiError::OpUnknown)),
        };
        if arguments.caller.as_deref().is_some_and(|wallet| Base58Id::parse(wallet).is_none()) {
            return Err(api_error(ApiError::CallerNotAWallet));
        }
        let answer = signed_precheck(&arguments.url, op, self.rule, clock::now(), &self.signer);
        let answer = answer.ok_or_else(|| refused(CLOCK_OUT_OF_RANGE))?;
        Ok(escape::json_line(&answer))
    }

    /// `check` or `memo` of one URL: vetted, fetched, graded and signed as `payability check`
    /// does; a URL out of policy is its refusal, nothing fetched.
    async fn verdict(&self, op: PaidOp, arguments: Value) -> Result<String, Refused> {
        let arguments: PaidArguments = arguments_of(arguments)?;
        let target =
            vet_target_url(&arguments.url, self.rule).map_err(crate::local::refusal_problem)?;
        let report = crate::local::house_report(op, &target, &self.fetcher).await;
        let report = report.ok_or_else(|| refused(CLOCK_OUT_OF_RANGE))?;
        Ok(escape::json_line(&report.sign(&self.signer)))
    }
}
