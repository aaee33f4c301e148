//! A minimal HTTP/1.1 server on 127.0.0.1 for the stand-ins: one request per connection,
//! answered by an async handler, then closed. Raw tokio I/O: hyper is in the workspace but not
//! a dev-dependency of this crate.
//!
//! Bounded: the accept loop ends on its own after [`LIFETIME`] and takes every connection task
//! with it; dropping the server aborts it at once. A [`Gate`] lets a handler hold a request
//! until the test releases it (or, at the latest, until [`HOLD_LIMIT`]).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

/// Longest a stand-in accepts connections, whatever the test does.
pub const LIFETIME: Duration = Duration::from_secs(55);
/// Longest a gate holds a request before letting it through on its own.
pub const HOLD_LIMIT: Duration = Duration::from_secs(50);
/// Largest request (head and body) read, in bytes.
const MAX_REQUEST: usize = 256 * 1024;
/// Longest the server waits for a whole request to arrive.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// One request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, query string included.
    pub path: String,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// How the handler answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A status, extra headers and a body (with Content-Length), then close.
    Respond { status: u16, headers: Vec<(String, String)>, body: Vec<u8> },
    /// Close the connection without a byte of answer.
    Close,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::Respond {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }
}

/// The future a handler returns.
pub type Answering = Pin<Box<dyn Future<Output = Reply> + Send>>;
/// A request handler.
pub type Handler = Arc<dyn Fn(Request) -> Answering + Send + Sync>;

/// A running loopback server; dropping it stops it and every connection it holds.
pub struct Server {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Server {
    /// Binds 127.0.0.1 on any port and serves `handler`.
    pub async fn start(handler: Handler) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("a bound address");
        let task = tokio::spawn(accept_loop(listener, handler));
        Self { addr, task }
    }

    /// `http://127.0.0.1:PORT<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A loopback port that nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("a bound address").port()
}

async fn accept_loop(listener: TcpListener, handler: Handler) {
    let end = Instant::now() + LIFETIME;
    let mut connections = JoinSet::new();
    while let Ok(Ok((stream, _))) = tokio::time::timeout_at(end, listener.accept()).await {
        connections.spawn(serve_one(stream, Arc::clone(&handler)));
        while connections.try_join_next().is_some() {}
    }
}

async fn serve_one(mut stream: TcpStream, handler: Handler) {
    let Ok(Some(request)) = tokio::time::timeout(READ_LIMIT, read_request(&mut stream)).await
    else {
        return;
    };
    match handler(request).await {
        Reply::Respond { status, headers, body } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\ncontent-length: {}\r\nconnection: close\r\n",
                reason(status),
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(&body).await;
            let _ = stream.shutdown().await;
        }
        Reply::Close => drop(stream),
    }
}

/// Reads one request: the head through the blank line, then Content-Length bytes of body.
async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buffer.len() > MAX_REQUEST {
            return None;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let length = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_REQUEST {
        return None;
    }
    let mut body = buffer[head_end..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    body.truncate(length);
    Some(Request { method, path, body })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        402 => "Payment Required",
        404 => "Not Found",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Holds the next request that passes through it, once armed, until released.
#[derive(Debug, Default)]
pub struct Gate {
    armed: AtomicBool,
    reached: Notify,
    release: Notify,
}

impl Gate {
    /// Holds the next request that passes.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Called by a handler: when armed, disarms, signals [`Gate::reached`] and waits for
    /// [`Gate::release`] (at most [`HOLD_LIMIT`]); otherwise returns at once.
    pub async fn pass(&self) {
        if self.armed.swap(false, Ordering::SeqCst) {
            self.reached.notify_one();
            let _ = tokio::time::timeout(HOLD_LIMIT, self.release.notified()).await;
        }
    }

    /// Resolves once a request is being held (a hold that happened earlier counts).
    pub async fn reached(&self) {
        self.reached.notified().await;
    }

    /// Lets the held request (or the next one to be held) go on.
    pub fn release(&self) {
        self.release.notify_one();
    }
}
