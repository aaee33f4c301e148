//! One request: its body read within [`BODY_READ_TIMEOUT`] and the cap, then handled by the
//! service in a task of its own.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue};
use hyper::{Request, Response, StatusCode};
use payability_runtime::api::{ApiRequest, MAX_REQUEST_BODY_BYTES, Service, Stores};

/// A request body must be complete within this time of its head: else 408 `body_timeout`.
pub(super) const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// `{"error": {"rule", "message"}}` as bytes.
pub(super) fn closed_form(rule: &str, message: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"error": {"rule": rule, "message": message}}))
        .unwrap_or_default()
}

/// A closed-form error answered by the server itself, with its log line (request id, status
/// and rule: nothing the client sent); the connection closes after it.
fn refusal(
    request_id: &str,
    status: StatusCode,
    rule: &str,
    message: &str,
) -> Response<Full<Bytes>> {
    tracing::info!(request_id, status = status.as_u16(), rule, "refused by serve");
    let mut response = Response::new(Full::new(Bytes::from(closed_form(rule, message))));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Reads at most cap + 1 body bytes within [`BODY_READ_TIMEOUT`] (enough to refuse an
/// oversized body: 413 from the service; a `Content-Length` over the cap is refused as soon as
/// the head arrives, nothing of the body read), then answers; a body that does not arrive in time
/// is 408 `body_timeout`, one that breaks off or is malformed 400 `body_unreadable`. The
/// request is handled in a task of its own: a client that goes away mid-request drops only
/// the wait for the answer, never a paid flow half-way (it runs to its end and logs).
pub(super) async fn answer<S: Stores + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    request: Request<Incoming>,
    peer: SocketAddr,
    request_id: String,
) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    // What the service is handed for a body over the cap (it answers 413 `body_too_large`).
    let over_cap = || (vec![0; MAX_REQUEST_BODY_BYTES + 1], true);
    // A declared `Content-Length` over the cap (hyper's exact size hint) needs no wait.
    let (body, over_cap) = if body.size_hint().lower() > MAX_REQUEST_BODY_BYTES as u64 {
        over_cap()
    } else {
        let read = Limited::new(body, MAX_REQUEST_BODY_BYTES + 1).collect();
        match tokio::time::timeout(BODY_READ_TIMEOUT, read).await {
            Ok(Ok(collected)) => (collected.to_bytes().to_vec(), false),
            Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => over_cap(),
            Ok(Err(_)) => {
                return refusal(
                    &request_id,
                    StatusCode::BAD_REQUEST,
                    "body_unreadable",
                    "the request body broke off or is not valid HTTP/1.1 framing",
                );
            }
            Err(_) => {
                return refusal(
                    &request_id,
                    StatusCode::REQUEST_TIMEOUT,
                    "body_timeout",
                    "the request body did not arrive within 10 seconds of its head",
                );
            }
        }
    };
    let api_request = ApiRequest {
        method: parts.method,
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body,
        source_ip: Some(peer.ip()),
        public_base_url: None,
        request_id,
    };
    let service = Arc::clone(service);
    let mut response = match tokio::spawn(async move { service.handle(api_request).await }).await {
        Ok(response) => response.into_http(),
        Err(_) => {
            let mut response = Response::new(Vec::new());
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
    };
    if over_cap {
        // The rest of the body is never read: the connection cannot carry another request.
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response.map(|body| Full::new(Bytes::from(body)))
}
