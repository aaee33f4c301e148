//! An HTTP answer read back for assertions: status, headers, body bytes and body JSON, with
//! the readers the tests share (the error's rule, a header, the decoded x402 headers).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::HeaderMap;
use serde_json::Value;

/// An answer, read back.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The body bytes.
    pub bytes: Vec<u8>,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

impl From<http::Response<Vec<u8>>> for Answer {
    fn from(response: http::Response<Vec<u8>>) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response.into_body();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Self { status, headers, bytes, body }
    }
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.body)
    }
}

impl Answer {
    /// `error.rule` of a closed-form error; for a 402 challenge, whose `error` is a string,
    /// its leading snake_case id (`"<rule>: <sentence>"`) or the whole string.
    pub fn rule(&self) -> Option<&str> {
        let error = self.body.get("error")?;
        if let Some(rule) = error.get("rule").and_then(Value::as_str) {
            return Some(rule);
        }
        let text = error.as_str()?;
        let id = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        match text.split_once(": ") {
            Some((head, _)) if id(head) => Some(head),
            _ => Some(text),
        }
    }

    /// `error.message` of a closed-form error, else "".
    pub fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }

    /// A header's value as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// A 200 carrying a signed report.
    pub fn is_verdict(&self) -> bool {
        self.status == 200
            && self.body.get("signature").is_some()
            && self.body.get("state").and_then(Value::as_str).is_some()
    }

    /// The decoded v2 `PAYMENT-REQUIRED` object (panics without one).
    pub fn payment_required(&self) -> Value {
        let raw = self.header("payment-required").expect("a PAYMENT-REQUIRED header");
        serde_json::from_slice(&STANDARD.decode(raw).expect("base64")).expect("JSON")
    }

    /// The decoded `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1).
    pub fn settlement(&self) -> Option<Value> {
        let raw = self.header("payment-response").or_else(|| self.header("x-payment-response"))?;
        serde_json::from_slice(&STANDARD.decode(raw).ok()?).ok()
    }
}
