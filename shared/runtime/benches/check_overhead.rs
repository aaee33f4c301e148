//! What the local check pipeline costs on top of a bare HTTP GET, against an in-process
//! loopback server that answers every connection with the same ~1 KB 402 challenge and
//! `Connection: close`.
//!
//! Two criterion benches (a bare reqwest GET; `Fetcher::fetch` + `grade_check` +
//! `UnsignedReport::of` + `sign`), then one printed line `overhead: pipeline/bare = X.XX` from an
//! interleaved timed loop (medians). The ratio is informative, never an assertion.

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use payability_core::capture::FetchOutcome;
use payability_core::challenge::{ChallengeTerms, own_challenge};
use payability_core::grade::{CheckState, grade_check};
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_core::report::{SignedReport, UnsignedReport};
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

const PAY_TO: &str = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const TOKEN_ACCOUNT: &str = "7UX2i7SucgLMQcfZ75s3VXmZZY4YRUyJN9X1RgfMoDUi";
const FEE_PAYER: &str = "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9";
const PATH: &str = "/api/v1/reports/market-depth?pair=SOL-USDC";

/// The full HTTP/1.1 402 response for a resource URL: the service's own challenge shape.
fn challenge_response(resource: &str) -> Vec<u8> {
    let served = own_challenge(&ChallengeTerms {
        resource_url: resource,
        description: "Order-book depth for SOL/USDC, 20 levels, refreshed each slot.",
        pay_to: PAY_TO,
        fee_payer: FEE_PAYER,
        token_account: TOKEN_ACCOUNT,
        memo: "pv-7f3a9c21e4b84d0f",
    });
    let (body, header) = (served.body, served.payment_required);
    let mut out = format!(
        "HTTP/1.1 402 Payment Required\r\nContent-Type: application/json\r\n\
         PAYMENT-REQUIRED: {header}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    out
}

/// The loopback server: its own thread and runtime, stopped by [`LoopbackServer::stop`].
struct LoopbackServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LoopbackServer {
    fn start() -> Self {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let response: Arc<[u8]> = challenge_response(&format!("http://{addr}{PATH}")).into();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                while !stopping.load(Ordering::Relaxed) {
                    let accepted =
                        tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
                    if let Ok(Ok((stream, _))) = accepted {
                        tokio::spawn(serve(stream, Arc::clone(&response)));
                    }
                }
            });
        });
        Self { addr, stop, thread: Some(thread) }
    }

    fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

/// Reads the request head, writes the challenge, closes.
async fn serve(mut stream: TcpStream, response: Arc<[u8]>) {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let _ = stream.write_all(&response).await;
    let _ = stream.shutdown().await;
}

/// Everything one iteration of either bench needs.
struct Setup {
    rt: Runtime,
    bare: reqwest::Client,
    fetcher: Fetcher,
    signer: ReportSigner,
    target: TargetUrl,
}

impl Setup {
    /// (a) A bare GET, reading the whole body; returns its length.
    fn bare_get(&self) -> usize {
        self.rt.block_on(async {
            let response = self.bare.get(self.target.as_str()).send().await.unwrap();
            assert_eq!(response.status().as_u16(), 402);
            response.bytes().await.unwrap().len()
        })
    }

    /// (b) The local check pipeline: fetch, grade, assemble, sign.
    fn pipeline(&self) -> SignedReport {
        self.rt.block_on(async {
            let outcome = self.fetcher.fetch(&self.target).await;
            assert!(matches!(outcome, FetchOutcome::Captured(_)), "the fetch failed");
            let verdict = grade_check(self.target.as_str(), &outcome);
            let report = UnsignedReport::of(&self.target, verdict, clock::now(), false).unwrap();
            report.sign(&self.signer)
        })
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn main() {
    let server = LoopbackServer::start();
    let setup = Setup {
        rt: tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap(),
        bare: reqwest::Client::builder().no_proxy().pool_max_idle_per_host(0).build().unwrap(),
        fetcher: Fetcher::new(AddressRule::AllowPrivate).unwrap(),
        signer: ReportSigner::from_seed(&[7; 32]),
        target: vet_target_url(&server.url(), AddressRule::AllowPrivate).unwrap(),
    };
    let first = setup.pipeline();
    assert_eq!(first.report.state, CheckState::Populated.as_str(), "the served challenge grades");
    println!("challenge response body: {} bytes", setup.bare_get());

    let mut criterion = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = criterion.benchmark_group("check_overhead");
    group.bench_function("bare_reqwest_get", |b| b.iter(|| black_box(setup.bare_get())));
    group.bench_function("fetch_grade_report_sign", |b| b.iter(|| black_box(setup.pipeline())));
    group.finish();
    criterion.final_summary();

    // Interleaved, so both sides see the same machine conditions; `cargo test` runs a few.
    let rounds = if std::env::args().any(|a| a == "--bench") { 200 } else { 5 };
    let (mut bare, mut pipeline) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for _ in 0..rounds {
        let started = Instant::now();
        black_box(setup.bare_get());
        bare.push(started.elapsed());
        let started = Instant::now();
        black_box(setup.pipeline());
        pipeline.push(started.elapsed());
    }
    let (bare, pipeline) = (median(&mut bare), median(&mut pipeline));
    println!(
        "medians over {rounds} interleaved rounds: bare {:.1} us, pipeline {:.1} us",
        bare.as_secs_f64() * 1e6,
        pipeline.as_secs_f64() * 1e6
    );
    println!("overhead: pipeline/bare = {:.2}", pipeline.as_secs_f64() / bare.as_secs_f64());
    drop(setup);
    server.stop();
}
