//! API Gateway's HTTP API quota, measured on the official clients: an HTTP API refuses a
//! request whose request line and header values together pass 10,240 bytes (a quota that
//! cannot be raised), and the official x402 clients echo our 402's `resource` and
//! `extensions` into `PAYMENT-SIGNATURE`. Each client pays each paid route by each method
//! through a loopback recorder that forwards to `payability serve` and counts what the
//! gateway would count; every paid retry must leave at least 1,024 bytes of the quota spare,
//! with the longest URL the route accepts (POST: 2,048 bytes in the body; GET: the longest
//! public URL a paid GET may have, past which it is refused free with
//! `url_too_long_for_get`, before any payment).
//!
//! Needs `scripts/test` (the x402 Python SDK, the npm client and the fixtures).

use crate::support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use payability_core::policy::MAX_URL_BYTES;
use payability_runtime::api::{
    API_GATEWAY_REQUEST_QUOTA_BYTES, MAX_GET_RESOURCE_URL_BYTES, PAID_REQUEST_BUDGET_BYTES,
};
use serde_json::Value;
use support::world::{FacilitatorKind, StoreKind, Target, World, fixtures, run_bounded};

/// How long one client run may take (one 402, one paid request).
const CLIENT_WITHIN: Duration = Duration::from_secs(120);
/// The buyer's seed (a throwaway key); the RPC stub funds any buyer.
const BUYER_SEED_HEX: &str = "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c";

/// One request the recorder forwarded.
#[derive(Debug, Clone)]
struct Seen {
    /// `METHOD target HTTP/1.1`.
    line: String,
    /// What API Gateway counts: the request line plus every header value.
    quota_bytes: usize,
    /// The `PAYMENT-SIGNATURE` (or `X-PAYMENT`) value's length, when the request carries one.
    payment_bytes: Option<usize>,
    /// The `SIGN-IN-WITH-X` value's length, when the request carries one.
    sign_in_bytes: Option<usize>,
    /// The answer's status.
    status: u16,
    /// The answer's `PAYMENT-REQUIRED` value's length (0 without one).
    payment_required_bytes: usize,
}

/// A head (start line and header lines) and its body, read off a stream (Content-Length
/// framing only, which is what the clients and `serve` send here); None at end of stream.
fn read_message(reader: &mut BufReader<TcpStream>) -> Option<(Vec<String>, Vec<u8>)> {
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']).to_owned();
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let header = |wanted: &str| {
        lines.iter().skip(1).find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim().eq_ignore_ascii_case(wanted).then(|| value.trim().to_owned())
        })
    };
    assert!(header("transfer-encoding").is_none(), "the recorder reads Content-Length only");
    let length = header("content-length").map_or(0, |v| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((lines, body))
}

/// The value of a header line, if it is the named header.
fn value_of<'a>(lines: &'a [String], wanted: &str) -> Option<&'a str> {
    lines.iter().skip(1).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim().eq_ignore_ascii_case(wanted).then_some(value.trim())
    })
}

/// A loopback stand-in for API Gateway: forwards every request to `serve` and records what
/// the gateway's quota counts.
struct Recorder {
    listener: TcpListener,
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Recorder {
    /// Binds a port (the world's public base URL is the recorder's).
    fn bind() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        Self { listener, url, seen: Arc::default() }
    }

    /// Forwards every connection to `upstream` (`http://127.0.0.1:PORT`), one request at a
    /// time, in a thread of its own.
    fn forward_to(&self, upstream: &str) {
        let listener = self.listener.try_clone().unwrap();
        let upstream = upstream.trim_start_matches("http://").to_owned();
        let seen = Arc::clone(&self.seen);
        std::thread::spawn(move || {
            for client in listener.incoming().take(500) {
                let Ok(client) = client else { continue };
                let (upstream, seen) = (upstream.clone(), Arc::clone(&seen));
                std::thread::spawn(move || relay(client, &upstream, &seen));
            }
        });
    }

    /// Everything recorded so far, and the record emptied.
    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut self.seen.lock().unwrap())
    }
}

/// Relays the requests of one client connection, each over a fresh upstream connection.
fn relay(client: TcpStream, upstream: &str, seen: &Mutex<Vec<Seen>>) {
    client.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut writer = client.try_clone().unwrap();
    let mut reader = BufReader::new(client);
    while let Some((lines, body)) = read_message(&mut reader) {
        let quota_bytes = lines[0].len()
            + lines[1..]
                .iter()
                .map(|l| l.split_once(':').map_or(0, |(_, value)| value.trim().len()))
                .sum::<usize>();
        let payment = value_of(&lines, "payment-signature").or(value_of(&lines, "x-payment"));
        let payment_bytes = payment.map(str::len);
        let sign_in_bytes = value_of(&lines, "sign-in-with-x").map(str::len);
        let close = value_of(&lines, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let mut out = TcpStream::connect(upstream).unwrap();
        out.write_all(format!("{}\r\n\r\n", lines.join("\r\n")).as_bytes()).unwrap();
        out.write_all(&body).unwrap();
        let Some((answer, answer_body)) = read_message(&mut BufReader::new(out)) else { return };
        let status = answer[0].split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let payment_required_bytes = value_of(&answer, "payment-required").map_or(0, str::len);
        seen.lock().unwrap().push(Seen {
            line: lines[0].clone(),
            quota_bytes,
            payment_bytes,
            sign_in_bytes,
            status,
            payment_required_bytes,
        });
        let written = writer
            .write_all(format!("{}\r\n\r\n", answer.join("\r\n")).as_bytes())
            .and_then(|()| writer.write_all(&answer_body));
        if written.is_err() || close {
            return;
        }
    }
}

/// A URL-encoded query value, as both clients encode this test's URLs (`:/?=` escaped,
/// letters, digits and `.` kept).
fn encoded(url: &str) -> String {
    url::form_urlencoded::byte_serialize(url.as_bytes()).collect()
}

/// A URL of the seller (any path answers) of `MAX_URL_BYTES` bytes: the longest accepted.
fn longest_url(seller: &str) -> String {
    let mut url = format!("{seller}/");
    url.push_str(&"a".repeat(MAX_URL_BYTES - url.len()));
    url
}

/// A URL of the seller whose paid GET has a public URL (`<route URL>?url=<encoded>`) of
/// exactly `length` bytes: the longest such a GET may have ('/' grows 3 bytes encoded).
fn url_whose_get_is(seller: &str, route_url: &str, length: usize) -> String {
    let mut url = format!("{seller}/");
    let get_length = |url: &str| format!("{route_url}?url={}", encoded(url)).len();
    while get_length(&url) + 3 <= length && url.len() < MAX_URL_BYTES {
        url.push('/');
    }
    while get_length(&url) < length {
        url.push('a');
    }
    assert_eq!(get_length(&url), length, "a URL of the wanted length");
    assert!(url.len() <= MAX_URL_BYTES);
    url
}

/// A paying client of this test.
#[derive(Clone, Copy, Debug)]
enum Client {
    /// The official Python SDK, x402 2.25.0 (tests/e2e/buyer.py's SDK mode).
    Python,
    /// The official npm client, @x402/fetch 2.27.0 (tests/e2e/agents/quickstart.mjs).
    Npm,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Self::Python => "x402 2.25.0 (PyPI)",
            Self::Npm => "@x402/fetch 2.27.0 (npm)",
        }
    }

    /// Pays `method` `<base>/<route>` for `target` through the recorder at `base`; returns
    /// the client's JSON line.
    fn pay(self, world: &World, base: &str, method: &str, route: &str, target: &str) -> Value {
        self.run(world, base, method, route, target, &[])
    }

    /// Runs the client with `extra` arguments (Python only).
    fn run(
        self,
        world: &World,
        base: &str,
        method: &str,
        route: &str,
        target: &str,
        extra: &[&str],
    ) -> Value {
        let ran = match self {
            Self::Python => {
                let (python, dir) = fixtures();
                let (url, body) = match method {
                    "GET" => (format!("{base}/{route}?url={}", encoded(target)), String::new()),
                    _ => {
                        (format!("{base}/{route}"), serde_json::json!({"url": target}).to_string())
                    }
                };
                let mut command = Command::new(python);
                command.arg(format!("{dir}/buyer.py")).args([
                    "--url",
                    &url,
                    "--method",
                    method,
                    "--body",
                    &body,
                    "--rpc",
                    &world.rpc.url(),
                    "--keypair-seed-hex",
                    BUYER_SEED_HEX,
                ]);
                command.args(extra);
                run_bounded(command, CLIENT_WITHIN)
            }
            Self::Npm => {
                let modules = std::env::var("PAYABILITY_TEST_AGENTS_MODULES").expect(
                    "the npm client is installed by scripts/test (PAYABILITY_TEST_AGENTS_MODULES)",
                );
                let mut command = Command::new("node");
                command.arg(format!("{}/agents/quickstart.mjs", fixtures().1)).args([
                    "--base",
                    base,
                    "--target",
                    target,
                    "--rpc",
                    &world.rpc.url(),
                    "--buyer-seed-hex",
                    BUYER_SEED_HEX,
                    "--op",
                    route,
                    "--method",
                    method,
                    "--modules",
                    &modules,
                ]);
                run_bounded(command, CLIENT_WITHIN)
            }
        };
        ran.last_json().unwrap_or_else(|| panic!("{} printed no JSON line: {ran}", self.name()))
    }
}

#[test]
fn every_official_paid_retry_leaves_a_kilobyte_of_api_gateways_quota_spare() {
    assert_eq!(PAID_REQUEST_BUDGET_BYTES, API_GATEWAY_REQUEST_QUOTA_BYTES - 1_024);
    let recorder = Recorder::bind();
    let world = World::with_server_env(
        FacilitatorKind::Fixture,
        StoreKind::Embedded,
        Target::with_fresh_memos(),
        &[("PAYABILITY_PUBLIC_BASE_URL", &recorder.url)],
    );
    recorder.forward_to(&world.server.base);
    let base = recorder.url.clone();
    let mut report = Vec::new();
    let mut over = Vec::new();
    for client in [Client::Python, Client::Npm] {
        for route in ["check", "memo"] {
            for method in ["POST", "GET"] {
                let target = match method {
                    "GET" => url_whose_get_is(
                        &world.target.url,
                        &format!("{base}/{route}"),
                        MAX_GET_RESOURCE_URL_BYTES,
                    ),
                    _ => longest_url(&world.target.url),
                };
                let line = client.pay(&world, &base, method, route, &target);
                let seen = recorder.take();
                let at = format!("{} {method} /{route}", client.name());
                let offer = seen.iter().find(|s| s.status == 402 && s.payment_bytes.is_none());
                let paid = seen.iter().find(|s| s.payment_bytes.is_some());
                let (Some(offer), Some(paid)) = (offer, paid) else {
                    panic!("{at}: no 402 and paid retry recorded: {seen:#?} / {line}");
                };
                assert_eq!(paid.status, 200, "{at}: the paid retry is answered: {line}");
                assert!(paid.line.starts_with(method), "{at}: {}", paid.line);
                report.push(format!(
                    "{at}: PAYMENT-REQUIRED {} bytes; paid retry {} bytes (PAYMENT-SIGNATURE {})",
                    offer.payment_required_bytes,
                    paid.quota_bytes,
                    paid.payment_bytes.unwrap_or(0),
                ));
                if paid.quota_bytes > PAID_REQUEST_BUDGET_BYTES {
                    over.push(format!("{at}: {} bytes", paid.quota_bytes));
                }
                if let Client::Python = client {
                    // The verdict again, by the SDK's sign-in extension: its signed retry.
                    let again = client.run(&world, &base, method, route, &target, &["--siwx"]);
                    let seen = recorder.take();
                    let signed = seen.iter().find(|s| s.sign_in_bytes.is_some());
                    let Some(signed) = signed.filter(|s| s.payment_bytes.is_none()) else {
                        panic!("{at}: no signed retry without a payment: {seen:#?} / {again}");
                    };
                    assert_eq!(signed.status, 200, "{at}: signed in, the verdict again: {again}");
                    report.push(format!(
                        "{at}: signed-in retry {} bytes (SIGN-IN-WITH-X {})",
                        signed.quota_bytes,
                        signed.sign_in_bytes.unwrap_or(0),
                    ));
                    if signed.quota_bytes > PAID_REQUEST_BUDGET_BYTES {
                        over.push(format!("{at}, signed in: {} bytes", signed.quota_bytes));
                    }
                }
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(over.is_empty(), "past {PAID_REQUEST_BUDGET_BYTES} bytes: {over:#?}\n{report:#?}");

    // One byte longer: refused free, before any offer (nothing to sign) or /verify.
    let verified = world.fixture_calls()["verify"].clone();
    for client in [Client::Python, Client::Npm] {
        for route in ["check", "memo"] {
            let route_url = format!("{base}/{route}");
            let target =
                url_whose_get_is(&world.target.url, &route_url, MAX_GET_RESOURCE_URL_BYTES + 1);
            let line = client.pay(&world, &base, "GET", route, &target);
            // The route's requests (the npm client reads the discovery documents first).
            let asked = format!("GET /{route}?");
            let seen: Vec<Seen> =
                recorder.take().into_iter().filter(|s| s.line.starts_with(&asked)).collect();
            let at = format!("{} GET /{route}, one byte over", client.name());
            assert_eq!(line["status"], 414, "{at}: {line}");
            let statuses: Vec<u16> = seen.iter().map(|s| s.status).collect();
            assert_eq!(statuses, [414], "{at}: one request, refused: {seen:#?}");
            assert!(seen[0].payment_bytes.is_none(), "{at}: nothing was paid");
        }
    }
    assert_eq!(world.fixture_calls()["verify"], verified, "no /verify for a refused GET");
}
