//! A scripted raw HTTP/1.1 server on loopback for the fetcher tests.
//!
//! Each accepted connection runs the next script of steps (read the request head, write exact
//! bytes, trickle bytes, sleep, reset); connections beyond the scripts are counted and closed
//! at once. Every server is bounded: its accept loop ends on its own after
//! [`SERVER_LIFETIME`], and dropping the [`Server`] aborts it and every connection task.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

/// Longest a server accepts connections, whatever the test does.
pub const SERVER_LIFETIME: Duration = Duration::from_secs(9);

/// Largest request head the server reads, in bytes.
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// One step of a connection script.
#[derive(Debug, Clone)]
pub enum Step {
    /// Read the request head (through the blank line) and record its raw bytes.
    ReadRequest,
    /// Write these exact bytes.
    Write(Vec<u8>),
    /// Write these bytes `piece` bytes at a time, sleeping `every` after each piece.
    Trickle {
        /// The bytes to send.
        bytes: Vec<u8>,
        /// Bytes per write.
        piece: usize,
        /// Pause after each write.
        every: Duration,
    },
    /// Do nothing for a while (keeps the connection open).
    Sleep(Duration),
    /// Abort the connection with a TCP reset (SO_LINGER 0, then close).
    Reset,
}

/// What the server saw, shared with the test.
#[derive(Debug, Default)]
struct Stats {
    accepted: AtomicUsize,
    active: AtomicUsize,
    max_active: AtomicUsize,
    requests: Mutex<Vec<Vec<u8>>>,
}

/// A running scripted server; dropping it stops it.
pub struct Server {
    addr: SocketAddr,
    stats: Arc<Stats>,
    task: JoinHandle<()>,
}

impl Server {
    /// Starts a server on 127.0.0.1 with one script per expected connection.
    pub async fn start(scripts: Vec<Vec<Step>>) -> Self {
        let bind: SocketAddr = "127.0.0.1:0".parse().unwrap();
        Self::start_on(bind, scripts).await.expect("bind 127.0.0.1:0")
    }

    /// Starts a server on a given loopback address (port 0 for any).
    pub async fn start_on(bind: SocketAddr, scripts: Vec<Vec<Step>>) -> std::io::Result<Self> {
        assert!(bind.ip().is_loopback(), "test servers bind loopback only");
        let listener = TcpListener::bind(bind).await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(Stats::default());
        let task = tokio::spawn(accept_loop(listener, scripts, Arc::clone(&stats)));
        Ok(Self { addr, stats, task })
    }

    /// A listener that must never be reached: it counts connections and closes them.
    pub async fn sentinel() -> Self {
        Self::start(Vec::new()).await
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT<path>` (or the IPv6 form for an IPv6 listener).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.stats.accepted.load(Ordering::SeqCst)
    }

    /// Most connections that were running a script at the same time.
    pub fn max_concurrent(&self) -> usize {
        self.stats.max_active.load(Ordering::SeqCst)
    }

    /// The raw request heads read so far, in order.
    pub fn requests(&self) -> Vec<Vec<u8>> {
        self.stats.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Accepts until the lifetime ends; the connection tasks die with this task's `JoinSet`.
async fn accept_loop(listener: TcpListener, scripts: Vec<Vec<Step>>, stats: Arc<Stats>) {
    let end = Instant::now() + SERVER_LIFETIME;
    let mut scripts = scripts.into_iter();
    let mut connections = JoinSet::new();
    while let Ok(Ok((stream, _))) = tokio::time::timeout_at(end, listener.accept()).await {
        stats.accepted.fetch_add(1, Ordering::SeqCst);
        match scripts.next() {
            Some(script) => {
                connections.spawn(run_script(stream, script, Arc::clone(&stats)));
            }
            None => drop(stream),
        }
    }
}

/// Runs one connection's script; a failed write or read ends it early.
async fn run_script(mut stream: TcpStream, script: Vec<Step>, stats: Arc<Stats>) {
    let now_active = stats.active.fetch_add(1, Ordering::SeqCst) + 1;
    stats.max_active.fetch_max(now_active, Ordering::SeqCst);
    for step in script {
        let carry_on = match step {
            Step::ReadRequest => match read_head(&mut stream).await {
                Some(head) => {
                    stats.requests.lock().unwrap().push(head);
                    true
                }
                None => false,
            },
            Step::Write(bytes) => stream.write_all(&bytes).await.is_ok(),
            Step::Trickle { bytes, piece, every } => {
                trickle(&mut stream, &bytes, piece, every).await
            }
            Step::Sleep(pause) => {
                tokio::time::sleep(pause).await;
                true
            }
            Step::Reset => {
                let _ = stream.set_zero_linger();
                false
            }
        };
        if !carry_on {
            break;
        }
    }
    stats.active.fetch_sub(1, Ordering::SeqCst);
}

async fn trickle(stream: &mut TcpStream, bytes: &[u8], piece: usize, every: Duration) -> bool {
    for part in bytes.chunks(piece.max(1)) {
        if stream.write_all(part).await.is_err() {
            return false;
        }
        tokio::time::sleep(every).await;
    }
    true
}

/// Reads through the first blank line (bounded in size and time); None on EOF or error.
async fn read_head(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
            let n = stream.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(3), read).await.ok()??;
    Some(head)
}

/// A complete response head plus body with a correct Content-Length.
pub fn response(status_line: &str, headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status_line}\r\n");
    for header in headers {
        out.push_str(header);
        out.push_str("\r\n");
    }
    out.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// A response head only, with exactly the given header lines (no framing added).
pub fn head(status_line: &str, headers: &[&str]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status_line}\r\n");
    for header in headers {
        out.push_str(header);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// Chunked transfer coding of `body` in chunks of `size` bytes, with the last-chunk marker
/// when `finish` is true.
pub fn chunked(body: &[u8], size: usize, finish: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for part in body.chunks(size.max(1)) {
        out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(b"\r\n");
    }
    if finish {
        out.extend_from_slice(b"0\r\n\r\n");
    }
    out
}

/// Concatenates byte strings.
pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}
