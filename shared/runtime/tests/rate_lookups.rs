//! The per-process CAD rate lookups against loopback stand-ins for the Bank of Canada Valet
//! API: one lookup in flight per date whatever the number of callers, callers that do not
//! start it never wait, a date without a rate is not looked up again for a while, and a rate
//! once found is kept.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use payability_runtime::fx::{
    BankOfCanadaValet, FxError, MAX_VALET_ANSWER_BYTES, RateLookups, RateSource,
};
use payability_runtime::store::sqlite::SqliteStore;
use payability_runtime::store::{RateCache, UtcDay};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::closed_port;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How the Valet stand-in answers.
#[derive(Clone, Copy)]
enum Valet {
    /// Accepts and never answers.
    Silent,
    /// Answers the date's rate.
    Publishes,
    /// Streams a body without end (16 MiB at most) and counts the bytes it got out.
    Endless,
    /// Announces a body one byte over the cap and sends nothing of it.
    AnnouncesOverCap,
}

/// The most an endless stand-in writes before giving up.
const ENDLESS_BYTES: usize = 16 << 20;

/// Starts a stand-in on 127.0.0.1 that counts its connections; it stops within 30 s.
async fn valet(behaviour: Valet) -> (String, Arc<AtomicUsize>) {
    valet_counting(behaviour, Arc::new(AtomicUsize::new(0))).await
}

/// As [`valet`], with the endless stand-in adding the bytes it wrote to `written`.
async fn valet_counting(behaviour: Valet, written: Arc<AtomicUsize>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = connections.clone();
    tokio::spawn(tokio::time::timeout(Duration::from_secs(30), async move {
        let mut held = Vec::new();
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            match behaviour {
                Valet::Silent => held.push(stream),
                Valet::Publishes => {
                    let mut request = [0u8; 4096];
                    let _ = stream.read(&mut request).await;
                    let body = r#"{"observations":[{"d":"2026-11-27","FXUSDCAD":{"v":"1.3971"}}]}"#;
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                }
                Valet::Endless => {
                    let mut request = [0u8; 4096];
                    let _ = stream.read(&mut request).await;
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n";
                    let _ = stream.write_all(head.as_bytes()).await;
                    let chunk = [b' '; 64 << 10];
                    while written.load(Ordering::SeqCst) < ENDLESS_BYTES {
                        if stream.write_all(&chunk).await.is_err() {
                            break;
                        }
                        written.fetch_add(chunk.len(), Ordering::SeqCst);
                    }
                }
                Valet::AnnouncesOverCap => {
                    let mut request = [0u8; 4096];
                    let _ = stream.read(&mut request).await;
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                        MAX_VALET_ANSWER_BYTES + 1
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                    held.push(stream);
                }
            }
        }
    }));
    (origin, connections)
}

/// An embedded store in a scratch directory (removed when the directory is dropped).
fn store() -> (SqliteStore, ScratchDir) {
    let dir = ScratchDir::new("rates");
    (SqliteStore::open(&dir.join("store.sqlite3")).unwrap(), dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_source_is_asked_once_and_holds_only_the_caller_that_asked() {
    let (origin, connections) = valet(Valet::Silent).await;
    let lookups = RateLookups::new(BankOfCanadaValet::new(&origin).unwrap());
    let (store, _dir) = store();
    let store = Arc::new(store);
    let day = UtcDay::parse("2026-11-27").unwrap();
    // The first caller starts the lookup and gives up after 50 ms, as a request does.
    let first = tokio::time::timeout(Duration::from_millis(50), lookups.rate(&day, &*store)).await;
    assert!(first.is_err(), "the silent source never answered");
    // Fifty more callers while it is in flight: none waits, none asks again.
    for _ in 0..50 {
        let started = Instant::now();
        assert_eq!(lookups.rate(&day, &*store).await, None);
        assert!(started.elapsed() < Duration::from_millis(40), "a caller waited");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1, "one lookup in flight per date");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_lookup_is_remembered_and_a_found_rate_is_kept_and_cached() {
    let closed = format!("http://127.0.0.1:{}", closed_port());
    let refused = RateLookups::new(BankOfCanadaValet::new(&closed).unwrap());
    let (store, _dir) = store();
    let day = UtcDay::parse("2026-11-27").unwrap();
    assert_eq!(refused.rate(&day, &store).await, None, "refused: pending");
    let started = Instant::now();
    for _ in 0..20 {
        assert_eq!(refused.rate(&day, &store).await, None);
    }
    assert!(started.elapsed() < Duration::from_millis(200), "the failure is remembered");

    let (origin, connections) = valet(Valet::Publishes).await;
    let found = RateLookups::new(BankOfCanadaValet::new(&origin).unwrap());
    let rate = found.rate(&day, &store).await.expect("the date's rate is published");
    assert_eq!(rate.usd_cad(), "1.3971");
    for _ in 0..20 {
        assert_eq!(found.rate(&day, &store).await.as_ref(), Some(&rate), "kept");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1, "asked once");
    assert_eq!(store.get(&day).await, Ok(Some(rate)), "and cached in the store");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_cap_is_malformed_and_is_not_read_to_its_end() {
    let day = UtcDay::parse("2026-11-27").unwrap();
    let written = Arc::new(AtomicUsize::new(0));
    let (origin, _) = valet_counting(Valet::Endless, written.clone()).await;
    let source = BankOfCanadaValet::new(&origin).unwrap();
    assert_eq!(source.published(&day, &day).await, Err(FxError::Malformed), "endless body");
    // The client stopped reading at the cap and closed: the stand-in could not write it all.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(written.load(Ordering::SeqCst) < ENDLESS_BYTES, "the read went on past the cap");

    let (origin, _) = valet(Valet::AnnouncesOverCap).await;
    let source = BankOfCanadaValet::new(&origin).unwrap();
    let started = Instant::now();
    assert_eq!(source.published(&day, &day).await, Err(FxError::Malformed), "announced");
    assert!(started.elapsed() < Duration::from_secs(1), "refused on the announced length");
}
