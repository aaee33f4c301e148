//! Responses: JSON bodies, the stable error shape `{error: {rule, message}}` of
//! [`ApiError`], the headers a response carries, and its [`Telemetry`]: what the log line and
//! the EMF line read, set where the answer is built (never read back from the body).

use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, StatusCode};
use serde::Serialize;
use serde_json::json;

use crate::rules::ApiError;
use crate::telemetry::{Relay, Telemetry, Tripwires};

/// A response, plus its [`Telemetry`]. Small on purpose: the handlers return it as their
/// early-exit error.
#[derive(Debug, Clone)]
pub struct ApiResponse {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Vec<u8>,
    telemetry: Telemetry,
}

impl ApiResponse {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The body bytes.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// What the log line and the EMF line read of this answer.
    pub fn telemetry(&self) -> &Telemetry {
        &self.telemetry
    }

    /// A response without a body.
    pub fn empty(status: StatusCode) -> Self {
        Self { status, headers: Vec::new(), body: Vec::new(), telemetry: Telemetry::default() }
    }

    /// The same response without its body (the answer to a `HEAD`).
    pub fn without_body(mut self) -> Self {
        self.body.clear();
        self
    }

    /// Adds a header whose value is ours (base64 or static text).
    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.push((HeaderName::from_static(name), value));
        }
        self
    }

    /// Records the delivered report's verdict state and house flag.
    pub(super) fn with_verdict(mut self, state: &'static str, house: bool) -> Self {
        self.telemetry.state = Some(state);
        self.telemetry.house = house;
        self
    }

    /// Records the rule id of an error answer or a refusal.
    pub(super) fn with_rule(mut self, rule: &'static str) -> Self {
        self.telemetry.rule = Some(rule);
        self
    }

    /// Records another answer's telemetry (an MCP tool result's, on its JSON-RPC answer).
    pub(super) fn with_telemetry(mut self, telemetry: Telemetry) -> Self {
        self.telemetry = telemetry;
        self
    }

    /// Records where `POST /rpc` took its blockhash.
    pub(super) fn with_relay(mut self, relay: Relay) -> Self {
        self.telemetry.relay = Some(relay);
        self
    }

    /// Records the tripwires of a `/metrics` answer.
    pub(super) fn with_tripwires(mut self, tripwires: Tripwires) -> Self {
        self.telemetry.tripwires = Some(tripwires);
        self
    }

    /// The response as an `http::Response`.
    pub fn into_http(self) -> http::Response<Vec<u8>> {
        let mut response = http::Response::new(self.body);
        *response.status_mut() = self.status;
        let headers: &mut HeaderMap = response.headers_mut();
        for (name, value) in self.headers {
            headers.insert(name, value);
        }
        response
    }
}

/// A JSON response.
pub(super) fn json_response(status: StatusCode, value: &impl Serialize) -> ApiResponse {
    let body = serde_json::to_vec(value).expect("our response values always serialise");
    let headers = vec![(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
    ApiResponse { status, headers, body, telemetry: Telemetry::default() }
}

/// A response whose body is JSON bytes already serialised (our own challenge body).
pub(super) fn json_response_bytes(status: StatusCode, body: Vec<u8>) -> ApiResponse {
    let headers = vec![(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
    ApiResponse { status, headers, body, telemetry: Telemetry::default() }
}

/// A response whose body is bytes of another content type (a text document), or JSON bytes
/// served as they are (the committed corpus).
pub(super) fn bytes_response(
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
) -> ApiResponse {
    let headers = vec![(CONTENT_TYPE, HeaderValue::from_static(content_type))];
    ApiResponse { status, headers, body, telemetry: Telemetry::default() }
}

/// The closed-form answer of an error: `{"error": {"rule", "message"}}` with its status (and
/// `Retry-After` where the error asks to retry).
pub(super) fn error(error: ApiError) -> ApiResponse {
    let body = json!({"error": {"rule": error.rule(), "message": error.message()}});
    let response = json_response(error.status(), &body).with_rule(error.rule());
    match error.retry_after() {
        Some(seconds) => response.with_header("retry-after", seconds),
        None => response,
    }
}
