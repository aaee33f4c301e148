//! `payability check|memo` as a seller runs it in CI, against loopback sellers: several URLs,
//! a file of them and a catalogue in one run; every exit code and their precedence; the
//! seller's own terms (`--expect`) met, unmet and absent in each leg, with canary values that
//! must reach no output; GitHub annotations and the summary table under hostile URLs.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::{ReportSigner, verify_signed};
use payability_tests::scratch::{ScratchDir, ScratchFile};
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};

const SEED: [u8; 32] = [9; 32];
/// The seller's payee, asset and amount: canaries, never in any output.
const CANARY_PAY_TO: &str = "CanaryPayToW4llet9q";
const CANARY_ASSET: &str = "CanaryAssetM1nt7z";
const CANARY_AMOUNT: &str = "739104612";
const CANARIES: [&str; 3] = [CANARY_PAY_TO, CANARY_ASSET, CANARY_AMOUNT];

/// The test key's seed file (owner-only).
fn key_file() -> ScratchFile {
    let key = ScratchFile::new("sellers-ci", "seed");
    std::fs::write(&key, STANDARD.encode(SEED)).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    key
}

/// The command with the test key, loopback allowed, no NO_COLOR or step summary.
fn command(args: &[&str], key: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command
        .args(args)
        .env("PAYABILITY_SIGNING_KEY_FILE", key)
        .env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1")
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_STEP_SUMMARY");
    command
}

fn run(args: &[&str], key: &Path) -> Output {
    command(args, key).output().unwrap()
}

/// A challenge for `url` carrying the canaries in both legs; `path` says how a leg departs:
/// `/body-differs` (the body's terms are others), `/header-absent` (the header's offer has
/// none of them), `/unconfigured` (no token account), else both legs carry them.
fn challenge(url: &str, path: &str, memo: &str) -> Reply {
    let mut body = json!({"x402Version": 1, "accepts": [{
        "scheme": "exact", "network": "solana", "amount": CANARY_AMOUNT,
        "maxAmountRequired": CANARY_AMOUNT, "resource": url, "description": "weather",
        "payTo": CANARY_PAY_TO, "asset": CANARY_ASSET,
        "extra": {"feePayer": "Fee1", "usdc_token_account": "Ata1", "memo": memo}}]});
    let mut header = json!({"x402Version": 2, "resource": {"url": url}, "accepts": [{
        "scheme": "exact", "network": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "amount": CANARY_AMOUNT, "payTo": CANARY_PAY_TO, "asset": CANARY_ASSET,
        "extra": {"memo": memo}}]});
    if path.starts_with("/body-differs") {
        let offer = &mut body["accepts"][0];
        offer["payTo"] = json!("OtherWallet");
        offer["asset"] = json!("OtherMint");
        offer["amount"] = json!("1");
        offer["network"] = json!("solana-devnet");
    }
    if path.starts_with("/header-absent") {
        header["accepts"][0] = json!({"scheme": "exact", "extra": {"memo": memo}});
    }
    if path.starts_with("/unconfigured") {
        body["accepts"][0]["extra"]["usdc_token_account"] = json!(null);
    }
    Reply::status(402)
        .header("content-type", "application/json")
        .header("payment-required", STANDARD.encode(header.to_string()))
        .body(body.to_string())
}

/// A loopback seller: its catalogue at `/.well-known/x402`, a 200 under `/free`, a 402 (a
/// fresh memo each time) anywhere else.
fn seller(catalogue: Value) -> StandIn {
    StandIn::replying_with(move |origin| {
        let origin = origin.to_owned();
        let served = AtomicUsize::new(0);
        move |request: &Recorded| {
            let path = request.path.as_str();
            if path == "/.well-known/x402" {
                return Reply::json(200, &catalogue);
            }
            if path.starts_with("/free") {
                return Reply::status(200).body("free");
            }
            let memo = format!("pvm_{:08}", served.fetch_add(1, Ordering::SeqCst));
            challenge(&format!("{origin}{path}"), path, &memo)
        }
    })
}

/// The lines of stdout, each parsed as JSON.
fn json_lines(output: &Output) -> Vec<Value> {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// Whether a report line verifies under the test key.
fn verifies(report: &Value) -> bool {
    let trusted = [ReportSigner::from_seed(&SEED).descriptor().clone()];
    verify_signed(report, &trusted).is_ok()
}

/// Asserts that no canary is in any of `texts`.
fn no_canary(texts: &[&[u8]]) {
    for text in texts {
        let text = String::from_utf8_lossy(text);
        for canary in CANARIES {
            assert!(!text.contains(canary), "{canary} in:\n{text}");
        }
    }
}

#[test]
fn several_urls_a_file_and_a_catalogue_are_checked_in_order_and_no_failure_stops_the_others() {
    let key = key_file();
    let stand_in = seller(json!({"version": 1, "resources": [
        "POST /good", "/unconfigured", "https://other.example/x", "FETCH /bad"]}));
    let dir = ScratchDir::new("sellers-ci");
    let file = dir.join("urls");
    let listed = format!("# the shop\n\n  {}  \nftp://seller.example/\n", stand_in.url("/free"));
    std::fs::write(&file, listed).unwrap();
    let (first, origin, file) = (stand_in.url("/good"), stand_in.origin(), file.to_str().unwrap());
    let args = ["check", "--format", "json", &first, "--urls-from", file, "--catalogue", &origin];
    let output = run(&args, &key);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let lines = json_lines(&output);
    let got: Vec<(Option<&str>, Option<&str>)> = lines
        .iter()
        .map(|l| (l["state"].as_str(), l.pointer("/error/rule").and_then(Value::as_str)))
        .collect();
    let wanted = [
        (Some("POPULATED"), None),
        (Some("NOT-A-402"), None),
        (None, Some("scheme_not_http")),
        (Some("POPULATED"), None),
        (Some("UNCONFIGURED"), None),
        (None, Some("catalogue_other_origin")),
        (None, Some("catalogue_resource_malformed")),
    ];
    assert_eq!(got, wanted);
    let urls = [
        first.clone(),
        stand_in.url("/free"),
        stand_in.url("/good"),
        stand_in.url("/unconfigured"),
    ];
    let reports: Vec<&Value> = lines.iter().filter(|l| l.get("state").is_some()).collect();
    for (report, url) in reports.iter().zip(&urls) {
        assert_eq!(report["url"], *url);
        assert!(verifies(report), "{report}");
    }
    let items: Vec<u64> = lines.iter().filter_map(|l| l["item"].as_u64()).collect();
    assert_eq!(items, [3, 6, 7], "a refusal names its place in the run");
    let methods: Vec<String> = stand_in.requests().iter().map(|r| r.method.clone()).collect();
    assert!(methods.iter().all(|m| m == "GET"), "{methods:?}");

    // The text view: each item under its heading, the catalogue's method named.
    let args = ["check", "--format", "text", "--catalogue", &origin];
    let output = run(&args, &key);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("item 1 of 4\nCHALLENGE PAYABILITY VERDICT"), "{text}");
    assert!(text.contains("catalogue: listed as POST; the rule fetches it with GET"), "{text}");
    assert!(text.contains("item 3 of 4: refused (catalogue_other_origin): "), "{text}");
    assert_eq!(text.matches("listed as").count(), 1, "{text}");
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn one_url_without_expect_prints_the_pretty_report_and_several_print_json_lines() {
    let key = key_file();
    let stand_in = seller(json!({}));
    let url = stand_in.url("/good");
    let one = run(&["check", "--format", "json", &url], &key);
    let stdout = String::from_utf8(one.stdout).unwrap();
    assert!(stdout.starts_with("{\n  \"criteria\": \"payability/v1\",\n"), "{stdout}");
    assert!(verifies(&serde_json::from_str(&stdout).unwrap()));
    let two = run(&["memo", "--format", "json", &url, &url], &key);
    assert_eq!(two.status.code(), Some(0));
    let lines = json_lines(&two);
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l["state"] == "BOUND" && verifies(l)), "{lines:?}");
}

/// Arguments (`{url}` and `{origin}` replaced), the exit code and the rule on stderr.
type ExitVector = (&'static [&'static str], u8, Option<&'static str>);

#[test]
fn every_exit_code_and_their_precedence_across_urls() {
    let key = key_file();
    let stand_in = seller(json!({"version": 1, "resources": ["/good", "/good"]}));
    let dir = ScratchDir::new("sellers-ci");
    let many = dir.join("many");
    std::fs::write(&many, format!("{}\n", stand_in.url("/good")).repeat(257)).unwrap();
    let closed = format!("http://127.0.0.1:{}", closed_port());
    let vectors: [ExitVector; 16] = [
        (&["{good}"], 0, None),
        (&["{good}", "--require", "POPULATED,AMOUNTS-ONLY"], 0, None),
        (&["{good}", "--require", "UNCONFIGURED", "--require", "POPULATED"], 0, None),
        (&["{unconfigured}", "--require", "POPULATED"], 3, Some("terms_unmet")),
        (&["{good}", "--expect", "pay-to=SomeoneElse"], 3, Some("terms_unmet")),
        (&["{good}", "ftp://x.example/", "{unconfigured}", "--require", "POPULATED"], 2, None),
        (&["--catalogue", "{closed}", "ftp://x.example/", "{unconfigured}"], 1, None),
        (&["--catalogue", "{origin}", "--require", "POPULATED"], 0, None),
        (&["{good}", "--require", "BOGUS"], 2, Some("require_state_unknown")),
        (&["{good}", "--require", "BOUND"], 2, Some("require_state_unknown")),
        (&["{good}", "--expect", "payTo=x"], 2, Some("expect_key_unknown")),
        (&["{good}", "--expect", "amount=1.5"], 2, Some("expect_amount_not_digits")),
        (&["--urls-from", "/nonexistent/urls"], 2, Some("urls_file_unreadable")),
        (&["--urls-from", "{many}"], 2, Some("too_many_urls")),
        (&["{good}", "--reports", "/nonexistent/dir/reports"], 2, Some("reports_unwritable")),
        (&["--catalogue", "{good}"], 2, None),
    ];
    for (args, exit, rule) in vectors {
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                a.replace("{good}", &stand_in.url("/good"))
                    .replace("{unconfigured}", &stand_in.url("/unconfigured"))
                    .replace("{origin}", &stand_in.origin())
                    .replace("{closed}", &closed)
                    .replace("{many}", many.to_str().unwrap())
            })
            .collect();
        let args: Vec<&str> = ["check", "--format", "json"]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect();
        let output = run(&args, &key);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(i32::from(exit)), "{args:?}: {stderr}");
        if let Some(rule) = rule {
            let last: Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
            assert_eq!(last["error"]["rule"], rule, "{args:?}");
        }
        if exit == 2 && rule.is_some_and(|r| r != "terms_unmet") {
            assert!(output.stdout.is_empty(), "a refused command line fetches nothing: {args:?}");
        }
    }
    let none = run(&["check"], &key);
    assert_eq!(none.status.code(), Some(2), "no URL, file or catalogue is a usage error");
}

/// A command's arguments (`{good}` replaced), where its standard output goes (None: a pipe)
/// and whether GITHUB_STEP_SUMMARY names /dev/full.
type UnwritableVector = (&'static [&'static str], Option<&'static str>, bool);

#[test]
fn a_write_that_fails_fails_the_command_with_output_unwritable_whatever_the_output() {
    let key = key_file();
    let stand_in = seller(json!({}));
    let good = stand_in.url("/good");
    let vectors: [UnwritableVector; 8] = [
        (&["check", "--format", "json", "--reports", "/dev/full", "{good}"], None, false),
        (&["memo", "--format", "json", "--reports", "/dev/full", "{good}", "{good}"], None, false),
        (&["check", "--format", "json", "{good}"], Some("/dev/full"), false),
        (&["check", "--format", "text", "{good}", "{good}"], Some("/dev/full"), false),
        (&["check", "--format", "markdown", "{good}"], Some("/dev/full"), false),
        (&["check", "--format", "github", "{good}"], None, true),
        (&["criteria"], Some("/dev/full"), false),
        (&["demo"], Some("/dev/full"), false),
    ];
    for (args, stdout, summary_full) in vectors {
        let args: Vec<String> = args.iter().map(|a| a.replace("{good}", &good)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = command(&args, &key);
        if let Some(path) = stdout {
            command.stdout(std::fs::OpenOptions::new().write(true).open(path).unwrap());
        }
        if summary_full {
            command.env("GITHUB_STEP_SUMMARY", "/dev/full");
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        let rules: Vec<Value> = stderr
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .map(|line| line["error"]["rule"].clone())
            .collect();
        assert!(rules.contains(&json!("output_unwritable")), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// An `--expect`, the seller path, the body leg's and the header leg's outcome.
type ExpectVector = (String, &'static str, &'static str, &'static str);

#[test]
fn each_expectation_is_met_unmet_or_absent_in_each_leg_and_no_canary_reaches_any_output() {
    let key = key_file();
    let stand_in = seller(json!({}));
    let expect = |key: &str, value: &str| format!("{key}={value}");
    let mut vectors: Vec<ExpectVector> = Vec::new();
    for (name, value) in [
        ("pay-to", CANARY_PAY_TO),
        ("amount", CANARY_AMOUNT),
        ("max-amount", CANARY_AMOUNT),
        ("network", "solana"),
        ("asset", CANARY_ASSET),
    ] {
        vectors.push((expect(name, value), "/both", "met", "met"));
        vectors.push((expect(name, value), "/header-absent", "met", "absent"));
    }
    vectors.extend([
        (expect("pay-to", CANARY_PAY_TO), "/body-differs", "unmet", "met"),
        (expect("amount", CANARY_AMOUNT), "/body-differs", "unmet", "met"),
        (expect("max-amount", "739104611"), "/both", "unmet", "unmet"),
        (expect("max-amount", "0739104612"), "/body-differs", "met", "met"),
        (expect("network", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"), "/both", "met", "met"),
        (expect("network", "solana"), "/body-differs", "unmet", "met"),
        (expect("asset", CANARY_ASSET), "/body-differs", "unmet", "met"),
    ]);
    let summary = ScratchFile::new("sellers-ci", "summary.md");
    for (expectation, path, body, header) in &vectors {
        let url = stand_in.url(path);
        let met = *body == "met" && *header == "met";
        for format in ["json", "text", "github", "markdown"] {
            let args = ["check", "--format", format, "--expect", expectation, &url];
            let output =
                command(&args, &key).env("GITHUB_STEP_SUMMARY", &*summary).output().unwrap();
            assert_eq!(output.status.code(), Some(if met { 0 } else { 3 }), "{expectation} {path}");
            no_canary(&[&output.stdout, &output.stderr]);
            if format == "json" {
                let line = &json_lines(&output)[0];
                assert!(verifies(&line["report"]), "the report beside its expectations verifies");
                assert!(line["report"].get("expectations").is_none());
                let wanted = json!({"met": met, "results": [{"key": expectation.split('=').next().unwrap(),
                    "fetch": 1, "body": body, "header": header}]});
                assert_eq!(line["expectations"], wanted, "{expectation} {path}");
            }
            if format == "github" {
                let stdout = String::from_utf8(output.stdout).unwrap();
                let name = expectation.split('=').next().unwrap();
                match met {
                    true => assert!(stdout.is_empty(), "{stdout}"),
                    false if *header != "met" => {
                        let phrase = format!("{name}: header leg {header} (fetch 1)");
                        assert!(stdout.contains(&phrase), "{stdout}");
                    }
                    false => {
                        let phrase = format!("{name}: body leg {body} (fetch 1)");
                        assert!(stdout.contains(&phrase), "{stdout}");
                    }
                }
            }
        }
    }
    no_canary(&[&std::fs::read(&*summary).unwrap()]);

    // memo: each fetch evaluated.
    let args = ["memo", "--format", "json", "--expect", "pay-to=x", "--expect", "network=solana"];
    let output = run(&[&args[..], &[&stand_in.url("/both")]].concat(), &key);
    assert_eq!(output.status.code(), Some(3));
    no_canary(&[&output.stdout, &output.stderr]);
    let results = &json_lines(&output)[0]["expectations"]["results"];
    let got: Vec<(&str, u64, &str)> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["key"].as_str().unwrap(), r["fetch"].as_u64().unwrap(), r["body"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("pay-to", 1, "unmet"),
            ("pay-to", 2, "unmet"),
            ("network", 1, "met"),
            ("network", 2, "met")
        ]
    );
}

/// GitHub's escaping undone (`%25` last).
fn unescape(text: &str) -> String {
    text.replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%")
}

/// A markdown cell's numeric references undone.
fn unreference(cell: &str) -> String {
    let mut out = String::new();
    let mut rest = cell;
    while let Some(at) = rest.find("&#") {
        out += &rest[..at];
        let end = rest[at..].find(';').unwrap() + at;
        out.push(char::from_u32(rest[at + 2..end].parse().unwrap()).unwrap());
        rest = &rest[end + 1..];
    }
    out + rest
}

#[test]
fn hostile_urls_make_one_annotation_each_and_cannot_break_the_summary_table() {
    let key = key_file();
    let stand_in = seller(json!({}));
    let urls = [
        stand_in.url("/free/a::b::error%20title=x::y"),
        stand_in.url("/free/p%0A%0D%25x?q=a,b:c&r=%0A"),
        stand_in.url("/free/raw\nline\r::warning::x"),
        stand_in.url("/free/t|ab?x=`y`|z</td><script>&a=[l](j:x)*_~"),
    ];
    let dir = ScratchDir::new("sellers-ci");
    let (summary, reports) = (dir.join("summary.md"), dir.join("reports.jsonl"));
    let reports_arg = reports.to_str().unwrap();
    let mut args =
        vec!["check", "--format", "github", "--require", "POPULATED", "--reports", reports_arg];
    args.extend(urls.iter().map(String::as_str));
    args.push("ftp://refused.example/");
    let output = command(&args, &key).env("GITHUB_STEP_SUMMARY", &summary).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let reported: Vec<Value> = std::fs::read_to_string(&reports)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reported.len(), 5);
    assert!(reported[..4].iter().all(verifies));
    assert_eq!(reported[4]["error"]["rule"], "scheme_not_http");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let annotations: Vec<&str> = stdout.split('\n').filter(|l| !l.is_empty()).collect();
    assert_eq!(annotations.len(), 5, "one annotation a URL, each one line:\n{stdout}");
    assert!(!stdout.contains('\r'));
    for (annotation, report) in annotations.iter().zip(&reported) {
        let rest = annotation.strip_prefix("::error title=").expect("an error annotation");
        let (title, message) = rest.split_once("::").expect("properties end at the first ::");
        assert!(!title.contains([':', ',', '\n', '\r']), "{title}");
        match report["url"].as_str() {
            Some(url) => {
                assert_eq!(unescape(title), format!("payability check: {url}"));
                assert_eq!(unescape(message), "state NOT-A-402 is not one of --require POPULATED");
            }
            None => {
                assert_eq!(unescape(title), "payability check: item 5");
                assert!(message.starts_with("refused (scheme_not_http): "), "{message}");
            }
        }
    }

    let table = std::fs::read_to_string(&summary).unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), 2 + 5, "{table}");
    assert_eq!(rows[0], "| URL | op | state | decided by | expectations | key id |");
    let key_id = ReportSigner::from_seed(&SEED).descriptor().key_id.clone();
    for (row, report) in rows[2..].iter().zip(&reported) {
        assert_eq!(row.matches('|').count(), 7, "six cells: {row}");
        assert!(!row.contains(['`', '<', '>', '[', '*', '_', '~']), "{row}");
        let cells: Vec<String> = row.split(" | ").map(unreference).collect();
        match report["url"].as_str() {
            Some(url) => {
                assert_eq!(cells[0], format!("| {url}"));
                assert_eq!(cells[2], "NOT-A-402 (not one of --require)");
                assert!(cells[3].starts_with("step 1: "), "{row}");
                assert_eq!(cells[5], format!("{key_id} |"));
            }
            None => assert_eq!(cells[0], "| item 5"),
        }
    }

    // --format markdown prints the table the summary holds.
    let mut args = vec!["check", "--format", "markdown", "--require", "POPULATED"];
    args.extend(urls.iter().map(String::as_str));
    args.push("ftp://refused.example/");
    let output = run(&args, &key);
    assert_eq!(output.status.code(), Some(2));
    let printed = String::from_utf8(output.stdout).unwrap();
    assert_eq!(format!("{printed}\n"), table, "the same table, nothing in it varies by run");
}
