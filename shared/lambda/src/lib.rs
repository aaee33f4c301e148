//! What every Lambda function binary shares: read the settings it reads once per cold start,
//! start the service as `payability serve` does ([`payability_runtime::startup`]), and hand
//! each API Gateway event to the same handlers `payability serve` uses. A function answers only its own routes, and holds only what
//! they need: the criteria function has no seed and no store, the metrics function only
//! the store; the store is DynamoDB's, the only one a function links
//! ([`startup::DynamoDbOnly`]).

pub mod signing_key_resource;

use std::future::Future;
use std::sync::Arc;

use lambda_http::request::RequestContext;
use lambda_http::{Body, LambdaEvent, Request, RequestExt, service_fn};
use payability_runtime::api::{
    ApiRequest, ApiResponse, Publication, Service, Stores, answer_criteria, answer_metrics,
    answer_unrouted,
};
use payability_runtime::clock;
use payability_runtime::routes::Route;
use payability_runtime::settings::{Reader, SIGNING_PUBLIC_KEY, Settings};
use payability_runtime::startup::{self, DynamoDbOnly, LinkedStores, WithService, WithStore};
use payability_runtime::store::choice::StoreChoice;
use signing_key_resource::ResourceRequest;

/// Runs a function that answers `routes` (other paths: 404 `not_found`), all of one
/// function, with the settings that function reads.
pub async fn run(routes: &'static [Route]) -> Result<(), lambda_http::Error> {
    init_logs();
    let function = routes.first().map_or("", |route| route.function());
    let reader = Reader::of_function(function).expect("each route's function reads settings");
    let settings = started(Settings::from_env(reader))?;
    started(startup::start(DynamoDbOnly, &settings, None, None, Serve(Routes(routes))).await)?
}

/// Runs the MCP function: `POST /mcp` (every tool), with the settings it reads.
pub async fn run_mcp() -> Result<(), lambda_http::Error> {
    init_logs();
    let settings = started(Settings::from_env(Reader::Mcp))?;
    started(startup::start(DynamoDbOnly, &settings, None, None, Serve(Mcp)).await)?
}

/// Runs the A2A function: `POST /a2a` (every skill), with the settings it reads.
pub async fn run_a2a() -> Result<(), lambda_http::Error> {
    init_logs();
    let settings = started(Settings::from_env(Reader::A2a))?;
    started(startup::start(DynamoDbOnly, &settings, None, None, Serve(A2a)).await)?
}

/// A start-up step's result; a failure is logged as one line naming the problem (the
/// errors here carry setting names and static words, never a value) before the process
/// exits and Lambda reports the failed start.
fn started<T, E: std::error::Error + Send + Sync + 'static>(
    result: Result<T, E>,
) -> Result<T, lambda_http::Error> {
    result.map_err(|error| {
        tracing::error!(problem = %error, "start-up failed");
        lambda_http::Error::from(error)
    })
}

/// Runs the criteria function: the free documents (`/criteria`, `/openapi.json`,
/// `/.well-known/x402`, `/llms.txt`, `/corpus`, each also under the public prefix) from the
/// settings it reads (the pinned public key, which it needs, the retired keys and the public
/// base URL, else the one API Gateway reports); it never reads the seed.
pub async fn run_criteria() -> Result<(), lambda_http::Error> {
    init_logs();
    let settings = started(Settings::from_env(Reader::Criteria))?;
    let current = started(settings.keys.pinned.clone().ok_or(SIGNING_PUBLIC_KEY.unset()))?;
    let publication = Arc::new(Publication {
        keys: settings.keys.entries(&current),
        public_base_url: settings.public_base_url,
    });
    serve_events(move |request| {
        let response = answer_criteria(&request, &publication);
        async move { response }
    })
    .await
}

/// Runs the metrics function: `/metrics` from the counters in the store alone.
pub async fn run_metrics() -> Result<(), lambda_http::Error> {
    init_logs();
    let settings = started(Settings::from_env(Reader::Metrics))?;
    let choice = started(StoreChoice::from_settings(&settings))?;
    started(DynamoDbOnly.open(choice, None, ServeMetrics).await)?
}

/// Serves `/metrics` from the opened store.
struct ServeMetrics;

impl WithStore for ServeMetrics {
    type Output = Result<(), lambda_http::Error>;

    async fn with<S: Stores + Send + Sync + 'static>(self, store: S) -> Self::Output {
        let store = Arc::new(store);
        serve_events(move |request| {
            let store = store.clone();
            async move { answer_metrics(&request, store.as_ref(), clock::now()).await }
        })
        .await
    }
}

/// Runs the signing-key function: the `Custom::SigningKey` CloudFormation resource (see
/// [`signing_key_resource`]); it is not behind the API.
pub async fn run_signing_key_resource() -> Result<(), lambda_http::Error> {
    init_logs();
    let sdk = Arc::new(startup::aws_sdk_config().await);
    lambda_http::lambda_runtime::run(service_fn(move |event: LambdaEvent<ResourceRequest>| {
        let sdk = sdk.clone();
        async move {
            signing_key_resource::handle(&event.payload, &sdk)
                .await
                .map_err(lambda_http::Error::from)
        }
    }))
    .await
}

/// Runs the not-covered function: every request answers 404 `NOT COVERED`; it needs no
/// configuration, key or store.
pub async fn run_not_covered() -> Result<(), lambda_http::Error> {
    init_logs();
    serve_events(|request| {
        let response = answer_unrouted(&request);
        async move { response }
    })
    .await
}

/// Which of the service's handlers answers a function's events.
trait Handler: Copy + Send + Sync + 'static {
    /// Answers one request with `service`.
    fn answer<S: Stores + Send + Sync + 'static>(
        self,
        service: &Service<S>,
        request: ApiRequest,
    ) -> impl Future<Output = ApiResponse> + Send;
}

/// The routes of one function ([`Service::handle_served`]).
#[derive(Clone, Copy)]
struct Routes(&'static [Route]);

impl Handler for Routes {
    async fn answer<S: Stores + Send + Sync + 'static>(
        self,
        service: &Service<S>,
        request: ApiRequest,
    ) -> ApiResponse {
        service.handle_served(self.0, request).await
    }
}

/// The MCP endpoint ([`Service::handle_mcp`]).
#[derive(Clone, Copy)]
struct Mcp;

impl Handler for Mcp {
    async fn answer<S: Stores + Send + Sync + 'static>(
        self,
        service: &Service<S>,
        request: ApiRequest,
    ) -> ApiResponse {
        service.handle_mcp(request).await
    }
}

/// The A2A endpoint ([`Service::handle_a2a`]).
#[derive(Clone, Copy)]
struct A2a;

impl Handler for A2a {
    async fn answer<S: Stores + Send + Sync + 'static>(
        self,
        service: &Service<S>,
        request: ApiRequest,
    ) -> ApiResponse {
        service.handle_a2a(request).await
    }
}

/// Serves a function's events with the built service, each answered by `H`: the one adapter
/// of every function that holds a service. Generic, so that a function links only its own
/// handler (no MCP or A2A code in the others).
struct Serve<H>(H);

impl<H: Handler> WithService for Serve<H> {
    type Output = Result<(), lambda_http::Error>;

    async fn with<S: Stores + Send + Sync + 'static>(self, service: Service<S>) -> Self::Output {
        let handler = self.0;
        let service = Arc::new(service);
        serve_events(move |request| {
            let service = service.clone();
            async move { handler.answer(&service, request).await }
        })
        .await
    }
}

/// Runs the Lambda event loop: each API Gateway event read as a request ([`api_request`]) and
/// answered by `answer`.
async fn serve_events<F, A>(answer: F) -> Result<(), lambda_http::Error>
where
    F: Fn(ApiRequest) -> A + Send + Sync,
    A: Future<Output = ApiResponse> + Send,
{
    lambda_http::run(service_fn(move |event: Request| {
        let answered = answer(api_request(event));
        async move { Ok::<_, lambda_http::Error>(answered.await.into_http().map(Body::from)) }
    }))
    .await
}

/// An API Gateway event as the handlers take it: the path without the stage prefix, and
/// the API's own base URL from the request context API Gateway writes.
fn api_request(event: Request) -> ApiRequest {
    let request_id = event.lambda_context_ref().map(|c| c.request_id.clone()).unwrap_or_default();
    let (stage, domain, source_ip) = match event.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(context)) => (
            context.stage.clone(),
            context.domain_name.clone(),
            context.http.source_ip.as_deref().and_then(|ip| ip.parse().ok()),
        ),
        _ => (None, None, None),
    };
    let path = route_path(event.raw_http_path(), stage.as_deref()).to_owned();
    let public_base_url = base_url(domain.as_deref(), stage.as_deref());
    let (parts, body) = event.into_parts();
    ApiRequest {
        method: parts.method,
        path,
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body: body.to_vec(),
        source_ip,
        public_base_url,
        request_id,
    }
}

/// The route part of an HTTP API raw path: a named stage prefixes it (`/v1/check`), the
/// `$default` stage does not.
fn route_path<'a>(raw_path: &'a str, stage: Option<&str>) -> &'a str {
    let Some(stage) = stage.filter(|s| *s != "$default" && !s.is_empty()) else {
        return raw_path;
    };
    match raw_path.strip_prefix('/').and_then(|rest| rest.strip_prefix(stage)) {
        Some(rest) if rest.starts_with('/') => rest,
        _ => raw_path,
    }
}

/// `https://<domain>[/<stage>]`, when the domain and the stage are plain names.
fn base_url(domain: Option<&str>, stage: Option<&str>) -> Option<String> {
    let domain = domain.filter(|d| {
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:".contains(&b))
    })?;
    match stage.filter(|s| *s != "$default" && !s.is_empty()) {
        None => Some(format!("https://{domain}")),
        Some(stage) if stage.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b)) => {
            Some(format!("https://{domain}/{stage}"))
        }
        Some(_) => None,
    }
}

/// JSON log lines (request id, route, status, state, timings; never content).
fn init_logs() {
    tracing_subscriber::fmt().json().with_current_span(false).without_time().init();
}

#[cfg(test)]
mod tests {
    use payability_runtime::http_client;

    use super::*;

    /// Each HTTPS client a function builds finds its TLS crypto provider: the AWS SDK's
    /// (its connector built on the shared roots; the call goes to a closed loopback port: a
    /// connection error, no panic) and the runtime's reqwest clients (built at once from
    /// `http_client::builder`, as the service and the signing-key resource do).
    #[tokio::test]
    async fn every_https_client_has_a_tls_crypto_provider() {
        use aws_sdk_secretsmanager::config::{Credentials, Region};
        use aws_sdk_secretsmanager::error::SdkError;
        let sdk = http_client::aws_sdk_loader()
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("test", "test", None, None, "test"))
            .endpoint_url("https://127.0.0.1:9")
            .retry_config(aws_config::retry::RetryConfig::disabled())
            .load()
            .await;
        let client = aws_sdk_secretsmanager::Client::new(&sdk);
        let sent = client.get_secret_value().secret_id("absent").send().await;
        let failure = sent.expect_err("nothing listens on port 9");
        let refused = matches!(&failure, SdkError::DispatchFailure(dispatch) if dispatch.is_io());
        assert!(refused, "a refused connection, not {failure:?}");
        let built = http_client::builder().no_proxy().build();
        assert!(built.is_ok(), "reqwest builds its client on the shared TLS configuration");
    }

    #[test]
    fn every_route_is_served_by_a_function_that_reads_settings() {
        for route in Route::ALL {
            assert!(Reader::of_function(route.function()).is_some(), "{}", route.name());
        }
    }

    #[test]
    fn stage_prefixes_come_off_the_path_and_go_into_the_base_url() {
        // (raw path, stage, domain) -> (route path, base URL)
        type Case<'a> = (&'a str, Option<&'a str>, Option<&'a str>);
        let vectors: [(Case, &str, Option<&str>); 8] = [
            (("/check", Some("$default"), Some("a.example")), "/check", Some("https://a.example")),
            (("/v1/check", Some("v1"), Some("a.example")), "/check", Some("https://a.example/v1")),
            (("/check", Some("v1"), Some("a.example")), "/check", Some("https://a.example/v1")),
            (("/v1x/check", Some("v1"), Some("a.b")), "/v1x/check", Some("https://a.b/v1")),
            (("/v1", Some("v1"), Some("a.example")), "/v1", Some("https://a.example/v1")),
            (("/check", None, None), "/check", None),
            (("/check", Some("$default"), Some("a.example/evil?")), "/check", None),
            (("/v1/check", Some("v1/x"), Some("a.example")), "/v1/check", None),
        ];
        for ((raw, stage, domain), path, base) in vectors {
            assert_eq!(route_path(raw, stage), path, "{raw} {stage:?}");
            assert_eq!(base_url(domain, stage).as_deref(), base, "{domain:?} {stage:?}");
        }
    }
}
