//! `SendMessage`: the skill a message calls, run, and its answer as a task. A skill's answer is
//! the one its route gives over HTTP (the same functions, the same closed-form errors, the same
//! purchase through [`crate::api::purchase::PaidCall`]); what it makes of the task is an
//! [`Ending`]: completed with the answer as its artifact, waiting for a payment (our challenge,
//! x402 v2, in `x402.payment.required`), or refused: failed when a payment was presented,
//! rejected before any.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::StatusCode;
use payability_core::challenge::OwnChallenge;
use payability_core::op::PaidOp;
use payability_core::payment::siwx::{SignInProof, SignInRefusal};
use payability_core::payment::x402::SettlementResponse;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::error::A2aError;
use super::message::{self, Inbound};
use super::task::{PaymentMetadata, Task, TaskState};
use crate::api::call_style::CallStyle;
use crate::api::discovery::criteria_response;
use crate::api::precheck::PrecheckEnd;
use crate::api::purchase::{Presented, PurchaseOutcome};
use crate::api::request::ApiRequest;
use crate::api::respond::{ApiResponse, error, json_response_bytes};
use crate::api::service::{Service, Stores};
use crate::routes::Route;
use crate::rules::{ApiError, Refusal};
use crate::telemetry::Telemetry;

/// What a skill's answer makes of its task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The answer: the task completes with it as its artifact.
    Completed,
    /// Our challenge (or the sign-in challenge): the task waits for the next message.
    PaymentRequired,
    /// A closed-form refusal.
    Refused,
}

/// A skill's answer: how it ends the task, the route's answer (its JSON body and telemetry)
/// and the settlement answer, when there is one.
struct SkillAnswer {
    ending: Ending,
    response: ApiResponse,
    settlement: Option<SettlementResponse>,
}

impl SkillAnswer {
    fn of(ending: Ending, response: ApiResponse) -> Self {
        Self { ending, response, settlement: None }
    }
}

/// A message's answer: the task, and what the log line and the EMF line read of it.
pub(super) struct Answered {
    /// The task.
    pub(super) task: Task,
    /// The answer the task stands for, as the skill's route.
    pub(super) telemetry: Telemetry,
}

impl<S: Stores> Service<S> {
    /// `SendMessage` (and `message/send`): the message read, its skill run, the answer as a
    /// task. A paid skill needs the x402 extension activated (the card declares it required).
    pub(super) async fn send_message(
        &self,
        request: &ApiRequest,
        params: Map<String, Value>,
        x402_activated: bool,
    ) -> Result<Answered, A2aError> {
        let Inbound { call, context_id, payment, proof } = message::read(params)?;
        let skill = call.skill;
        if skill.paid().is_some() && !x402_activated {
            return Err(A2aError::ExtensionSupportRequired);
        }
        let id = call.task_id();
        let paying = payment.is_some();
        let arguments = Value::Object(call.arguments);
        let answer = match (skill.paid(), skill) {
            (Some(op), _) => {
                let presented = Presented { payment, proof };
                self.paid_skill(op, arguments, presented, request).await
            }
            (None, Route::Precheck) if paying => {
                SkillAnswer::of(Ending::Refused, error(ApiError::PrecheckTakesNoPayment))
            }
            (None, Route::Precheck) => self.precheck_skill(arguments, proof, request).await,
            // The criteria skill reads no arguments and no payment.
            (None, _) => {
                SkillAnswer::of(Ending::Completed, criteria_response(self.publication().keys))
            }
        };
        let telemetry = Telemetry {
            stands_for: Some((skill, answer.response.status())),
            ..*answer.response.telemetry()
        };
        let context_id = context_id.unwrap_or_else(|| fresh_id("ctx-"));
        let timestamp = (self.clock)().to_rfc3339_millis();
        let task = task_of(skill, answer, paying, id, context_id, timestamp);
        Ok(Answered { task, telemetry })
    }

    /// A paid skill: the purchase of its arguments, as over HTTP.
    async fn paid_skill(
        &self,
        op: PaidOp,
        arguments: Value,
        presented: Presented,
        request: &ApiRequest,
    ) -> SkillAnswer {
        let outcome = self.buy_with_arguments(op, arguments, CallStyle::A2a, presented, request);
        let outcome = outcome.await;
        let ending = match &outcome {
            PurchaseOutcome::Offer { .. } => Ending::PaymentRequired,
            PurchaseOutcome::Refused { .. } => Ending::Refused,
            PurchaseOutcome::Delivered { .. } => Ending::Completed,
        };
        let (response, settlement) = outcome.answer(a2a_offer);
        SkillAnswer { ending, response, settlement }
    }

    /// The pre-check skill: the signed answer or a closed-form error. A spent allowance is the
    /// refusal naming the paid skill to call instead; a pre-check to sign is the sign-in
    /// challenge (a v2 `PaymentRequired` offering no payment) in `x402.payment.required`.
    async fn precheck_skill(
        &self,
        arguments: Value,
        proof: Option<Result<SignInProof, SignInRefusal>>,
        request: &ApiRequest,
    ) -> SkillAnswer {
        match self.precheck_end(arguments, proof, request, a2a_offer, "pay_with_skill").await {
            PrecheckEnd::Answered(response) => SkillAnswer::of(Ending::Completed, response),
            PrecheckEnd::SignIn(response) => SkillAnswer::of(Ending::PaymentRequired, response),
            PrecheckEnd::Refused(response) => SkillAnswer::of(Ending::Refused, response),
        }
    }
}

/// Our challenge as an A2A answer: the v2 `PaymentRequired` (A2A payments are x402 v2).
fn a2a_offer(challenge: OwnChallenge) -> ApiResponse {
    json_response_bytes(StatusCode::PAYMENT_REQUIRED, challenge.v2)
}

/// The task a skill's answer makes: a refusal fails the task when a payment was presented
/// (`x402.payment.status: payment-failed`, the rule in `x402.payment.error`), else rejects it;
/// a challenge that answers a presented payment names the payment's rule too.
fn task_of(
    skill: Route,
    answer: SkillAnswer,
    paying: bool,
    id: String,
    context_id: String,
    timestamp: Option<String>,
) -> Task {
    let SkillAnswer { ending, response, settlement } = answer;
    let rule = response.telemetry().closed_rule();
    let json = RawValue::from_string(
        String::from_utf8(response.body().to_vec()).expect("our answers are UTF-8 JSON"),
    )
    .expect("our answers are JSON");
    let receipts = settlement.map(|settlement| [settlement]);
    let metadata = |status, required, error| PaymentMetadata {
        status,
        required,
        receipts: receipts.clone(),
        error,
    };
    let (state, text, data, payment, artifact) = match ending {
        Ending::Completed => {
            let payment =
                (paying || receipts.is_some()).then(|| metadata("payment-completed", None, None));
            (TaskState::Completed, DONE, None, payment, Some((artifact_name(skill), json)))
        }
        Ending::PaymentRequired => {
            let refused = rule.filter(|rule| paying && *rule != Refusal::PaymentRequired.rule());
            let payment = metadata("payment-required", Some(json), refused);
            (TaskState::InputRequired, PAY, None, Some(payment), None)
        }
        Ending::Refused if paying => {
            let payment = metadata("payment-failed", None, rule);
            (TaskState::Failed, REFUSED, Some(json), Some(payment), None)
        }
        Ending::Refused => (TaskState::Rejected, REFUSED, Some(json), None, None),
    };
    let message_id = fresh_id("msg-");
    Task { id, context_id, state, text, data, payment, artifact, message_id, timestamp }
}

/// The status text of a completed task.
const DONE: &str = "Done: the answer is the task's artifact (a signed report for check and memo).";

/// The status text of a task waiting for a payment.
const PAY: &str = "Payment required: pay x402.payment.required (x402 v2, exact, USDC on Solana) \
    and answer this task with x402.payment.payload in the message's metadata (or, to collect a \
    verdict already paid for, sign in with sign-in-with-x).";

/// The status text of a refused task.
const REFUSED: &str = "Refused: the data part is the closed-form error {rule, message}.";

/// The name of a skill's artifact.
fn artifact_name(skill: Route) -> &'static str {
    match skill {
        Route::Precheck => "precheck",
        Route::Criteria => "criteria",
        _ => "report",
    }
}

/// A fresh id with `prefix` (128 random bits, base64url).
fn fresh_id(prefix: &str) -> String {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).expect("the system random source works");
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(random))
}
