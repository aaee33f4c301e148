//! The HTTP API as plain request -> response functions, shared by `payability serve` and the
//! Lambda functions: routing, closed-form errors, the free routes and the paid routes with
//! their payment gate. Nothing here knows which server carries the bytes.

pub mod config;
mod paid;
mod precheck;
mod reads;
mod respond;
mod service;

use std::net::IpAddr;
use std::time::Instant;

use http::{HeaderMap, Method, StatusCode};
use payability_core::payment::memo::PaidRoute;

pub use respond::ApiResponse;
pub use service::{Service, ServiceError, Stores};

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
    /// The route of a path, if it is one of ours.
    pub fn of_path(path: &str) -> Option<Self> {
        match path {
            "/criteria" => Some(Self::Criteria),
            "/precheck" => Some(Self::Precheck),
            "/check" => Some(Self::Check),
            "/memo" => Some(Self::Memo),
            "/metrics" => Some(Self::Metrics),
            _ => None,
        }
    }

    /// The route's name in logs and URLs.
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
        let route = Route::of_path(&request.path);
        let response = self.dispatch(route, &request).await;
        tracing::info!(
            request_id = %request.request_id,
            route = route.map_or("none", Route::name),
            method = %request.method,
            status = response.status().as_u16(),
            state = response.state.unwrap_or(""),
            elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "request"
        );
        response
    }

    async fn dispatch(&self, route: Option<Route>, request: &ApiRequest) -> ApiResponse {
        if request.body.len() > MAX_REQUEST_BODY_BYTES {
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                "request bodies are capped at 262,144 bytes",
            );
        }
        let method = &request.method;
        match (route, method) {
            (Some(Route::Criteria), &Method::GET) => self.criteria(),
            (Some(Route::Metrics), &Method::GET) => self.metrics().await,
            (Some(Route::Precheck), &Method::POST) => self.precheck(request).await,
            (Some(Route::Check), &Method::POST) => self.paid(PaidRoute::Check, request).await,
            (Some(Route::Memo), &Method::POST) => self.paid(PaidRoute::Memo, request).await,
            (Some(Route::Check), &Method::GET) => self.unpaid_challenge(PaidRoute::Check).await,
            (Some(Route::Memo), &Method::GET) => self.unpaid_challenge(PaidRoute::Memo).await,
            (Some(_), _) => error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "this route does not answer this method",
            ),
            (None, &Method::POST) => ApiResponse::not_covered(),
            (None, _) => ApiResponse::not_found(),
        }
    }
}
