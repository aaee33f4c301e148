//! What every Lambda function binary shares: read the configuration once per cold start,
//! open the store, build the service, and hand each API Gateway event to the same handlers
//! `payability serve` uses. A function answers only its own routes.

use std::sync::Arc;

use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, service_fn};
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, ApiResponse, Route, Service, Stores};
use payability_runtime::clock;
use payability_runtime::secrets;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;

/// Runs a function that answers `routes` (other paths: 404 `not_found`).
pub async fn run(routes: &'static [Route]) -> Result<(), lambda_http::Error> {
    init_logs();
    let mut config = ServiceConfig::from_env(None)?;
    let sdk = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let secrets = secrets::load_from_env(Some(&sdk)).await?;
    config.house_token = secrets.house_token.or(config.house_token);
    let seed = secrets.signing_seed;
    match config.store.clone() {
        StoreChoice::DynamoDb(tables) => {
            let store = DynamoStore::new(&sdk, tables);
            serve(routes, Service::new(config, &seed, store, clock::now)?).await
        }
        StoreChoice::Embedded(path) => {
            let store = SqliteStore::open(&path)?;
            serve(routes, Service::new(config, &seed, store, clock::now)?).await
        }
    }
}

/// Runs the not-covered function: every request answers 404 `NOT COVERED`; it needs no
/// configuration, key or store.
pub async fn run_not_covered() -> Result<(), lambda_http::Error> {
    init_logs();
    lambda_http::run(service_fn(|_: Request| async {
        Ok::<_, lambda_http::Error>(ApiResponse::not_covered().into_http().map(Body::from))
    }))
    .await
}

async fn serve<S: Stores + Send + Sync + 'static>(
    routes: &'static [Route],
    service: Service<S>,
) -> Result<(), lambda_http::Error> {
    let service = Arc::new(service);
    lambda_http::run(service_fn(move |event: Request| {
        let service = service.clone();
        async move {
            let request = api_request(event);
            let response = match Route::of_path(&request.path) {
                Some(route) if routes.contains(&route) => service.handle(request).await,
                _ => ApiResponse::not_found(),
            };
            Ok::<_, lambda_http::Error>(response.into_http().map(Body::from))
        }
    }))
    .await
}

/// An API Gateway event as the handlers take it (the path without the stage prefix).
fn api_request(event: Request) -> ApiRequest {
    let path = event.raw_http_path().to_owned();
    let request_id = event.lambda_context_ref().map(|c| c.request_id.clone()).unwrap_or_default();
    let source_ip = match event.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(context)) => {
            context.http.source_ip.as_deref().and_then(|ip| ip.parse().ok())
        }
        _ => None,
    };
    let (parts, body) = event.into_parts();
    ApiRequest {
        method: parts.method,
        path,
        headers: parts.headers,
        body: body.to_vec(),
        source_ip,
        request_id,
    }
}

/// JSON log lines (request id, route, status, state, timings; never content).
fn init_logs() {
    tracing_subscriber::fmt().json().with_current_span(false).without_time().init();
}
