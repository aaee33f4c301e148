//! Writes every target's seed inputs from the project's own vectors into
//! `fuzz/corpus/<target>/seed-*`: the published corpus's cases for the graders, and the unit
//! tests' vectors for the decoders. Run once before fuzzing (`scripts/fuzz` does it when a
//! corpus directory is missing):
//!
//!   cargo test --manifest-path fuzz/Cargo.toml --test seeds -- --ignored
//!
//! Every seed is also run through its target's checks here, so a seed that breaks an
//! invariant fails this test before it reaches the fuzzer.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use payability_core::capture::{Capture, CapturedBody, CapturedHeader, FetchOutcome};
use payability_core::challenge::requirements_v2;
use payability_core::op::PaidOp;
use payability_core::payment::memo::{MEMO_LIFETIME_MS, issue_memo};
use payability_core::payment::x402::{MAX_PAYMENT_PAYLOAD_BYTES, Network};
use payability_core::report::UtcMillis;
use payability_fuzz::fixtures::{
    CALLED_URLS, CHECKED_AT, NOW, legacy, legacy_message, memo_key, rpc_payment_tx, signature,
    terms, v0_message, wire, write_capture,
};
use payability_fuzz::frame::FrameWriter;
use payability_tests::vectors::{LOOPBACK_HOST_IPV6, LOOPBACK_HOSTS_OF_127_0_0_1, NOT_PUBLIC_URLS};
use serde_json::{Value, json};

/// Where one target's seeds go.
fn dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target)
}

/// Writes (and checks) the seeds of one target.
fn write(target: &str, seeds: Vec<(String, Vec<u8>)>) {
    let (_, run, max_len) = payability_fuzz::TARGETS
        .iter()
        .find(|(name, ..)| *name == target)
        .copied()
        .expect("a known target");
    let dir = dir(target);
    std::fs::create_dir_all(&dir).unwrap();
    for (label, data) in seeds {
        assert!(data.len() <= max_len, "{target}/{label} is over max_len");
        run(&data);
        let label: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        std::fs::write(dir.join(format!("seed-{label}")), data).unwrap();
    }
}

/// A fetch of the published corpus as the core's capture.
fn fetch_of(fetch: &Value) -> FetchOutcome {
    match fetch["outcome"].as_str().unwrap() {
        "fetch_failed" => FetchOutcome::Failed,
        "timeout" => FetchOutcome::TimedOut,
        _ => {
            let body = &fetch["body"];
            let body = if body.get("over_cap").is_some() {
                CapturedBody::OverCap
            } else if let Some(text) = body.get("text").and_then(Value::as_str) {
                CapturedBody::Complete(text.as_bytes().to_vec())
            } else {
                CapturedBody::Complete(STANDARD.decode(body["base64"].as_str().unwrap()).unwrap())
            };
            FetchOutcome::Captured(Capture {
                status: fetch["status"].as_u64().unwrap() as u16,
                payment_required: fetch["payment_required"]
                    .as_str()
                    .map(|s| CapturedHeader::of(s.as_bytes())),
                body,
            })
        }
    }
}

fn url_index(url: &str) -> u8 {
    CALLED_URLS.iter().position(|u| *u == url).expect("a corpus URL") as u8
}

fn check_frame(url: u8, at: i64, outcome: &FetchOutcome) -> Vec<u8> {
    let (writer, body) = write_capture(FrameWriter::default().u8(url).i64(at), outcome);
    writer.rest(&body)
}

fn memo_frame(url: u8, first: &FetchOutcome, second: &FetchOutcome) -> Vec<u8> {
    let (writer, body) = write_capture(FrameWriter::default().u8(url).i64(CHECKED_AT), first);
    let (writer, body2) = write_capture(writer.bytes(&body), second);
    writer.rest(&body2)
}

fn corpus_cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/payability-corpus-v1.json");
    let corpus: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    corpus["cases"].as_array().unwrap().clone()
}

fn graders() {
    let mut check = Vec::new();
    let mut memo = Vec::new();
    let mut headers = Vec::new();
    for case in corpus_cases() {
        let id = case["id"].as_str().unwrap().to_owned();
        let url = url_index(case["called_url"].as_str().unwrap());
        let fetches: Vec<FetchOutcome> =
            case["fetches"].as_array().unwrap().iter().map(fetch_of).collect();
        for f in case["fetches"].as_array().unwrap() {
            if let Some(header) = f["payment_required"].as_str() {
                headers.push((format!("{id}-{}", headers.len()), header.as_bytes().to_vec()));
            }
        }
        match fetches.as_slice() {
            [one] => {
                check.push((id.clone(), check_frame(url, CHECKED_AT, one)));
                memo.push((format!("{id}-twice"), memo_frame(url, one, one)));
            }
            [first, second] => {
                memo.push((id.clone(), memo_frame(url, first, second)));
                check.push((format!("{id}-1"), check_frame(url, CHECKED_AT, first)));
            }
            _ => unreachable!("one or two fetches"),
        }
    }
    let populated = fetch_of(&corpus_cases()[0]["fetches"][0]);
    for at in [i64::MIN, -62_167_219_200_001, 253_402_300_800_000, 0] {
        check.push((format!("timestamp-{at}"), check_frame(0, at, &populated)));
    }
    write("grade_check", check);
    write("grade_memo", memo);
    for (name, value) in [
        ("padded", "YWJj"),
        ("pad1", "YWI="),
        ("nopad", "YWI"),
        ("bad-pad", "YQ="),
        ("spaces", " Y W\nI=\t"),
        ("trailing-bits", "YR=="),
        ("one-char", "Y"),
        ("url-safe", "YW-j"),
        ("empty", ""),
        ("json-array", "W10="),
        ("json-object", "e30="),
    ] {
        headers.push((name.to_owned(), value.as_bytes().to_vec()));
    }
    headers.sort();
    headers.dedup_by(|a, b| a.1 == b.1);
    write("header_leg", headers);
}

fn payments() {
    let key = memo_key();
    let memo_check = issue_memo(&key, PaidOp::Check, UtcMillis(NOW.0 + MEMO_LIFETIME_MS), [9; 12]);
    let memo_memo = issue_memo(&key, PaidOp::Memo, UtcMillis(NOW.0 + 1), [8; 12]);
    let expired = issue_memo(&key, PaidOp::Check, NOW, [7; 12]);
    let tx = STANDARD.encode(legacy());
    let v0 = STANDARD.encode(wire(&[[0; 64], [0xab; 64]], &v0_message()));
    let accepted = |memo: &str| {
        let mut accepted = json!(requirements_v2(&terms("")));
        accepted["extra"]["memo"] = json!(memo);
        accepted
    };
    let v1 = |transaction: &str| json!({"x402Version": 1, "scheme": "exact", "network": "solana", "payload": {"transaction": transaction}});
    let v2 = |accepted: Value, transaction: &str| json!({"x402Version": 2, "resource": {"url": "https://api.example/check"}, "accepted": accepted, "payload": {"transaction": transaction}});
    let header = |selector: u8, value: &Value| {
        let mut out = vec![selector];
        out.extend(STANDARD.encode(value.to_string()).into_bytes());
        out
    };
    let mut seeds = vec![
        ("v1".to_owned(), header(0, &v1(&tx))),
        ("v1-v0-message".to_owned(), header(0, &v1(&v0))),
        ("v1-unpadded".to_owned(), {
            let mut out = vec![0];
            out.extend(STANDARD_NO_PAD.encode(v1(&tx).to_string()).into_bytes());
            out
        }),
        ("v2-check".to_owned(), header(1, &v2(accepted(&memo_check), &tx))),
        ("v2-memo".to_owned(), header(1, &v2(accepted(&memo_memo), &v0))),
        ("v2-expired".to_owned(), header(1, &v2(accepted(&expired), &tx))),
        ("v2-devnet".to_owned(), header(1, &v2(json!({"network": "solana:devnet"}), &tx))),
        ("v2-under-v1".to_owned(), header(0, &v2(accepted(&memo_check), &tx))),
        (
            "v1-version-float".to_owned(),
            header(
                0,
                &json!({"x402Version": 1.0, "scheme": "exact", "network": "solana", "payload": {"transaction": tx}}),
            ),
        ),
        (
            "v1-upto".to_owned(),
            header(
                0,
                &json!({"x402Version": 1, "scheme": "upto", "network": "solana", "payload": {"transaction": tx}}),
            ),
        ),
        ("not-base64".to_owned(), b"\x00%%%%".to_vec()),
        ("spaces".to_owned(), {
            let mut out = vec![1, b' ', b'\t'];
            out.extend(STANDARD.encode(v2(accepted(&memo_check), &tx).to_string()).into_bytes());
            out.push(b' ');
            out
        }),
    ];
    let mut trailing = legacy();
    trailing.push(0);
    seeds.push(("v1-trailing-byte".to_owned(), header(0, &v1(&STANDARD.encode(trailing)))));
    write("payment_header", seeds);

    // MCP's `_meta["x402/payment"]`: the v2 payloads as JSON, as the official client sends
    // them (explicit nulls included), and what it must refuse.
    let with_nulls = {
        let mut payload = v2(accepted(&memo_check), &tx);
        payload["resource"] = Value::Null;
        payload["extensions"] = Value::Null;
        payload
    };
    let padded = {
        let mut payload = v2(accepted(&memo_check), &tx);
        payload["padding"] = json!("x".repeat(MAX_PAYMENT_PAYLOAD_BYTES));
        payload
    };
    let mcp = vec![
        ("v2-check", v2(accepted(&memo_check), &tx)),
        ("v2-memo-v0", v2(accepted(&memo_memo), &v0)),
        ("v2-sdk-nulls", with_nulls),
        ("v2-expired", v2(accepted(&expired), &tx)),
        ("v1-shape", v1(&tx)),
        ("not-an-object", json!([1, 2])),
        ("over-the-bound", padded),
    ];
    write(
        "mcp_payment",
        mcp.into_iter().map(|(n, v)| (n.to_owned(), v.to_string().into_bytes())).collect(),
    );

    // The JSON-RPC transports' bodies: MCP's calls and A2A's messages (1.0 and 0.3 shapes),
    // paid, signed in and continued, and bodies that are not one request.
    let payment = v2(accepted(&memo_check), &tx);
    let proof = String::from_utf8(payability_fuzz::targets::siwx_header::header_of(
        &payability_fuzz::targets::siwx_header::SIGNED,
    ))
    .unwrap();
    let url = CALLED_URLS[0];
    let rpc = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let paid_data = json!({"kind": "data", "data": {"skill": "check", "url": url}});
    let mut whole_doubles = payment.clone();
    whole_doubles["x402Version"] = json!(2.0);
    let bodies = vec![
        ("mcp-initialize", rpc("initialize", json!({"protocolVersion": "2025-11-25"}))),
        ("mcp-notification", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        ("mcp-tools-list", json!({"jsonrpc": "2.0", "id": "a", "method": "tools/list"})),
        (
            "mcp-check-unpaid",
            rpc("tools/call", json!({"name": "check", "arguments": {"url": url}})),
        ),
        (
            "mcp-check-paid",
            rpc(
                "tools/call",
                json!({"name": "check", "arguments": {"url": url}, "_meta": {"x402/payment": payment}}),
            ),
        ),
        (
            "mcp-precheck-signed",
            rpc(
                "tools/call",
                json!({"name": "precheck", "arguments": {"url": url, "op": "memo"}, "_meta": {"sign-in-with-x": proof}}),
            ),
        ),
        ("mcp-unknown-tool", rpc("tools/call", json!({"name": "refund", "arguments": []}))),
        (
            "a2a-data-part",
            rpc(
                "SendMessage",
                json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"data": {"skill": "memo", "url": url}}]}}),
            ),
        ),
        (
            "a2a-text-part",
            rpc(
                "message/send",
                json!({"message": {"kind": "message", "messageId": "m2", "role": "user", "parts": [{"kind": "text", "text": format!("check {url}")}]}}),
            ),
        ),
        (
            "a2a-paid-continued",
            rpc(
                "message/send",
                json!({"message": {"kind": "message", "messageId": "m3", "role": "user", "taskId": "pv1.eyJza2lsbCI6ImNoZWNrIiwidXJsIjoiaHR0cHM6Ly9zZWxsZXIuZXhhbXBsZS9hcGkvd2VhdGhlciJ9", "contextId": "c1", "parts": [paid_data], "metadata": {"x402.payment.status": "payment-submitted", "x402.payment.payload": payment}}}),
            ),
        ),
        (
            "a2a-paid-whole-doubles",
            rpc(
                "SendMessage",
                json!({"message": {"messageId": "m4", "role": "ROLE_USER", "parts": [paid_data], "metadata": {"x402.payment.payload": whole_doubles}}}),
            ),
        ),
        (
            "a2a-precheck-signed",
            rpc(
                "SendMessage",
                json!({"message": {"messageId": "m5", "parts": [{"data": {"skill": "precheck", "url": url, "op": "check"}}], "metadata": {"sign-in-with-x": proof}}}),
            ),
        ),
        (
            "a2a-unknown-task",
            rpc("SendMessage", json!({"message": {"taskId": "task-1", "parts": []}})),
        ),
        ("a2a-get-task", rpc("GetTask", json!({"id": "pv1.e30"}))),
        ("batch", json!([rpc("tools/list", json!({}))])),
        ("fractional-id", json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})),
    ];
    let mut bodies: Vec<(String, Vec<u8>)> =
        bodies.into_iter().map(|(n, v)| (n.to_owned(), v.to_string().into_bytes())).collect();
    bodies.push(("not-json".to_owned(), b"{\"jsonrpc\": \"2.0\",".to_vec()));
    // The paths past the envelope are reached: the paid message reads, its payment decodes.
    let paid = &bodies.iter().find(|(name, _)| name == "a2a-paid-whole-doubles").unwrap().1;
    let payability_runtime::api::fuzzing::EnvelopeRead::Call {
        params: Value::Object(params), ..
    } = payability_runtime::api::fuzzing::read_envelope(paid)
    else {
        panic!("the paid message is a call")
    };
    let call = payability_runtime::api::fuzzing::read_message(params).expect("a paid message");
    assert!(matches!(call.payment, Some(Ok(_))), "its payment decodes");
    write("agent_call", bodies);

    // MCP 2026-07-28's mirrored headers: a request as the SDKs send it, the sentinel form, and
    // each header missing, twice, unequal or unspoken; a handshake-era request beside them.
    let modern_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"org.x402/payment": {}}},
    });
    let modern_call = rpc(
        "tools/call",
        json!({"name": "check", "arguments": {"url": url}, "_meta": modern_meta}),
    );
    let discover = rpc("server/discover", json!({"_meta": modern_meta}));
    let header = |name: &str| {
        let index = payability_fuzz::targets::mcp_headers::HEADER_NAMES
            .iter()
            .position(|n| *n == name)
            .expect("a named header");
        u8::try_from(index).unwrap()
    };
    let framed = |headers: &[(&str, &[u8])], body: &Value| {
        let mut writer = FrameWriter::default().u8(u8::try_from(headers.len()).unwrap());
        for (name, value) in headers {
            writer = writer.u8(header(name)).bytes(value);
        }
        writer.rest(body.to_string().as_bytes())
    };
    let (v, m, n) = (
        ("mcp-protocol-version", b"2026-07-28".as_slice()),
        ("mcp-method", b"tools/call".as_slice()),
        ("mcp-name", b"check".as_slice()),
    );
    let era_seeds = vec![
        ("modern-call", framed(&[v, m, n], &modern_call)),
        ("modern-sentinel", framed(&[v, m, ("mcp-name", b"=?base64?Y2hlY2s=?=")], &modern_call)),
        ("modern-discover", framed(&[v, ("mcp-method", b"server/discover")], &discover)),
        ("no-name", framed(&[v, m], &modern_call)),
        ("name-twice", framed(&[v, m, n, n], &modern_call)),
        ("other-method", framed(&[v, ("mcp-method", b"tools/list"), n], &modern_call)),
        (
            "version-list",
            framed(&[("mcp-protocol-version", b"2026-07-28, 2025-11-25"), m, n], &modern_call),
        ),
        (
            "unspoken",
            framed(&[("mcp-protocol-version", b"1900-01-01")], &rpc("tools/list", json!({}))),
        ),
        (
            "handshake",
            framed(
                &[("mcp-protocol-version", b"2025-11-25"), ("mcp-session-id", b"s1")],
                &rpc("tools/list", json!({})),
            ),
        ),
    ];
    write("mcp_headers", era_seeds.into_iter().map(|(n, d)| (n.to_owned(), d)).collect());

    let mut transactions = vec![
        ("legacy".to_owned(), legacy()),
        ("v0".to_owned(), wire(&[[0; 64], [0xab; 64]], &v0_message())),
        ("rpc-payment".to_owned(), rpc_payment_tx([0x11; 64], 10_000)),
        ("non-canonical-count".to_owned(), {
            let mut bytes = vec![0x82, 0x00];
            bytes.extend(&legacy()[1..]);
            bytes
        }),
        ("version-1".to_owned(), {
            let mut message = v0_message();
            message[0] = 0x81;
            wire(&[[0; 64], [0xab; 64]], &message)
        }),
        ("lone-fee-payer".to_owned(), {
            let mut message = legacy_message();
            message[0] = 1;
            wire(&[[0; 64]], &message)
        }),
        ("program-index-out-of-range".to_owned(), {
            let mut message = legacy_message();
            message[229] = 6;
            wire(&[[0; 64], [0xab; 64]], &message)
        }),
        ("at-cap".to_owned(), {
            let mut bytes = legacy();
            bytes.resize(1_232, 0);
            bytes
        }),
    ];
    transactions.push(("truncated".to_owned(), legacy()[..100].to_vec()));
    write("transaction", transactions);
}

fn urls() {
    let long = format!("https://seller.example/{}", "a".repeat(2_030));
    let loopback = LOOPBACK_HOSTS_OF_127_0_0_1.iter().chain([&LOOPBACK_HOST_IPV6]);
    let not_public =
        loopback.map(|host| format!("http://{host}/")).chain(NOT_PUBLIC_URLS.map(str::to_owned));
    let others = [
        "not a url",
        "https://",
        "http://exa mple.com/",
        "ftp://seller.example/",
        "file:///etc/passwd",
        "https://user@seller.example/",
        "https://:secret@seller.example/",
        "https://u:p@seller.example/",
        "https://Seller.Example/api",
        "HTTP://seller.example:80/a/../b",
        "https://seller.example",
        "https://8.8.8.8/x",
        "https://[2606:4700::1111]/",
        "https://bücher.example/?q=1#f",
        "https://seller.example/api/weather?city=paris",
        "http://1.2.3.4.5/",
        "http://0x7f.1/",
        "http://[::127.0.0.1]/",
        "https://%31%32%37.0.0.1/",
    ];
    let vectors = not_public.chain(others.map(str::to_owned)).chain([long]);
    write(
        "url_policy",
        vectors.enumerate().map(|(i, v)| (format!("{i}"), v.into_bytes())).collect(),
    );
}

fn facilitator() {
    const FEE_PAYER: &str = "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5";
    const PAYER: &str = "3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG";
    const NETWORK_V2: &str = Network::SolanaMainnet.caip2();
    let sig = "5".repeat(87) + "1";
    let frame = |which: u8, status: u16, body: &[u8]| {
        FrameWriter::default().u8(which).u16(status).rest(body)
    };
    let kind = |network: &str, payer: Value| json!({"x402Version": 2, "scheme": "exact", "network": network, "extra": {"feePayer": payer}});
    let answers: Vec<(&str, u8, u16, Value)> = vec![
        (
            "supported-signers",
            0,
            200,
            json!({"kinds": [], "extensions": [], "signers": {"solana:*": [FEE_PAYER]}}),
        ),
        (
            "supported-mainnet-signer",
            0,
            200,
            json!({"signers": {NETWORK_V2: [FEE_PAYER], "solana:*": [PAYER]}}),
        ),
        (
            "supported-kinds-v2",
            0,
            200,
            json!({"kinds": [kind("eip155:8453", json!(PAYER)), kind(NETWORK_V2, json!(FEE_PAYER))]}),
        ),
        ("supported-kinds-v1", 0, 200, json!({"kinds": [kind("solana", json!(FEE_PAYER))]})),
        (
            "supported-devnet",
            0,
            200,
            json!({"kinds": [kind("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", json!(FEE_PAYER))]}),
        ),
        ("supported-not-base58", 0, 200, json!({"signers": {"solana:*": ["0xdeadbeef"]}})),
        ("supported-404", 0, 404, json!({"signers": {"solana:*": [FEE_PAYER]}})),
        ("supported-503", 0, 503, json!({})),
        ("verify-valid", 1, 200, json!({"isValid": true, "payer": PAYER})),
        ("verify-valid-no-payer", 1, 200, json!({"isValid": true})),
        ("verify-payer-evm", 1, 200, json!({"isValid": true, "payer": "0x857b"})),
        (
            "verify-invalid",
            1,
            200,
            json!({"isValid": false, "invalidReason": "insufficient_funds"}),
        ),
        ("verify-400", 1, 400, json!({"isValid": false})),
        ("verify-valid-400", 1, 400, json!({"isValid": true})),
        ("verify-string", 1, 200, json!({"isValid": "true"})),
        ("verify-429", 1, 429, json!({"isValid": true})),
        (
            "settle-v2",
            3,
            200,
            json!({"success": true, "transaction": sig, "network": NETWORK_V2, "payer": PAYER, "errorReason": "x"}),
        ),
        ("settle-v1", 2, 200, json!({"success": true, "transaction": sig, "network": "solana"})),
        (
            "settle-v2-on-v1",
            2,
            200,
            json!({"success": true, "transaction": sig, "network": NETWORK_V2}),
        ),
        (
            "settle-evm-hash",
            3,
            200,
            json!({"success": true, "transaction": "0x1234", "network": NETWORK_V2}),
        ),
        (
            "settle-payer-number",
            3,
            200,
            json!({"success": true, "transaction": sig, "network": NETWORK_V2, "payer": 1}),
        ),
        ("settle-false", 3, 200, json!({"success": false, "errorReason": "insufficient_funds"})),
        (
            "settle-true-400",
            3,
            400,
            json!({"success": true, "transaction": sig, "network": NETWORK_V2}),
        ),
        ("settle-array", 3, 200, json!([{"success": true}])),
    ];
    let mut seeds: Vec<(String, Vec<u8>)> = answers
        .into_iter()
        .map(|(name, which, status, body)| {
            (name.to_owned(), frame(which, status, body.to_string().as_bytes()))
        })
        .collect();
    seeds.push(("verify-not-json".to_owned(), frame(1, 200, b"{\"isValid\": tru")));
    seeds.push(("settle-redirect".to_owned(), frame(3, 302, b"")));
    write("facilitator", seeds);
}

fn rpc() {
    let frame = |status: u16, body: Value| {
        FrameWriter::default().u16(status).rest(body.to_string().as_bytes())
    };
    let result = |result: Value| json!({"jsonrpc": "2.0", "id": 1, "result": result});
    let on_chain = |bytes: &[u8], err: Value| {
        result(
            json!({"slot": 9, "meta": {"err": err, "fee": 5000}, "transaction": [STANDARD.encode(bytes), "base64"], "version": "legacy"}),
        )
    };
    let listing: Vec<Value> = (1..4).map(|n| json!({"signature": signature(n), "slot": 9, "err": null, "confirmationStatus": "confirmed"})).collect();
    let seeds = vec![
        (
            "fee",
            frame(
                200,
                result(json!({"slot": 5, "meta": {"err": null, "fee": 5000}, "transaction": {}})),
            ),
        ),
        ("fee-string", frame(200, result(json!({"meta": {"fee": "5000"}})))),
        ("null", frame(200, result(Value::Null))),
        (
            "error",
            frame(
                200,
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid param"}}),
            ),
        ),
        ("no-jsonrpc", frame(200, json!({"id": 1, "result": {"meta": {"fee": 5000}}}))),
        ("status-500", frame(500, result(json!({"meta": {"fee": 5000}})))),
        ("listing", frame(200, result(json!(listing)))),
        ("listing-bad", frame(200, result(json!([{"signature": "0x12"}])))),
        ("landed", frame(200, on_chain(&rpc_payment_tx([0x11; 64], 10_000), Value::Null))),
        (
            "landed-failed",
            frame(
                200,
                on_chain(
                    &rpc_payment_tx([0x11; 64], 10_000),
                    json!({"InstructionError": [0, "Custom"]}),
                ),
            ),
        ),
        ("other-transfer", frame(200, on_chain(&rpc_payment_tx([0x11; 64], 1), Value::Null))),
        (
            "json-encoding",
            frame(200, result(json!({"meta": {"err": null}, "transaction": ["AQID", "json"]}))),
        ),
        ("blockhash-valid", frame(200, result(json!({"context": {"slot": 10}, "value": true})))),
        ("blockhash-invalid", frame(200, result(json!({"context": {"slot": 10}, "value": false})))),
    ];
    write("solana_rpc", seeds.into_iter().map(|(n, d)| (n.to_owned(), d)).collect());
}

fn bodies() {
    let seeds: Vec<(&str, &[u8])> = vec![
        ("url", br#"{"url":"https://seller.example/api"}"#),
        ("precheck-all", br#"{"url":"https://seller.example/api","op":"memo","caller":"3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG"}"#),
        ("nulls", br#"{"url":"https://seller.example/api","op":null,"caller":null}"#),
        ("unknown-field", br#"{"url":"https://seller.example/api","x":1}"#),
        ("url-number", br#"{"url":5}"#),
        ("duplicate", br#"{"url":"http://a.example/","url":"http://127.0.0.1/"}"#),
        ("array", br#"["https://seller.example/api"]"#),
        ("not-json", b"url=https://seller.example/api"),
        ("empty", b""),
    ];
    write("request_body", seeds.into_iter().map(|(n, d)| (n.to_owned(), d.to_vec())).collect());
}

fn valet() {
    let answer = |days: &[(&str, &str)]| {
        let observations: Vec<Value> =
            days.iter().map(|(d, v)| json!({"d": d, "FXUSDCAD": {"v": v}})).collect();
        json!({"terms": {"url": "https://www.bankofcanada.ca/terms/"}, "seriesDetail": {"FXUSDCAD": {"label": "USD/CAD"}}, "observations": observations}).to_string()
    };
    let seeds = vec![
        ("own-date", "2026-11-27", answer(&[("2026-11-26", "1.3958"), ("2026-11-27", "1.3971")])),
        ("weekend", "2026-11-29", answer(&[("2026-11-27", "1.3971"), ("2026-11-30", "1.4002")])),
        ("pending", "2026-11-29", answer(&[("2026-11-27", "1.3971")])),
        ("bad-rate", "2026-11-27", answer(&[("2026-11-27", "1,3971")])),
        ("bad-day", "2026-99-99", answer(&[("2026-99-99", "1.3971")])),
        ("empty", "2026-11-27", r#"{"observations":[]}"#.to_owned()),
        ("no-observations", "2026-11-27", r#"{"seriesDetail":{}}"#.to_owned()),
    ];
    write(
        "valet",
        seeds
            .into_iter()
            .map(|(n, date, body)| (n.to_owned(), [date.as_bytes(), body.as_bytes()].concat()))
            .collect(),
    );
}

fn sign_in_proofs() {
    use payability_core::payment::siwx::SignInRefusal;
    use payability_fuzz::targets::siwx_header::{SIGNED, as_json, header_of, verify_header};
    let signed = header_of(&SIGNED);
    let text = String::from_utf8(signed.clone()).unwrap();
    let mut other_wallet = as_json(&SIGNED);
    other_wallet["address"] = json!(payability_fuzz::fixtures::PAY_TO);
    let mut stale = as_json(&SIGNED);
    stale["issuedAt"] = json!("2020-01-01T00:00:00.000Z");
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("signed", signed.clone()),
        ("signed-unpadded", text.trim_end_matches('=').as_bytes().to_vec()),
        ("signed-spaces", format!("  {text}\t").into_bytes()),
        ("truncated", signed[..signed.len() / 2].to_vec()),
        ("other-wallet", STANDARD.encode(other_wallet.to_string()).into_bytes()),
        ("stale", STANDARD.encode(stale.to_string()).into_bytes()),
        ("not-base64", b"{\"domain\": 1}".to_vec()),
        ("over-cap", vec![b'A'; 16_385]),
    ];
    let verified = |name: &str| {
        let (_, data) = seeds.iter().find(|(n, _)| *n == name).expect("a seed");
        verify_header(data).map(|proven| proven.wallet.as_str().to_owned())
    };
    // The target's verifying path is reached: the signed seed verifies, the others do not.
    for name in ["signed", "signed-unpadded", "signed-spaces"] {
        assert_eq!(verified(name).as_deref(), Ok(SIGNED.address.as_str()), "{name}");
    }
    assert_eq!(verified("other-wallet"), Err(SignInRefusal::SignatureInvalid));
    assert_eq!(verified("stale"), Err(SignInRefusal::NonceUnknown));
    assert_eq!(verified("truncated"), Err(SignInRefusal::HeaderMalformed));
    assert_eq!(verified("over-cap"), Err(SignInRefusal::HeaderTooLarge));
    write("siwx_header", seeds.into_iter().map(|(n, d)| (n.to_owned(), d)).collect());
}

fn reports() {
    let originals = payability_fuzz::targets::verify_report::originals();
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    for (i, original) in originals.iter().enumerate() {
        seeds.push((format!("signed-{i}"), serde_json::to_vec_pretty(original).unwrap()));
        let mut changed = original.clone();
        changed["state"] = json!("UNCONFIGURED");
        seeds.push((format!("state-changed-{i}"), serde_json::to_vec(&changed).unwrap()));
        let mut unsigned = original.clone();
        unsigned.as_object_mut().unwrap().remove("signature");
        seeds.push((format!("unsigned-{i}"), serde_json::to_vec(&unsigned).unwrap()));
    }
    seeds.push(("not-an-object".to_owned(), b"[1,2,3]".to_vec()));
    // Edits: (pick, count - 1, then kind, pointer index, value) per edit.
    let edit = |pick: u8, edits: &[(u8, u16, &[u8])]| {
        let mut writer = FrameWriter::default().u8(0xff).u8(pick).u8(edits.len() as u8 - 1);
        for (kind, at, value) in edits {
            writer = writer.u8(*kind).u16(*at).bytes(value);
        }
        writer.rest(b"")
    };
    for pick in 0..4u8 {
        seeds.push((
            format!("edit-respell-numbers-{pick}"),
            edit(pick, &[(5, 3, b""), (5, 9, b""), (5, 17, b"")]),
        ));
        seeds.push((format!("edit-remove-{pick}"), edit(pick, &[(0, 5, b"")])));
        seeds.push((format!("edit-flip-{pick}"), edit(pick, &[(2, 7, b"x")])));
        seeds.push((
            format!("edit-set-{pick}"),
            edit(pick, &[(3, 11, b"{\"a\":[1,2]}"), (4, 0, b"extra")]),
        ));
    }
    seeds.push(("bad-timestamp".to_owned(), br#"{"checked_at":"2026-02-30T00:00:00.000Z","signature":{"alg":"Ed25519","key_id":"x","value":"AA"}}"#.to_vec()));
    write("verify_report", seeds);
}

#[test]
#[ignore = "writes fuzz/corpus/<target>/seed-*; run it before the first fuzzing run"]
fn write_seeds() {
    graders();
    payments();
    urls();
    facilitator();
    rpc();
    bodies();
    valet();
    sign_in_proofs();
    reports();
}
