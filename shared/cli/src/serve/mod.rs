//! `payability serve`: every route of the API in one process, with the same handler code the
//! Lambda functions run, on the configured store (embedded SQLite by default).
//!
//! The server cannot be held open. Along the data flow: `accept` (the connection cap, a
//! busy answer past it, a backing-off accept loop), `connection` (head and idle timeouts),
//! `request` (the body's timeout and cap, the request handled in a task of its own).

mod accept;
mod connection;
mod request;

use std::net::SocketAddr;

use payability_runtime::api::Service;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::clock;
use payability_runtime::secrets;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::dynamodb::DynamoStore;
use payability_runtime::store::sqlite::SqliteStore;
use tokio::net::TcpListener;

use accept::run;

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
        true => Some(payability_runtime::http_client::aws_sdk_loader().load().await),
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::connection::{HEADER_READ_TIMEOUT, IDLE_TIMEOUT};
    use super::request::BODY_READ_TIMEOUT;

    #[test]
    fn the_body_timeout_message_states_the_body_timeout() {
        assert_eq!(BODY_READ_TIMEOUT, Duration::from_secs(10), "the 408 message says 10 seconds");
        assert!(IDLE_TIMEOUT < HEADER_READ_TIMEOUT, "idle closes before a head times out");
    }
}
