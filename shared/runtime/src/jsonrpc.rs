//! JSON-RPC 2.0 messages as every JSON-RPC server here reads them (MCP and A2A over HTTP, MCP
//! over stdio): one request object, read into a [`Call`] or a notification, or why it is not
//! one ([`Malformed`], with the static message it is answered with); and the two responses
//! ([`Success`], [`Failure`]). How a response travels is the transport's own (`api/jsonrpc.rs`
//! answers over HTTP, `payability mcp` a line on standard output).

use serde::Serialize;
use serde_json::{Map, Value, json};

/// JSON-RPC's own error codes, which every JSON-RPC transport answers.
pub mod code {
    /// The body is not JSON.
    pub const PARSE: i64 = -32700;
    /// Not one JSON-RPC 2.0 request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// A method the endpoint does not offer.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// `params` of another shape.
    pub const INVALID_PARAMS: i64 = -32602;
}

/// One request: its id (a string or an integer), its method and its `params` (null when
/// absent; JSON-RPC allows an object or an array, and each transport says which it takes).
pub struct Call {
    /// The id to answer under.
    pub id: Value,
    /// The method named.
    pub method: String,
    /// The `params`, as sent (null when absent).
    pub params: Value,
}

impl Call {
    /// The `params` as an object (`{}` when absent); None for an array or any other value.
    pub fn object_params(&mut self) -> Option<Map<String, Value>> {
        match self.params.take() {
            Value::Null => Some(Map::new()),
            Value::Object(params) => Some(params),
            _ => None,
        }
    }

    /// Whether the first of array `params` is the string `expected`.
    pub fn first_param_is(&self, expected: &str) -> bool {
        self.params.get(0).and_then(Value::as_str) == Some(expected)
    }
}

/// A body read as JSON-RPC.
pub enum Envelope {
    /// A request to answer.
    Call(Call),
    /// A notification (no `id`): nothing to answer.
    Notification,
}

/// Why a body is not one request, with the id to answer it under (null when none could be
/// read).
pub struct Malformed {
    /// The id to answer under.
    pub id: Value,
    /// What is wrong with it.
    pub kind: MalformedKind,
}

/// What is wrong with a body that is not one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalformedKind {
    /// Not JSON.
    Parse,
    /// Not one JSON-RPC 2.0 request object (a batch, a null or fractional `id`, no `method`,
    /// `params` neither an object nor an array).
    InvalidRequest,
}

impl MalformedKind {
    /// The JSON-RPC error code.
    pub fn code(self) -> i64 {
        match self {
            Self::Parse => code::PARSE,
            Self::InvalidRequest => code::INVALID_REQUEST,
        }
    }

    /// The static message MCP and A2A answer it with.
    pub fn message(self) -> &'static str {
        match self {
            Self::Parse => "the body is not JSON",
            Self::InvalidRequest => {
                "not one JSON-RPC 2.0 request: an object with jsonrpc \"2.0\", a string or integer id and a method"
            }
        }
    }
}

impl Malformed {
    /// The response it is answered with: its code and static message, under the id read.
    pub fn failure(&self) -> Failure<'_> {
        Failure::plain(&self.id, self.kind.code(), self.kind.message())
    }
}

/// A response carrying a result: `jsonrpc`, `id`, `result`, in that order.
#[derive(Serialize)]
pub struct Success<'a, R> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: R,
}

impl<'a, R: Serialize> Success<'a, R> {
    /// The response carrying `result` for the request `id`.
    pub fn new(id: &'a Value, result: R) -> Self {
        Self { jsonrpc: "2.0", id, result }
    }
}

/// A response carrying an error object (a code, a static message, and any data):
/// `jsonrpc`, `id`, `error`, in that order.
#[derive(Serialize)]
pub struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: Value,
}

impl<'a> Failure<'a> {
    /// The response carrying the `error` object for the request `id` (null when none could
    /// be read).
    pub fn new(id: &'a Value, error: Value) -> Self {
        Self { jsonrpc: "2.0", id, error }
    }

    /// The response carrying the error `code` with its static `message` for the request `id`.
    pub fn plain(id: &'a Value, code: i64, message: &'static str) -> Self {
        Self::new(id, json!({"code": code, "message": message}))
    }
}

/// Reads a body as one JSON-RPC 2.0 request or notification.
pub fn read(body: &[u8]) -> Result<Envelope, Malformed> {
    let malformed = |id: Option<Value>, kind| Malformed { id: id.unwrap_or(Value::Null), kind };
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return Err(malformed(None, MalformedKind::Parse));
    };
    let Value::Object(mut message) = message else {
        return Err(malformed(None, MalformedKind::InvalidRequest));
    };
    let id = match message.remove("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Some(_) => return Err(malformed(None, MalformedKind::InvalidRequest)),
    };
    let version_2 = message.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let (true, Some(Value::String(method))) = (version_2, message.remove("method")) else {
        return Err(malformed(id, MalformedKind::InvalidRequest));
    };
    let Some(id) = id else {
        return Ok(Envelope::Notification);
    };
    match message.remove("params") {
        None => Ok(Envelope::Call(Call { id, method, params: Value::Null })),
        Some(params @ (Value::Object(_) | Value::Array(_))) => {
            Ok(Envelope::Call(Call { id, method, params }))
        }
        Some(_) => Err(malformed(Some(id), MalformedKind::InvalidRequest)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// (body, the id answered, what is wrong) for every body that is not one request.
    #[test]
    fn a_body_that_is_not_one_request_is_named_with_the_id_it_carried() {
        let vectors: [(&str, Value, MalformedKind); 9] = [
            ("{", Value::Null, MalformedKind::Parse),
            ("[]", Value::Null, MalformedKind::InvalidRequest),
            ("null", Value::Null, MalformedKind::InvalidRequest),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
                Value::Null,
                MalformedKind::InvalidRequest,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
                Value::Null,
                MalformedKind::InvalidRequest,
            ),
            (r#"{"jsonrpc":"1.0","id":7,"method":"m"}"#, json!(7), MalformedKind::InvalidRequest),
            (r#"{"jsonrpc":"2.0","id":"a"}"#, json!("a"), MalformedKind::InvalidRequest),
            (r#"{"jsonrpc":"2.0","id":"a","method":3}"#, json!("a"), MalformedKind::InvalidRequest),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"m","params":3}"#,
                json!(2),
                MalformedKind::InvalidRequest,
            ),
        ];
        for (body, id, kind) in vectors {
            let Err(malformed) = read(body.as_bytes()) else { panic!("{body} was read") };
            assert_eq!((malformed.id, malformed.kind), (id, kind), "{body}");
        }
    }

    #[test]
    fn a_request_is_read_whole_and_a_notification_is_named() {
        let body = r#"{"jsonrpc":"2.0","id":"x","method":"m","params":{"a":1}}"#;
        let Ok(Envelope::Call(mut call)) = read(body.as_bytes()) else { panic!("not read") };
        assert_eq!((call.id.clone(), call.method.as_str()), (json!("x"), "m"));
        assert_eq!(call.object_params().map(Value::Object), Some(json!({"a": 1})));
        let bare = r#"{"jsonrpc":"2.0","id":3,"method":"m"}"#;
        let Ok(Envelope::Call(mut call)) = read(bare.as_bytes()) else { panic!("not read") };
        assert_eq!(call.object_params(), Some(Map::new()), "absent params read as {{}}");
        let listed = r#"{"jsonrpc":"2.0","id":4,"method":"m","params":["a",{}]}"#;
        let Ok(Envelope::Call(mut call)) = read(listed.as_bytes()) else { panic!("not read") };
        assert!(call.first_param_is("a") && !call.first_param_is("b"));
        assert_eq!(call.object_params(), None, "an array is not an object");
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(read(note.as_bytes()), Ok(Envelope::Notification)));
    }
}
