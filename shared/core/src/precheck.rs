//! The pre-check answer ([`signed_precheck`]): whether a URL is in the target policy (or the
//! refusal naming the violation), with the disclosure line and the honesty and retention
//! lines of the op asked about, signed. It never fetches and carries no state and no factor.
//! Who may ask, and how often, is the caller's business: the service meters it, the command
//! line answers it free.

use serde::Serialize;
use serde_json::{Value, json};

use crate::criteria::{CRITERIA_ID, CRITERIA_REVISION, published};
use crate::op::PaidOp;
use crate::policy::{AddressRule, vet_target_url};
use crate::report::UtcMillis;
use crate::signing::ReportSigner;

/// A pre-check answer before signing.
#[derive(Serialize)]
struct PrecheckAnswer {
    criteria: &'static str,
    criteria_revision: &'static str,
    kind: &'static str,
    op: &'static str,
    url: Option<String>,
    in_policy: bool,
    refusal: Option<Value>,
    checked_at: String,
    disclosure: &'static str,
    honesty: &'static str,
    retention: &'static str,
}

/// The signed pre-check of `url` for `op` under `rule` at `checked_at`; None when that instant
/// has no RFC 3339 form (a clock out of range).
pub fn signed_precheck(
    url: &str,
    op: PaidOp,
    rule: AddressRule,
    checked_at: UtcMillis,
    signer: &ReportSigner,
) -> Option<Value> {
    let vetted = vet_target_url(url, rule);
    let texts = published();
    let (honesty, retention) = match op {
        PaidOp::Check => (texts.honesty_line.as_str(), texts.retention.as_str()),
        PaidOp::Memo => (texts.memo_op.boundary_statement.as_str(), texts.memo_op.custody.as_str()),
    };
    let answer = PrecheckAnswer {
        criteria: CRITERIA_ID,
        criteria_revision: CRITERIA_REVISION,
        kind: "precheck",
        op: op.as_str(),
        url: vetted.as_ref().ok().map(|target| target.as_str().to_owned()),
        in_policy: vetted.is_ok(),
        refusal: vetted.err().map(|r| json!({"rule": r.rule(), "message": r.message()})),
        checked_at: checked_at.to_rfc3339_millis()?,
        disclosure: &texts.disclosure_sentence,
        honesty,
        retention,
    };
    let mut value = serde_json::to_value(&answer).expect("a pre-check answer serialises");
    value["signature"] = serde_json::to_value(signer.sign(&value)).expect("an envelope serialises");
    Some(value)
}
