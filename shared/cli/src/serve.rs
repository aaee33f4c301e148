//! `payability serve`: every route of the API in one process, with the same handler code the
//! Lambda functions run, on the configured store (embedded SQLite by default).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::api::{ApiRequest, MAX_REQUEST_BODY_BYTES, Service, Stores};
use payability_runtime::clock;
use payability_runtime::secrets;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;
use tokio::net::TcpListener;

/// Runs the server until the process is stopped; errors are closed-form lines. Without a
/// local seed the secrets come from Secrets Manager (their ARN variables are set).
pub async fn serve(port: u16, local_seed: Option<[u8; 32]>) -> Result<(), String> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|_| "serve: the port cannot be bound on 127.0.0.1".to_owned())?;
    let local = listener.local_addr().map_err(|_| "serve: no local address".to_owned())?;
    let mut config =
        ServiceConfig::from_env(Some(&format!("http://{local}"))).map_err(|e| e.to_string())?;
    let needs_aws = local_seed.is_none() || matches!(config.store, StoreChoice::DynamoDb(_));
    let sdk = match needs_aws {
        true => Some(aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await),
        false => None,
    };
    let seed = match local_seed {
        Some(seed) => seed,
        None => {
            let secrets = secrets::load_from_env(sdk.as_ref()).await.map_err(|e| e.to_string())?;
            config.house_token = secrets.house_token.or(config.house_token);
            secrets.signing_seed
        }
    };
    match (config.store.clone(), sdk) {
        (StoreChoice::Embedded(path), _) => {
            let store =
                SqliteStore::open(&path).map_err(|e| format!("serve: embedded store: {e}"))?;
            run(
                listener,
                Service::new(config, &seed, store, clock::now).map_err(|e| e.to_string())?,
            )
            .await
        }
        (StoreChoice::DynamoDb(tables), sdk) => {
            let sdk = sdk.ok_or_else(|| "serve: no AWS configuration".to_owned())?;
            let store = DynamoStore::new(&sdk, tables);
            run(
                listener,
                Service::new(config, &seed, store, clock::now).map_err(|e| e.to_string())?,
            )
            .await
        }
    }
}

async fn run<S: Stores + Send + Sync + 'static>(
    listener: TcpListener,
    service: Service<S>,
) -> Result<(), String> {
    let local = listener.local_addr().map_err(|_| "serve: no local address".to_owned())?;
    eprintln!("payability: serving on http://{local}");
    let service = Arc::new(service);
    let next_id = Arc::new(AtomicU64::new(0));
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            continue;
        };
        let (service, next_id) = (service.clone(), next_id.clone());
        let handler = service_fn(move |request: Request<Incoming>| {
            let (service, next_id) = (service.clone(), next_id.clone());
            async move {
                let id = format!("local-{}", next_id.fetch_add(1, Ordering::Relaxed));
                Ok::<_, Infallible>(answer(&service, request, peer, id).await)
            }
        });
        tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), handler));
    }
}

/// Reads at most cap + 1 body bytes (enough to refuse an oversized body), then answers. The
/// request is handled in a task of its own: a client that goes away mid-request drops only
/// the wait for the answer, never a paid flow half-way (it runs to its end and logs).
async fn answer<S: Stores + Send + Sync + 'static>(
    service: &Arc<Service<S>>,
    request: Request<Incoming>,
    peer: SocketAddr,
    request_id: String,
) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST_BODY_BYTES + 1).collect().await {
        Ok(collected) => collected.to_bytes().to_vec(),
        Err(_) => vec![0; MAX_REQUEST_BODY_BYTES + 1],
    };
    let api_request = ApiRequest {
        method: parts.method,
        path: parts.uri.path().to_owned(),
        headers: parts.headers,
        body,
        source_ip: Some(peer.ip()),
        public_base_url: None,
        request_id,
    };
    let service = Arc::clone(service);
    let response = match tokio::spawn(async move { service.handle(api_request).await }).await {
        Ok(response) => response.into_http(),
        Err(_) => {
            let mut response = Response::new(Vec::new());
            *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
    };
    response.map(|body| Full::new(Bytes::from(body)))
}
