//! The message a buyer sends, read: the skill it calls (named in a data part or a text part,
//! or carried by the id of the task it continues), and the payment and the sign-in proof its
//! metadata carries. Both wire shapes read alike: a part is known by its `data` or `text`
//! member, whatever its `kind` says.
//!
//! Tasks are not kept. A task's id carries its call ([`SkillCall::task_id`]: the skill and
//! its arguments, base64url JSON), so a message continuing a task names the same call again
//! and nothing has to outlive the request that answered it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use payability_core::payment::siwx::{
    SIGN_IN_WITH_X, SignInProof, SignInRefusal, decode_proof_header,
};
use payability_core::payment::x402::{DecodedPayment, PaymentRefusal, decode_payment_object};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use super::error::A2aError;
use crate::routes::Route;

/// The metadata key of the payment a message carries (the x402 A2A extension).
const PAYMENT_PAYLOAD: &str = "x402.payment.payload";

/// What starts every task id this endpoint issues.
const TASK_ID_PREFIX: &str = "pv1.";

/// A skill called by name, with its arguments (the data part's other members).
pub(super) struct SkillCall {
    /// The route the skill is.
    pub(super) skill: Route,
    /// The arguments, as the route's request body or the MCP tool takes them.
    pub(super) arguments: Map<String, Value>,
}

impl SkillCall {
    /// The id of the task that answers this call: the call itself, so that a message
    /// continuing the task names it again.
    pub(super) fn task_id(&self) -> String {
        let mut named = Map::with_capacity(self.arguments.len() + 1);
        named.insert("skill".to_owned(), Value::from(self.skill.name()));
        named.extend(self.arguments.iter().map(|(name, value)| (name.clone(), value.clone())));
        let json = serde_json::to_vec(&named).expect("a JSON object always serialises");
        format!("{TASK_ID_PREFIX}{}", URL_SAFE_NO_PAD.encode(json))
    }
}

/// A message, read.
pub(super) struct Inbound {
    /// The call it makes.
    pub(super) call: SkillCall,
    /// The context it names (echoed on the task), if any.
    pub(super) context_id: Option<String>,
    /// The payment its metadata carries, decoded; None without one.
    pub(super) payment: Option<Result<DecodedPayment, PaymentRefusal>>,
    /// The sign-in proof its metadata carries (the `SIGN-IN-WITH-X` header's text), decoded;
    /// None without one.
    pub(super) proof: Option<Result<SignInProof, SignInRefusal>>,
}

/// `SendMessage`'s params (A2A 1.0 and 0.3 alike): the message; the rest (`configuration`,
/// `metadata`, `tenant`) changes nothing here.
#[derive(Deserialize)]
struct Params {
    message: Message,
}

/// The members of a message this endpoint reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message {
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    context_id: Option<String>,
    #[serde(default)]
    parts: Vec<Value>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

/// Reads `SendMessage`'s params: params of another shape are invalid; a task id this
/// endpoint did not issue names no task; a new message must call one of the skills.
pub(super) fn read(params: Map<String, Value>) -> Result<Inbound, A2aError> {
    let params: Params =
        serde_json::from_value(Value::Object(params)).map_err(|_| A2aError::InvalidParams)?;
    let message = params.message;
    let call = match message.task_id.filter(|id| !id.is_empty()) {
        Some(id) => continued(&id).ok_or(A2aError::TaskNotFound)?,
        None => named(&message.parts).ok_or(A2aError::NoSkill)?,
    };
    let metadata = message.metadata.unwrap_or_default();
    let payment =
        metadata.get(PAYMENT_PAYLOAD).map(|payload| decode_payment_object(&integral(payload)));
    let proof = metadata.get(SIGN_IN_WITH_X).map(proof_of);
    let context_id = message.context_id.filter(|id| !id.is_empty());
    Ok(Inbound { call, context_id, payment, proof })
}

/// The call a task id carries, if it is one this endpoint issued.
fn continued(task_id: &str) -> Option<SkillCall> {
    let encoded = task_id.strip_prefix(TASK_ID_PREFIX)?;
    let json = URL_SAFE_NO_PAD.decode(encoded).ok()?;
    match serde_json::from_slice(&json).ok()? {
        Value::Object(named) => call_of(named),
        _ => None,
    }
}

/// The call a new message makes: its first data part that is an object naming a skill, else
/// its first text part, `<skill>` or `<skill> <endpoint>`.
fn named(parts: &[Value]) -> Option<SkillCall> {
    let data = parts.iter().find_map(|part| match part.get("data") {
        Some(Value::Object(named)) if named.contains_key("skill") => Some(named.clone()),
        _ => None,
    });
    if let Some(named) = data {
        return call_of(named);
    }
    let text = parts.iter().find_map(|part| part.get("text").and_then(Value::as_str))?;
    let mut words = text.split_whitespace();
    let skill = skill_named(words.next()?)?;
    let mut arguments = Map::new();
    if let Some(url) = words.next() {
        arguments.insert("url".to_owned(), Value::from(url));
    }
    words.next().is_none().then_some(SkillCall { skill, arguments })
}

/// A call from an object naming its skill (`"skill"`) beside its arguments.
fn call_of(mut named: Map<String, Value>) -> Option<SkillCall> {
    let skill = skill_named(named.remove("skill")?.as_str()?)?;
    Some(SkillCall { skill, arguments: named })
}

/// The skill of a name, if it is one of ours.
fn skill_named(name: &str) -> Option<Route> {
    Route::AGENT_CALLS.into_iter().find(|route| route.name() == name)
}

/// The sign-in proof in `metadata["sign-in-with-x"]`: the `SIGN-IN-WITH-X` header's text,
/// decoded by the header's own rules (anything but a string is malformed).
fn proof_of(value: &Value) -> Result<SignInProof, SignInRefusal> {
    let text = value.as_str().ok_or(SignInRefusal::HeaderMalformed)?;
    decode_proof_header(text.as_bytes())
}

/// Metadata is a protobuf `Struct` to A2A 1.0 clients, whose numbers are doubles (the
/// official Python client sends `"x402Version": 2.0`): every whole number within 2^53 is
/// written as the integer it is, so the payment reads as an HTTP client would have sent it.
fn integral(value: &Value) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match value {
        Value::Number(number) if number.is_f64() => match number.as_f64() {
            Some(x) if x.fract() == 0.0 && x.abs() <= EXACT => {
                // A whole number within 2^53 is exactly an i64.
                Value::Number(Number::from(x as i64))
            }
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(integral).collect()),
        Value::Object(fields) => {
            Value::Object(fields.iter().map(|(name, v)| (name.clone(), integral(v))).collect())
        }
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn params(message: Value) -> Map<String, Value> {
        match json!({"message": message, "configuration": {}}) {
            Value::Object(params) => params,
            _ => unreachable!(),
        }
    }

    /// (message, the skill and arguments read) for each way a message names its call.
    #[test]
    fn a_message_names_its_call_in_a_data_part_or_a_text_part() {
        let url = "https://seller.example/api";
        let vectors = [
            (
                json!({"parts": [{"data": {"skill": "check", "url": url}}]}),
                Route::Check,
                json!({"url": url}),
            ),
            (
                json!({"parts": [{"kind": "text", "text": "ignored?"}, {"kind": "data", "data": {"skill": "memo", "url": url}}]}),
                Route::Memo,
                json!({"url": url}),
            ),
            (
                json!({"parts": [{"text": format!("  check {url} ")}]}),
                Route::Check,
                json!({"url": url}),
            ),
            (json!({"parts": [{"text": "criteria"}]}), Route::Criteria, json!({})),
            (
                json!({"parts": [{"data": {"skill": "precheck", "url": url, "op": "memo"}}]}),
                Route::Precheck,
                json!({"url": url, "op": "memo"}),
            ),
        ];
        for (message, skill, arguments) in vectors {
            let read = read(params(message.clone())).unwrap_or_else(|_| panic!("{message}"));
            assert_eq!(read.call.skill, skill, "{message}");
            assert_eq!(Value::Object(read.call.arguments), arguments, "{message}");
        }
    }

    /// (message, the JSON-RPC error) for each message that calls nothing of ours.
    #[test]
    fn a_message_that_calls_no_skill_or_no_task_of_ours_is_refused() {
        let vectors = [
            (json!({"parts": []}), A2aError::NoSkill),
            (json!({"parts": [{"text": "hello there agent"}]}), A2aError::NoSkill),
            (json!({"parts": [{"text": "check a b"}]}), A2aError::NoSkill),
            (json!({"parts": [{"data": {"skill": "refund"}}]}), A2aError::NoSkill),
            (json!({"parts": [{"data": {"skill": 3}}]}), A2aError::NoSkill),
            (json!({"parts": "check"}), A2aError::InvalidParams),
            (json!({"taskId": "task-123", "parts": []}), A2aError::TaskNotFound),
            (json!({"taskId": "pv1.!!", "parts": []}), A2aError::TaskNotFound),
            (json!({"taskId": "pv1.WzFd", "parts": []}), A2aError::TaskNotFound),
        ];
        for (message, error) in vectors {
            assert_eq!(read(params(message.clone())).err(), Some(error), "{message}");
        }
        let no_message = Map::new();
        assert_eq!(read(no_message).err(), Some(A2aError::InvalidParams));
    }

    #[test]
    fn a_task_id_carries_its_call_back() {
        let url = "https://seller.example/api?q=é";
        let first = read(params(json!({"parts": [{"data": {"skill": "memo", "url": url}}]})));
        let task_id = first.unwrap_or_else(|_| panic!("read")).call.task_id();
        assert!(task_id.starts_with(TASK_ID_PREFIX), "{task_id}");
        let again = read(params(json!({"taskId": task_id, "parts": [{"text": "paying"}]})));
        let call = again.unwrap_or_else(|_| panic!("read")).call;
        assert_eq!((call.skill, Value::Object(call.arguments)), (Route::Memo, json!({"url": url})));
    }

    #[test]
    fn whole_doubles_read_as_integers_and_nothing_else_changes() {
        let sent = json!({"x402Version": 2.0, "accepted": {"maxTimeoutSeconds": 60.0, "amount": "10000"},
                          "odd": 1.5, "huge": 1e300, "list": [3.0, "4.0"]});
        let read = integral(&sent);
        let want = json!({"x402Version": 2, "accepted": {"maxTimeoutSeconds": 60, "amount": "10000"},
                          "odd": 1.5, "huge": 1e300, "list": [3, "4.0"]});
        assert_eq!(read, want);
        assert!(read["x402Version"].is_u64(), "an integer, as an HTTP client sends it");
    }
}
