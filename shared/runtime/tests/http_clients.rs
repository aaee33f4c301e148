//! The HTTPS clients of a process share one read of the system certificate store (each read
//! is a few milliseconds of every cold start), and check certificates against it.
//!
//! The store test runs itself again as a child process whose whole store is one PEM file
//! (`SSL_CERT_FILE`, honoured on Linux): the self-signed certificate of a loopback HTTPS
//! server. The child fetches from that server, deletes the file, then starts a service (target
//! fetcher, facilitator, Solana RPC and Valet clients) and calls the server with an AWS SDK
//! client: a client that read the store again would find no root, and fail to build (reqwest)
//! or to connect (the SDK).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use payability_core::payment::solana::Base58Id;
use payability_core::policy::AddressRule;
use payability_runtime::api::Service;
use payability_runtime::api::config::ServiceConfig;
use payability_runtime::http_client;
use payability_runtime::settings::keys::KeyPublication;
use payability_runtime::store::UtcMillis;
use payability_runtime::store::choice::StoreChoice;
use payability_runtime::store::sqlite::SqliteStore;
use payability_tests::rerun::test_name;
use payability_tests::scratch::ScratchDir;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Set in the child: the one-file certificate store it may delete.
const CHILD_STORE: &str = "PAYABILITY_TEST_ONE_FILE_CERT_STORE";
const OPERATOR_WALLET: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";

/// A self-signed certificate for `localhost` (P-256, valid until 2126) and its key, made with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
/// -subj /CN=localhost -addext subjectAltName=DNS:localhost -addext
/// basicConstraints=critical,CA:FALSE` (not a CA: webpki refuses a CA as the server's own).
const LOCALHOST_CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBkTCCATigAwIBAgIUf7pIrj8cSGvFP6UIRfcX8+/ar/8wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwMTEzNDgwN1oYDzIxMjYxMTA3
MTM0ODA3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASxkP8KR8hYF7KTXKKXdeiM9VAPO33zbnfcbvWlBg3pNJ6zfyCI3RTO
ZySDaOHuhicsp4oLlC7gmpdAQnVORh/wo2YwZDAdBgNVHQ4EFgQUw5p39NC+iDDP
UcpdkorAPt1+luAwHwYDVR0jBBgwFoAUw5p39NC+iDDPUcpdkorAPt1+luAwFAYD
VR0RBA0wC4IJbG9jYWxob3N0MAwGA1UdEwEB/wQCMAAwCgYIKoZIzj0EAwIDRwAw
RAIgNBJxizPtXqG79j8anI248Qse44/1knTDqfcsENJoFaUCIEqzvItEYqLzmuxj
ponI/lAeL/mDf4NrBrI8REmd6Anx
-----END CERTIFICATE-----
";
const LOCALHOST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXogwd3msvydmW6y0
y90yuO/hXquVykEEAKrc4iXc6PWhRANCAASxkP8KR8hYF7KTXKKXdeiM9VAPO33z
bnfcbvWlBg3pNJ6zfyCI3RTOZySDaOHuhicsp4oLlC7gmpdAQnVORh/w
-----END PRIVATE KEY-----
";

#[test]
fn a_service_reads_the_certificate_store_once() {
    match std::env::var_os(CHILD_STORE) {
        Some(store) => fetch_then_start_a_service_without_the_store(Path::new(&store)),
        None => run_as_child(),
    }
}

/// The system store does not vouch for the self-signed server: both kinds of client refuse
/// the handshake.
#[tokio::test]
async fn a_server_the_store_does_not_vouch_for_is_refused() {
    let server = start_localhost_https().await;
    let client = http_client::builder().no_proxy().resolve("localhost", server).build().unwrap();
    let refused = client.get(format!("https://localhost:{}/", server.port())).send().await;
    let error = format!("{:?}", refused.expect_err("an unknown issuer"));
    assert!(error.contains("InvalidCertificate"), "refused for its certificate, not: {error}");
    let sdk_call = call_with_the_aws_sdk(server).await;
    assert!(matches!(sdk_call, SdkCall::NotConnected), "the SDK refuses it too: {sdk_call:?}");
}

fn run_as_child() {
    let dir = ScratchDir::new("http-clients");
    let store = dir.join("roots.pem");
    std::fs::write(&store, LOCALHOST_CERT).expect("the one-file store");
    let child = Command::new(std::env::current_exe().expect("this test binary"))
        .args(["--exact", &test_name(module_path!(), "a_service_reads_the_certificate_store_once")])
        .arg("--nocapture")
        .env(CHILD_STORE, &store)
        .env("SSL_CERT_FILE", &store)
        .env_remove("SSL_CERT_DIR")
        .output()
        .expect("the child test runs");
    drop(dir);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(child.status.success(), "the child failed:\n{said}");
    assert!(said.contains("1 passed"), "the child ran no test:\n{said}");
}

fn fetch_then_start_a_service_without_the_store(store: &Path) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let server = runtime.block_on(async {
        let server = start_localhost_https().await;
        let client = http_client::builder().no_proxy().resolve("localhost", server).build();
        let client = client.expect("the first client reads the one-file store");
        let answer = client.get(format!("https://localhost:{}/", server.port())).send().await;
        let status = answer.expect("the store vouches for the server").status();
        assert_eq!(status.as_u16(), 200);
        server
    });
    std::fs::remove_file(store).expect("the store file is deleted");
    let fresh_read = reqwest::Client::builder().no_proxy().build();
    assert!(fresh_read.is_err(), "a client that reads the store now finds no root");
    let sdk_call = runtime.block_on(call_with_the_aws_sdk(server));
    assert!(matches!(sdk_call, SdkCall::Answered), "the SDK trusts the first read: {sdk_call:?}");
    let db = store.with_file_name("store.sqlite3");
    let config = ServiceConfig {
        operator_wallet: Base58Id::pubkey(OPERATOR_WALLET).unwrap(),
        facilitator_url: Some("http://127.0.0.1:1".to_owned()),
        fee_payer: None,
        solana_rpc_url: Some("http://127.0.0.1:1".to_owned()),
        public_base_url: Some("http://127.0.0.1:1".to_owned()),
        house_token: None,
        store: StoreChoice::Embedded(PathBuf::from(&db)),
        address_rule: AddressRule::AllowPrivate,
        valet_origin: "http://127.0.0.1:1".to_owned(),
        keys: KeyPublication::default(),
    };
    let sqlite = SqliteStore::open(&db).expect("a fresh SQLite store");
    let service = Service::new(config, &[9; 32], sqlite, || UtcMillis(0));
    assert!(service.is_ok(), "every client of the service shares the first read");
}

/// How an AWS SDK call to the loopback server ended.
#[derive(Debug)]
enum SdkCall {
    /// No answer: the connection or its handshake failed.
    NotConnected,
    /// The server answered (its `ok` is no Secrets Manager answer: that failure is expected).
    Answered,
}

/// One Secrets Manager call, through the service's SDK loader, to the server as `localhost`.
async fn call_with_the_aws_sdk(server: SocketAddr) -> SdkCall {
    use aws_sdk_secretsmanager::config::{Credentials, Region};
    use aws_sdk_secretsmanager::error::SdkError;
    let sdk = http_client::aws_sdk_loader()
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .endpoint_url(format!("https://localhost:{}", server.port()))
        .retry_config(aws_config::retry::RetryConfig::disabled())
        .load()
        .await;
    let client = aws_sdk_secretsmanager::Client::new(&sdk);
    match client.get_secret_value().secret_id("any").send().await {
        Err(SdkError::DispatchFailure(_)) => SdkCall::NotConnected,
        _ => SdkCall::Answered,
    }
}

/// An HTTPS server on 127.0.0.1 with the `localhost` certificate, answering each connection
/// one `200 ok` in a task of the calling runtime.
async fn start_localhost_https() -> SocketAddr {
    let cert = CertificateDer::from_pem_slice(LOCALHOST_CERT.as_bytes()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(LOCALHOST_KEY.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let Ok(mut stream) = acceptor.accept(tcp).await else { continue };
            let mut head = [0u8; 1024];
            let _ = stream.read(&mut head).await;
            let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok";
            let _ = stream.write_all(answer).await;
            let _ = stream.shutdown().await;
        }
    });
    addr
}
