//! The doctor's look at one endpoint: the stranger's GET (as `check` sends it, plus an
//! `Origin`, as a browser page on another site would) and a CORS preflight, side by side;
//! and its opt-in probes: an empty-body request of another method, and JSON asked of a URL
//! the seller named (a facilitator, an RPC). All under the same target policy, deadline and
//! caps. Only the status, the capture, the few headers the checks read, or the JSON answer,
//! are kept.

use payability_core::capture::FetchOutcome;
use payability_core::doctor::{Answer, HttpObservation, PREFLIGHT_ORIGIN, ResponseHeaders};
use payability_core::policy::TargetUrl;
use reqwest::header::{HeaderMap, HeaderName};
use reqwest::{Method, Response};
use serde_json::Value;

use super::{Fetcher, capture};

impl Fetcher {
    /// Sends the GET and the preflight together; never errors (a failure is an outcome).
    pub async fn observe(&self, target: &TargetUrl) -> HttpObservation {
        let (get, preflight) = tokio::join!(self.doctor_get(target), self.preflight(target));
        let (get, get_headers) = get;
        HttpObservation { url: target.as_str().to_owned(), get, get_headers, preflight }
    }

    async fn doctor_get(&self, target: &TargetUrl) -> (FetchOutcome, ResponseHeaders) {
        if !self.literal_host_allowed(target) {
            return (FetchOutcome::Failed, ResponseHeaders::default());
        }
        let request = self.client.get(target.as_str()).header("origin", PREFLIGHT_ORIGIN);
        let exchange = async {
            match request.send().await {
                Ok(response) => {
                    let headers = read_headers(response.headers());
                    (capture(response).await, headers)
                }
                Err(_) => (FetchOutcome::Failed, ResponseHeaders::default()),
            }
        };
        match tokio::time::timeout(self.deadline, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => (FetchOutcome::TimedOut, ResponseHeaders::default()),
        }
    }

    async fn preflight(&self, target: &TargetUrl) -> Option<Answer> {
        if !self.literal_host_allowed(target) {
            return None;
        }
        let request = self
            .client
            .request(Method::OPTIONS, target.as_str())
            .header("origin", PREFLIGHT_ORIGIN)
            .header("access-control-request-method", "GET")
            .header("access-control-request-headers", "payment-signature");
        let response: Response =
            tokio::time::timeout(self.deadline, request.send()).await.ok()?.ok()?;
        Some(Answer {
            status: response.status().as_u16(),
            headers: read_headers(response.headers()),
        })
    }
}

impl Fetcher {
    /// An empty-body request of `method` (the `--method` probe; an HTTP method's name): its
    /// status and capture. A name that is not a method fails.
    pub async fn empty_request(&self, target: &TargetUrl, method: &str) -> FetchOutcome {
        let Ok(method) = Method::from_bytes(method.as_bytes()) else {
            return FetchOutcome::Failed;
        };
        if !self.literal_host_allowed(target) {
            return FetchOutcome::Failed;
        }
        let request = self.client.request(method, target.as_str()).header("content-length", "0");
        let exchange = async {
            match request.send().await {
                Ok(response) => capture(response).await,
                Err(_) => FetchOutcome::Failed,
            }
        };
        tokio::time::timeout(self.deadline, exchange).await.unwrap_or(FetchOutcome::TimedOut)
    }

    /// JSON asked of a URL the caller named: a GET, or a POST of `body` as JSON. The answer's
    /// JSON when it is a 2xx within the body cap; None otherwise (no answer, another status,
    /// over the cap, not JSON).
    pub async fn json(&self, target: &TargetUrl, body: Option<&Value>) -> Option<Value> {
        if !self.literal_host_allowed(target) {
            return None;
        }
        let request = match body {
            None => self.client.get(target.as_str()),
            Some(body) => self
                .client
                .post(target.as_str())
                .header("content-type", "application/json")
                .body(body.to_string()),
        };
        let exchange = async {
            let response = request.send().await.ok()?;
            match capture(response).await {
                FetchOutcome::Captured(answer) if (200..300).contains(&answer.status) => {
                    serde_json::from_slice(answer.body_bytes()?).ok()
                }
                _ => None,
            }
        };
        tokio::time::timeout(self.deadline, exchange).await.ok()?
    }
}

/// An MCP server's answer to one request over Streamable HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct McpAnswer {
    /// The JSON-RPC message answered: the JSON body, or the event stream's message with the
    /// request's id.
    pub message: Value,
    /// The session the server named (`Mcp-Session-Id`), if it named one.
    pub session: Option<String>,
}

impl Fetcher {
    /// One MCP request over Streamable HTTP (the doctor's `--mcp`): a POST of `message` with
    /// `headers`, accepting JSON or an event stream. The answer when it is a 2xx within the
    /// body cap carrying the message with the request's id; None otherwise.
    pub async fn mcp(
        &self,
        target: &TargetUrl,
        message: &Value,
        headers: &[(&'static str, String)],
    ) -> Option<McpAnswer> {
        if !self.literal_host_allowed(target) {
            return None;
        }
        let mut request = self
            .client
            .post(target.as_str())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let id = message.get("id").cloned();
        let exchange = async {
            let response = request.send().await.ok()?;
            let session = response
                .headers()
                .get("mcp-session-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let stream = response
                .headers()
                .get("content-type")
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.starts_with("text/event-stream"));
            let FetchOutcome::Captured(answer) = capture(response).await else {
                return None;
            };
            if !(200..300).contains(&answer.status) {
                return None;
            }
            let body = answer.body_bytes()?;
            let message = if stream {
                let text = std::str::from_utf8(body).ok()?;
                text.lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                    .find(|message| message.get("id") == id.as_ref())?
            } else if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(body).ok()?
            };
            Some(McpAnswer { message, session })
        };
        tokio::time::timeout(self.deadline, exchange).await.ok()?
    }
}

/// The headers the checks read, each field's values joined with `, ` (values that are not
/// visible ASCII are left out).
fn read_headers(headers: &HeaderMap) -> ResponseHeaders {
    let joined = |name: &'static str| {
        let values: Vec<&str> = headers
            .get_all(HeaderName::from_static(name))
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    };
    ResponseHeaders {
        allow_origin: joined("access-control-allow-origin"),
        allow_headers: joined("access-control-allow-headers"),
        expose_headers: joined("access-control-expose-headers"),
        cache_control: joined("cache-control"),
    }
}
