//! The official tools on our 402s, when they are installed (`scripts/test` puts them in
//! `target/test-deps/discovery`, see `tests/e2e/discovery/README.md`): @x402/extensions'
//! bazaar (`validateDiscoveryExtensionSpec`, `validateDiscoveryExtension`,
//! `extractDiscoveryInfo`, `extractDiscoveryInfoV1`) and x402scan's validator
//! (`validatePaymentRequiredDetailed` of @agentcash/discovery), on both legs. Node or a module
//! missing fails the test, naming what is missing and how `scripts/test` installs it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::Method;
use serde_json::{Value, json};

use crate::paid_flow::world::World;

/// Reads `[{label, method, header, body}]` on stdin and prints one result per 402.
const SCRIPT: &str = r#"
const path = require("path");
const modules = process.argv[1];
const req = require("module").createRequire(path.join(modules, "__discovery_test__.cjs"));
const discovery = req("@agentcash/discovery");
const bazaar = req("@x402/extensions/bazaar");
const quiet = (fn) => { const w = console.warn; console.warn = () => {}; try { return fn(); } finally { console.warn = w; } };
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const out = [];
  for (const c of JSON.parse(input)) {
    const problems = [];
    const header = JSON.parse(Buffer.from(c.header, "base64").toString("utf8"));
    for (const [leg, payload] of [["v2 header", header], ["v1 body", c.body]]) {
      const v = discovery.validatePaymentRequiredDetailed(payload);
      for (const i of v.issues) {
        if (i.severity !== "error") continue;
        if (leg === "v1 body" && i.code === "X402_VERSION_V1_NOT_SUPPORTED") continue;
        problems.push(`${leg}: ${i.code} ${i.message}`);
      }
    }
    const ext = header.extensions && header.extensions.bazaar;
    const spec = bazaar.validateDiscoveryExtensionSpec(ext);
    if (!spec.valid) problems.push(`validateDiscoveryExtensionSpec: ${spec.errors}`);
    const schema = quiet(() => bazaar.validateDiscoveryExtension(ext));
    if (!schema.valid) problems.push(`validateDiscoveryExtension: ${schema.errors}`);
    const payload = { x402Version: 2, resource: header.resource, accepted: header.accepts[0], payload: {}, extensions: header.extensions };
    const found = quiet(() => bazaar.extractDiscoveryInfo(payload, header.accepts[0], true));
    if (!found) problems.push("extractDiscoveryInfo: null");
    else if (found.method !== c.method) problems.push(`extractDiscoveryInfo method ${found.method}`);
    const v1 = bazaar.extractDiscoveryInfoV1(c.body.accepts[0]);
    if (!v1) problems.push("extractDiscoveryInfoV1: null");
    else if (v1.input.method !== c.method || !v1.output) problems.push(`extractDiscoveryInfoV1: ${JSON.stringify(v1.input)}`);
    out.push({ label: c.label, problems });
  }
  process.stdout.write(JSON.stringify(out));
});
"#;

/// Where `scripts/test` installs the discovery modules (`PAYABILITY_TEST_DISCOVERY_MODULES`,
/// which it exports; else its default folder).
fn modules() -> PathBuf {
    match std::env::var_os("PAYABILITY_TEST_DISCOVERY_MODULES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/test-deps/discovery/node_modules"),
    }
}

/// The modules the script loads, each as the folder its `package.json` is in.
const MODULES: [&str; 2] = ["@agentcash/discovery", "@x402/extensions"];

/// Fails, naming what is missing and how to install it, unless Node runs and every module of
/// [`MODULES`] is installed under `modules`.
fn assert_installed(modules: &Path) {
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node (Node.js 20.18 or newer) is not on PATH: install it; scripts/test needs it for \
         these modules and the other npm test dependencies"
    );
    for module in MODULES {
        let manifest = modules.join(module).join("package.json");
        assert!(
            manifest.is_file(),
            "{module} is not installed at {}: scripts/test installs it (npm ci of \
             tests/e2e/discovery/package-lock.json into target/test-deps/discovery) and exports \
             PAYABILITY_TEST_DISCOVERY_MODULES; run the test through scripts/test",
            manifest.display()
        );
    }
}

#[tokio::test]
async fn the_official_tools_accept_every_402() {
    let modules = modules();
    assert_installed(&modules);
    let world = World::start().await;
    let mut cases = Vec::new();
    for route in ["/check", "/memo"] {
        for (method, url) in [
            (Method::GET, None),
            (Method::GET, Some("https://seller.example/api")),
            (Method::POST, None),
            (Method::POST, Some("https://seller.example/api")),
        ] {
            let answer = world.call(method.clone(), route, url).await;
            assert_eq!(answer.status, 402);
            let header = answer.header("payment-required").unwrap();
            assert!(STANDARD.decode(header).is_ok());
            cases.push(json!({
                "label": format!("{method} {route} {url:?}"),
                "method": method.as_str(),
                "header": header,
                "body": answer.body,
            }));
        }
    }
    let mut child = Command::new("node")
        .arg("-e")
        .arg(SCRIPT)
        .arg(&modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    child.stdin.take().unwrap().write_all(Value::Array(cases).to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let results: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(results.len(), 8);
    let failures: Vec<&Value> = results.iter().filter(|r| r["problems"] != json!([])).collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
