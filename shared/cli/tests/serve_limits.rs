//! `payability serve` cannot be held open, against real slow clients on loopback: 1,000 slow
//! connections while normal requests are answered, a body that never arrives (408), a body
//! over the cap (413) and a malformed one (400), the connection cap (503 `server_busy`) and
//! an accept loop that backs off instead of spinning when it runs out of descriptors.
//!
//! The bounds are restated here from `shared/cli/src/serve.rs` (the binary exports none).

use crate::support;

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use payability_tests::scratch::ScratchDir;
use serde_json::Value;
use support::Server;

/// `HEADER_READ_TIMEOUT` in serve.rs.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// `BODY_READ_TIMEOUT` in serve.rs.
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// `IDLE_TIMEOUT` in serve.rs.
const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// `FD_RESERVE` in serve.rs: the connection cap is the open-files limit less this (at most
/// half the limit).
const FD_RESERVE: u64 = 128;
/// How late after its timeout a slow connection may be seen closed (the server's timers,
/// this test's 50 ms polling, two busy cores).
const SLACK: Duration = Duration::from_millis(2_000);
/// How early before its timeout a slow connection may be seen closed (timers start when the
/// server accepts, a little after this test's clock does).
const EARLY: Duration = Duration::from_millis(300);

/// The tests that measure latency or CPU time run one at a time.
static TIMED: Mutex<()> = Mutex::new(());

fn timed() -> std::sync::MutexGuard<'static, ()> {
    TIMED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The soft open-files limit of a process (`/proc/<pid>/limits`).
fn open_files_limit(pid: &str) -> Option<u64> {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.trim_start_matches("Max open files").split_whitespace().next()?.parse().ok()
}

/// User plus system CPU time of a process, from `/proc/<pid>/stat` (clock ticks of 10 ms).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    // Fields 14 and 15 of the whole line; the slice starts at field 3.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

fn address(base: &str) -> String {
    base.trim_start_matches("http://").to_owned()
}

/// Writes `raw`, reads the whole answer (the server closes), returns it and the time taken.
fn exchange(address: &str, raw: &[u8], limit: Duration) -> (Vec<u8>, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(limit)).unwrap();
    stream.write_all(raw).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    (answer, started.elapsed())
}

/// The status and the JSON body of a raw HTTP/1.1 answer.
fn parse(answer: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(answer);
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn get_criteria(address: &str) -> (u16, Duration) {
    let request = format!("GET /criteria HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let (answer, took) = exchange(address, request.as_bytes(), Duration::from_secs(5));
    (parse(&answer).0, took)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slowness {
    /// Sends part of a request head, then one more byte a second.
    Head,
    /// Sends a whole head announcing 1,000 body bytes, then one body byte a second.
    Body,
    /// Connects and sends nothing.
    Silent,
}

struct SlowClient {
    stream: TcpStream,
    slowness: Slowness,
    opened: Instant,
    closed: Option<Instant>,
    answer: Vec<u8>,
}

impl SlowClient {
    fn open(address: &str, slowness: Slowness) -> Self {
        let mut stream = TcpStream::connect(address).unwrap();
        let start: &[u8] = match slowness {
            Slowness::Head => b"GET /criteria HTTP/1.1\r\nHost: slow\r\nX-Slow: a",
            Slowness::Body => {
                b"POST /precheck HTTP/1.1\r\nHost: slow\r\nContent-Length: 1000\r\n\r\n{\"url\""
            }
            Slowness::Silent => b"",
        };
        stream.write_all(start).unwrap();
        let opened = Instant::now();
        stream.set_nonblocking(true).unwrap();
        Self { stream, slowness, opened, closed: None, answer: Vec::new() }
    }

    /// Reads what has arrived; notes when the server closed the connection.
    fn poll(&mut self, now: Instant) {
        let mut buf = [0u8; 4096];
        while self.closed.is_none() {
            match self.stream.read(&mut buf) {
                Ok(0) => self.closed = Some(now),
                Ok(n) => self.answer.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => self.closed = Some(now),
            }
        }
    }

    /// One more byte of the head or the body.
    fn dribble(&mut self) {
        if self.closed.is_none() && self.slowness != Slowness::Silent {
            let _ = self.stream.write(b"a");
        }
    }

    fn timeout(&self) -> Duration {
        match self.slowness {
            Slowness::Head => HEADER_READ_TIMEOUT,
            Slowness::Body => BODY_READ_TIMEOUT,
            Slowness::Silent => IDLE_TIMEOUT,
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[test]
fn a_thousand_slow_connections_are_closed_in_time_while_normal_requests_are_answered() {
    let _timed = timed();
    // Each slow connection holds a descriptor here and one in the server (same limit).
    let limit = open_files_limit("self").unwrap_or(1_024);
    let slow = 1_000.min(usize::try_from(limit.saturating_sub(FD_RESERVE + 64)).unwrap_or(0));
    if slow < 1_000 {
        eprintln!("open-files limit {limit}: holding {slow} slow connections, not 1,000");
    }
    let server = Server::start(&[]);
    let address = address(&server.base);
    let mut clients: Vec<SlowClient> = (0..slow)
        .map(|i| {
            let slowness = match i % 5 {
                0 | 1 => Slowness::Head,
                2 | 3 => Slowness::Body,
                _ => Slowness::Silent,
            };
            if i % 50 == 49 {
                // Paced, so the listen queue never overflows (an overflowed handshake is
                // retried a second later, which the close times would count).
                std::thread::sleep(Duration::from_millis(10));
            }
            SlowClient::open(&address, slowness)
        })
        .collect();
    let opened_all = Instant::now();

    // Normal requests, one after another on fresh connections, for as long as slow ones last.
    let normal_address = address.clone();
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let normal = std::thread::spawn(move || {
        let mut latencies = Vec::new();
        let mut statuses = Vec::new();
        while stopped.try_recv().is_err() && latencies.len() < 5_000 {
            let (status, took) = get_criteria(&normal_address);
            statuses.push(status);
            latencies.push(took);
            std::thread::sleep(Duration::from_millis(20));
        }
        (latencies, statuses)
    });

    let give_up = opened_all + HEADER_READ_TIMEOUT.max(BODY_READ_TIMEOUT) + SLACK * 2;
    let mut last_dribble = Instant::now();
    while Instant::now() < give_up && clients.iter().any(|c| c.closed.is_none()) {
        std::thread::sleep(Duration::from_millis(50));
        let now = Instant::now();
        for client in &mut clients {
            client.poll(now);
        }
        if now.duration_since(last_dribble) >= Duration::from_secs(1) {
            last_dribble = now;
            clients.iter_mut().for_each(SlowClient::dribble);
        }
    }
    stop.send(()).unwrap();
    let (mut latencies, statuses) = normal.join().unwrap();

    latencies.sort();
    let (p50, p99) = (percentile(&latencies, 0.50), percentile(&latencies, 0.99));
    let max = *latencies.last().unwrap();
    eprintln!(
        "{} normal GET /criteria beside {slow} slow connections: p50 {p50:?}, p99 {p99:?}, \
         max {max:?}",
        latencies.len()
    );
    assert!(latencies.len() >= 100, "{} normal requests", latencies.len());
    assert!(statuses.iter().all(|&s| s == 200), "every normal request answered 200");
    assert!(p99 <= Duration::from_millis(100), "p99 {p99:?}");

    for slowness in [Slowness::Head, Slowness::Body, Slowness::Silent] {
        let ours: Vec<&SlowClient> = clients.iter().filter(|c| c.slowness == slowness).collect();
        let lives: Vec<Duration> = ours
            .iter()
            .map(|c| c.closed.map_or(Duration::MAX, |at| at.duration_since(c.opened)))
            .collect();
        let (first, last) = (lives.iter().min().unwrap(), lives.iter().max().unwrap());
        let timeout = ours[0].timeout();
        let answered_408 = ours.iter().filter(|c| parse(&c.answer).0 == 408).count();
        eprintln!(
            "{} {slowness:?} connections closed after {first:?} to {last:?} (timeout \
             {timeout:?}); {answered_408} saw 408",
            ours.len()
        );
        assert!(*last <= timeout + SLACK, "{slowness:?}: last closed after {last:?}");
        assert!(*first + EARLY >= timeout, "{slowness:?}: first closed after {first:?}");
        for client in &ours {
            let (status, answer) = parse(&client.answer);
            match slowness {
                Slowness::Body => assert_eq!(
                    (status, answer["error"]["rule"].as_str()),
                    (408, Some("body_timeout")),
                    "{}",
                    String::from_utf8_lossy(&client.answer)
                ),
                _ => assert!(client.answer.is_empty(), "closed without an answer"),
            }
        }
    }
    // Once they are gone, the server is as it was.
    assert_eq!(get_criteria(&address).0, 200);
    server.stop();
}

#[test]
fn a_body_that_never_arrives_is_answered_408_within_the_body_timeout() {
    let server = Server::start(&[]);
    let address = address(&server.base);
    // The cap exactly: the largest declared length that is waited for.
    let request =
        format!("POST /check HTTP/1.1\r\nHost: {address}\r\nContent-Length: 262144\r\n\r\n{{}}");
    let (answer, took) = exchange(&address, request.as_bytes(), BODY_READ_TIMEOUT + SLACK * 2);
    let (status, body) = parse(&answer);
    eprintln!("Content-Length 262144 with 2 bytes sent: {status} after {took:?}");
    assert_eq!((status, body["error"]["rule"].as_str()), (408, Some("body_timeout")), "{body}");
    assert!(body["error"]["message"].is_string());
    assert!(took + EARLY >= BODY_READ_TIMEOUT && took <= BODY_READ_TIMEOUT + SLACK, "{took:?}");
    let text = String::from_utf8_lossy(&answer).to_ascii_lowercase();
    assert!(text.contains("connection: close"), "{text}");
    let log = server.stop();
    let line = log.lines().find(|l| l.contains("refused by serve")).expect("a log line");
    assert!(
        line.contains(r#""status":408"#) && line.contains(r#""rule":"body_timeout""#),
        "{line}"
    );
    assert!(!log.contains("262144"), "nothing the client sent is logged");
}

#[test]
fn only_a_body_over_the_cap_is_413_and_a_malformed_chunked_body_is_400() {
    let server = Server::start(&[]);
    let address = address(&server.base);
    let post = |head: &str, body: &[u8]| {
        let mut raw = format!("POST /check HTTP/1.1\r\nHost: {address}\r\n{head}\r\n").into_bytes();
        raw.extend_from_slice(body);
        let (answer, took) = exchange(&address, &raw, Duration::from_secs(10));
        let (status, body) = parse(&answer);
        (status, body["error"]["rule"].as_str().unwrap_or_default().to_owned(), took)
    };
    let over = vec![b'x'; 262_145];
    let at_cap = {
        let mut at_cap = br#"{"url": "ftp://a.example/"}"#.to_vec();
        at_cap.resize(262_144, b' ');
        at_cap
    };
    let length = |n: usize| format!("Content-Length: {n}\r\nConnection: close\r\n");
    let chunked = "Transfer-Encoding: chunked\r\nConnection: close\r\n";
    let cases: Vec<(&str, String, Vec<u8>, u16, &str)> = vec![
        ("over the cap, announced", length(over.len()), over.clone(), 413, "body_too_large"),
        // A slow client: the head alone, its declared body never sent.
        (
            "over the cap, announced, no body sent",
            length(over.len()),
            Vec::new(),
            413,
            "body_too_large",
        ),
        (
            "far over the cap, announced, 2 bytes sent",
            length(99_999_999_999),
            b"{}".to_vec(),
            413,
            "body_too_large",
        ),
        (
            "over the cap, chunked",
            chunked.to_owned(),
            [format!("{:x}\r\n", over.len()).as_bytes(), &over, b"\r\n0\r\n\r\n"].concat(),
            413,
            "body_too_large",
        ),
        ("at the cap", length(at_cap.len()), at_cap, 400, "scheme_not_http"),
        (
            "bad chunk size",
            chunked.to_owned(),
            b"zz\r\n{}\r\n0\r\n\r\n".to_vec(),
            400,
            "body_unreadable",
        ),
        (
            "chunk without its CRLF",
            chunked.to_owned(),
            b"2\r\n{}XX0\r\n\r\n".to_vec(),
            400,
            "body_unreadable",
        ),
    ];
    for (case, head, body, status, rule) in cases {
        let (got_status, got_rule, took) = post(&head, &body);
        assert_eq!((got_status, got_rule), (status, rule.to_owned()), "{case}");
        // Every answer comes as soon as the head (and any body sent) is in.
        assert!(took < Duration::from_secs(1), "{case}: answered after {took:?}");
    }
    let log = server.stop();
    let refused = log.lines().filter(|l| l.contains("refused by serve")).collect::<Vec<_>>();
    assert_eq!(refused.len(), 2, "one line per malformed body: {refused:?}");
    assert!(refused.iter().all(|l| l.contains(r#""rule":"body_unreadable""#)), "{refused:?}");
}

/// A `payability serve` whose open-files limit is `limit` (bash's `ulimit -n`), with its
/// address and its stderr lines (collected in the background).
struct LimitedServer {
    child: Child,
    address: String,
    log: std::sync::Arc<Mutex<Vec<String>>>,
    _dir: ScratchDir,
}

impl LimitedServer {
    fn start(limit: u64, name: &str) -> Self {
        let dir = ScratchDir::new(name);
        let mut child = Command::new("bash")
            .args(["-c", &format!("ulimit -n {limit} && exec \"$0\" serve --port 0")])
            .arg(env!("CARGO_BIN_EXE_payability"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("PAYABILITY_OPERATOR_WALLET", support::WALLET)
            .env("PAYABILITY_STORE", dir.join("store.sqlite3"))
            .env("XDG_DATA_HOME", dir.path())
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = std::sync::Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        let collected = log.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some(address) = line.strip_prefix("payability: serving on http://") {
                    let _ = tx.send(address.to_owned());
                }
                collected.lock().unwrap().push(line);
            }
        });
        let address = rx.recv_timeout(Duration::from_secs(20)).expect("the server started");
        Self { child, address, log, _dir: dir }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn open_descriptors(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid())).map_or(0, Iterator::count)
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Whether a stderr line containing `text` arrives within `wait`.
    fn saw(&self, text: &str, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            if self.log().iter().any(|l| l.contains(text)) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for LimitedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server's CPU time over one second, as a share of one core.
fn cpu_share_over_a_second(pid: u32) -> f64 {
    let (before, started) = (cpu_time(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_time(pid).saturating_sub(before);
    used.as_secs_f64() / started.elapsed().as_secs_f64()
}

/// Opens `count` connections sending part of a request head (held until the header timeout).
fn hold(address: &str, count: usize) -> Vec<SlowClient> {
    (0..count).map(|_| SlowClient::open(address, Slowness::Head)).collect()
}

#[test]
fn past_the_connection_cap_the_server_answers_busy_at_once_and_does_not_spin() {
    let _timed = timed();
    let limit = 256;
    let cap = usize::try_from(limit - FD_RESERVE.min(limit / 2)).unwrap();
    let server = LimitedServer::start(limit, "cap");
    let base = server.open_descriptors();
    let held = hold(&server.address, cap);
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.open_descriptors() < base + cap && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }

    let request =
        format!("GET /criteria HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.address);
    let mut busy_latencies = Vec::new();
    for _ in 0..20 {
        let (answer, took) = exchange(&server.address, request.as_bytes(), Duration::from_secs(5));
        let (status, body) = parse(&answer);
        assert_eq!((status, body["error"]["rule"].as_str()), (503, Some("server_busy")), "{body}");
        assert!(body["error"]["message"].is_string());
        busy_latencies.push(took);
    }
    // More connections arrive and stay open while the CPU time is sampled.
    let waiting: Vec<TcpStream> =
        (0..50).filter_map(|_| TcpStream::connect(&server.address).ok()).collect();
    let share = cpu_share_over_a_second(server.pid());
    busy_latencies.sort();
    eprintln!(
        "cap {cap}: 503 server_busy in at most {:?}; server CPU at the cap {:.1}% of a core",
        busy_latencies.last().unwrap(),
        share * 100.0
    );
    assert!(*busy_latencies.last().unwrap() <= Duration::from_millis(100));
    assert!(share < 0.25, "the server used {:.0}% of a core at the cap", share * 100.0);

    // Closing the held connections frees the cap at once.
    drop((held, waiting));
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut status = 0;
    while status != 200 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        status = get_criteria(&server.address).0;
    }
    assert_eq!(status, 200, "answered again once the held connections left");
    assert!(server.saw(&format!("at most {cap} connections"), Duration::from_secs(1)));
    // 70 refused connections within a few seconds: counted in at most one line a second.
    let busy_lines: Vec<String> =
        server.log().into_iter().filter(|l| l.contains("connections refused at the cap")).collect();
    assert!(!busy_lines.is_empty() && busy_lines.len() <= 8, "{busy_lines:?}");
    assert!(busy_lines.iter().all(|l| l.contains(r#""rule":"server_busy""#)), "{busy_lines:?}");
}

#[test]
fn out_of_descriptors_the_accept_loop_backs_off_instead_of_spinning() {
    let _timed = timed();
    // 40 descriptors: a cap of 20 connections and about 11 held by the process leave fewer
    // than the 32 busy answers need, so accept() fails with EMFILE.
    let server = LimitedServer::start(40, "emfile");
    let held = hold(&server.address, 20);
    let flood: Vec<TcpStream> =
        (0..80).filter_map(|_| TcpStream::connect(&server.address).ok()).collect();
    server.saw("accept failed", Duration::from_secs(5));
    let backed_off = server.log().iter().filter(|l| l.contains("accept failed")).count();
    let share = cpu_share_over_a_second(server.pid());
    eprintln!(
        "limit 40: {} descriptors open, {backed_off} back-off episode(s), server CPU {:.1}% of \
         a core",
        server.open_descriptors(),
        share * 100.0
    );
    assert!(share < 0.25, "the server used {:.0}% of a core out of descriptors", share * 100.0);
    assert!(backed_off >= 1, "accept ran out of descriptors: {:?}", server.log());

    drop((held, flood));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut status = 0;
    while status != 200 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        status = get_criteria(&server.address).0;
    }
    assert_eq!(status, 200, "answered again once descriptors were free");
}

#[test]
fn a_request_head_over_its_bound_is_refused_431() {
    let server = Server::start(&[]);
    let address = address(&server.base);
    // `MAX_HEAD_BYTES` in serve.rs is 128 KiB.
    let head = |filler: usize| {
        format!(
            "GET /criteria HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nX-Filler: {}\r\n\r\n",
            "a".repeat(filler)
        )
    };
    let (answer, _) = exchange(&address, head(100 * 1024).as_bytes(), Duration::from_secs(5));
    assert_eq!(parse(&answer).0, 200);
    let (answer, _) = exchange(&address, head(140 * 1024).as_bytes(), Duration::from_secs(5));
    assert_eq!(parse(&answer).0, 431);
    server.stop();
}
