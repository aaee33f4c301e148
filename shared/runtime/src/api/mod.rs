//! The HTTP API as plain request -> response functions, shared by `payability serve` and the
//! Lambda functions: dispatch over the route table ([`crate::routes`]), closed-form answers
//! ([`crate::rules`]), the free routes and the paid routes with their payment gate, and the
//! telemetry of every answer ([`crate::telemetry`]). Nothing here knows which server carries
//! the bytes.

mod a2a;
#[cfg(feature = "fuzzing")]
mod agent_call;
mod binding;
mod call_style;
pub mod config;
pub mod discovery;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod http;
mod jsonrpc;
mod mcp;
mod page;
mod precheck;
mod purchase;
mod reads;
mod request;
mod respond;
mod service;
mod sign_in_proof;

use std::time::Instant;

use ::http::{Method, StatusCode};
use payability_core::op::PaidOp;
use payability_core::report::UtcMillis;

pub use discovery::Publication;
pub use request::{
    API_GATEWAY_REQUEST_QUOTA_BYTES, ApiRequest, MAX_GET_RESOURCE_URL_BYTES,
    MAX_REQUEST_BODY_BYTES, PAID_REQUEST_BUDGET_BYTES,
};
pub use respond::ApiResponse;
pub use service::{Service, ServiceError, Stores};

use crate::routes::Route;
use crate::rules::ApiError;
use crate::store::Metrics;
use crate::telemetry::{Relay, emf};
use respond::error;

impl<S: Stores> Service<S> {
    /// Answers one request on any route, as `payability serve` does, and writes its log line
    /// (never a body, a header value, the submitted URL or anything fetched): MCP as the MCP
    /// function, A2A as the A2A function, the free documents as the criteria function, the
    /// rest as their functions. The route is resolved here, once, for the answer, the log
    /// line and the EMF line.
    pub async fn handle(&self, request: ApiRequest) -> ApiResponse {
        let route = Route::of_path(&request.path);
        match route {
            Some(Route::Mcp) => self.answer_mcp(route, request).await,
            Some(Route::A2a) => self.answer_a2a(route, request).await,
            Some(known) if known.is_document() => {
                free_document(route, &request, &self.publication())
            }
            _ => self.answer_served(&Route::ALL, route, request).await,
        }
    }

    /// Answers one request as the MCP function does: `POST /mcp` (a route of another
    /// function: 404 `not_found`), with the log line and the EMF line. Apart from
    /// [`Self::handle_served`], so that the other functions link no MCP code.
    pub async fn handle_mcp(&self, request: ApiRequest) -> ApiResponse {
        self.answer_mcp(Route::of_path(&request.path), request).await
    }

    /// [`Self::handle_mcp`] of a request whose path resolved to `route`.
    async fn answer_mcp(&self, route: Option<Route>, request: ApiRequest) -> ApiResponse {
        self.answer_endpoint(Route::Mcp, route, request, async |request| self.mcp(request).await)
            .await
    }

    /// Answers one request as the A2A function does: `POST /a2a` (a route of another
    /// function: 404 `not_found`), with the log line and the EMF line. Apart from
    /// [`Self::handle_served`], so that the other functions link no A2A code.
    pub async fn handle_a2a(&self, request: ApiRequest) -> ApiResponse {
        self.answer_a2a(Route::of_path(&request.path), request).await
    }

    /// [`Self::handle_a2a`] of a request whose path resolved to `route`.
    async fn answer_a2a(&self, route: Option<Route>, request: ApiRequest) -> ApiResponse {
        self.answer_endpoint(Route::A2a, route, request, async |request| self.a2a(request).await)
            .await
    }

    /// A request to a function that serves the one route `endpoint` (a route of another
    /// function: 404 `not_found`), answered by `answer` once admitted, with the log line and
    /// the EMF line.
    async fn answer_endpoint(
        &self,
        endpoint: Route,
        route: Option<Route>,
        request: ApiRequest,
        answer: impl AsyncFnOnce(&ApiRequest) -> ApiResponse,
    ) -> ApiResponse {
        let started = Instant::now();
        let response = match route {
            Some(known) if known != endpoint => error(ApiError::NotFound),
            _ => match admit(&request, route) {
                Ok(_) => answer(&request).await,
                Err(refusal) => refusal,
            },
        };
        finish(&request, route, response, started)
    }

    /// Answers one request as a function serving only `routes` (a route of another
    /// function: 404 `not_found`; MCP is [`Self::handle_mcp`]'s, the free documents
    /// [`answer_criteria`]'s), and writes its log line.
    /// The route is resolved here, once, for the answer, the log line and the EMF line.
    pub async fn handle_served(&self, routes: &[Route], request: ApiRequest) -> ApiResponse {
        self.answer_served(routes, Route::of_path(&request.path), request).await
    }

    /// [`Self::handle_served`] of a request whose path resolved to `route`.
    async fn answer_served(
        &self,
        routes: &[Route],
        route: Option<Route>,
        request: ApiRequest,
    ) -> ApiResponse {
        let started = Instant::now();
        let response = match route {
            Some(known) if !routes.contains(&known) => error(ApiError::NotFound),
            _ => match admit(&request, route) {
                Ok(route) => match head_as_get(&request) {
                    Some(get) => self.dispatch(route, &get).await,
                    None => self.dispatch(route, &request).await,
                },
                Err(refusal) => refusal,
            },
        };
        finish(&request, route, response, started)
    }

    /// The route's answer.
    async fn dispatch(&self, route: Route, request: &ApiRequest) -> ApiResponse {
        match route {
            Route::Metrics => self.metrics().await,
            // The routes a browser posts a body to: MCP's DNS-rebinding rule (`/mcp` and
            // `/a2a` keep it in their functions).
            Route::Precheck | Route::Rpc if !self.origin_allowed(request) => {
                error(ApiError::OriginForbidden)
            }
            Route::Precheck => self.precheck(request).await,
            Route::Check => self.paid(PaidOp::Check, request).await,
            Route::Memo => self.paid(PaidOp::Memo, request).await,
            Route::Rpc => {
                let rpc_url = self.config.solana_rpc_url.as_deref();
                page::relay(request, rpc_url, &self.rpc_client, &self.blockhashes, self.clock).await
            }
            // Answered by `handle_mcp`, `handle_a2a` and `answer_criteria` only, so that no
            // paid function links the MCP or A2A code, the documents or the embedded corpus.
            Route::Mcp
            | Route::A2a
            | Route::AgentCard
            | Route::Page
            | Route::PageScript
            | Route::PageStyle
            | Route::Criteria
            | Route::OpenApi
            | Route::WellKnownX402
            | Route::LlmsTxt
            | Route::Corpus
            | Route::DidDocument => error(ApiError::NotFound),
        }
    }

    /// What the free documents publish of this service: its keys and base URL.
    fn publication(&self) -> Publication {
        Publication {
            keys: self.config.keys.entries(self.signer.descriptor()),
            public_base_url: self.config.public_base_url.clone(),
        }
    }
}

/// The free documents (`/criteria`, `/openapi.json`, `/.well-known/x402`, `/llms.txt`,
/// `/corpus`) from the published keys and the base URL alone, as the criteria function
/// answers them (it holds no seed and no store); any other route is 404.
pub fn answer_criteria(request: &ApiRequest, publication: &Publication) -> ApiResponse {
    free_document(Route::of_path(&request.path), request, publication)
}

/// [`answer_criteria`] of a request whose path resolved to `route`.
fn free_document(
    route: Option<Route>,
    request: &ApiRequest,
    publication: &Publication,
) -> ApiResponse {
    let started = Instant::now();
    let response = match admit(request, route) {
        Ok(route) => discovery::answer_document(route, publication, request)
            .unwrap_or_else(|| error(ApiError::NotFound)),
        Err(refusal) => refusal,
    };
    finish(request, route, response, started)
}

/// A request no route of this function serves (the not-covered function, or a path
/// routed to the wrong function): 404 `NOT COVERED` for a POST, else 404, with the headers
/// and the log line of every answer.
pub fn answer_unrouted(request: &ApiRequest) -> ApiResponse {
    let started = Instant::now();
    let route = Route::of_path(&request.path);
    let response = match (route, admit(request, route)) {
        (None, Err(refusal)) => refusal,
        _ => error(ApiError::NotFound),
    };
    finish(request, route, response, started)
}

/// `/metrics` from the counters alone, as the metrics function answers it; any other route
/// is 404.
pub async fn answer_metrics(
    request: &ApiRequest,
    store: &impl Metrics,
    now: UtcMillis,
) -> ApiResponse {
    let started = Instant::now();
    let route = Route::of_path(&request.path);
    let response = match admit(request, route) {
        Ok(Route::Metrics) => reads::metrics_response(store, now).await,
        Ok(_) => error(ApiError::NotFound),
        Err(refusal) => refusal,
    };
    finish(request, route, response, started)
}

/// The route a request may go to (`route`: its path's), or its complete answer: body over
/// the cap (413), a path that is not ours (POST: 404 `NOT COVERED`, else 404), a CORS
/// preflight (`OPTIONS`: 204), a method the route does not answer (405 with `Allow`). `HEAD`
/// goes wherever `GET` does.
fn admit(request: &ApiRequest, route: Option<Route>) -> Result<Route, ApiResponse> {
    if request.body.len() > MAX_REQUEST_BODY_BYTES {
        return Err(error(ApiError::BodyTooLarge));
    }
    let Some(route) = route else {
        return Err(match request.method {
            Method::POST => error(ApiError::NotCovered),
            _ => error(ApiError::NotFound),
        });
    };
    if request.method == Method::OPTIONS {
        return Err(ApiResponse::empty(StatusCode::NO_CONTENT)
            .with_header("allow", &route.allow())
            .with_header("access-control-allow-methods", &route.allow())
            .with_header("access-control-allow-headers", &cors_allow_headers())
            .with_header("access-control-max-age", "600"));
    }
    let method = if request.method == Method::HEAD { &Method::GET } else { &request.method };
    if !route.methods().contains(method) {
        return Err(error(ApiError::MethodNotAllowed).with_header("allow", &route.allow()));
    }
    Ok(route)
}

/// The request a `HEAD` is answered as: the same `GET` (its body is dropped in [`finish`]).
fn head_as_get(request: &ApiRequest) -> Option<ApiRequest> {
    (request.method == Method::HEAD).then(|| ApiRequest { method: Method::GET, ..request.clone() })
}

/// Request headers a browser-based client may send (CORS): its JSON body's `content-type`
/// and every header a transport reads, from each transport's own list.
fn cors_allow_headers() -> String {
    let read: [&[&str]; 4] =
        [&["content-type"], &http::REQUEST_HEADERS, &mcp::REQUEST_HEADERS, &a2a::REQUEST_HEADERS];
    read.concat().join(", ")
}
/// Response headers a browser-based client may read (CORS).
const CORS_EXPOSE_HEADERS: &str =
    "payment-required, payment-response, x-payment-response, retry-after, allow";

/// The headers every answer carries (CORS for any origin; `Cache-Control: no-store`: a 402
/// holds a single-use memo, a report is one check's), an empty body for `HEAD`, and the
/// log line and the EMF line of the request's `route`.
fn finish(
    request: &ApiRequest,
    route: Option<Route>,
    response: ApiResponse,
    started: Instant,
) -> ApiResponse {
    let mut response = response
        .with_header("access-control-allow-origin", "*")
        .with_header("access-control-expose-headers", CORS_EXPOSE_HEADERS)
        .with_header("cache-control", "no-store");
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let status = response.status();
    emf::emit(&emf::Answered { route, status, telemetry: response.telemetry(), elapsed_ms });
    if request.method == Method::HEAD {
        response = response.without_body();
    }
    log_request(request, route, &response, started);
    response
}

/// One JSON log line per request: ids, route, status, rule, state, time; never content. The
/// method is cut to its first 16 bytes (any text is a valid extension method); the path is
/// never logged, only its route's name; the rule and the state are the answer's
/// [`Telemetry`], never its body. An MCP tool result also names the route and status it stands
/// for (`tool_route`, `tool_status`): a refused payment over MCP is logged by its rule.
fn log_request(
    request: &ApiRequest,
    route: Option<Route>,
    response: &ApiResponse,
    started: Instant,
) {
    /// Most bytes of the request method a log line carries.
    const MAX_LOGGED_METHOD_BYTES: usize = 16;
    let method = request.method.as_str();
    let mut cut = method.len().min(MAX_LOGGED_METHOD_BYTES);
    while !method.is_char_boundary(cut) {
        cut -= 1;
    }
    let telemetry = response.telemetry();
    tracing::info!(
        request_id = %request.request_id,
        route = route.map_or("none", Route::name),
        method = &method[..cut],
        status = response.status().as_u16(),
        tool_route = telemetry.stands_for.map(|(tool, _)| tool.name()),
        tool_status = telemetry.stands_for.map(|(_, status)| status.as_u16()),
        rule = telemetry.closed_rule(),
        relay = telemetry.relay.map(Relay::name),
        state = telemetry.state.unwrap_or(""),
        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "request"
    );
}
