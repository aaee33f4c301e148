//! MCP's current revision, 2026-07-28, at `POST /mcp` end to end (issue "MCP's current
//! revision"), beside the handshake era mcp.rs buys in: `payability serve` and the official MCP
//! SDK 2.x (`mcp` 2.3.0's `Client` over Streamable HTTP) with x402's Solana client, in
//! tests/e2e/mcp2_buyer.py. The buyer connects with the version pinned (`2026-07-28`) and with
//! `auto` (the SDK probes `server/discover` and must find the stateless era), lists the tools,
//! calls the free `criteria` and `precheck` tools, calls a paid tool unpaid (the x402
//! `PaymentRequired` in an `isError` tool result), pays it on the stubbed Solana with the
//! payment in `_meta["x402/payment"]`, and gets the signed report in `structuredContent` and
//! the settlement in `result._meta["x402/payment-response"]`; the report verifies with our
//! code and with none of it (tests/e2e/verify_report.py), and each payment lands once. A client
//! that advertises x402's `org.x402/payment` extension (the SDK's `ClientExtension` with a
//! result claim) gets the `payment_required` result type instead, then pays; in the handshake
//! era the SDK does not advertise it and gets the tool result.
//!
//! Then what no SDK sends, over raw HTTP: every mirrored header missing, twice, malformed and
//! unequal to the body, the `=?base64?…?=` form of `Mcp-Name` (accepted), an 8 KB `Mcp-Name`,
//! a version list in `MCP-Protocol-Version` and in `_meta`, unspoken versions, `ping` and
//! `initialize` in the stateless era, a session id, `GET` and `DELETE`, notifications. Each
//! refusal is closed form (400 with -32020, -32022 or -32602; 404 with -32601), runs nothing
//! (the seller is never fetched, the facilitator never asked to verify or settle, no tool is
//! logged) and echoes nothing it received: a canary in the hostile value is in no answer and
//! in no log line. A valid payment under wrong headers is never verified nor settled; the same
//! payment under the right headers settles once.
//!
//! Needs `scripts/test` (it installs the mcp 2.x virtualenv and exports
//! PAYABILITY_TEST_MCP2_PYTHON beside the x402 fixtures).

use crate::support;

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::verify_signed;
use serde_json::{Value, json};
use support::world::{World, third_party_verify};
use support::{Server, WALLET, trusted};

/// The revision under test.
const VERSION: &str = "2026-07-28";
/// The `_meta` keys of a stateless request.
const VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// Every revision the server speaks, newest first.
const SUPPORTED: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The network every payment is made on.
const SOLANA: &str = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
/// Put into every hostile value: it must reach no answer and no log line.
const CANARY: &str = "CANARY9m4t";

/// The `_meta` of a 2026-07-28 request naming `version`; the client's capabilities advertise
/// x402's extension when `x402`.
fn meta(version: Value, x402: bool) -> Value {
    let capabilities =
        if x402 { json!({"extensions": {"org.x402/payment": {}}}) } else { json!({}) };
    json!({VERSION_META: version, CAPABILITIES_META: capabilities})
}

/// A JSON-RPC request of `method` with `params`.
fn request(method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string().into_bytes()
}

/// A stateless `tools/call` of `tool` about `url`, with `payment` in `_meta` when given.
fn call(tool: &str, url: &str, payment: Option<&Value>) -> Vec<u8> {
    let mut meta = meta(json!(VERSION), false);
    if let Some(payment) = payment {
        meta["x402/payment"] = payment.clone();
    }
    request("tools/call", json!({"name": tool, "arguments": {"url": url}, "_meta": meta}))
}

/// The headers a 2026-07-28 client sends with `method` (and `Mcp-Name` for a tool), and
/// Content-Type.
fn mirrored(method: &str, name: Option<&str>) -> Vec<(String, String)> {
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("MCP-Protocol-Version".to_owned(), VERSION.to_owned()),
        ("Mcp-Method".to_owned(), method.to_owned()),
    ];
    headers.extend(name.map(|name| ("Mcp-Name".to_owned(), name.to_owned())));
    headers
}

/// A change to the mirrored headers of a `tools/call` of `check`.
#[derive(Clone)]
enum Edit {
    /// The header is not sent.
    Drop(&'static str),
    /// The header is sent with this value instead.
    Set(&'static str, String),
    /// The header is sent once more, with this value.
    Add(&'static str, String),
}

/// `headers` with `edits` applied (names compared without case).
fn edited(mut headers: Vec<(String, String)>, edits: &[Edit]) -> Vec<(String, String)> {
    for edit in edits {
        match edit {
            Edit::Drop(name) => headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name)),
            Edit::Set(name, value) => {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                headers.push(((*name).to_owned(), value.clone()));
            }
            Edit::Add(name, value) => headers.push(((*name).to_owned(), value.clone())),
        }
    }
    headers
}

/// An answer of `/mcp`: status, headers (names lower-cased), the body as text and as JSON.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    text: String,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// One `method` request to `/mcp` with `headers` and `body`.
fn send(server: &Server, method: &str, headers: &[(String, String)], body: &[u8]) -> Answer {
    let headers: Vec<(&str, &str)> =
        headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let (status, headers, bytes) = server.request(method, "/mcp", &headers, body);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer { status, headers, text, body }
}

/// Waits (at most 10 s) until the server has logged `count` requests; returns its log.
fn log_of(server: &Server, count: usize) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = server.logged();
        let logged = log.lines().filter(|l| l.contains(r#""message":"request""#)).count();
        if logged >= count || Instant::now() >= deadline {
            return log;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What the facilitator fixture was asked to verify and to settle, and what landed.
fn payments_touched(world: &World) -> (Value, Value, usize) {
    let calls = world.fixture_calls();
    (calls["verify"].clone(), calls["settle"].clone(), world.landed().len())
}

/// Checks what every buyer run in the stateless era shows: no error, the version, the SDK's
/// requests each with its mirrored headers (and no session, stream or notification), the
/// tools with their public cache hints. `x402` is whether the extension was advertised.
fn spoke_the_current_revision(run: &Value, x402: bool) {
    assert_eq!(run["error"], Value::Null, "the SDK ran: {run}");
    assert_eq!(run["protocol_version"], VERSION, "{run}");
    let names: Vec<&str> =
        run["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(names, ["criteria", "precheck", "check", "memo"], "{run}");
    let public = json!({"result_type": "complete", "cache_scope": "public", "ttl_ms": 300_000});
    assert_eq!(run["tools_list"], public, "{run}");
    let wire = run["wire"].as_array().unwrap();
    assert!(!wire.is_empty(), "{run}");
    for exchange in wire {
        let method = exchange["method"].as_str().unwrap_or_default();
        assert!(
            ["server/discover", "tools/list", "tools/call"].contains(&method),
            "only stateless requests: {exchange}"
        );
        assert_eq!(exchange["status"], 200, "{exchange}");
        assert_eq!(exchange["mcp_protocol_version"], VERSION, "{exchange}");
        assert_eq!(exchange["mcp_method"], method, "{exchange}");
        if method == "tools/call" {
            assert!(exchange["mcp_name"].is_string(), "{exchange}");
            let advertised = if x402 { json!(["org.x402/payment"]) } else { Value::Null };
            assert_eq!(exchange["extensions"], advertised, "{exchange}");
        }
    }
}

/// The one paid call of a buyer run of `tool`, checked: the unpaid call's challenge (a tool
/// result, or the extension's `payment_required` when `x402`), then paid and settled; returns
/// the paid entry.
fn paid<'a>(run: &'a Value, tool: &str, base: &str, x402: bool) -> &'a Value {
    let paid = &run["paid"][0];
    assert_eq!(paid["tool"], tool, "{run}");
    let unpaid = &paid["unpaid"];
    let (result_type, claimed) =
        if x402 { ("payment_required", true) } else { ("complete", false) };
    assert_eq!(unpaid["result_type"], result_type, "{run}");
    assert_eq!(unpaid["claimed"], claimed, "{run}");
    assert_eq!((&unpaid["cache_scope"], &unpaid["ttl_ms"]), (&json!("private"), &json!(0)));
    assert_eq!(unpaid["is_error"], true, "{run}");
    let challenge = &unpaid["payment_required"];
    assert_eq!(challenge["x402Version"], 2, "{run}");
    assert_eq!(challenge["resource"]["url"], format!("{base}/mcp"), "{run}");
    assert_eq!(challenge["accepts"][0]["network"], SOLANA, "{run}");
    assert_eq!(challenge["accepts"][0]["payTo"], WALLET, "{run}");
    let offered = challenge["extensions"]["bazaar"]["info"]["input"]["tool"].clone();
    assert_eq!(offered, tool, "the bazaar extension names the tool: {run}");
    if x402 {
        let claim = &run["claimed"][0];
        assert_eq!(claim["resultType"], "payment_required", "{run}");
        assert_eq!(&claim["paymentRequired"], challenge, "the claim got the challenge: {run}");
        assert_eq!((&claim["cacheScope"], &claim["ttlMs"]), (&json!("private"), &json!(0)));
    } else {
        assert_eq!(run["claimed"], json!([]), "{run}");
    }
    assert_eq!(paid["is_error"], false, "{run}");
    assert_eq!(paid["result_type"], "complete", "{run}");
    assert_eq!((&paid["cache_scope"], &paid["ttl_ms"]), (&json!("private"), &json!(0)));
    assert_eq!(paid["payment_response"]["success"], true, "{run}");
    assert_eq!(paid["payment_response"]["network"], SOLANA, "{run}");
    assert_eq!(paid["payment_response"]["payer"], run["payer"], "{run}");
    assert_eq!(paid["structured"]["op"], tool, "{run}");
    paid
}

/// The buyer in each mode that must end in the stateless era, each in a world of its own
/// (its free pre-check is the source's first): free reads, the check and the memo paid, the
/// reports verified by none of our code, one settlement per payment.
#[test]
fn the_official_mcp_sdk_buys_both_tools_in_the_current_revision() {
    // (mode, how the SDK settled on the version: pinned and adopted, or found by discover)
    let modes = [("2026-07-28", "adopted"), ("auto", "discover")];
    for (mode, negotiated_by) in modes {
        let world = World::start();
        let base = world.server.base.clone();
        let keys = trusted(&world.server);
        let check = world.buy_mcp2(&["--mode", mode, "--tool", "check"]);
        eprintln!("mcp2 --mode {mode} --tool check: {check}");
        spoke_the_current_revision(&check, false);
        assert_eq!(check["negotiated_by"], negotiated_by, "{check}");
        if mode == "auto" {
            assert_eq!(check["wire"][0]["method"], "server/discover", "auto probes: {check}");
            assert_eq!(check["server_info"]["name"], "payability-verdict", "{check}");
            let extensions = &check["server_capabilities"]["extensions"];
            assert_eq!(extensions, &json!({"org.x402/payment": {}}), "{check}");
        }
        let (status, discovered) = discover(&world.server);
        assert_eq!(status, 200, "{discovered}");
        assert_eq!(check["discover"], discovered["result"], "the SDK's discover: {check}");
        let (_, criteria) = world.server.json("GET", "/criteria", &[], &Value::Null);
        assert_eq!(check["criteria"], criteria, "the criteria tool is GET /criteria: {check}");
        let public = json!({"result_type": "complete", "cache_scope": "public", "ttl_ms": 300_000});
        assert_eq!(check["criteria_envelope"], public, "{check}");
        let precheck = &check["precheck"];
        assert_eq!(precheck["is_error"], false, "{check}");
        assert_eq!(precheck["structured"]["in_policy"], true, "{check}");
        assert!(verify_signed(&precheck["structured"], &keys).is_ok(), "{check}");
        let private = json!({"result_type": "complete", "cache_scope": "private", "ttl_ms": 0});
        assert_eq!(precheck["envelope"], private, "{check}");

        let bought = paid(&check, "check", &base, false);
        let report = &bought["structured"];
        assert_eq!(report["state"], "POPULATED", "{check}");
        assert!(verify_signed(report, &keys).is_ok(), "{check}");
        assert_eq!(third_party_verify(report, &world.server), (true, keys[0].key_id.clone()));
        let settled = bought["payment_response"]["transaction"].clone();
        assert_eq!(world.landed(), vec![settled.clone()], "the payment landed once: {check}");
        assert_eq!(world.target.hits(), 1, "one fetch for the check");

        let memo =
            world.buy_mcp2(&["--mode", mode, "--tool", "memo", "--no-criteria", "--no-precheck"]);
        spoke_the_current_revision(&memo, false);
        let bought = paid(&memo, "memo", &base, false);
        let report = &bought["structured"];
        assert_eq!(report["state"], "MEMO-REUSED", "the seller serves a static memo: {memo}");
        assert!(verify_signed(report, &keys).is_ok(), "{memo}");
        assert_eq!(third_party_verify(report, &world.server), (true, keys[0].key_id.clone()));
        let both = vec![settled, bought["payment_response"]["transaction"].clone()];
        assert_eq!(world.landed(), both, "each payment landed once");
        assert_eq!(world.target.hits(), 3, "two fetches for the memo");
        let calls = world.fixture_calls();
        assert_eq!((&calls["settle"], &calls["settled"]), (&json!(2), &json!(2)), "{calls}");
    }
}

/// A client of x402's extension binding: in the stateless era (pinned and auto) its unpaid
/// call is the `payment_required` result its claim takes, then it pays; in the handshake era
/// the SDK does not advertise the extension (no claim is active there) and the challenge is
/// the tool result.
#[test]
fn a_client_of_the_x402_extension_gets_payment_required_then_pays() {
    let world = World::start();
    let base = world.server.base.clone();
    let keys = trusted(&world.server);
    // (mode, tool, whether the extension binding answers)
    let rows = [("2026-07-28", "check", true), ("auto", "memo", true), ("legacy", "check", false)];
    let mut landed = Vec::new();
    for (mode, tool, binding) in rows {
        let args =
            ["--mode", mode, "--tool", tool, "--extension", "--no-criteria", "--no-precheck"];
        let run = world.buy_mcp2(&args);
        eprintln!("mcp2 --mode {mode} --tool {tool} --extension: {run}");
        assert_eq!(run["error"], Value::Null, "{run}");
        if binding {
            spoke_the_current_revision(&run, true);
            let calls =
                run["wire"].as_array().unwrap().iter().filter(|e| e["method"] == "tools/call");
            let types: Vec<&Value> = calls.map(|e| &e["result_type"]).collect();
            assert_eq!(types, [&json!("payment_required"), &json!("complete")], "{run}");
            paid(&run, tool, &base, true);
        } else {
            assert_eq!(run["protocol_version"], "2025-11-25", "{run}");
            assert_eq!(run["claimed"], json!([]), "{run}");
            let unpaid = &run["paid"][0]["unpaid"];
            assert_eq!((&unpaid["result_type"], &unpaid["is_error"]), (&Value::Null, &json!(true)));
            assert_eq!(unpaid["payment_required"]["x402Version"], 2, "{run}");
            assert!(run["wire"].as_array().unwrap().iter().all(|e| e["extensions"].is_null()));
            assert_eq!(run["paid"][0]["payment_response"]["success"], true, "{run}");
        }
        let report = &run["paid"][0]["structured"];
        assert_eq!(report["op"], tool, "{run}");
        assert!(verify_signed(report, &keys).is_ok(), "{run}");
        assert_eq!(third_party_verify(report, &world.server), (true, keys[0].key_id.clone()));
        landed.push(run["paid"][0]["payment_response"]["transaction"].clone());
        assert_eq!(world.landed(), landed, "each payment landed once: {run}");
    }
    assert_eq!(world.target.hits(), 4, "check, memo (two fetches), check");
}

/// `server/discover` with the headers a 2026-07-28 client sends; returns the status and the
/// JSON-RPC answer.
fn discover(server: &Server) -> (u16, Value) {
    let body = request("server/discover", json!({"_meta": meta(json!(VERSION), false)}));
    let answer = send(server, "POST", &mirrored("server/discover", None), &body);
    (answer.status, answer.body)
}

/// What the server says it speaks and offers, public for five minutes.
#[test]
fn server_discover_names_every_revision_the_x402_extension_and_who_we_are() {
    let server = Server::start(&[]);
    let (status, answer) = discover(&server);
    eprintln!("server/discover: {answer}");
    assert_eq!((status, &answer["jsonrpc"], &answer["id"]), (200, &json!("2.0"), &json!(7)));
    let result = &answer["result"];
    assert_eq!(result["supportedVersions"], json!(SUPPORTED), "{result}");
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": false}), "{result}");
    let extensions = &result["capabilities"]["extensions"];
    assert_eq!(extensions, &json!({"org.x402/payment": {}}), "{result}");
    let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(info["name"], "payability-verdict", "{result}");
    assert!(info["version"].as_str().is_some_and(|v| !v.is_empty()), "{result}");
    let cache = (&result["resultType"], &result["cacheScope"], &result["ttlMs"]);
    assert_eq!(cache, (&json!("complete"), &json!("public"), &json!(300_000)), "{result}");
    let instructions = result["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("payment_required"), "{result}");
    let mut keys: Vec<&str> = result.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    let expected = [
        "_meta",
        "cacheScope",
        "capabilities",
        "instructions",
        "resultType",
        "supportedVersions",
        "ttlMs",
    ];
    assert_eq!(keys, expected, "nothing else: {result}");
}

/// One hostile request: what it is, the change to a `check` call's mirrored headers, the
/// body (None: that call, unpaid), and the status and JSON-RPC error code it gets.
type Hostile = (&'static str, Vec<Edit>, Option<Vec<u8>>, u16, i64);

/// The hostile requests refused before anything runs.
fn hostile(url: &str) -> Vec<Hostile> {
    use Edit::{Add, Drop, Set};
    let v = "MCP-Protocol-Version";
    let (m, n) = ("Mcp-Method", "Mcp-Name");
    let canary = CANARY.to_owned();
    let list = "2026-07-28, 2025-11-25".to_owned();
    let eight_kb = format!("{CANARY}{}", "c".repeat(8 * 1024));
    let sentinel = |name: &str| format!("=?base64?{}?=", STANDARD.encode(name));
    let listed_meta = meta(json!(["2026-07-28", "2025-11-25"]), false);
    let with_meta = |method: &str, meta: Value| {
        let mut params = json!({"name": "check", "arguments": {"url": url}, "_meta": meta});
        if method != "tools/call" {
            params = json!({"_meta": params["_meta"].take()});
        }
        Some(request(method, params))
    };
    let unspoken = with_meta("tools/call", meta(json!(CANARY), false));
    let dated = with_meta("tools/call", meta(json!("1900-01-01"), false));
    let incomplete = with_meta("tools/call", json!({VERSION_META: VERSION}));
    let not_an_object = with_meta("tools/call", json!(CANARY));
    let not_ours = request(
        "tools/call",
        json!({"name": CANARY, "arguments": {}, "_meta": meta(json!(VERSION), false)}),
    );
    let tool_less = |method: &str| vec![Set(m, method.to_owned()), Drop(n)];
    vec![
        ("no MCP-Protocol-Version", vec![Drop(v)], None, 400, -32020),
        ("a handshake revision's header", vec![Set(v, "2025-11-25".into())], None, 400, -32020),
        ("a canary for a version", vec![Set(v, canary.clone())], None, 400, -32020),
        ("MCP-Protocol-Version twice", vec![Add(v, VERSION.into())], None, 400, -32020),
        ("a version list in the header", vec![Set(v, list.clone())], None, 400, -32020),
        (
            "a version list in _meta",
            vec![],
            with_meta("tools/call", listed_meta.clone()),
            400,
            -32602,
        ),
        (
            "a version list in both",
            vec![Set(v, list)],
            with_meta("tools/call", listed_meta),
            400,
            -32602,
        ),
        ("no Mcp-Method", vec![Drop(m)], None, 400, -32020),
        ("another method", vec![Set(m, "tools/list".into())], None, 400, -32020),
        ("the method in capitals", vec![Set(m, "TOOLS/CALL".into())], None, 400, -32020),
        ("a canary for a method", vec![Set(m, canary.clone())], None, 400, -32020),
        ("Mcp-Method twice", vec![Add(m, "tools/call".into())], None, 400, -32020),
        ("no Mcp-Name", vec![Drop(n)], None, 400, -32020),
        ("the other paid tool's name", vec![Set(n, "memo".into())], None, 400, -32020),
        ("a canary for a name", vec![Set(n, canary.clone())], None, 400, -32020),
        ("an 8 KB name", vec![Set(n, eight_kb)], None, 400, -32020),
        ("Mcp-Name twice", vec![Add(n, "check".into())], None, 400, -32020),
        ("the sentinel of another tool", vec![Set(n, sentinel("memo"))], None, 400, -32020),
        ("the sentinel of a canary", vec![Set(n, sentinel(CANARY))], None, 400, -32020),
        (
            "a sentinel without padding",
            vec![Set(n, "=?base64?Y2hlY2s?=".into())],
            None,
            400,
            -32020,
        ),
        (
            "a sentinel of bytes not UTF-8",
            vec![Set(n, "=?base64?/w==?=".into())],
            None,
            400,
            -32020,
        ),
        ("an unspoken version named in both", vec![Set(v, canary.clone())], unspoken, 400, -32022),
        ("a dated unspoken version", vec![Set(v, "1900-01-01".into())], dated, 400, -32022),
        ("_meta without the capabilities", vec![], incomplete.clone(), 400, -32602),
        (
            "_meta without the capabilities, no header",
            vec![Drop(v)],
            incomplete.clone(),
            400,
            -32602,
        ),
        (
            "_meta without the capabilities, a handshake header",
            vec![Set(v, "2025-11-25".into())],
            incomplete,
            400,
            -32602,
        ),
        ("_meta not an object", vec![], not_an_object, 400, -32602),
        ("a tool that is not ours", vec![Set(n, canary.clone())], Some(not_ours), 400, -32602),
        (
            "ping in the stateless era",
            tool_less("ping"),
            with_meta("ping", meta(json!(VERSION), false)),
            404,
            -32601,
        ),
        (
            "initialize in the stateless era",
            tool_less("initialize"),
            with_meta("initialize", meta(json!(VERSION), false)),
            404,
            -32601,
        ),
        (
            "a method named by a canary",
            tool_less(CANARY),
            with_meta(CANARY, meta(json!(VERSION), false)),
            404,
            -32601,
        ),
        (
            "server/discover without _meta",
            tool_less("server/discover"),
            Some(request("server/discover", json!({}))),
            400,
            -32602,
        ),
        (
            "a body that is not JSON",
            vec![],
            Some(format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{CANARY}""#).into_bytes()),
            400,
            -32700,
        ),
    ]
}

/// Every hostile request in the stateless era is refused closed form with nothing run and
/// nothing it sent echoed; what is well formed (the sentinel form, a session id the server
/// ignores, notifications) is served; `GET` and `DELETE` are 405.
#[test]
fn hostile_stateless_requests_are_refused_closed_form_and_run_nothing() {
    let world = World::start();
    let server = &world.server;
    let url = world.target.url.clone();
    let check = mirrored("tools/call", Some("check"));
    let mut sent = 0;
    for (what, edits, body, status, code) in hostile(&url) {
        let body = body.unwrap_or_else(|| call("check", &url, None));
        let answer = send(server, "POST", &edited(check.clone(), &edits), &body);
        sent += 1;
        assert_eq!(answer.status, status, "{what}: {}", answer.text);
        assert_eq!(answer.body["jsonrpc"], "2.0", "{what}: {}", answer.text);
        assert_eq!(answer.body["error"]["code"], code, "{what}: {}", answer.text);
        assert_eq!(answer.body.get("result"), None, "{what}: {}", answer.text);
        let message = answer.body["error"]["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "{what}: {}", answer.text);
        assert!(!answer.text.contains(CANARY), "{what} echoed: {}", answer.text);
        assert_eq!(answer.header("mcp-session-id"), None, "{what}");
        if code == -32022 {
            let data = &answer.body["error"]["data"];
            assert_eq!(data["supported"], json!(SUPPORTED), "{what}: {data}");
            let requested = if what.contains("dated") { "1900-01-01" } else { "" };
            assert_eq!(data["requested"], requested, "{what}: only a version's shape is named");
        }
    }
    assert_eq!(world.target.hits(), 0, "no refused request fetched the seller");
    assert_eq!(payments_touched(&world), (json!(0), json!(0), 0), "nothing verified or settled");

    // GET and DELETE (a session's stream and its end: there is no session) are 405.
    let session = [("Mcp-Session-Id".to_owned(), CANARY.to_owned())];
    for method in ["GET", "DELETE"] {
        let headers = [mirrored("tools/list", None), session.to_vec()].concat();
        let answer = send(server, method, &headers, b"");
        sent += 1;
        assert_eq!(answer.status, 405, "{method}: {}", answer.text);
        assert_eq!(answer.header("allow"), Some("POST, OPTIONS"), "{method}");
        assert_eq!(answer.body["error"]["rule"], "method_not_allowed", "{method}");
        assert!(!answer.text.contains(CANARY), "{method} echoed: {}", answer.text);
    }
    // Notifications get 202 and no body, whatever they name.
    for method in ["notifications/cancelled", CANARY] {
        let params = json!({"_meta": meta(json!(VERSION), false)});
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let answer = send(server, "POST", &mirrored(method, None), body.to_string().as_bytes());
        sent += 1;
        assert_eq!((answer.status, answer.text.as_str()), (202, ""), "{method}");
    }
    // A session id is neither read nor minted: the request is served, the id not echoed.
    let headers = [mirrored("tools/list", None), session.to_vec()].concat();
    let body = request("tools/list", json!({"_meta": meta(json!(VERSION), false)}));
    let listed = send(server, "POST", &headers, &body);
    sent += 1;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(listed.body["result"]["tools"].as_array().map(Vec::len), Some(4));
    assert_eq!(listed.body["result"]["resultType"], "complete");
    assert_eq!(listed.header("mcp-session-id"), None);
    assert!(!listed.text.contains(CANARY), "the session id echoed: {}", listed.text);

    // The sentinel form of Mcp-Name is the name: the unpaid call is answered with the
    // challenge, as a tool result, or as payment_required to a client of the extension.
    let sentinel = edited(check.clone(), &[Edit::Set("Mcp-Name", "=?base64?Y2hlY2s=?=".into())]);
    for (x402, result_type) in [(false, "complete"), (true, "payment_required")] {
        let meta = meta(json!(VERSION), x402);
        let params = json!({"name": "check", "arguments": {"url": url}, "_meta": meta});
        let answer = send(server, "POST", &sentinel, &request("tools/call", params));
        sent += 1;
        assert_eq!(answer.status, 200, "{}", answer.text);
        let result = &answer.body["result"];
        assert_eq!(result["resultType"], result_type, "{result}");
        let challenge =
            if x402 { &result["paymentRequired"] } else { &result["structuredContent"] };
        assert_eq!(challenge["x402Version"], 2, "{result}");
        assert_eq!(result.get("isError").is_some(), !x402, "{result}");
    }
    assert_eq!(world.target.hits(), 0, "an unpaid call fetches nothing");
    assert_eq!(payments_touched(&world), (json!(0), json!(0), 0), "nothing verified or settled");

    // Every request logged its line; no line carries the canary, and only the two calls
    // served name a tool.
    let log = log_of(server, sent);
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(r#""message":"request""#)).collect();
    assert_eq!(lines.len(), sent, "one line per request:\n{log}");
    assert!(!log.contains(CANARY), "a received value was logged:\n{log}");
    let tools: Vec<&&str> = lines.iter().filter(|l| l.contains("tool_route")).collect();
    assert_eq!(tools.len(), 2, "only the served calls ran a tool:\n{log}");
    assert!(tools.iter().all(|l| l.contains(r#""tool_route":"check""#)), "{log}");
}

/// A payment the SDK signed, sent with headers that do not mirror the body (or an era the
/// server does not speak), is refused before it is read: never verified, never settled, the
/// seller never fetched. The same payment with the right headers then buys the report once.
#[test]
fn a_valid_payment_under_wrong_headers_is_never_verified_nor_settled() {
    use Edit::{Drop, Set};
    let world = World::start();
    let url = world.target.url.clone();
    let saved = world.scratch_file("payment.json");
    let run = world.buy_mcp2(&[
        "--mode",
        VERSION,
        "--tool",
        "check",
        "--no-criteria",
        "--no-precheck",
        "--save-payment",
        &saved,
    ]);
    assert_eq!(run["error"], Value::Null, "{run}");
    assert_eq!(run["paid"][0]["saved"], saved.as_str(), "{run}");
    let payment: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(payment["x402Version"], 2, "{payment}");
    let body = call("check", &url, Some(&payment));
    let check = mirrored("tools/call", Some("check"));
    let mut listed = serde_json::from_slice::<Value>(&body).unwrap();
    listed["params"]["_meta"][VERSION_META] = json!(["2026-07-28", "2025-11-25"]);
    let mut handshake = listed.clone();
    handshake["params"]["_meta"] = json!({"x402/payment": payment});
    let mut unspoken = listed.clone();
    unspoken["params"]["_meta"][VERSION_META] = json!("2027-01-01");
    let [listed, handshake, unspoken] =
        [listed, handshake, unspoken].map(|body| Some(body.to_string().into_bytes()));
    // (what, header edits, the body when not the paid call, status, code)
    let wrong: Vec<Hostile> = vec![
        ("no MCP-Protocol-Version", vec![Drop("MCP-Protocol-Version")], None, 400, -32020),
        (
            "a handshake header",
            vec![Set("MCP-Protocol-Version", "2025-11-25".into())],
            None,
            400,
            -32020,
        ),
        (
            "a version list",
            vec![Set("MCP-Protocol-Version", "2026-07-28, 2025-11-25".into())],
            None,
            400,
            -32020,
        ),
        ("another method", vec![Set("Mcp-Method", "tools/list".into())], None, 400, -32020),
        ("no Mcp-Method", vec![Drop("Mcp-Method")], None, 400, -32020),
        ("the memo tool's name", vec![Set("Mcp-Name", "memo".into())], None, 400, -32020),
        ("no Mcp-Name", vec![Drop("Mcp-Name")], None, 400, -32020),
        ("an 8 KB name", vec![Set("Mcp-Name", "c".repeat(8 * 1024))], None, 400, -32020),
        ("a version list in _meta", vec![], listed, 400, -32602),
        ("a handshake body under a stateless header", vec![], handshake, 400, -32602),
        (
            "an unspoken version",
            vec![Set("MCP-Protocol-Version", "2027-01-01".into())],
            unspoken,
            400,
            -32022,
        ),
    ];
    for (what, edits, other, status, code) in wrong {
        let body = other.unwrap_or_else(|| body.clone());
        let answer = send(&world.server, "POST", &edited(check.clone(), &edits), &body);
        assert_eq!(
            (answer.status, &answer.body["error"]["code"]),
            (status, &json!(code)),
            "{what}: {}",
            answer.text
        );
        assert_eq!(
            payments_touched(&world),
            (json!(0), json!(0), 0),
            "{what}: nothing verified or settled"
        );
        assert_eq!(world.target.hits(), 0, "{what}: nothing fetched");
    }

    let answer = send(&world.server, "POST", &check, &body);
    assert_eq!(answer.status, 200, "{}", answer.text);
    let result = &answer.body["result"];
    assert_eq!(
        (&result["isError"], &result["resultType"]),
        (&json!(false), &json!("complete")),
        "{result}"
    );
    let settlement = &result["_meta"]["x402/payment-response"];
    assert_eq!(settlement["success"], true, "{result}");
    assert_eq!(result["structuredContent"]["op"], "check", "{result}");
    assert!(verify_signed(&result["structuredContent"], &trusted(&world.server)).is_ok());
    assert_eq!(world.landed(), vec![settlement["transaction"].clone()], "settled once");
    let calls = world.fixture_calls();
    assert_eq!((&calls["verify"], &calls["settled"]), (&json!(1), &json!(1)), "{calls}");
    assert_eq!(world.target.hits(), 1, "one fetch");
}
