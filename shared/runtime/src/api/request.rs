//! One request as any server hands it over ([`ApiRequest`]), and the size bounds a request is
//! held to: the body cap, API Gateway's request quota and what a paid GET may take of it.

use std::net::IpAddr;

use http::{HeaderMap, Method};

/// Largest request body accepted, in bytes (the specification's input cap).
pub const MAX_REQUEST_BODY_BYTES: usize = 262_144;

/// API Gateway's HTTP API quota: at most this many bytes of request line plus header values
/// in one request (it cannot be raised).
pub const API_GATEWAY_REQUEST_QUOTA_BYTES: usize = 10_240;

/// What the paid retry of an official x402 client may take of that quota: a kilobyte spare.
pub const PAID_REQUEST_BUDGET_BYTES: usize = API_GATEWAY_REQUEST_QUOTA_BYTES - 1_024;

/// The longest public URL (`resource.url`, counted as the JSON string clients echo it in) a
/// GET of a paid route may have: its paid retry carries it twice (the request line, and
/// base64 in `PAYMENT-SIGNATURE`), 7/3 bytes of the quota per byte. At this length the
/// official clients' paid retry measures about 8,960 bytes, payment-identifier declared
/// (`shared/cli/tests/gateway_quota.rs`);
/// a longer one is refused free, `url_too_long_for_get` (use POST).
pub const MAX_GET_RESOURCE_URL_BYTES: usize = 2_000;

/// One request, as any server hands it over.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// The HTTP method.
    pub method: Method,
    /// The path, without the query string and without any stage prefix.
    pub path: String,
    /// The raw query string, if any (`url=…` names the endpoint of a paid GET).
    pub query: Option<String>,
    /// The request headers.
    pub headers: HeaderMap,
    /// The body bytes (a server may stop reading past [`MAX_REQUEST_BODY_BYTES`] + 1).
    pub body: Vec<u8>,
    /// The caller's address, for the free allowance when no wallet is named.
    pub source_ip: Option<IpAddr>,
    /// The API's base URL as the platform reports it (API Gateway's domain and stage),
    /// used for `resource` when no public base URL is configured.
    pub public_base_url: Option<String>,
    /// An id for this request's log line.
    pub request_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_get_length_message_states_the_bound() {
        let bound = MAX_GET_RESOURCE_URL_BYTES;
        assert_eq!(bound, 2_000, "the url_too_long_for_get message says 2,000 bytes");
    }
}
