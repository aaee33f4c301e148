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

use payability_runtime::api::{Service, Stores};
use payability_runtime::settings::{Reader, Settings};
use payability_runtime::startup::{self, DynamoDbOrEmbedded, WithService};
use tokio::net::TcpListener;

/// Runs the server until the process is stopped; errors are closed-form lines. Without a
/// local seed the secrets come from Secrets Manager (their ARN variables are set).
pub(crate) async fn serve(port: u16, local_seed: Option<[u8; 32]>) -> Result<(), String> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|_| "serve: the port cannot be bound on 127.0.0.1".to_owned())?;
    let local = listener.local_addr().map_err(|_| "serve: no local address".to_owned())?;
    let settings = Settings::from_env(Reader::Serve).map_err(|e| e.to_string())?;
    let base = format!("http://{local}");
    let started =
        startup::start(DynamoDbOrEmbedded, &settings, Some(&base), local_seed, Accept(listener));
    let started = started.await;
    started.map_err(|e| e.to_string())?
}

/// Serves the built service on the bound listener.
struct Accept(TcpListener);

impl WithService for Accept {
    type Output = Result<(), String>;

    async fn with<S: Stores + Send + Sync + 'static>(self, service: Service<S>) -> Self::Output {
        accept::run(self.0, service).await
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
