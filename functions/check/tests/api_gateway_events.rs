//! The `check` function binary as Lambda runs it: started against a loopback stand-in for
//! the Lambda Runtime API and handed API Gateway HTTP API events, on DynamoDB (the local
//! server `scripts/test` starts). Its unpaid 402 must name the API's own URL (domain and
//! stage from the request context, the stage prefix taken off the path) and grade POPULATED
//! there; a seed that is not the pinned key never starts, nor does a function configured with
//! the embedded store (it links DynamoDB's alone).
#![allow(
    unreachable_pub,
    reason = "a test binary: its modules share items with `pub`, and nothing outside it can reach them"
)]

use std::collections::VecDeque;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::grade::check::grade_check;
use payability_core::signing::ReportSigner;
use payability_runtime::store::dynamodb::{
    DynamoStore, TABLE_VARIABLES, TableNames, create_tables,
};
use payability_tests::endpoints::{dynamodb_endpoints, local_sdk_config};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Reply, StandIn, closed_port};
use serde_json::{Value, json};

const WALLET: &str = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const DOMAIN: &str = "abc123.execute-api.us-east-1.amazonaws.com";
const SEED: [u8; 32] = [0x42; 32];

/// An API Gateway HTTP API (payload 2.0) event.
fn event(method: &str, raw_path: &str, stage: &str) -> Value {
    json!({
        "version": "2.0",
        "routeKey": format!("{method} /check"),
        "rawPath": raw_path,
        "rawQueryString": "",
        "headers": {"host": DOMAIN},
        "requestContext": {
            "accountId": "123456789012", "apiId": "abc123", "domainName": DOMAIN,
            "domainPrefix": "abc123", "requestId": "r-1", "routeKey": format!("{method} /check"),
            "stage": stage, "time": "30/Nov/2026:00:00:00 +0000", "timeEpoch": 0,
            "http": {"method": method, "path": raw_path, "protocol": "HTTP/1.1",
                     "sourceIp": "192.0.2.1", "userAgent": "test"},
        },
        "isBase64Encoded": false,
    })
}

/// A loopback Runtime API: hands out the queued events on `/invocation/next` (then holds
/// the request open) and passes every posted answer (path, body) to the test.
struct RuntimeApi {
    stand_in: StandIn,
    answers: Receiver<(String, Value)>,
}

impl RuntimeApi {
    fn start(events: Vec<Value>) -> Self {
        let queue = Arc::new(Mutex::new(VecDeque::from(events)));
        let (sender, answers) = mpsc::channel();
        let stand_in = StandIn::start(Arc::new(move |request| {
            assert!(
                request.header("transfer-encoding").is_none(),
                "the stand-in reads sized bodies"
            );
            let path = request.path.clone();
            if path.ends_with("/invocation/next") {
                let event = queue.lock().unwrap().pop_front();
                return Box::pin(async move {
                    let Some(event) = event else {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        return Reply::Close;
                    };
                    Reply::status(200)
                        .header("lambda-runtime-aws-request-id", "r-1")
                        .header("lambda-runtime-deadline-ms", "9999999999999")
                        .header(
                            "lambda-runtime-invoked-function-arn",
                            "arn:aws:lambda:us-east-1:123456789012:function:check",
                        )
                        .header(
                            "lambda-runtime-trace-id",
                            "Root=1-00000000-000000000000000000000000",
                        )
                        .body(event.to_string())
                });
            }
            let body = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            sender.send((path, body)).unwrap();
            Box::pin(async { Reply::status(202) })
        }));
        Self { stand_in, answers }
    }

    /// `127.0.0.1:PORT`, as AWS_LAMBDA_RUNTIME_API names it.
    fn address(&self) -> String {
        self.stand_in.addr().to_string()
    }

    /// The next answer `function` posts; without one within 20 s, it is stopped and the test
    /// fails with what it printed.
    fn next_answer(&self, function: &mut Child) -> (String, Value) {
        let Ok(answer) = self.answers.recv_timeout(Duration::from_secs(20)) else {
            let _ = function.kill();
            let (mut stdout, mut stderr) = (String::new(), String::new());
            let _ = function.stdout.take().map(|mut out| out.read_to_string(&mut stdout));
            let _ = function.stderr.take().map(|mut err| err.read_to_string(&mut stderr));
            panic!("the function answered nothing in 20 s; stdout: {stdout}\nstderr: {stderr}");
        };
        answer
    }
}

/// `PAYABILITY_STORE=dynamodb` on fresh tables of the first local DynamoDB-API server, with
/// the variables that name them and the endpoint.
fn dynamodb_store() -> Vec<(String, String)> {
    let (_, endpoint) = dynamodb_endpoints().into_iter().next().expect("a local DynamoDB server");
    let suffix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let prefix = format!("check-fn-{}-{}-", std::process::id(), suffix.as_nanos());
    let tables = TableNames::with_prefix(&prefix);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime
        .block_on(async {
            let store = DynamoStore::new(&local_sdk_config(&endpoint), tables.clone());
            create_tables(store.client(), store.tables()).await
        })
        .expect("the tables are created");
    let names = tables.all().map(|(name, _)| name.to_owned());
    let mut env: Vec<(String, String)> =
        TABLE_VARIABLES.iter().map(|(variable, _)| variable.to_string()).zip(names).collect();
    env.push(("PAYABILITY_STORE".to_owned(), "dynamodb".to_owned()));
    env.push(("AWS_ENDPOINT_URL_DYNAMODB".to_owned(), endpoint));
    env
}

/// Starts the binary against `runtime` on `store` (its variables), pinned to
/// `pinned_seed`'s public key, with [`SEED`] in a key file in `scratch`: the test's own, as
/// the tests run side by side (a file they shared was read empty while one rewrote it).
fn start_check(
    runtime: &RuntimeApi,
    pinned_seed: [u8; 32],
    store: &[(String, String)],
    scratch: &ScratchDir,
) -> Child {
    let seed_file = scratch.join("seed");
    let hex: String = SEED.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(&seed_file, hex).unwrap();
    let pinned = ReportSigner::from_seed(&pinned_seed).descriptor().jwk.x.clone();
    Command::new(env!("CARGO_BIN_EXE_check"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", runtime.address())
        .env("AWS_LAMBDA_FUNCTION_NAME", "check")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "test")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_CONFIG_FILE", "/dev/null")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("PAYABILITY_OPERATOR_WALLET", WALLET)
        .envs(store.iter().map(|(name, value)| (name, value)))
        .env("PAYABILITY_SIGNING_KEY_FILE", &seed_file)
        .env("PAYABILITY_SIGNING_PUBLIC_KEY", pinned)
        .env("PAYABILITY_FACILITATOR_URL", format!("http://127.0.0.1:{}", closed_port()))
        .env("PAYABILITY_FEE_PAYER", WALLET)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The API Gateway answer as the challenge a stranger would capture.
fn captured(answer: &Value) -> FetchOutcome {
    let header =
        answer["headers"]["payment-required"].as_str().map(|h| CapturedHeader::of(h.as_bytes()));
    FetchOutcome::Captured(Capture {
        status: answer["statusCode"].as_u64().unwrap() as u16,
        payment_required: header,
        body: CapturedBody::Complete(
            answer["body"].as_str().unwrap_or_default().as_bytes().to_vec(),
        ),
    })
}

#[test]
fn the_unpaid_challenge_names_the_api_url_and_grades_populated() {
    // (method, raw path, stage) -> (status, the URL the challenge must name)
    let v1_url = format!("https://{DOMAIN}/v1/check");
    let default_url = format!("https://{DOMAIN}/check");
    let vectors = [
        (("GET", "/v1/check", "v1"), 402, Some(v1_url.as_str())),
        (("GET", "/check", "$default"), 402, Some(default_url.as_str())),
        (("POST", "/v1/metrics", "v1"), 404, None),
        (("DELETE", "/v1/check", "v1"), 405, None),
    ];
    let events = vectors.iter().map(|((m, p, s), _, _)| event(m, p, s)).collect();
    let runtime = RuntimeApi::start(events);
    let scratch = ScratchDir::new("check-fn");
    let mut child = start_check(&runtime, SEED, &dynamodb_store(), &scratch);
    for ((method, raw_path, stage), status, url) in vectors {
        let (path, answer) = runtime.next_answer(&mut child);
        assert!(path.ends_with("/invocation/r-1/response"), "{path}");
        assert_eq!(answer["statusCode"], status, "{method} {raw_path} {stage}: {answer}");
        let Some(url) = url else { continue };
        let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["accepts"][0]["resource"], url, "{raw_path} {stage}");
        let verdict = grade_check(url, &captured(&answer));
        assert_eq!(verdict.state.as_str(), "POPULATED", "{raw_path} {stage}: {verdict:?}");
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_seed_that_is_not_the_pinned_key_never_starts() {
    let runtime = RuntimeApi::start(vec![event("GET", "/v1/check", "v1")]);
    let scratch = ScratchDir::new("check-fn");
    let child = start_check(&runtime, [0x43; 32], &dynamodb_store(), &scratch);
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success());
    // The JSON log line (stdout, as Lambda collects it) names the problem in words.
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(log.contains("start-up failed"), "{log}");
    assert!(log.contains("PAYABILITY_SIGNING_PUBLIC_KEY is not the signing seed's"), "{log}");
    assert!(runtime.answers.try_recv().is_err(), "no invocation was answered");
}

#[test]
fn a_function_configured_with_the_embedded_store_never_starts() {
    let runtime = RuntimeApi::start(vec![event("GET", "/v1/check", "v1")]);
    let scratch = ScratchDir::new("check-fn");
    let store_file = scratch.join("store.sqlite3");
    let embedded = [("PAYABILITY_STORE".to_owned(), store_file.display().to_string())];
    let child = start_check(&runtime, SEED, &embedded, &scratch);
    let output = child.wait_with_output().unwrap();
    assert!(!output.status.success());
    // One closed-form log line naming the setting, no panic, and no store file.
    let (log, stderr) =
        (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(log.contains("start-up failed"), "{log}");
    assert!(log.contains("PAYABILITY_STORE"), "{log}");
    assert!(!stderr.contains("panicked") && !log.contains("panicked"), "{stderr}");
    assert!(!store_file.exists(), "no embedded store was opened");
    assert!(runtime.answers.try_recv().is_err(), "no invocation was answered");
}
