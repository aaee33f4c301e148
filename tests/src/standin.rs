//! A loopback HTTP/1.1 stand-in (tokio + hyper) for the tests: it serves canned replies or a
//! handler on 127.0.0.1, one request per connection (`connection: close`), and records every
//! request it reads.
//!
//! It runs on a thread and runtime of its own, so a plain `#[test]` and a `#[tokio::test]` use
//! it alike. Bounded: it stops accepting after [`LIFETIME`] and takes every connection with it;
//! dropping the [`StandIn`] stops it at once. Raw socket behaviour (half-written heads, resets,
//! trickled bytes) is not its job: those tests keep their own scripted servers.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use http_body_util::{BodyExt, Limited};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// Longest a stand-in accepts connections, whatever the test does.
/// Ten minutes: a stand-in can wait for something slow to start (the deployed-shape test
/// starts its seller before `cargo lambda watch` has built and started every function, which
/// takes minutes on a cold build); dropping it still stops it at once.
pub const LIFETIME: Duration = Duration::from_secs(600);
/// Largest request body read, in bytes; a larger one closes the connection.
const MAX_REQUEST_BODY: usize = 256 * 1024;

/// One request as the stand-in read it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, query string included.
    pub path: String,
    /// `HTTP/1.1`, ...
    pub version: String,
    /// The header fields in order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl Recorded {
    /// The first value of the named header (any case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, value)| value.as_str())
    }

    /// The request line as sent: `GET /path?query HTTP/1.1`.
    pub fn line(&self) -> String {
        format!("{} {} {}", self.method, self.path, self.version)
    }
}

/// How the stand-in answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A status, header fields and a body (framed with Content-Length).
    Respond {
        /// The status code.
        status: u16,
        /// Header fields beyond the framing.
        headers: Vec<(String, String)>,
        /// The body bytes.
        body: Vec<u8>,
    },
    /// A status and the first bytes of a body that declares `declared` bytes: the
    /// connection closes after them (an answer cut short).
    CutShort {
        /// The status code.
        status: u16,
        /// The Content-Length the head declares.
        declared: usize,
        /// The bytes written of the body (fewer than declared).
        body: Vec<u8>,
    },
    /// Close the connection without a byte of answer.
    Close,
}

impl Reply {
    /// An answer with `status`, no header and an empty body.
    pub fn status(status: u16) -> Self {
        Self::Respond { status, headers: Vec::new(), body: Vec::new() }
    }

    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::status(status).header("content-type", "application/json").body(value.to_string())
    }

    /// The same answer with one more header field.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        if let Self::Respond { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.into()));
        }
        self
    }

    /// The same answer with this body.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        if let Self::Respond { body, .. } = &mut self {
            *body = bytes.into();
        }
        self
    }
}

/// The future a handler returns.
pub type Answering = Pin<Box<dyn Future<Output = Reply> + Send>>;
/// A request handler.
pub type Handler = Arc<dyn Fn(Recorded) -> Answering + Send + Sync>;

/// A connection ended without an answer (the reply said so, or the request was unreadable).
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("closed without an answer")
    }
}

impl std::error::Error for Closed {}

/// What the stand-in saw, shared with the test.
#[derive(Debug, Default)]
struct Seen {
    accepted: AtomicUsize,
    requests: Mutex<Vec<Recorded>>,
}

/// A running stand-in; dropping it stops it and every connection it holds.
pub struct StandIn {
    addr: SocketAddr,
    seen: Arc<Seen>,
    stop: Option<oneshot::Sender<()>>,
}

impl StandIn {
    /// Serves `handler` on 127.0.0.1, any port.
    pub fn start(handler: Handler) -> Self {
        Self::start_with(|_| handler)
    }

    /// Serves the handler `make` builds from the stand-in's origin (`http://127.0.0.1:PORT`),
    /// for answers that name their own URL.
    pub fn start_with(make: impl FnOnce(&str) -> Handler) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let addr = listener.local_addr().expect("a bound address");
        let handler = make(&format!("http://{addr}"));
        let seen = Arc::new(Seen::default());
        let (stop, stopped) = oneshot::channel();
        let serving = Arc::clone(&seen);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            let runtime = runtime.expect("a runtime for the stand-in");
            runtime.block_on(accept_loop(listener, handler, serving, stopped));
        });
        Self { addr, seen, stop: Some(stop) }
    }

    /// Answers every request with `reply` of it.
    pub fn replying(reply: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        Self::replying_with(|_| reply)
    }

    /// As [`StandIn::replying`], with the closure `make` builds from the stand-in's origin.
    pub fn replying_with<R>(make: impl FnOnce(&str) -> R) -> Self
    where
        R: Fn(&Recorded) -> Reply + Send + Sync + 'static,
    {
        Self::start_with(|origin| {
            let reply = make(origin);
            Arc::new(move |request| {
                let answer = reply(&request);
                Box::pin(async move { answer })
            })
        })
    }

    /// Answers the replies in order, one per request; past the last it closes the connection.
    pub fn canned(replies: Vec<Reply>) -> Self {
        Self::canned_with(|_| replies)
    }

    /// As [`StandIn::canned`], with the replies `script` writes given the stand-in's origin.
    pub fn canned_with(script: impl FnOnce(&str) -> Vec<Reply>) -> Self {
        Self::replying_with(|origin| {
            let next = Mutex::new(script(origin).into_iter());
            move |_: &Recorded| next.lock().unwrap().next().unwrap_or(Reply::Close)
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.seen.accepted.load(Ordering::SeqCst)
    }

    /// The requests read so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.seen.requests.lock().unwrap().clone()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A loopback port that nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("a bound address").port()
}

/// Accepts until stopped or [`LIFETIME`]; the connections end with the runtime.
async fn accept_loop(
    listener: std::net::TcpListener,
    handler: Handler,
    seen: Arc<Seen>,
    mut stopped: oneshot::Receiver<()>,
) {
    let listener = TcpListener::from_std(listener).expect("a tokio listener");
    let end = tokio::time::Instant::now() + LIFETIME;
    loop {
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = tokio::time::timeout_at(end, listener.accept()) => accepted,
        };
        let Ok(Ok((stream, _))) = accepted else { return };
        seen.accepted.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(serve(stream, Arc::clone(&handler), Arc::clone(&seen)));
    }
}

/// Serves one connection: one request, then close.
async fn serve(stream: TcpStream, handler: Handler, seen: Arc<Seen>) {
    let service = service_fn(move |request| {
        let (handler, seen) = (Arc::clone(&handler), Arc::clone(&seen));
        async move {
            let recorded = record(request).await?;
            seen.requests.lock().unwrap().push(recorded.clone());
            match handler(recorded).await {
                Reply::Respond { status, headers, body } => {
                    let mut response = hyper::Response::builder().status(status);
                    for (name, value) in headers {
                        response = response.header(name, value);
                    }
                    response.body(Answer::Full(Some(Bytes::from(body)))).map_err(|_| Closed)
                }
                Reply::CutShort { status, declared, body } => hyper::Response::builder()
                    .status(status)
                    .header("content-length", declared)
                    .body(Answer::CutShort(Some(Bytes::from(body)), Box::pin(flushed())))
                    .map_err(|_| Closed),
                Reply::Close => Err(Closed),
            }
        }
    });
    let mut connection = http1::Builder::new();
    let connection = connection.keep_alive(false).serve_connection(TokioIo::new(stream), service);
    let _ = connection.await;
}

/// An answer's body: whole, or its first bytes and then a broken connection.
enum Answer {
    /// The whole body, once.
    Full(Option<Bytes>),
    /// These bytes, then (once hyper has flushed them) an error: hyper closes the connection
    /// short of the declared length.
    CutShort(Option<Bytes>, Pin<Box<tokio::time::Sleep>>),
}

impl hyper::body::Body for Answer {
    type Data = Bytes;
    type Error = Closed;

    fn poll_frame(
        self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Closed>>> {
        match self.get_mut() {
            Self::Full(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Self::CutShort(bytes, flushed) => match bytes.take() {
                Some(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                None => flushed.as_mut().poll(context).map(|()| Some(Err(Closed))),
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Self::Full(None))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match self {
            Self::Full(bytes) => {
                hyper::body::SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Self::CutShort(..) => hyper::body::SizeHint::default(),
        }
    }
}

/// A pause long enough for hyper to flush what a cut-short answer wrote before it breaks.
fn flushed() -> tokio::time::Sleep {
    tokio::time::sleep(Duration::from_millis(20))
}

/// The request as recorded: method, path and query, headers, body (bounded).
async fn record(request: hyper::Request<Incoming>) -> Result<Recorded, Closed> {
    let (parts, body) = request.into_parts();
    let body = Limited::new(body, MAX_REQUEST_BODY).collect().await.map_err(|_| Closed)?;
    let body = body.to_bytes().to_vec();
    let headers = parts.headers.iter().map(|(name, value)| {
        (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned())
    });
    Ok(Recorded {
        method: parts.method.to_string(),
        path: parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_owned(),
        version: format!("{:?}", parts.version),
        headers: headers.collect(),
        body,
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// Sends one raw request and returns everything the stand-in wrote before closing.
    fn exchange(stand_in: &StandIn, request: &str) -> String {
        let mut stream = std::net::TcpStream::connect(stand_in.addr()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn canned_replies_answer_in_order_then_close_and_every_request_is_recorded() {
        let stand_in = StandIn::canned(vec![
            Reply::status(402).header("payment-required", "e30=").body("{}"),
            Reply::json(200, &serde_json::json!({"ok": true})),
        ]);
        let post = "POST /a?q=1 HTTP/1.1\r\nHost: x\r\nX-Seen: yes\r\nContent-Length: 3\r\n\r\nabc";
        let first = exchange(&stand_in, post);
        assert!(first.starts_with("HTTP/1.1 402 Payment Required\r\n"), "{first}");
        for line in ["payment-required: e30=", "content-length: 2", "connection: close"] {
            assert!(first.contains(&format!("{line}\r\n")), "{first}");
        }
        assert!(first.ends_with("\r\n\r\n{}"), "{first}");
        let second = exchange(&stand_in, "GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(second.starts_with("HTTP/1.1 200 OK\r\n") && second.ends_with("{\"ok\":true}"));
        assert_eq!(exchange(&stand_in, "GET /c HTTP/1.1\r\nHost: x\r\n\r\n"), "", "past the last");

        let seen = stand_in.requests();
        let lines: Vec<String> = seen.iter().map(Recorded::line).collect();
        assert_eq!(lines, ["POST /a?q=1 HTTP/1.1", "GET /b HTTP/1.1", "GET /c HTTP/1.1"]);
        assert_eq!((seen[0].header("X-SEEN"), seen[0].body.as_slice()), (Some("yes"), &b"abc"[..]));
        assert_eq!(stand_in.accepted(), 3);
    }

    #[test]
    fn a_closed_port_refuses_and_a_dropped_stand_in_stops() {
        let refused = std::net::TcpStream::connect(("127.0.0.1", closed_port()));
        assert!(refused.is_err());
        let stand_in = StandIn::replying(|request| Reply::status(200).body(request.path.clone()));
        let answer = exchange(&stand_in, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(answer.ends_with("\r\n\r\n/echo"), "{answer}");
        let addr = stand_in.addr();
        drop(stand_in);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::net::TcpStream::connect(addr).is_ok() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(std::net::TcpStream::connect(addr).is_err(), "the listener is gone");
    }

    #[test]
    fn a_cut_short_answer_declares_more_than_it_sends_then_closes() {
        let cut = Reply::CutShort { status: 200, declared: 100, body: b"{\"a\":".to_vec() };
        let stand_in = StandIn::canned(vec![cut]);
        let answer = exchange(&stand_in, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.contains("content-length: 100\r\n"), "{answer}");
        assert!(answer.ends_with("\r\n\r\n{\"a\":"), "{answer}");
    }
}
