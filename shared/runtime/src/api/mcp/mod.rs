//! `POST /mcp`: MCP's Streamable HTTP transport in its stateless form (one JSON-RPC 2.0
//! request per POST, answered with JSON; no session, no SSE stream, no server-to-client
//! request), in both eras at one URL ([`crate::mcp`]): the handshake revisions
//! (`initialize`, 2024-11-05 to 2025-11-25), and 2026-07-28, whose every request carries its
//! version in `_meta` and mirrors it in headers ([`headers`]). It is the second transport of
//! one purchase ([`super::purchase`]): the tools are the free routes `criteria` and
//! `precheck` and the paid ones `check` and `memo`; a paid call is the same purchase as
//! `POST /check`, its payment in `params._meta["x402/payment"]` and the settlement in
//! `result._meta["x402/payment-response"]` (x402 `specs/transports-v2/mcp.md`), answered by
//! [`call`].
//!
//! A handshake-era request gets HTTP 200 with a JSON-RPC response, errors included; a
//! stateless one gets its errors as 2026-07-28 says: 400 (header mismatch -32020, unsupported
//! version -32022 with the versions spoken, malformed params) and 404 (an unknown method,
//! -32601). Errors are closed form: a code and a static message, never a received value. A
//! notification (no `id`) gets 202 and no body. The body cap, the methods (`POST` only: 405
//! otherwise, `GET` and `DELETE` included) and the log line are the route's, as for every
//! route; `Mcp-Session-Id` is neither read nor minted; a request from a browser on another
//! origin is 403 `origin_forbidden` (the transport's DNS-rebinding rule), in both eras.

mod call;
mod headers;

use http::StatusCode;
use serde_json::{Value, json};

use super::jsonrpc::{self, Envelope, Failure};
use super::request::ApiRequest;
use super::respond::{ApiResponse, error};
use super::service::{Service, Stores};
use crate::mcp::era::{DISCOVER, Era};
use crate::mcp::error::McpError;
use crate::mcp::results;
use crate::mcp::tools::Offer;
use crate::rules::ApiError;

/// The request headers an MCP client sends beside its body (the protocol version, and in the
/// stateless era the method and the tool's name): allowed in a CORS preflight.
pub(super) const REQUEST_HEADERS: [&str; 3] = [headers::PROTOCOL_VERSION, "mcp-method", "mcp-name"];

/// `tools/call`'s params, read as the fuzz targets see them (the `fuzzing` feature): the call,
/// its payment decoded as a paid tool decodes it, or the JSON-RPC error code.
#[cfg(feature = "fuzzing")]
pub(super) fn read_tool_call(params: Value) -> Result<super::agent_call::AgentCall, i64> {
    use payability_core::payment::x402::decode_payment_object;

    let call = crate::mcp::tools::read_call(params).map_err(|e| e.code())?;
    let Value::Object(arguments) = call.arguments else {
        unreachable!("read_call takes object arguments only")
    };
    Ok(super::agent_call::AgentCall {
        route: call.tool.route(),
        arguments,
        task_id: None,
        context_id: None,
        payment: call.payment.as_ref().map(decode_payment_object),
        proof: call.proof,
    })
}

/// The era `POST /mcp` serves a request in, as the fuzz targets see it (the `fuzzing`
/// feature): from its headers and body; None when the body is not one call with object
/// params, else the era or the JSON-RPC error code.
#[cfg(feature = "fuzzing")]
pub(super) fn read_era(headers: &http::HeaderMap, body: &[u8]) -> Option<Result<Era, i64>> {
    let Ok(Envelope::Call(mut call)) = jsonrpc::read(body) else { return None };
    let params = call.object_params()?;
    Some(headers::era(headers, &call.method, &params).map_err(|refusal| refusal.code()))
}

/// The answer carrying `error` for the request `id`, with [`status`].
fn refused(id: &Value, error: &McpError, stateless: bool) -> ApiResponse {
    jsonrpc::failure(&Failure::new(id, error.object()), status(error, stateless))
}

/// The HTTP status of `error`: HTTP 200 in the handshake era, as 2026-07-28 says otherwise
/// (404 for an unknown method, else 400, as the official MCP SDK's `ERROR_CODE_HTTP_STATUS`
/// maps them). The errors only a 2026-07-28 request can meet (a header or version refusal,
/// a `_meta` that names a version but is incomplete) are 400 whatever its headers say, so
/// one error has one status.
fn status(error: &McpError, stateless: bool) -> StatusCode {
    match error {
        McpError::HeaderMismatch(_)
        | McpError::UnsupportedVersion { .. }
        | McpError::MetaIncomplete => StatusCode::BAD_REQUEST,
        _ if !stateless => StatusCode::OK,
        McpError::MethodNotFound => StatusCode::NOT_FOUND,
        McpError::InvalidParams => StatusCode::BAD_REQUEST,
    }
}

impl<S: Stores> Service<S> {
    /// `POST /mcp`: one JSON-RPC request, answered in its era; a browser's foreign `Origin` is
    /// 403 `origin_forbidden` first.
    pub(super) async fn mcp(&self, request: &ApiRequest) -> ApiResponse {
        if !self.origin_allowed(request) {
            return error(ApiError::OriginForbidden);
        }
        let stateless_header = headers::names_no_handshake_version(&request.headers);
        let mut call = match jsonrpc::read(&request.body) {
            Ok(Envelope::Call(call)) => call,
            // A notification (`notifications/initialized`, a cancellation): nothing to answer.
            Ok(Envelope::Notification) => return ApiResponse::empty(StatusCode::ACCEPTED),
            Err(malformed) if stateless_header => {
                return jsonrpc::failure(&malformed.failure(), StatusCode::BAD_REQUEST);
            }
            Err(malformed) => return jsonrpc::malformed(&malformed),
        };
        let id = std::mem::take(&mut call.id);
        let Some(params) = call.object_params() else {
            return refused(&id, &McpError::InvalidParams, stateless_header);
        };
        let era = match headers::era(&request.headers, &call.method, &params) {
            Ok(era) => era,
            Err(refusal) => {
                let stateless = stateless_header || call.method == DISCOVER;
                return refused(&id, &refusal, stateless);
            }
        };
        let params = Value::Object(params);
        let stateless = era != Era::Handshake;
        let offer = Offer::Service;
        match (call.method.as_str(), era) {
            ("initialize", Era::Handshake) => {
                jsonrpc::result(&id, results::initialize(&params, offer))
            }
            ("ping", Era::Handshake) => jsonrpc::result(&id, json!({})),
            (DISCOVER, Era::Stateless { .. }) => jsonrpc::result(&id, results::discover(offer)),
            ("tools/list", era) => jsonrpc::result(&id, results::tools_list(era, offer)),
            ("tools/call", era) => match self.call_tool(request, params, era).await {
                Ok((answer, telemetry)) => jsonrpc::result(&id, answer).with_telemetry(telemetry),
                Err(refusal) => refused(&id, &refusal, stateless),
            },
            _ => refused(&id, &McpError::MethodNotFound, stateless),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::error::Header;

    /// (the error, whether the request is answered as the stateless era answers, the status)
    #[test]
    fn one_error_has_one_status_in_each_era() {
        let unsupported = McpError::unsupported("1900-01-01");
        let header = McpError::HeaderMismatch(Header::Method);
        let vectors: [(McpError, bool, u16); 10] = [
            (McpError::MetaIncomplete, true, 400),
            (McpError::MetaIncomplete, false, 400),
            (header.clone(), true, 400),
            (header, false, 400),
            (unsupported.clone(), true, 400),
            (unsupported, false, 400),
            (McpError::MethodNotFound, true, 404),
            (McpError::MethodNotFound, false, 200),
            (McpError::InvalidParams, true, 400),
            (McpError::InvalidParams, false, 200),
        ];
        for (error, stateless, expected) in vectors {
            assert_eq!(status(&error, stateless).as_u16(), expected, "{error:?} {stateless}");
        }
    }
}
