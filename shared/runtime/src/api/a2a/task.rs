//! The task a message is answered with, as one model ([`Task`]) rendered in the wire shape
//! of the request: A2A 1.0 (`SendMessage`: `{"task": …}`, `TASK_STATE_*` and `ROLE_*`
//! names, parts without `kind`) or A2A 0.3 (`message/send`: the task itself, lower-case
//! names, a `kind` on every object). The x402 A2A extension's metadata sits on the status
//! message.

use payability_core::payment::x402::SettlementResponse;
use serde::Serialize;
use serde_json::value::RawValue;

/// The wire shape a request speaks, named by its method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// A2A 1.0 (`SendMessage`), which the official SDKs speak by default.
    V1,
    /// A2A 0.3 (`message/send`), which x402's A2A transport text uses.
    V03,
}

impl Dialect {
    /// The `kind` member an object of `kind` carries in this shape (none in 1.0).
    fn kind(self, kind: &'static str) -> Option<&'static str> {
        (self == Self::V03).then_some(kind)
    }
}

/// The states a task of this endpoint ends a request in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskState {
    /// Waiting for a payment (or a sign-in): the task's id is continued by the next message.
    InputRequired,
    /// Answered: the answer is the task's artifact.
    Completed,
    /// A presented payment did not buy the answer (the closed-form error says why and
    /// whether to retry the same payment).
    Failed,
    /// Refused before any payment (a URL out of policy, arguments of another shape).
    Rejected,
}

impl TaskState {
    /// The state's name in a wire shape.
    fn spelled(self, dialect: Dialect) -> &'static str {
        match (self, dialect) {
            (Self::InputRequired, Dialect::V1) => "TASK_STATE_INPUT_REQUIRED",
            (Self::Completed, Dialect::V1) => "TASK_STATE_COMPLETED",
            (Self::Failed, Dialect::V1) => "TASK_STATE_FAILED",
            (Self::Rejected, Dialect::V1) => "TASK_STATE_REJECTED",
            (Self::InputRequired, Dialect::V03) => "input-required",
            (Self::Completed, Dialect::V03) => "completed",
            (Self::Failed, Dialect::V03) => "failed",
            (Self::Rejected, Dialect::V03) => "rejected",
        }
    }
}

/// The x402 A2A extension's metadata on a status message.
#[derive(Serialize)]
pub(super) struct PaymentMetadata {
    /// `payment-required`, `payment-completed` or `payment-failed`.
    #[serde(rename = "x402.payment.status")]
    pub(super) status: &'static str,
    /// Our challenge (x402 v2 `PaymentRequired`), while the task waits for a payment.
    #[serde(rename = "x402.payment.required", skip_serializing_if = "Option::is_none")]
    pub(super) required: Option<Box<RawValue>>,
    /// The settlement answer, when one is known.
    #[serde(rename = "x402.payment.receipts", skip_serializing_if = "Option::is_none")]
    pub(super) receipts: Option<[SettlementResponse; 1]>,
    /// The rule id of a refused payment.
    #[serde(rename = "x402.payment.error", skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<&'static str>,
}

/// A task as answered.
pub(super) struct Task {
    /// Its id (it carries the call: see [`super::message`]).
    pub(super) id: String,
    /// Its context: the message's, else a fresh one.
    pub(super) context_id: String,
    /// Its state.
    pub(super) state: TaskState,
    /// The status message's text: a static line.
    pub(super) text: &'static str,
    /// The status message's data part: the closed-form error of a refusal.
    pub(super) data: Option<Box<RawValue>>,
    /// The status message's x402 metadata.
    pub(super) payment: Option<PaymentMetadata>,
    /// The artifact (its name and JSON) of a completed task.
    pub(super) artifact: Option<(&'static str, Box<RawValue>)>,
    /// The status message's id.
    pub(super) message_id: String,
    /// When the status was set, RFC 3339.
    pub(super) timestamp: Option<String>,
}

impl Task {
    /// `SendMessage`'s result in `dialect`.
    pub(super) fn result(&self, dialect: Dialect) -> SendMessageResult<'_> {
        let task = self.wire(dialect);
        match dialect {
            Dialect::V1 => SendMessageResult::Wrapped { task },
            Dialect::V03 => SendMessageResult::Bare(task),
        }
    }

    fn wire<'a>(&'a self, dialect: Dialect) -> WireTask<'a> {
        let data_part = |data: &'a RawValue| WirePart {
            kind: dialect.kind("data"),
            text: None,
            data: Some(data),
            media_type: (dialect == Dialect::V1).then_some("application/json"),
        };
        let mut parts = vec![WirePart {
            kind: dialect.kind("text"),
            text: Some(self.text),
            data: None,
            media_type: None,
        }];
        parts.extend(self.data.as_deref().map(data_part));
        let message = WireMessage {
            kind: dialect.kind("message"),
            message_id: &self.message_id,
            role: match dialect {
                Dialect::V1 => "ROLE_AGENT",
                Dialect::V03 => "agent",
            },
            task_id: &self.id,
            context_id: &self.context_id,
            parts,
            metadata: self.payment.as_ref(),
        };
        let artifacts = self.artifact.iter().map(|(name, json)| WireArtifact {
            artifact_id: name,
            name,
            parts: [data_part(json)],
        });
        WireTask {
            kind: dialect.kind("task"),
            id: &self.id,
            context_id: &self.context_id,
            status: WireStatus {
                state: self.state.spelled(dialect),
                message,
                timestamp: self.timestamp.as_deref(),
            },
            artifacts: artifacts.collect(),
        }
    }
}

/// `SendMessage`'s result: A2A 1.0 wraps the task (`{"task": …}`), A2A 0.3 answers it bare.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum SendMessageResult<'a> {
    /// A2A 1.0.
    Wrapped { task: WireTask<'a> },
    /// A2A 0.3.
    Bare(WireTask<'a>),
}

/// A task on the wire.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireTask<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    id: &'a str,
    context_id: &'a str,
    status: WireStatus<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    artifacts: Vec<WireArtifact<'a>>,
}

/// A task's status on the wire.
#[derive(Serialize)]
struct WireStatus<'a> {
    state: &'static str,
    message: WireMessage<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
}

/// The status message on the wire.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireMessage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    message_id: &'a str,
    role: &'static str,
    task_id: &'a str,
    context_id: &'a str,
    parts: Vec<WirePart<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a PaymentMetadata>,
}

/// A part on the wire: text or JSON data.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WirePart<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    media_type: Option<&'static str>,
}

/// An artifact on the wire.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireArtifact<'a> {
    artifact_id: &'a str,
    name: &'a str,
    parts: [WirePart<'a>; 1],
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn raw(value: Value) -> Box<RawValue> {
        RawValue::from_string(value.to_string()).unwrap()
    }

    fn completed() -> Task {
        Task {
            id: "pv1.e30".into(),
            context_id: "ctx-1".into(),
            state: TaskState::Completed,
            text: "done",
            data: None,
            payment: None,
            artifact: Some(("report", raw(json!({"op": "check"})))),
            message_id: "msg-1".into(),
            timestamp: Some("2026-12-06T00:00:00.000Z".into()),
        }
    }

    #[test]
    fn a_1_0_task_is_wrapped_and_names_its_states_and_parts_as_protobuf_json_does() {
        let wire = serde_json::to_value(completed().result(Dialect::V1)).unwrap();
        let want = json!({"task": {
            "id": "pv1.e30", "contextId": "ctx-1",
            "status": {
                "state": "TASK_STATE_COMPLETED",
                "message": {"messageId": "msg-1", "role": "ROLE_AGENT", "taskId": "pv1.e30",
                            "contextId": "ctx-1", "parts": [{"text": "done"}]},
                "timestamp": "2026-12-06T00:00:00.000Z",
            },
            "artifacts": [{"artifactId": "report", "name": "report",
                           "parts": [{"data": {"op": "check"}, "mediaType": "application/json"}]}],
        }});
        assert_eq!(wire, want);
    }

    #[test]
    fn a_0_3_task_is_bare_and_every_object_names_its_kind() {
        let wire = serde_json::to_value(completed().result(Dialect::V03)).unwrap();
        let want = json!({
            "kind": "task", "id": "pv1.e30", "contextId": "ctx-1",
            "status": {
                "state": "completed",
                "message": {"kind": "message", "messageId": "msg-1", "role": "agent",
                            "taskId": "pv1.e30", "contextId": "ctx-1",
                            "parts": [{"kind": "text", "text": "done"}]},
                "timestamp": "2026-12-06T00:00:00.000Z",
            },
            "artifacts": [{"artifactId": "report", "name": "report",
                           "parts": [{"kind": "data", "data": {"op": "check"}}]}],
        });
        assert_eq!(wire, want);
    }
}
