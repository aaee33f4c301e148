//! The bounded fetcher against real loopback servers: statuses, redirects, the
//! `PAYMENT-REQUIRED` capture, the body cap, broken connections, the request it sends, the
//! address rule after resolution, the deadline and the memo op's two fetches.
//!
//! Every server binds 127.0.0.1 (or ::1) and is scripted byte for byte; no test sends
//! traffic anywhere else.

use crate::support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use payability_core::capture::{
    BODY_CAP_BYTES, Capture, CapturedBody, CapturedHeader, FetchOutcome, HEADER_CAP_BYTES,
};
use payability_core::policy::{AddressRule, TargetUrl, vet_target_url};
use payability_runtime::fetch::{FETCH_DEADLINE, Fetcher};
use payability_tests::standin::closed_port;
use payability_tests::vectors::{LOOPBACK_HOST_IPV6, LOOPBACK_HOSTS_OF_127_0_0_1};

use support::{Server, Step, cat, chunked, head, response};

/// Vets a loopback URL the way local testing does.
fn target(url: &str) -> TargetUrl {
    vet_target_url(url, AddressRule::AllowPrivate).expect("a loopback test URL is allowed")
}

/// The production fetcher shape with the private-address override (5,000 ms deadline).
fn fetcher() -> Fetcher {
    Fetcher::new(AddressRule::AllowPrivate).expect("fetcher builds")
}

/// A short-deadline fetcher, only for tests of the deadline mechanism itself.
fn fetcher_with_deadline(millis: u64) -> Fetcher {
    Fetcher::with_deadline(AddressRule::AllowPrivate, Duration::from_millis(millis)).unwrap()
}

/// A compact description of an outcome (bodies by length and prefix), for failure messages.
fn describe(outcome: &FetchOutcome) -> String {
    match outcome {
        FetchOutcome::Failed => "Failed".to_owned(),
        FetchOutcome::TimedOut => "TimedOut".to_owned(),
        FetchOutcome::Captured(Capture { status, payment_required, body }) => {
            let header = payment_required.as_ref().map(|h| match h {
                CapturedHeader::Complete(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                CapturedHeader::OverCap => "OverCap".to_owned(),
            });
            let body = match body {
                CapturedBody::OverCap => "OverCap".to_owned(),
                CapturedBody::Complete(bytes) => {
                    let prefix = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]);
                    format!("Complete(len {}, {prefix:?})", bytes.len())
                }
            };
            format!("Captured(status {status}, header {header:?}, {body})")
        }
    }
}

/// A captured response with a complete body.
fn captured(status: u16, header: Option<&[u8]>, body: &[u8]) -> FetchOutcome {
    FetchOutcome::Captured(Capture {
        status,
        payment_required: header.map(CapturedHeader::of),
        body: CapturedBody::Complete(body.to_vec()),
    })
}

/// A captured response whose body went over the cap.
fn over_cap(status: u16) -> FetchOutcome {
    FetchOutcome::Captured(Capture { status, payment_required: None, body: CapturedBody::OverCap })
}

/// One scripted connection answering a request with exact bytes and closing.
fn answer(bytes: Vec<u8>) -> Vec<Vec<Step>> {
    vec![vec![Step::ReadRequest, Step::Write(bytes)]]
}

/// Runs a fetch against a fresh server with one script; returns outcome, connections
/// accepted and elapsed time.
async fn run_one(script: Vec<Step>, path: &str) -> (FetchOutcome, usize, Duration) {
    let server = Server::start(vec![script]).await;
    let started = Instant::now();
    let outcome = fetcher().fetch(&target(&server.url(path))).await;
    (outcome, server.accepted(), started.elapsed())
}

#[tokio::test]
async fn statuses_are_captured_as_served_and_redirects_are_not_followed() {
    let challenge = br#"{"x402Version":1,"accepts":[]}"#;
    let vectors: [(&str, u16, bool); 7] = [
        ("402 Payment Required", 402, false),
        ("200 OK", 200, false),
        ("500 Internal Server Error", 500, false),
        ("301 Moved Permanently", 301, true),
        ("302 Found", 302, true),
        ("307 Temporary Redirect", 307, true),
        ("308 Permanent Redirect", 308, true),
    ];
    for (status_line, status, redirect) in vectors {
        let elsewhere = Server::sentinel().await;
        let location = format!("Location: {}", elsewhere.url("/paid"));
        let headers: Vec<&str> = if redirect { vec![location.as_str()] } else { vec![] };
        let server = Server::start(answer(response(status_line, &headers, challenge))).await;
        let outcome = fetcher().fetch(&target(&server.url("/x"))).await;
        let want = captured(status, None, challenge);
        assert!(outcome == want, "{status_line}: {}", describe(&outcome));
        assert_eq!(server.accepted(), 1, "{status_line}: one connection to the target");
        assert_eq!(elsewhere.accepted(), 0, "{status_line}: the redirect target is never reached");
    }
}

#[tokio::test]
async fn payment_required_header_is_the_first_value_raw_any_name_case() {
    let vectors: [(&[&str], Option<&[u8]>); 8] = [
        (&["PAYMENT-REQUIRED: eyJ4NDAyVmVyc2lvbiI6Mn0="], Some(b"eyJ4NDAyVmVyc2lvbiI6Mn0=")),
        (&["payment-required: abc"], Some(b"abc")),
        (&["Payment-Required: first", "PAYMENT-REQUIRED: second"], Some(b"first")),
        (&["X-Other: 1", "payment-required: a", "x-more: 2", "Payment-required: b"], Some(b"a")),
        (&["PAYMENT-REQUIRED:    padded value \t"], Some(b"padded value")),
        (&["PAYMENT-REQUIRED:"], Some(b"")),
        (&["PAYMENT-REQUIRED: caf\u{e9}"], Some("caf\u{e9}".as_bytes())),
        (&["X-Payment-Required: not it"], None),
    ];
    for (headers, want_header) in vectors {
        let server = Server::start(answer(response("402 Payment Required", headers, b"{}"))).await;
        let outcome = fetcher().fetch(&target(&server.url("/"))).await;
        let want = captured(402, want_header, b"{}");
        assert!(outcome == want, "{headers:?}: {}", describe(&outcome));
    }
}

#[tokio::test]
async fn payment_required_cap_is_16384_bytes_and_an_over_cap_value_is_not_kept() {
    assert_eq!(HEADER_CAP_BYTES, 16_384);
    let vectors = [
        (HEADER_CAP_BYTES, CapturedHeader::Complete(vec![b'Q'; HEADER_CAP_BYTES])),
        (HEADER_CAP_BYTES + 1, CapturedHeader::OverCap),
        (100_000, CapturedHeader::OverCap),
    ];
    for (length, want) in vectors {
        let header = format!("PAYMENT-REQUIRED: {}", "Q".repeat(length));
        let server =
            Server::start(answer(response("402 Payment Required", &[&header], b"{}"))).await;
        let outcome = fetcher().fetch(&target(&server.url("/"))).await;
        let want = FetchOutcome::Captured(Capture {
            status: 402,
            payment_required: Some(want),
            body: CapturedBody::Complete(b"{}".to_vec()),
        });
        assert!(outcome == want, "{length} bytes: {}", describe(&outcome));
    }
}

#[tokio::test]
async fn body_cap_is_65536_bytes_whatever_the_framing() {
    let cap = BODY_CAP_BYTES;
    assert_eq!(cap, 65_536);
    let at_cap = vec![b'a'; cap];
    let over = vec![b'b'; cap + 1];
    let small = b"{\"x402Version\":1}".to_vec();
    let p402 = "402 Payment Required";
    let close_delimited = |body: &[u8]| cat(&[&head(p402, &["Connection: close"]), body]);
    let chunked_response = |body: &[u8], size: usize| {
        let framing = ["Transfer-Encoding: chunked"];
        cat(&[&head(p402, &framing), &chunked(body, size, true)])
    };
    let vectors: Vec<(&str, Vec<u8>, FetchOutcome)> = vec![
        (
            "exactly the cap, Content-Length",
            response(p402, &[], &at_cap),
            captured(402, None, &at_cap),
        ),
        ("one over the cap, Content-Length", response(p402, &[], &over), over_cap(402)),
        (
            "exactly the cap, close-delimited",
            close_delimited(&at_cap),
            captured(402, None, &at_cap),
        ),
        ("one over the cap, close-delimited", close_delimited(&over), over_cap(402)),
        ("exactly the cap, chunked", chunked_response(&at_cap, 1000), captured(402, None, &at_cap)),
        ("one over the cap, chunked", chunked_response(&over, 1000), over_cap(402)),
        (
            "small, chunked in 3-byte chunks",
            chunked_response(&small, 3),
            captured(402, None, &small),
        ),
        ("empty, Content-Length 0", response(p402, &[], b""), captured(402, None, b"")),
        ("one over the cap on a 200", response("200 OK", &[], &over), over_cap(200)),
    ];
    for (name, bytes, want) in vectors {
        let (outcome, accepted, _) =
            run_one(vec![Step::ReadRequest, Step::Write(bytes)], "/").await;
        assert!(outcome == want, "{name}: {}", describe(&outcome));
        assert_eq!(accepted, 1, "{name}");
    }
}

#[tokio::test]
async fn over_cap_is_decided_promptly_while_the_server_keeps_the_body_coming() {
    // Each server would keep the connection busy for about 8 s; the fetch must return the
    // over-cap capture at once instead of reading (or waiting for) the rest.
    let keep_sending = |framing: &str, tail: Vec<u8>| {
        vec![
            Step::ReadRequest,
            Step::Write(head("402 Payment Required", &[framing])),
            Step::Trickle { bytes: tail, piece: 4096, every: Duration::from_millis(50) },
        ]
    };
    let announced = vec![
        Step::ReadRequest,
        Step::Write(head("402 Payment Required", &["Content-Length: 70000"])),
        Step::Sleep(Duration::from_secs(8)),
    ];
    // 20 chunks of 4 KiB at once, then a 16-byte chunk every 50 ms for 8 s, never the
    // last-chunk marker.
    let chunked_flood = vec![
        Step::ReadRequest,
        Step::Write(head("402 Payment Required", &["Transfer-Encoding: chunked"])),
        Step::Write(chunked(&vec![b'c'; 20 * 4096], 4096, false)),
        Step::Trickle {
            bytes: chunked(&[b'd'; 160 * 16], 16, false),
            piece: 22,
            every: Duration::from_millis(50),
        },
    ];
    let vectors: [(&str, Vec<Step>); 4] = [
        ("Content-Length 70000 announced, nothing sent", announced),
        ("chunked, 80 KiB at once then a chunk every 50 ms", chunked_flood),
        (
            "chunked, trickled 4 KiB every 50 ms",
            keep_sending(
                "Transfer-Encoding: chunked",
                chunked(&vec![b'e'; 160 * 4096], 4096, false),
            ),
        ),
        (
            "close-delimited, trickled 4 KiB every 50 ms",
            keep_sending("Connection: close", vec![b'f'; 160 * 4096]),
        ),
    ];
    for (name, script) in vectors {
        let (outcome, accepted, elapsed) = run_one(script, "/").await;
        assert!(outcome == over_cap(402), "{name}: {}", describe(&outcome));
        assert_eq!(accepted, 1, "{name}");
        assert!(elapsed < Duration::from_millis(2_000), "{name}: took {elapsed:?}");
    }
}

#[tokio::test]
async fn a_content_length_smaller_than_what_is_sent_frames_the_body() {
    // hyper enforces Content-Length framing: the body is exactly the announced bytes, and what
    // follows is not body (the connection is not reused, so it is simply dropped).
    let vectors: [(&str, Vec<u8>, &[u8]); 3] = [
        (
            "5 announced, 11 sent",
            cat(&[&head("402 Payment Required", &["Content-Length: 5"]), b"hello world"]),
            b"hello",
        ),
        (
            "0 announced, a body sent",
            cat(&[&head("402 Payment Required", &["Content-Length: 0"]), b"{\"a\":1}"]),
            b"",
        ),
        (
            "10 announced, cap + 100 sent",
            cat(&[
                &head("402 Payment Required", &["Content-Length: 10"]),
                &vec![b'x'; BODY_CAP_BYTES + 100],
            ]),
            b"xxxxxxxxxx",
        ),
    ];
    for (name, bytes, want_body) in vectors {
        let (outcome, accepted, _) =
            run_one(vec![Step::ReadRequest, Step::Write(bytes)], "/").await;
        assert!(outcome == captured(402, None, want_body), "{name}: {}", describe(&outcome));
        assert_eq!(accepted, 1, "{name}");
    }
}

#[tokio::test]
async fn broken_connections_are_failed_never_a_partial_capture() {
    let p402 = "402 Payment Required";
    let vectors: Vec<(&str, Vec<Step>)> = vec![
        ("reset on accept", vec![Step::Reset]),
        ("reset after the request", vec![Step::ReadRequest, Step::Reset]),
        ("closed after the request, no bytes", vec![Step::ReadRequest]),
        (
            "closed inside the status line",
            vec![Step::ReadRequest, Step::Write(b"HTTP/1.1 40".to_vec())],
        ),
        (
            "closed inside the headers",
            vec![
                Step::ReadRequest,
                Step::Write(b"HTTP/1.1 402 Payment Required\r\nPAYMENT-REQ".to_vec()),
            ],
        ),
        (
            "closed inside a Content-Length body",
            vec![
                Step::ReadRequest,
                Step::Write(cat(&[&head(p402, &["Content-Length: 100"]), &[b'{'; 60]])),
            ],
        ),
        (
            "reset inside a Content-Length body",
            vec![
                Step::ReadRequest,
                Step::Write(cat(&[&head(p402, &["Content-Length: 100"]), &[b'{'; 60]])),
                Step::Sleep(Duration::from_millis(50)),
                Step::Reset,
            ],
        ),
        (
            "closed inside a chunked body (no last chunk)",
            vec![
                Step::ReadRequest,
                Step::Write(cat(&[
                    &head(p402, &["Transfer-Encoding: chunked"]),
                    &chunked(b"{\"a\":1}", 4, false),
                ])),
            ],
        ),
        (
            "not HTTP at all",
            vec![Step::ReadRequest, Step::Write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n".to_vec())],
        ),
        (
            "two different Content-Length values",
            vec![
                Step::ReadRequest,
                Step::Write(cat(&[
                    &head(p402, &["Content-Length: 2", "Content-Length: 3"]),
                    b"{}",
                ])),
            ],
        ),
    ];
    for (name, script) in vectors {
        let (outcome, accepted, elapsed) = run_one(script, "/").await;
        assert!(outcome == FetchOutcome::Failed, "{name}: {}", describe(&outcome));
        assert_eq!(accepted, 1, "{name}: exactly one connection, no retry");
        assert!(elapsed < Duration::from_secs(2), "{name}: took {elapsed:?}");
    }
}

#[tokio::test]
async fn a_refused_port_is_failed() {
    let port = closed_port();
    let started = Instant::now();
    let outcome = fetcher().fetch(&target(&format!("http://127.0.0.1:{port}/"))).await;
    assert!(outcome == FetchOutcome::Failed, "{}", describe(&outcome));
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn an_http_1_0_close_delimited_response_is_captured() {
    let bytes = b"HTTP/1.0 402 Payment Required\r\nPAYMENT-REQUIRED: e30\r\n\r\n{}".to_vec();
    let (outcome, accepted, _) = run_one(vec![Step::ReadRequest, Step::Write(bytes)], "/").await;
    assert!(outcome == captured(402, Some(b"e30"), b"{}"), "{}", describe(&outcome));
    assert_eq!(accepted, 1);
}

/// What a capture looks like in the framing table: status and header length, or Failed.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// Captured with this status, `PAYMENT-REQUIRED` (absent; `Some(None)` over its cap; or
    /// the kept length) and complete body length.
    Captured(u16, Option<Option<usize>>, usize),
    /// Failed.
    Failed,
}

fn seen(outcome: &FetchOutcome) -> Option<Seen> {
    match outcome {
        FetchOutcome::Failed => Some(Seen::Failed),
        FetchOutcome::TimedOut => None,
        FetchOutcome::Captured(c) => {
            let header = c.payment_required.as_ref().map(|h| h.bytes().map(<[u8]>::len));
            Some(Seen::Captured(c.status, header, c.body_bytes()?.len()))
        }
    }
}

#[tokio::test]
async fn unusual_framing_is_parsed_as_hyper_parses_it() {
    // Pins the HTTP/1.1 parser's behaviour as observed (hyper 1.x defaults; the fetcher keeps
    // at most 16,384 bytes of PAYMENT-REQUIRED): interim 1xx responses are skipped, more than
    // 100 headers or a head over hyper's ~400 KB buffer is a failed fetch, malformed header
    // lines fail.
    let p402 = "402 Payment Required";
    let many: Vec<String> = (0..120).map(|i| format!("X-H{i}: v")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let big = format!("PAYMENT-REQUIRED: {}", "A".repeat(200_000));
    let huge = format!("PAYMENT-REQUIRED: {}", "A".repeat(600_000));
    let pr_line =
        |raw: &[u8]| cat(&[b"HTTP/1.1 402 P\r\n", raw, b"\r\nContent-Length: 2\r\n\r\n{}"]);
    let vectors: Vec<(&str, Vec<u8>, Seen)> = vec![
        (
            "100 Continue, then the 402",
            cat(&[b"HTTP/1.1 100 Continue\r\n\r\n", &response(p402, &[], b"{}")]),
            Seen::Captured(402, None, 2),
        ),
        (
            "103 Early Hints, then the 402",
            cat(&[b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", &response(p402, &[], b"{}")]),
            Seen::Captured(402, None, 2),
        ),
        (
            "101 Switching Protocols",
            response("101 Switching Protocols", &["Upgrade: x"], b""),
            Seen::Captured(101, None, 0),
        ),
        ("status 999", response("999 Whatever", &[], b"{}"), Seen::Captured(999, None, 2)),
        ("status 099", response("099 Low", &[], b"{}"), Seen::Failed),
        (
            "no reason phrase",
            b"HTTP/1.1 402\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
            Seen::Captured(402, None, 2),
        ),
        (
            "bare LF line ends",
            b"HTTP/1.1 402 P\nContent-Length: 2\n\n{}".to_vec(),
            Seen::Captured(402, None, 2),
        ),
        (
            "HTTP/2.0 in a status line",
            b"HTTP/2.0 402 P\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
            Seen::Failed,
        ),
        (
            "chunked wins over Content-Length 70000",
            cat(&[
                &head(p402, &["Transfer-Encoding: chunked", "Content-Length: 70000"]),
                &chunked(b"{}", 2, true),
            ]),
            Seen::Captured(402, None, 2),
        ),
        (
            "204 with Content-Length 70000",
            head("204 No Content", &["Content-Length: 70000"]),
            Seen::Captured(204, None, 0),
        ),
        (
            "304 with Content-Length 70000",
            head("304 Not Modified", &["Content-Length: 70000"]),
            Seen::Captured(304, None, 0),
        ),
        ("120 response headers", response(p402, &many, b"{}"), Seen::Failed),
        (
            "a 200,000-byte PAYMENT-REQUIRED",
            response(p402, &[&big], b"{}"),
            Seen::Captured(402, Some(None), 2),
        ),
        ("a 600,000-byte PAYMENT-REQUIRED", response(p402, &[&huge], b"{}"), Seen::Failed),
        ("NUL inside PAYMENT-REQUIRED", pr_line(b"PAYMENT-REQUIRED: a\x00b"), Seen::Failed),
        ("obs-fold continuation line", pr_line(b"PAYMENT-REQUIRED: a\r\n b"), Seen::Failed),
        ("space before the colon", pr_line(b"PAYMENT-REQUIRED : a"), Seen::Failed),
    ];
    for (name, bytes, want) in vectors {
        let (outcome, accepted, _) =
            run_one(vec![Step::ReadRequest, Step::Write(bytes)], "/").await;
        assert_eq!(seen(&outcome), Some(want), "{name}: {}", describe(&outcome));
        assert_eq!(accepted, 1, "{name}");
    }
}

#[tokio::test]
async fn the_request_is_a_plain_anonymous_get_with_host_and_accept_only() {
    let server = Server::start(answer(response("402 Payment Required", &[], b"{}"))).await;
    let url = server.url("/pay/item?q=1&r=%20x");
    let outcome = fetcher().fetch(&target(&url)).await;
    assert!(outcome == captured(402, None, b"{}"), "{}", describe(&outcome));

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let raw = String::from_utf8(requests[0].clone()).expect("the request head is ASCII");
    assert!(raw.ends_with("\r\n\r\n"), "{raw:?}");
    let mut lines = raw.trim_end_matches("\r\n").split("\r\n");
    assert_eq!(lines.next(), Some("GET /pay/item?q=1&r=%20x HTTP/1.1"));
    let mut names = Vec::new();
    for line in lines {
        let (name, value) = line.split_once(": ").expect("a header line");
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "host" => assert_eq!(value, format!("127.0.0.1:{}", server.port())),
            "accept" => assert_eq!(value, "*/*"),
            other => panic!("unexpected request header {other:?} in {raw:?}"),
        }
        names.push(name);
    }
    names.sort();
    assert!(names == ["accept", "host"] || names == ["host"], "{names:?}");
    for forbidden in [
        "cookie",
        "authorization",
        "user-agent",
        "accept-encoding",
        "proxy-authorization",
        "content-length",
        "transfer-encoding",
        "connection",
        "te",
    ] {
        assert!(!names.iter().any(|n| n == forbidden), "{forbidden}");
    }
}

#[tokio::test]
async fn a_gzip_body_is_returned_as_the_raw_bytes() {
    // gzip of `{"x402Version":1}` (mtime 0).
    let gzipped: [u8; 37] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 255, 171, 86, 170, 48, 49, 48, 10, 75, 45, 42, 206, 204, 207,
        83, 178, 50, 172, 5, 0, 220, 56, 101, 93, 17, 0, 0, 0,
    ];
    let headers = ["Content-Encoding: gzip", "Content-Type: application/json"];
    let server = Server::start(answer(response("402 Payment Required", &headers, &gzipped))).await;
    let outcome = fetcher().fetch(&target(&server.url("/"))).await;
    assert!(outcome == captured(402, None, &gzipped), "{}", describe(&outcome));
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_before_connecting_under_public_only() {
    let public_only = Fetcher::new(AddressRule::PublicOnly).unwrap();

    // Refused: the resolver vets `localhost`'s answer and no connection is made.
    let server = Server::start(answer(response("402 Payment Required", &[], b"{}"))).await;
    let url = format!("http://localhost:{}/", server.port());
    let outcome = public_only.fetch(&target(&url)).await;
    assert!(outcome == FetchOutcome::Failed, "{}", describe(&outcome));
    assert_eq!(server.accepted(), 0, "no connection reaches the target");

    // Allowed under the override: the same server and name are captured.
    let outcome = fetcher().fetch(&target(&url)).await;
    assert!(outcome == captured(402, None, b"{}"), "{}", describe(&outcome));
    assert_eq!(server.accepted(), 1);
}

#[tokio::test]
async fn ip_literal_loopback_targets_are_refused_before_connecting_under_public_only() {
    let public_only = Fetcher::new(AddressRule::PublicOnly).unwrap();
    let server = Server::sentinel().await;
    let port = server.port();
    let mut urls: Vec<String> =
        LOOPBACK_HOSTS_OF_127_0_0_1.iter().map(|host| format!("http://{host}:{port}/")).collect();
    // ::1 gets its own sentinel when the machine has IPv6 loopback.
    let v6_bind: SocketAddr = format!("{LOOPBACK_HOST_IPV6}:0").parse().unwrap();
    let v6 = Server::start_on(v6_bind, Vec::new()).await.ok();
    if let Some(v6) = &v6 {
        urls.push(v6.url("/"));
    }
    for url in &urls {
        let outcome = public_only.fetch(&target(url)).await;
        assert!(outcome == FetchOutcome::Failed, "{url}: {}", describe(&outcome));
    }
    assert_eq!(server.accepted(), 0);
    assert_eq!(v6.as_ref().map_or(0, Server::accepted), 0);
}

#[tokio::test]
async fn fetch_twice_makes_exactly_two_sequential_connections() {
    let first = response("402 Payment Required", &["PAYMENT-REQUIRED: one"], b"{\"memo\":\"m1\"}");
    let second = response("402 Payment Required", &["PAYMENT-REQUIRED: two"], b"{\"memo\":\"m2\"}");
    let server = Server::start(vec![
        vec![Step::ReadRequest, Step::Sleep(Duration::from_millis(100)), Step::Write(first)],
        vec![Step::ReadRequest, Step::Write(second)],
    ])
    .await;
    let [a, b] = fetcher().fetch_twice(&target(&server.url("/memo"))).await;
    assert!(a == captured(402, Some(b"one"), b"{\"memo\":\"m1\"}"), "{}", describe(&a));
    assert!(b == captured(402, Some(b"two"), b"{\"memo\":\"m2\"}"), "{}", describe(&b));
    assert_eq!(server.accepted(), 2);
    assert_eq!(server.max_concurrent(), 1, "the second fetch starts after the first ends");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn the_deadline_covers_a_silent_server_and_a_stalled_body() {
    // Deadline mechanism with a 300 ms deadline (the published one is tested below).
    let vectors: [(&str, Vec<Step>); 3] = [
        ("accepts, never answers", vec![Step::ReadRequest, Step::Sleep(Duration::from_secs(8))]),
        (
            "headers, then a stalled Content-Length body",
            vec![
                Step::ReadRequest,
                Step::Write(cat(&[
                    &head("402 Payment Required", &["Content-Length: 100"]),
                    b"{\"a\"",
                ])),
                Step::Sleep(Duration::from_secs(8)),
            ],
        ),
        (
            "half a status line, then silence",
            vec![
                Step::ReadRequest,
                Step::Write(b"HTTP/1.1 402 Pay".to_vec()),
                Step::Sleep(Duration::from_secs(8)),
            ],
        ),
    ];
    for (name, script) in vectors {
        let server = Server::start(vec![script]).await;
        let started = Instant::now();
        let outcome = fetcher_with_deadline(300).fetch(&target(&server.url("/"))).await;
        let elapsed = started.elapsed();
        assert!(outcome == FetchOutcome::TimedOut, "{name}: {}", describe(&outcome));
        assert!(elapsed >= Duration::from_millis(300), "{name}: {elapsed:?}");
        assert!(elapsed < Duration::from_millis(1_500), "{name}: {elapsed:?}");
        assert_eq!(server.accepted(), 1, "{name}");
    }
}

#[tokio::test]
async fn the_published_5000_ms_deadline_stops_a_trickling_body() {
    assert_eq!(FETCH_DEADLINE, Duration::from_millis(5_000));
    // 1,000 announced bytes at 10 bytes every 100 ms would take 10 s.
    let script = vec![
        Step::ReadRequest,
        Step::Write(head("402 Payment Required", &["Content-Length: 1000"])),
        Step::Trickle { bytes: vec![b'z'; 1000], piece: 10, every: Duration::from_millis(100) },
    ];
    let (outcome, accepted, elapsed) = run_one(script, "/slow").await;
    assert!(outcome == FetchOutcome::TimedOut, "{}", describe(&outcome));
    assert_eq!(accepted, 1);
    assert!(elapsed >= Duration::from_millis(5_000), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(7_000), "{elapsed:?}");
}
