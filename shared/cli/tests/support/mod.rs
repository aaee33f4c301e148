//! Test support: a running `payability serve` and plain HTTP/1.1 requests to it; `world`: the
//! loopback x402 world of the end-to-end tests (fixtures, serve, a seller, bounded child runs).

pub mod world;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use payability_core::signing::PublicKeyDescriptor;
use payability_tests::scratch::ScratchDir;
use serde_json::Value;

/// The operator wallet every test server is paid to.
pub const WALLET: &str = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
/// The house token every test server accepts.
pub const HOUSE_TOKEN: &str = "house-token-for-tests";

/// A running `payability serve` with its stderr (the JSON log) collected on exit.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Reads the server's stderr after its address line, to its end (the server's exit),
    /// into `logged` as it comes.
    log_reader: Option<JoinHandle<()>>,
    /// What the server has logged so far.
    logged: Arc<Mutex<Vec<u8>>>,
    dir: ScratchDir,
}

impl Server {
    /// Starts a server on a free port with the test defaults plus `extra_env`.
    pub fn start(extra_env: &[(&str, &str)]) -> Self {
        let dir = ScratchDir::new("serve");
        let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
        command
            .args(["serve", "--port", "0"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("PAYABILITY_OPERATOR_WALLET", WALLET)
            .env("PAYABILITY_STORE", dir.join("store.sqlite3"))
            .env("XDG_DATA_HOME", dir.path())
            .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
            .env("PAYABILITY_HOUSE_TOKEN", HOUSE_TOKEN)
            .stderr(Stdio::piped());
        for (name, value) in extra_env {
            command.env(name, value);
        }
        let mut child = command.spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut base = None;
        for _ in 0..5 {
            let mut line = String::new();
            stderr.read_line(&mut line).unwrap();
            if let Some(address) = line.trim().strip_prefix("payability: serving on ") {
                base = Some(address.to_owned());
                break;
            }
        }
        let logged = Arc::new(Mutex::new(Vec::new()));
        let log_reader = std::thread::spawn({
            let logged = Arc::clone(&logged);
            move || {
                let mut line = Vec::new();
                while stderr.read_until(b'\n', &mut line).is_ok_and(|read| read > 0) {
                    logged.lock().unwrap().append(&mut line);
                }
            }
        });
        let base = base.expect("the server announced its address");
        Self { child, base, log_reader: Some(log_reader), logged, dir }
    }

    /// One HTTP/1.1 request; returns (status, headers lower-cased, body).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, Vec<(String, String)>, Vec<u8>) {
        let address = self.base.trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = head.lines();
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(": ").map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned())))
            .collect();
        (status, headers, raw[split + 4..].to_vec())
    }

    /// One request with a JSON body; returns (status, JSON answer or null).
    pub fn json(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> (u16, Value) {
        let (status, _, bytes) = self.request(method, path, headers, body.to_string().as_bytes());
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    /// The embedded store file of this server.
    pub fn store_path(&self) -> std::path::PathBuf {
        self.dir.join("store.sqlite3")
    }

    /// What the server has logged so far, while it runs.
    pub fn logged(&self) -> String {
        String::from_utf8_lossy(&self.logged.lock().unwrap()).into_owned()
    }

    /// Stops the server and returns everything it logged.
    pub fn stop(mut self) -> String {
        String::from_utf8_lossy(&self.kill()).into_owned()
    }
}

impl Server {
    /// Kills the server and returns what it logged (once; empty after).
    fn kill(&mut self) -> Vec<u8> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.log_reader.take() {
            let _ = reader.join();
        }
        std::mem::take(&mut *self.logged.lock().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The keys the server's criteria document publishes.
pub fn trusted(server: &Server) -> Vec<PublicKeyDescriptor> {
    let (_, criteria) = server.json("GET", "/criteria", &[], &Value::Null);
    let key = criteria["signing_keys"][0].clone();
    vec![serde_json::from_value(key).unwrap()]
}
