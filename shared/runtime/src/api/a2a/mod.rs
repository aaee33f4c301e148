//! `POST /a2a`: A2A's JSON-RPC binding in a stateless form, the third transport of one
//! purchase ([`super::purchase`]). The skills are the routes an agent calls by name (`criteria`,
//! `precheck`, `check`, `memo`, as the agent card lists them); a paid skill is the same purchase
//! as `POST /check`, paid with the x402 A2A extension (standalone flow): the task waits in
//! `input-required` with our challenge in `x402.payment.required`, the message continuing it
//! carries `x402.payment.payload`, and the completed task carries the signed report as its
//! artifact and the settlement in `x402.payment.receipts` ([`skills`]).
//!
//! Both wire shapes are served at the one URL, told apart by the method: A2A 1.0's
//! `SendMessage` and A2A 0.3's `message/send` ([`task::Dialect`]). No task is kept: a task's id
//! carries its call ([`message`]), so `GetTask` and `CancelTask` find none, and streaming and
//! push notifications are not offered. Every request gets HTTP 200 with a JSON-RPC response,
//! errors included (closed form: a code and a static message, never a received value); the
//! body cap, the method (`POST` only: 405 otherwise) and the log line are the route's, as for
//! every route. The x402 extension is activated by either of its URIs in `A2A-Extensions` or
//! `X-A2A-Extensions`, and echoed in both.

mod error;
mod message;
mod skills;
mod task;

use http::{HeaderMap, StatusCode};

use super::discovery::{X402_EXTENSION_URI, X402_EXTENSION_URI_V01};
use super::jsonrpc::{self, Envelope};
use super::request::ApiRequest;
use super::respond::{ApiResponse, error};
use super::service::{Service, Stores};
use crate::rules::ApiError;
use error::A2aError;
use task::Dialect;

/// `SendMessage`'s params, read as the fuzz targets see them (the `fuzzing` feature): the
/// call with the id of the task that answers it, or the JSON-RPC error code.
#[cfg(feature = "fuzzing")]
pub(super) fn read_message(
    params: serde_json::Map<String, serde_json::Value>,
) -> Result<super::agent_call::AgentCall, i64> {
    let inbound = message::read(params).map_err(A2aError::code)?;
    Ok(super::agent_call::AgentCall {
        route: inbound.call.skill,
        task_id: Some(inbound.call.task_id()),
        arguments: inbound.call.arguments,
        context_id: inbound.context_id,
        payment: inbound.payment,
        proof: inbound.proof,
    })
}

/// The wire shape a method speaks, or the error it is answered with: the two names of
/// sending a message are served; the methods that read or follow kept tasks find none, or are
/// not offered.
fn dialect_of(method: &str) -> Result<Dialect, A2aError> {
    match method {
        "SendMessage" => Ok(Dialect::V1),
        "message/send" => Ok(Dialect::V03),
        "GetTask" | "tasks/get" | "CancelTask" | "tasks/cancel" => Err(A2aError::TaskNotFound),
        "SendStreamingMessage"
        | "message/stream"
        | "SubscribeToTask"
        | "tasks/resubscribe"
        | "ListTasks"
        | "tasks/list"
        | "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig"
        | "tasks/pushNotificationConfig/set"
        | "tasks/pushNotificationConfig/get"
        | "tasks/pushNotificationConfig/list"
        | "tasks/pushNotificationConfig/delete"
        | "GetExtendedAgentCard"
        | "agent/getAuthenticatedExtendedCard" => Err(A2aError::UnsupportedOperation),
        _ => Err(A2aError::MethodNotFound),
    }
}

/// The headers that activate extensions: A2A 1.0's and the name x402's A2A text uses.
const EXTENSION_HEADERS: [&str; 2] = ["a2a-extensions", "x-a2a-extensions"];
/// The header naming the A2A version the client speaks.
const VERSION_HEADER: &str = "a2a-version";
/// The request headers this transport reads: allowed in a CORS preflight.
pub(super) const REQUEST_HEADERS: [&str; 3] =
    [EXTENSION_HEADERS[0], EXTENSION_HEADERS[1], VERSION_HEADER];

/// Our extension URIs the request activates (either header, comma-separated), in our order.
fn activated(headers: &HeaderMap) -> Vec<&'static str> {
    let named = |uri: &str| {
        EXTENSION_HEADERS.iter().flat_map(|name| headers.get_all(*name)).any(|value| {
            value.to_str().is_ok_and(|list| list.split(',').any(|item| item.trim() == uri))
        })
    };
    [X402_EXTENSION_URI, X402_EXTENSION_URI_V01].into_iter().filter(|uri| named(uri)).collect()
}

/// Whether the request's `A2A-Version` (absent: 0.3) is a version this endpoint speaks.
fn version_spoken(headers: &HeaderMap) -> bool {
    let Some(version) = headers.get(VERSION_HEADER) else {
        return true;
    };
    let major = version.to_str().ok().and_then(|v| v.trim().split('.').next());
    matches!(major, Some("0" | "1"))
}

impl<S: Stores> Service<S> {
    /// `POST /a2a`: one JSON-RPC request, answered, with the activated extensions echoed; a
    /// browser's foreign `Origin` is 403 `origin_forbidden` first (MCP's rule).
    pub(super) async fn a2a(&self, request: &ApiRequest) -> ApiResponse {
        if !self.origin_allowed(request) {
            return error(ApiError::OriginForbidden);
        }
        let extensions = activated(&request.headers);
        let response = self.a2a_answer(request, !extensions.is_empty()).await;
        if extensions.is_empty() {
            return response;
        }
        let echoed = extensions.join(", ");
        EXTENSION_HEADERS
            .into_iter()
            .fold(response, |response, name| response.with_header(name, &echoed))
    }

    /// The JSON-RPC answer of one request.
    async fn a2a_answer(&self, request: &ApiRequest, x402_activated: bool) -> ApiResponse {
        let mut call = match jsonrpc::read(&request.body) {
            Ok(Envelope::Call(call)) => call,
            // A2A sends no notifications; one is accepted and nothing runs.
            Ok(Envelope::Notification) => return ApiResponse::empty(StatusCode::ACCEPTED),
            Err(malformed) => return jsonrpc::malformed(&malformed),
        };
        if !version_spoken(&request.headers) {
            return A2aError::VersionNotSupported.answer(&call.id);
        }
        let dialect = match dialect_of(&call.method) {
            Ok(dialect) => dialect,
            Err(refused) => return refused.answer(&call.id),
        };
        let Some(params) = call.object_params() else {
            return A2aError::InvalidParams.answer(&call.id);
        };
        match self.send_message(request, params, x402_activated).await {
            Ok(answered) => jsonrpc::result(&call.id, answered.task.result(dialect))
                .with_telemetry(answered.telemetry),
            Err(refused) => refused.answer(&call.id),
        }
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn either_uri_in_either_header_activates_the_extension() {
        let vectors: [(&str, &str, Vec<&str>); 5] = [
            ("a2a-extensions", X402_EXTENSION_URI, vec![X402_EXTENSION_URI]),
            ("x-a2a-extensions", X402_EXTENSION_URI_V01, vec![X402_EXTENSION_URI_V01]),
            (
                "A2A-Extensions",
                "https://other.example/ext , https://github.com/google-a2a/a2a-x402/v0.1",
                vec![X402_EXTENSION_URI_V01],
            ),
            ("a2a-extensions", "https://github.com/google-a2a/a2a-x402/v0.1x", vec![]),
            ("accept", X402_EXTENSION_URI, vec![]),
        ];
        for (name, value, want) in vectors {
            let mut headers = HeaderMap::new();
            headers.insert(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
            assert_eq!(activated(&headers), want, "{name}: {value}");
        }
    }

    #[test]
    fn a_version_is_spoken_when_absent_or_of_major_0_or_1() {
        for (version, spoken) in [
            (None, true),
            (Some("1.0"), true),
            (Some("0.3"), true),
            (Some("2.0"), false),
            (Some("x"), false),
        ] {
            let mut headers = HeaderMap::new();
            if let Some(version) = version {
                headers.insert("a2a-version", HeaderValue::from_static(version));
            }
            assert_eq!(version_spoken(&headers), spoken, "{version:?}");
        }
    }

    #[test]
    fn every_method_is_served_found_wanting_or_not_offered() {
        assert_eq!(dialect_of("SendMessage"), Ok(Dialect::V1));
        assert_eq!(dialect_of("message/send"), Ok(Dialect::V03));
        assert_eq!(dialect_of("GetTask"), Err(A2aError::TaskNotFound));
        assert_eq!(dialect_of("message/stream"), Err(A2aError::UnsupportedOperation));
        assert_eq!(dialect_of("tools/call"), Err(A2aError::MethodNotFound));
    }
}
