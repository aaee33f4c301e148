//! The HTTP API as plain request -> response functions, shared by `payability serve` and the
//! Lambda functions: routing, closed-form errors, the free routes and the paid routes with
//! their payment gate. Nothing here knows which server carries the bytes.

pub mod budget;
pub mod config;
mod paid;
mod precheck;
pub mod published_keys;
mod reads;
mod respond;
mod service;

use std::net::IpAddr;
use std::time::Instant;

use http::{HeaderMap, Method, StatusCode};
use payability_core::criteria::SigningKeyEntry;
use payability_core::payment::memo::PaidRoute;
use payability_core::report::UtcMillis;

pub use respond::ApiResponse;
pub use service::{Service, ServiceError, Stores};

use crate::store::Metrics;
use respond::error;

/// Largest request body accepted, in bytes (the specification's input cap).
pub const MAX_REQUEST_BODY_BYTES: usize = 262_144;

/// One request, as any server hands it over.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// The HTTP method.
    pub method: Method,
    /// The path, without the query string and without any stage prefix.
    pub path: String,
    /// The request headers.
    pub headers: HeaderMap,
    /// The body bytes (a server may stop reading past [`MAX_REQUEST_BODY_BYTES`] + 1).
    pub body: Vec<u8>,
    /// The caller's address, for the free allowance when no wallet is named.
    pub source_ip: Option<IpAddr>,
    /// The API's base URL as the platform reports it (API Gateway's domain and stage),
    /// used for `resource` when `PAYABILITY_PUBLIC_BASE_URL` is unset.
    pub public_base_url: Option<String>,
    /// An id for this request's log line.
    pub request_id: String,
}

/// The routes this service answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `GET /criteria`.
    Criteria,
    /// `POST /precheck`.
    Precheck,
    /// `POST /check` (paid) and `GET /check` (its challenge).
    Check,
    /// `POST /memo` (paid) and `GET /memo` (its challenge).
    Memo,
    /// `GET /metrics`.
    Metrics,
}

impl Route {
    /// Every route, in the order the README lists them.
    pub const ALL: [Route; 5] =
        [Self::Criteria, Self::Precheck, Self::Check, Self::Memo, Self::Metrics];

    /// The route of a path, if it is one of ours.
    pub fn of_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|route| route.path() == path)
    }

    /// The route's path.
    pub fn path(self) -> &'static str {
        match self {
            Self::Criteria => "/criteria",
            Self::Precheck => "/precheck",
            Self::Check => "/check",
            Self::Memo => "/memo",
            Self::Metrics => "/metrics",
        }
    }

    /// The methods the route answers (any other gets 405 `method_not_allowed`).
    pub fn methods(self) -> &'static [Method] {
        match self {
            Self::Criteria | Self::Metrics => &[Method::GET],
            Self::Precheck => &[Method::POST],
            Self::Check | Self::Memo => &[Method::GET, Method::POST],
        }
    }

    /// The route's name in logs, and the name of the Lambda function binary answering it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Criteria => "criteria",
            Self::Precheck => "precheck",
            Self::Check => "check",
            Self::Memo => "memo",
            Self::Metrics => "metrics",
        }
    }
}

impl<S: Stores> Service<S> {
    /// Answers one request and writes its log line (never a body, a header value, the
    /// submitted URL or anything fetched).
    pub async fn handle(&self, request: ApiRequest) -> ApiResponse {
        let started = Instant::now();
        let response = match admit(&request) {
            Ok(route) => self.dispatch(route, &request).await,
            Err(refusal) => refusal,
        };
        log_request(&request, &response, started);
        response
    }

    async fn dispatch(&self, route: Route, request: &ApiRequest) -> ApiResponse {
        match (route, &request.method) {
            (Route::Criteria, _) => self.criteria(),
            (Route::Metrics, _) => self.metrics().await,
            (Route::Precheck, _) => self.precheck(request).await,
            (Route::Check, &Method::GET) => self.unpaid_challenge(PaidRoute::Check, request).await,
            (Route::Check, _) => self.paid(PaidRoute::Check, request).await,
            (Route::Memo, &Method::GET) => self.unpaid_challenge(PaidRoute::Memo, request).await,
            (Route::Memo, _) => self.paid(PaidRoute::Memo, request).await,
        }
    }
}

/// `/criteria` from the published keys alone, as the criteria function answers it (it holds
/// no seed and no store); any other route is 404.
pub fn answer_criteria(request: &ApiRequest, keys: Vec<SigningKeyEntry>) -> ApiResponse {
    let started = Instant::now();
    let response = match admit(request) {
        Ok(Route::Criteria) => reads::criteria_response(keys),
        Ok(_) => ApiResponse::not_found(),
        Err(refusal) => refusal,
    };
    log_request(request, &response, started);
    response
}

/// `/metrics` from the counters alone, as the metrics function answers it; any other route
/// is 404.
pub async fn answer_metrics(
    request: &ApiRequest,
    store: &impl Metrics,
    now: UtcMillis,
) -> ApiResponse {
    let started = Instant::now();
    let response = match admit(request) {
        Ok(Route::Metrics) => reads::metrics_response(store, now).await,
        Ok(_) => ApiResponse::not_found(),
        Err(refusal) => refusal,
    };
    log_request(request, &response, started);
    response
}

/// The route a request may go to, or its refusal: body over the cap (413), a path that is
/// not ours (POST: 404 `NOT COVERED`, else 404), a method the route does not answer (405).
fn admit(request: &ApiRequest) -> Result<Route, ApiResponse> {
    if request.body.len() > MAX_REQUEST_BODY_BYTES {
        return Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            "request bodies are capped at 262,144 bytes",
        ));
    }
    let Some(route) = Route::of_path(&request.path) else {
        return Err(match request.method {
            Method::POST => ApiResponse::not_covered(),
            _ => ApiResponse::not_found(),
        });
    };
    if !route.methods().contains(&request.method) {
        return Err(error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "this route does not answer this method",
        ));
    }
    Ok(route)
}

/// One JSON log line per request: ids, route, status, state, time; never content. The method
/// is cut to its first 16 bytes (any text is a valid extension method); the path is never
/// logged, only its route's name.
fn log_request(request: &ApiRequest, response: &ApiResponse, started: Instant) {
    /// Most bytes of the request method a log line carries.
    const MAX_LOGGED_METHOD_BYTES: usize = 16;
    let method = request.method.as_str();
    let mut cut = method.len().min(MAX_LOGGED_METHOD_BYTES);
    while !method.is_char_boundary(cut) {
        cut -= 1;
    }
    tracing::info!(
        request_id = %request.request_id,
        route = Route::of_path(&request.path).map_or("none", Route::name),
        method = &method[..cut],
        status = response.status().as_u16(),
        state = response.state.unwrap_or(""),
        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "request"
    );
}
