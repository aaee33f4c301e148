//! Accepting connections: at most a capped number at once (past it, a closed-form 503
//! `server_busy`), and an accept loop that backs off instead of spinning when `accept` fails.

use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use payability_runtime::api::{Service, Stores};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::connection::connection;
use super::request::closed_form;

/// Most connections served at once (lowered to fit the open-files limit, see
/// [`FD_RESERVE`]); past it a connection gets 503 `server_busy` and is closed.
pub(super) const MAX_CONNECTIONS: usize = 2_048;
/// Descriptors kept out of the connection cap for the store, the outgoing fetches and the
/// busy answers (at most half the open-files limit).
pub(super) const FD_RESERVE: u64 = 128;
/// Most 503 `server_busy` answers being written at once; past it a connection is closed
/// without an answer.
pub(super) const MAX_BUSY_ANSWERS: usize = 32;
/// How long a 503 `server_busy` answer waits for its client to take it and hang up.
pub(super) const BUSY_LINGER: Duration = Duration::from_millis(1_000);
/// First pause of the accept loop after `accept` fails (out of descriptors, say); doubled
/// on each failure in a row, so a failing `accept` never spins.
pub(super) const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
/// Longest pause of the accept loop after `accept` fails.
pub(super) const ACCEPT_BACKOFF_MAX: Duration = Duration::from_millis(500);
/// At most one log line per this interval counts the connections refused at the cap.
pub(super) const BUSY_LOG_INTERVAL: Duration = Duration::from_secs(1);

/// The connection cap for an open-files limit: [`MAX_CONNECTIONS`], lowered so that
/// [`FD_RESERVE`] descriptors (at most half the limit) stay free for everything else.
pub(super) fn connection_cap(open_files_limit: Option<u64>) -> usize {
    let Some(limit) = open_files_limit else {
        return MAX_CONNECTIONS;
    };
    let fit = limit.saturating_sub(FD_RESERVE.min(limit / 2)).max(1);
    usize::try_from(fit).map_or(MAX_CONNECTIONS, |fit| fit.min(MAX_CONNECTIONS))
}

/// The soft open-files limit of this process (`/proc/self/limits`), None if unknown or
/// unlimited.
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.trim_start_matches("Max open files").split_whitespace().next()?.parse().ok()
}

/// Accepts connections until the process is stopped.
pub(super) async fn run<S: Stores + Send + Sync + 'static>(
    listener: TcpListener,
    service: Service<S>,
) -> Result<(), String> {
    let local = listener.local_addr().map_err(|_| "serve: no local address".to_owned())?;
    let cap = connection_cap(open_files_limit());
    eprintln!("payability: serving on http://{local}");
    eprintln!("payability: at most {cap} connections at once");
    let service = Arc::new(service);
    let next_id = Arc::new(AtomicU64::new(0));
    let permits = Arc::new(Semaphore::new(cap));
    let busy = Arc::new(Semaphore::new(MAX_BUSY_ANSWERS));
    let mut backoff = ACCEPT_BACKOFF_MIN;
    let mut refused = RefusedAtCap::new();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => {
                backoff = ACCEPT_BACKOFF_MIN;
                accepted
            }
            Err(error) => {
                // Out of descriptors leaves the connection queued, so an immediate retry
                // would fail again at once: pause, longer each time.
                if backoff == ACCEPT_BACKOFF_MIN {
                    eprintln!("payability: accept failed ({}); backing off", error.kind());
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        match Arc::clone(&permits).try_acquire_owned() {
            Ok(permit) => {
                let (service, next_id) = (service.clone(), next_id.clone());
                tokio::spawn(connection(stream, peer, service, next_id, permit));
            }
            Err(_) => {
                refused.count(cap);
                if let Ok(permit) = Arc::clone(&busy).try_acquire_owned() {
                    tokio::spawn(answer_busy(stream, permit));
                }
                // Else the stream is dropped: closed without an answer.
            }
        }
    }
}

/// The connections refused at the cap, logged as a count at most once per
/// [`BUSY_LOG_INTERVAL`] (a flood past the cap must not become a flood of log lines).
struct RefusedAtCap {
    since_logged: u64,
    logged_at: Option<tokio::time::Instant>,
}

impl RefusedAtCap {
    fn new() -> Self {
        Self { since_logged: 0, logged_at: None }
    }

    /// Counts one refused connection; logs the count when the interval has passed.
    fn count(&mut self, cap: usize) {
        self.since_logged += 1;
        let now = tokio::time::Instant::now();
        if self.logged_at.is_none_or(|at| now.duration_since(at) >= BUSY_LOG_INTERVAL) {
            tracing::warn!(
                status = 503,
                rule = "server_busy",
                refused = self.since_logged,
                cap,
                "connections refused at the cap"
            );
            self.since_logged = 0;
            self.logged_at = Some(now);
        }
    }
}

/// The closed-form 503 `server_busy` answer, whole, as written to a connection past the cap.
fn busy_answer() -> Vec<u8> {
    let body = closed_form("server_busy", "the server is at its connection cap; try again");
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    [head.into_bytes(), body].concat()
}

/// Answers 503 `server_busy` without reading the request, then closes: the write half at
/// once, the whole once the client hangs up or [`BUSY_LINGER`] has passed (closing with its
/// request unread at once could reset the connection before the answer is read).
async fn answer_busy(mut stream: TcpStream, _permit: OwnedSemaphorePermit) {
    let _ = tokio::time::timeout(BUSY_LINGER, async {
        stream.write_all(&busy_answer()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        loop {
            stream.readable().await?;
            match stream.try_read(&mut sink) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_fits_the_open_files_limit() {
        assert_eq!(connection_cap(None), MAX_CONNECTIONS);
        assert_eq!(connection_cap(Some(1_000_000)), MAX_CONNECTIONS);
        assert_eq!(connection_cap(Some(1_024)), 896);
        assert_eq!(connection_cap(Some(64)), 32);
        assert_eq!(connection_cap(Some(1)), 1);
        assert_eq!(connection_cap(Some(0)), 1);
    }

    #[test]
    fn the_busy_answer_is_closed_form_and_framed() {
        let answer = String::from_utf8(busy_answer()).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503 "));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let value: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(value["error"]["rule"], "server_busy");
    }
}
