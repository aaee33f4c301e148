//! One connection under its timeouts: the request head within [`HEADER_READ_TIMEOUT`], and
//! closed when it sends nothing for [`IDLE_TIMEOUT`] between requests.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use payability_runtime::api::{Service, Stores};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit};
use tokio::time::Instant;

use super::request::answer;

/// A request head (request line and headers) must be complete within this time of the
/// connection opening or of its previous answer; otherwise the connection is closed.
pub(super) const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection that sends no byte within this time of opening or of its previous answer
/// (and a client that does not read its answer for as long) is closed.
pub(super) const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest request head (request line and headers) read, in bytes; past it hyper answers
/// 431 and closes.
pub(super) const MAX_HEAD_BYTES: usize = 128 * 1024;

/// What a connection has been doing, for its idle deadline.
struct Activity {
    /// A request is being answered.
    in_flight: AtomicBool,
    /// A byte was read since the connection opened or its previous answer.
    read_since_idle: AtomicBool,
    /// When the connection opened or gave its previous answer.
    idle_since: Mutex<Instant>,
    /// Woken when a request ends, to restart the idle clock.
    changed: Notify,
}

impl Activity {
    fn new() -> Self {
        Self {
            in_flight: AtomicBool::new(false),
            read_since_idle: AtomicBool::new(false),
            idle_since: Mutex::new(Instant::now()),
            changed: Notify::new(),
        }
    }

    /// When an idle connection is to be closed; None while it is reading or answering.
    fn idle_deadline(&self) -> Option<Instant> {
        let busy =
            self.in_flight.load(Ordering::Relaxed) || self.read_since_idle.load(Ordering::Relaxed);
        let since = *self.idle_since.lock().unwrap_or_else(|e| e.into_inner());
        (!busy).then_some(since + IDLE_TIMEOUT)
    }

    fn request_started(&self) {
        self.in_flight.store(true, Ordering::Relaxed);
    }

    fn request_ended(&self) {
        *self.idle_since.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.read_since_idle.store(false, Ordering::Relaxed);
        self.in_flight.store(false, Ordering::Relaxed);
        self.changed.notify_one();
    }
}

/// Marks the end of a request even when its client leaves and the wait is dropped.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// A stream that notes when bytes are read, for the idle deadline.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read_since_idle.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Serves one connection under its timeouts; its permit is released when it closes.
pub(super) async fn connection<S: Stores + Send + Sync + 'static>(
    stream: TcpStream,
    peer: SocketAddr,
    service: Arc<Service<S>>,
    next_id: Arc<AtomicU64>,
    _permit: OwnedSemaphorePermit,
) {
    let activity = Arc::new(Activity::new());
    let watched = Watched { stream, activity: activity.clone() };
    let on_request = activity.clone();
    let handler = service_fn(move |request: Request<Incoming>| {
        let (service, next_id, activity) = (service.clone(), next_id.clone(), on_request.clone());
        async move {
            activity.request_started();
            let _in_flight = InFlight(activity);
            let id = format!("local-{}", next_id.fetch_add(1, Ordering::Relaxed));
            Ok::<_, Infallible>(answer(&service, request, peer, id).await)
        }
    });
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_header_size(MAX_HEAD_BYTES)
        .serve_connection(TokioIo::new(watched), handler);
    tokio::pin!(connection);
    loop {
        let deadline = activity.idle_deadline().unwrap_or_else(|| Instant::now() + IDLE_TIMEOUT);
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = activity.changed.notified() => {}
            _ = tokio::time::sleep_until(deadline) => {
                if activity.idle_deadline().is_some_and(|at| at <= Instant::now()) {
                    return; // Dropping the connection closes it.
                }
            }
        }
    }
}
