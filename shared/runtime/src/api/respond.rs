//! Responses: JSON bodies, the stable error shape `{error: {rule, message}}` with static
//! text, and the headers a response carries.

use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, StatusCode};
use serde::Serialize;
use serde_json::json;

/// A response, plus the verdict state (if any) for the log line. Small on purpose: the
/// handlers return it as their early-exit error.
#[derive(Debug, Clone)]
pub struct ApiResponse {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Vec<u8>,
    /// The verdict state this response carries, for the log line only.
    pub state: Option<&'static str>,
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

    /// 404 for a path this function does not serve.
    pub fn not_found() -> Self {
        error(StatusCode::NOT_FOUND, "not_found", "no such route")
    }

    /// 404 `NOT COVERED` for a POST path this service does not offer.
    pub fn not_covered() -> Self {
        error(
            StatusCode::NOT_FOUND,
            "not_covered",
            "NOT COVERED: this service offers the check and memo ops only",
        )
    }

    /// Adds a header whose value is ours (base64 or static text).
    pub fn with_header(mut self, name: &'static str, value: &str) -> Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.push((HeaderName::from_static(name), value));
        }
        self
    }

    /// Records the verdict state for the log line.
    pub fn with_state(mut self, state: &'static str) -> Self {
        self.state = Some(state);
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
pub fn json_response(status: StatusCode, value: &impl Serialize) -> ApiResponse {
    let body = serde_json::to_vec(value).expect("our response values always serialise");
    let headers = vec![(CONTENT_TYPE, HeaderValue::from_static("application/json"))];
    ApiResponse { status, headers, body, state: None }
}

/// A closed-form error: a stable rule id and static text.
pub fn error(status: StatusCode, rule: &'static str, message: &'static str) -> ApiResponse {
    json_response(status, &json!({"error": {"rule": rule, "message": message}}))
}

/// 503 with "do not pay" wording: a dependency is down, nothing was or will be charged.
pub fn unavailable(rule: &'static str, message: &'static str) -> ApiResponse {
    error(StatusCode::SERVICE_UNAVAILABLE, rule, message)
}
