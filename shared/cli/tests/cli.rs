//! End-to-end runs of the `payability` command against real loopback targets: every state of
//! both ops, policy refusals, custody of stdout and stderr, and signature verification.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::{PublicKeyDescriptor, ReportSigner, verify_signed};
use payability_tests::scratch::{ScratchDir, ScratchFile};
use payability_tests::standin::{Reply, StandIn, closed_port};
use serde_json::{Value, json};

const SEED_B64: &str = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="; // 32 bytes of 7

/// A fresh scratch directory for one test, removed when it is dropped.
fn scratch_dir() -> ScratchDir {
    ScratchDir::new("cli")
}

/// The test key's seed file (owner-only), in a scratch directory of its own.
fn key_file() -> ScratchFile {
    let key = ScratchFile::new("cli", "seed");
    std::fs::write(&key, SEED_B64).unwrap();
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    key
}

/// One scripted HTTP response: status, optional PAYMENT-REQUIRED value, body.
struct Response {
    status: u16,
    header: Option<String>,
    body: String,
}

impl Response {
    /// The stand-in's answer: the status, the PAYMENT-REQUIRED header if any, the body.
    fn reply(self) -> Reply {
        let reply = Reply::status(self.status).body(self.body);
        match self.header {
            Some(header) => reply.header("payment-required", header),
            None => reply,
        }
    }
}

/// A loopback target answering its scripted responses, one per request, then closing.
struct Target {
    stand_in: StandIn,
    scripted: usize,
}

impl Target {
    /// Asserts that every scripted response was fetched, each once.
    fn join(self) {
        assert_eq!(self.stand_in.requests().len(), self.scripted, "each response fetched once");
    }
}

/// A loopback target that answers one scripted response per request; the script sees the
/// target's own URL.
fn serve(script: impl FnOnce(&str) -> Vec<Response>) -> (String, Target) {
    let mut scripted = 0;
    let stand_in = StandIn::canned_with(|origin| {
        let responses = script(&format!("{origin}/paid"));
        scripted = responses.len();
        responses.into_iter().map(Response::reply).collect()
    });
    (stand_in.url("/paid"), Target { stand_in, scripted })
}

/// The v1 body offer and v2 header of a challenge; `edit` changes them before encoding.
fn challenge(url: &str, memo: &str, edit: impl Fn(&mut Value, &mut Value)) -> Response {
    let mut body = json!({"x402Version": 1, "accepts": [{
        "scheme": "exact", "network": "solana", "amount": "10000", "maxAmountRequired": "10000",
        "resource": url, "description": "weather", "payTo": "Wallet1",
        "extra": {"feePayer": "Fee1", "usdc_token_account": "Ata1", "memo": memo}}]});
    let mut header = json!({"x402Version": 2, "resource": {"url": url}, "accepts": [{
        "scheme": "exact", "amount": "10000", "payTo": "Wallet1", "extra": {"memo": memo}}]});
    edit(&mut body, &mut header);
    let header = (!header.is_null()).then(|| STANDARD.encode(header.to_string()));
    Response { status: 402, header, body: body.to_string() }
}

/// The command with the test key, without PAYABILITY_ALLOW_PRIVATE_TARGETS or NO_COLOR.
fn command(args: &[&str], key: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payability"));
    command
        .args(args)
        .env("PAYABILITY_SIGNING_KEY_FILE", key)
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .env_remove("NO_COLOR");
    command
}

fn payability(args: &[&str], key: &Path) -> Output {
    command(args, key).env("PAYABILITY_ALLOW_PRIVATE_TARGETS", "1").output().unwrap()
}

fn report_of(output: &Output) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A loopback URL where nothing listens (the port was bound, then released).
fn refused_url() -> String {
    format!("http://127.0.0.1:{}/paid", closed_port())
}

type Edit = fn(&mut Value, &mut Value);

/// A target's script: the responses it answers, given its own URL.
type Script = Box<dyn FnOnce(&str) -> Vec<Response>>;

fn no_edit(_: &mut Value, _: &mut Value) {}

#[test]
fn check_prints_a_signed_report_for_every_state() {
    let vectors: [(&str, u16, Edit); 6] = [
        ("POPULATED", 402, no_edit),
        ("AMOUNTS-ONLY", 402, |b, h| {
            let offer = &mut b["accepts"][0];
            offer["payTo"] = json!("");
            offer["extra"] = json!({});
            h["accepts"][0] = json!({"amount": "10000"});
        }),
        ("UNCONFIGURED", 402, |b, _| b["accepts"][0]["extra"]["usdc_token_account"] = json!(null)),
        ("HEADER-MISSING", 402, |_, h| *h = Value::Null),
        ("RESOURCE-MISMATCH", 402, |_, h| {
            h["resource"]["url"] = json!("https://elsewhere.example/")
        }),
        ("NOT-A-402", 200, no_edit),
    ];
    let key = key_file();
    for (state, status, edit) in vectors {
        let (url, target) = serve(|url| {
            let mut response = challenge(url, "pvm_abcdef12", edit);
            response.status = status;
            vec![response]
        });
        let report = report_of(&payability(&["check", &url], &key));
        target.join();
        assert_eq!(report["state"], state, "{report}");
        assert_eq!(report["url"], url);
        assert_eq!(report["house"], true);
        let line = format!(
            "CHALLENGE PAYABILITY VERDICT \u{2014} state: {state} \u{2014} {}",
            report["checked_at"].as_str().unwrap()
        );
        assert_eq!(report["verdict_line"], line);
    }
    let report = report_of(&payability(&["check", &refused_url()], &key));
    assert_eq!(report["state"], "NOT-A-402");
    assert_eq!(report["factors"]["reason"], "fetch_failed");
    assert_eq!(report["factors"]["fetch_ok"], false);
}

#[test]
fn memo_prints_a_signed_report_for_every_state() {
    let memos = |first: &'static str, second: &'static str, edit: Edit| {
        move |url: &str| vec![challenge(url, first, edit), challenge(url, second, edit)]
    };
    let no_header_memo: Edit = |_, h| h["accepts"][0]["extra"] = json!({});
    let vectors: [(&str, Script); 5] = [
        ("BOUND", Box::new(memos("pvm_first0001", "pvm_second002", no_edit))),
        ("MEMO-REUSED", Box::new(memos("pvm_same00001", "pvm_same00001", no_edit))),
        ("LEG-MISMATCH", Box::new(memos("pvm_first0001", "pvm_second002", no_header_memo))),
        ("MEMO-ABSENT", Box::new(memos("", "", no_edit))),
        (
            "NOT-A-402",
            Box::new(|url: &str| {
                let mut second = challenge(url, "pvm_second002", no_edit);
                second.status = 500;
                vec![challenge(url, "pvm_first0001", no_edit), second]
            }),
        ),
    ];
    let key = key_file();
    for (state, script) in vectors {
        let (url, target) = serve(script);
        let report = report_of(&payability(&["memo", &url], &key));
        target.join();
        assert_eq!(report["state"], state, "{report}");
        assert_eq!(report["op"], "memo");
        assert!(
            report["verdict_line"]
                .as_str()
                .unwrap()
                .starts_with("MEMO BINDING VERDICT \u{2014} state: ")
        );
    }
}

#[test]
fn policy_refusals_print_the_rule_on_stderr_and_nothing_on_stdout() {
    let key = key_file();
    let vectors = [
        ("ftp://seller.example/", "scheme_not_http"),
        ("https://user:pw@seller.example/", "credentials_in_url"),
        ("https://exa mple.com/", "url_unparseable"),
        ("localhost:3000/weather", "scheme_missing"),
        ("https://seller.example/x#f", "fragment_in_url"),
    ];
    for (url, rule) in vectors {
        let output = payability(&["check", url], &key);
        assert_eq!(output.status.code(), Some(2));
        assert!(output.stdout.is_empty());
        let error: Value = serde_json::from_slice(&output.stderr).unwrap();
        assert_eq!(error["error"]["rule"], rule);
    }
    let output = command(&["memo", "http://2130706433/"], &key).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("address_not_public"));
}

#[test]
fn allow_private_reaches_a_verdict_and_the_refusal_without_it_names_the_flag() {
    let key = key_file();
    for (op, fetches, state) in [("check", 1, "POPULATED"), ("memo", 2, "BOUND")] {
        let (url, target) = serve(|url| {
            (0..fetches).map(|n| challenge(url, &format!("pvm_fresh000{n}"), no_edit)).collect()
        });
        let refused = command(&[op, &url], &key).output().unwrap();
        assert_eq!(refused.status.code(), Some(2));
        assert!(refused.stdout.is_empty());
        let error: Value = serde_json::from_slice(&refused.stderr).unwrap();
        assert_eq!(error["error"]["rule"], "address_not_public");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("pass --allow-private"), "{message}");
        assert!(!message.contains("127.0.0.1"), "the refusal never echoes the URL");

        // A URL written without a scheme: the core's refusal says to write http://, and the
        // command line adds the flag.
        let bare = url.trim_start_matches("http://");
        let refused = command(&[op, bare], &key).output().unwrap();
        assert_eq!(refused.status.code(), Some(2));
        let error: Value = serde_json::from_slice(&refused.stderr).unwrap();
        assert_eq!(error["error"]["rule"], "scheme_missing");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("http://") && message.contains("--allow-private"), "{message}");
        assert!(!message.contains("127.0.0.1"), "the refusal never echoes the URL");

        let json = ["--allow-private", "--format", "json"];
        let report =
            report_of(&command(&[&[op][..], &json, &[&url]].concat(), &key).output().unwrap());
        target.join();
        assert_eq!(report["state"], state, "{report}");
    }
}

#[test]
fn every_subcommand_help_names_its_flags_environment_and_exit_codes() {
    const EXITS: [&str; 4] = ["Exit codes:", "\n  0  ", "\n  1  ", "\n  2  "];
    const KEY: [&str; 3] = ["PAYABILITY_SIGNING_KEY_FILE", "XDG_DATA_HOME", "HOME"];
    const STORE: [&str; 6] = [
        "PAYABILITY_STORE",
        "PAYABILITY_TABLE_LEDGER",
        "PAYABILITY_TABLE_PAYMENTS",
        "PAYABILITY_TABLE_FREE_TIER",
        "PAYABILITY_TABLE_METRICS",
        "PAYABILITY_TABLE_FX",
    ];
    let target = [
        "--allow-private",
        "--format",
        "PAYABILITY_ALLOW_PRIVATE_TARGETS",
        "NO_COLOR",
        "For sellers: checking a local server",
        "payability check --allow-private http://127.0.0.1:3000/weather",
    ];
    let serve = [
        "--port",
        "PAYABILITY_OPERATOR_WALLET",
        "PAYABILITY_FACILITATOR_URL",
        "PAYABILITY_FEE_PAYER",
        "PAYABILITY_SOLANA_RPC_URL",
        "PAYABILITY_PUBLIC_BASE_URL",
        "PAYABILITY_HOUSE_TOKEN",
        "PAYABILITY_ALLOW_PRIVATE_TARGETS",
        "PAYABILITY_BOC_VALET_ORIGIN",
        "PAYABILITY_SIGNING_PUBLIC_KEY",
        "PAYABILITY_SIGNING_KEY_VALID_FROM",
        "PAYABILITY_PREVIOUS_SIGNING_KEYS",
        "PAYABILITY_SIGNING_KEY_SECRET_ARN",
        "PAYABILITY_HOUSE_TOKEN_SECRET_ARN",
    ];
    let mcp =
        ["--allow-private", "PAYABILITY_ALLOW_PRIVATE_TARGETS", "2026-07-28", "server/discover"];
    let vectors: [(&[&str], Vec<&str>); 10] = [
        (&["check"], [&target[..], &KEY, &EXITS].concat()),
        (&["memo"], [&target[..], &KEY, &EXITS].concat()),
        (&["verify"], [&["--key"][..], &KEY, &EXITS].concat()),
        (&["criteria"], [&KEY[..], &EXITS].concat()),
        (&["demo"], [&KEY[..], &EXITS].concat()),
        (&["mcp"], [&mcp[..], &KEY, &EXITS].concat()),
        (&["serve"], [&serve[..], &KEY, &STORE, &EXITS].concat()),
        (&["ledger"], [&["backfill-cad", "refund"][..], &STORE, &EXITS].concat()),
        (
            &["ledger", "backfill-cad"],
            [&["--limit", "PAYABILITY_BOC_VALET_ORIGIN"][..], &STORE, &EXITS].concat(),
        ),
        (&["ledger", "refund"], [&["--op", "<TX_SIGNATURE>"][..], &STORE, &EXITS].concat()),
    ];
    for (subcommand, wanted) in vectors {
        let output = command(&[subcommand, &["--help"]].concat(), Path::new("/nonexistent"))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{subcommand:?}");
        let help = String::from_utf8(output.stdout).unwrap();
        let missing: Vec<&&str> = wanted.iter().filter(|w| !help.contains(**w)).collect();
        assert!(missing.is_empty(), "{subcommand:?} --help lacks {missing:?}:\n{help}");
    }
}

#[test]
fn the_root_help_lists_the_states_of_both_ops_one_line_each() {
    let output = command(&["--help"], Path::new("/nonexistent")).output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    let (check, memo) = help.split_once("States of memo").expect("a memo states heading");
    let check = check.split_once("States of check").expect("a check states heading").1;
    let vectors: [(&str, &[&str]); 2] = [
        (
            check,
            &[
                "POPULATED",
                "AMOUNTS-ONLY",
                "UNCONFIGURED",
                "HEADER-MISSING",
                "RESOURCE-MISMATCH",
                "NOT-A-402",
            ],
        ),
        (memo, &["BOUND", "MEMO-REUSED", "LEG-MISMATCH", "MEMO-ABSENT", "NOT-A-402"]),
    ];
    let mut lines = 0;
    for (section, states) in vectors {
        for state in states {
            let count = section.lines().filter(|l| l.starts_with(&format!("  {state} "))).count();
            assert_eq!(count, 1, "{state}:\n{help}");
            lines += count;
        }
    }
    assert_eq!(lines, 11);
}

/// The lines of a text view that name a factor: `  > [x] name  value` with a mark column.
fn factor_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.len() > 8 && (l.starts_with("    ") || l.starts_with("  > ")))
        .collect()
}

#[test]
fn the_text_view_lists_every_factor_of_the_report_and_marks_the_deciding_ones() {
    let key = key_file();
    let unconfigured: Edit = |b, _| b["accepts"][0]["extra"]["usdc_token_account"] = json!(null);
    for (op, fetches, state) in [("check", 1, "UNCONFIGURED"), ("memo", 2, "MEMO-REUSED")] {
        let (url, target) = serve(|url| {
            (0..2 * fetches).map(|_| challenge(url, "pvm_same00001", unconfigured)).collect()
        });
        let report = report_of(&command(&[op, "--allow-private", &url], &key).output().unwrap());
        let output =
            command(&[op, "--allow-private", "--format", "text", &url], &key).output().unwrap();
        target.join();
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(!text.contains('\x1b'), "no colour when piped:\n{text}");
        let first = text.lines().next().unwrap();
        let title = if op == "check" { "CHALLENGE PAYABILITY" } else { "MEMO BINDING" };
        assert!(first.starts_with(&format!("{title} VERDICT \u{2014} state: {state} \u{2014} ")));
        assert!(text.contains(&format!("url: {url}\n")));
        let lines = factor_lines(&text);
        let factors = report["factors"].as_object().unwrap();
        let mut names: Vec<String> = Vec::new();
        for (name, value) in factors {
            match name.as_str() {
                "fetches" => {
                    for (n, fetch) in value.as_array().unwrap().iter().enumerate() {
                        let fetch = fetch.as_object().unwrap();
                        names.extend(fetch.keys().map(|k| format!("{k} (fetch {})", n + 1)));
                    }
                }
                "correlation_census" => {
                    for leg in ["body", "header"] {
                        names.extend((1..=2).map(|n| format!("{name} (fetch {n}, {leg})")));
                    }
                }
                _ => names.push(name.clone()),
            }
        }
        for name in &names {
            let with_name =
                lines.iter().filter(|l| l[8..].starts_with(&format!("{name}  "))).count();
            assert_eq!(with_name, 1, "{name}:\n{text}");
        }
        assert_eq!(lines.len(), names.len(), "one line per factor:\n{text}");
        for heading in ["\nfetch\n", "\nbody leg\n", "\nheader leg\n", "\nequality\n"] {
            assert!(text.contains(heading), "{heading}:\n{text}");
        }
        assert!(text.find("\nfetch\n") < text.find("\nbody leg\n"), "fetch factors first");
        // Exactly the factors of decided_by are marked, each once, and named on its line.
        let decided: Vec<&&str> = lines.iter().filter(|l| l.starts_with("  > ")).collect();
        let deciders = report["decided_by"]["factors"].as_array().expect("decided_by");
        assert!(!deciders.is_empty(), "{report}");
        assert_eq!(decided.len(), deciders.len(), "{text}");
        for decider in deciders {
            let name = decider["factor"].as_str().unwrap();
            let label = match decider.get("fetch") {
                Some(n) => format!("{name} (fetch {n})  "),
                None => format!("{name}  "),
            };
            let marked = decided.iter().filter(|l| l[8..].starts_with(&label)).count();
            assert_eq!(marked, 1, "{label}:\n{text}");
        }
        assert!(decided.iter().all(|l| l.ends_with("<- decided")));
        let step = report["decided_by"]["step"].as_u64().unwrap();
        let rule = format!("decided by step {step} of the {op} state rule: ");
        assert!(text.lines().any(|l| l.starts_with(&rule)), "{text}");
        assert!(
            text.trim_end()
                .ends_with("--format json (the default when standard output is not a terminal).")
        );
    }
}

/// Runs the command under a pseudo-terminal (util-linux `script`), with `NO_COLOR` if given.
fn on_a_terminal(args: &[&str], key: &Path, no_color: Option<&str>) -> String {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_payability"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect();
    let mut script = Command::new("script");
    script
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env("PAYABILITY_SIGNING_KEY_FILE", key)
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .env_remove("NO_COLOR");
    if let Some(value) = no_color {
        script.env("NO_COLOR", value);
    }
    let output = script.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_terminal_gets_the_text_view_in_colour_unless_no_color_and_a_pipe_gets_json() {
    let key = key_file();
    let (url, target) =
        serve(|url| (0..4).map(|_| challenge(url, "pvm_abcdef12", no_edit)).collect());
    let args = ["check", "--allow-private", &url];
    let vectors = [(None, true), (Some(""), true), (Some("1"), false)];
    for (no_color, colour) in vectors {
        let shown = on_a_terminal(&args, &key, no_color);
        assert!(
            shown.starts_with("CHALLENGE PAYABILITY VERDICT")
                || shown.starts_with("\x1b[1mCHALLENGE"),
            "{shown}"
        );
        assert!(shown.contains("[x] fetch_ok"), "{shown}");
        assert_eq!(shown.contains('\x1b'), colour, "NO_COLOR={no_color:?}:\n{shown}");
    }
    let piped = command(&args, &key).output().unwrap();
    target.join();
    assert!(!piped.stdout.contains(&0x1b));
    assert_eq!(report_of(&piped)["state"], "POPULATED");
}

#[test]
fn key_file_errors_name_the_setting_and_the_expected_format() {
    const FORMAT: &str = "a 32-byte Ed25519 seed as base64 (44 characters) or 64 hex digits";
    let dir = scratch_dir();
    let malformed = dir.join("malformed");
    std::fs::write(&malformed, "not a seed").unwrap();
    let data_unreadable = scratch_dir();
    std::fs::create_dir_all(data_unreadable.join("payability/signing-key")).unwrap();
    let data_malformed = scratch_dir();
    std::fs::create_dir_all(data_malformed.join("payability")).unwrap();
    std::fs::write(data_malformed.join("payability/signing-key"), "0123").unwrap();
    let vectors: [(Option<PathBuf>, &Path, &[&str]); 4] = [
        (
            Some(dir.join("missing")),
            dir.path(),
            &["named by PAYABILITY_SIGNING_KEY_FILE cannot be read", FORMAT, "never created"],
        ),
        (Some(malformed), dir.path(), &["named by PAYABILITY_SIGNING_KEY_FILE must hold", FORMAT]),
        (
            None,
            data_unreadable.path(),
            &["default signing key file", "PAYABILITY_SIGNING_KEY_FILE", FORMAT],
        ),
        (None, data_malformed.path(), &["default signing key file", "must hold", FORMAT]),
    ];
    for (file, data, wanted) in vectors {
        let mut run = Command::new(env!("CARGO_BIN_EXE_payability"));
        run.arg("criteria").env("XDG_DATA_HOME", data).env_remove("PAYABILITY_SIGNING_KEY_FILE");
        if let Some(file) = &file {
            run.env("PAYABILITY_SIGNING_KEY_FILE", file);
        }
        let output = run.output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty());
        let error: Value = serde_json::from_slice(&output.stderr).unwrap();
        assert_eq!(error["error"]["rule"], "signing_key");
        let message = error["error"]["message"].as_str().unwrap();
        for text in wanted {
            assert!(message.contains(text), "{file:?}: {message}");
        }
        assert!(!message.contains(data.to_str().unwrap()), "the path is never echoed");
    }
    // verify without --key reads the local key (never creating one) and says which setting.
    let report = dir.join("report.json");
    std::fs::write(&report, "{}").unwrap();
    let output = command(&["verify", report.to_str().unwrap()], &dir.join("missing")).output();
    let error: Value = serde_json::from_slice(&output.unwrap().stderr).unwrap();
    assert_eq!(error["error"]["rule"], "key_unreadable");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("PAYABILITY_SIGNING_KEY_FILE") && message.contains("--key"));
}

#[test]
fn no_challenge_value_reaches_stdout_or_stderr() {
    const CANARY: &str = "CANARY5k2w";
    let plant: Edit = |b, h| {
        let offer = &mut b["accepts"][0];
        for field in ["description", "payTo", "scheme", "network"] {
            offer[field] = json!(format!("{CANARY}-{field}"));
        }
        offer["extra"]["memo"] = json!(format!("{CANARY}-memo"));
        offer["extra"]["usdc_token_account"] = json!(format!("{CANARY}-ata"));
        b["error"] = json!(format!("{CANARY}-error"));
        h["accepts"][0]["payTo"] = json!(format!("{CANARY}-payTo"));
        h["accepts"][0]["extra"]["memo"] = json!(format!("{CANARY}-other"));
    };
    let key = key_file();
    for (op, fetches) in [("check", 1), ("memo", 2)] {
        let (url, target) = serve(|url| (0..fetches).map(|_| challenge(url, "", plant)).collect());
        let output = payability(&[op, &url], &key);
        target.join();
        assert_eq!(output.status.code(), Some(0));
        for stream in [&output.stdout, &output.stderr] {
            assert!(!String::from_utf8_lossy(stream).contains(CANARY));
        }
    }
}

#[test]
fn verify_accepts_printed_reports_and_rejects_any_changed_byte() {
    let key = key_file();
    let (url, target) = serve(|url| vec![challenge(url, "pvm_abcdef12", no_edit)]);
    let output = payability(&["check", &url], &key);
    target.join();
    let dir = scratch_dir();
    let path = dir.join("report.json");
    std::fs::write(&path, &output.stdout).unwrap();
    let path_arg = path.to_str().unwrap();

    let verified = payability(&["verify", path_arg], &key);
    assert_eq!(verified.status.code(), Some(0));
    let descriptor = ReportSigner::from_seed(&[7; 32]).descriptor().clone();
    let said = String::from_utf8(verified.stdout).unwrap();
    assert!(said.contains(&descriptor.key_id) && said.contains(&descriptor.fingerprint), "{said}");

    let jwk = serde_json::to_string(&descriptor.jwk).unwrap();
    assert_eq!(payability(&["verify", path_arg, "--key", &jwk], &key).status.code(), Some(0));
    let other = serde_json::to_string(ReportSigner::from_seed(&[9; 32]).descriptor()).unwrap();
    assert_eq!(payability(&["verify", path_arg, "--key", &other], &key).status.code(), Some(1));

    // A criteria document's window: the report's checked_at must fall inside it.
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let checked_at = report["checked_at"].as_str().unwrap().to_owned();
    let windows = [
        (Value::Null, Value::Null, Some(0)),
        (json!("2000-01-01T00:00:00.000Z"), Value::Null, Some(0)),
        (json!(checked_at), json!(checked_at), Some(0)),
        (json!("2000-01-01T00:00:00.000Z"), json!("2000-01-02T00:00:00.000Z"), Some(1)),
        (json!("2999-01-01T00:00:00.000Z"), Value::Null, Some(1)),
        (Value::Null, json!("not a time"), Some(2)),
    ];
    for (from, until, exit) in windows {
        let mut entry = serde_json::to_value(&descriptor).unwrap();
        entry["valid_from"] = from.clone();
        entry["valid_until"] = until.clone();
        let criteria = json!({"signing_keys": [entry]}).to_string();
        let verified = payability(&["verify", path_arg, "--key", &criteria], &key);
        assert_eq!(verified.status.code(), exit, "{from} {until}");
        if exit == Some(1) {
            let said = String::from_utf8(verified.stderr).unwrap();
            assert!(said.contains("signature_outside_key_window"), "{said}");
        }
    }

    // Every single-byte change either breaks the JSON or breaks the signature.
    let trusted: [PublicKeyDescriptor; 1] = [descriptor];
    let original = output.stdout;
    for at in 0..original.len() {
        let mut changed = original.clone();
        changed[at] ^= 0x01;
        if let Ok(document) = serde_json::from_slice::<Value>(&changed) {
            assert!(verify_signed(&document, &trusted).is_err(), "byte {at} changed, still valid");
        }
    }
    for at in [10, original.len() / 2, original.len() - 10] {
        let mut changed = original.clone();
        changed[at] ^= 0x01;
        std::fs::write(&path, &changed).unwrap();
        assert_ne!(payability(&["verify", path_arg], &key).status.code(), Some(0), "byte {at}");
    }
}

/// A key file that lies about its key: `payability verify` names a key by what the key bytes
/// compute to, never by what the file says, and refuses a descriptor whose key id or
/// fingerprint is not its key's; no string of the file reaches the terminal raw.
#[test]
fn verify_names_a_key_by_its_bytes_and_refuses_a_key_file_that_lies() {
    let key = key_file();
    let genuine = ReportSigner::from_seed(&[7; 32]).descriptor().clone();
    let forger = ReportSigner::from_seed(&[9; 32]);
    let hostile_id = "payability-\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}\u{9b}31m";
    // The forger's key, described as (key id, fingerprint): each a report signed by the
    // forger under that key id, and a key file holding the forger's JWK with those words.
    let forged = [
        (genuine.key_id.clone(), genuine.fingerprint.clone()),
        (forger.descriptor().key_id.clone(), genuine.fingerprint.clone()),
        (hostile_id.to_owned(), forger.descriptor().fingerprint.clone()),
        (hostile_id.to_owned(), format!("sha256:{hostile_id}")),
    ];
    for (key_id, fingerprint) in forged {
        let mut report = json!({"op": "check", "checked_at": "2026-12-01T00:00:00.000Z"});
        let mut envelope = serde_json::to_value(forger.sign(&report)).unwrap();
        envelope["key_id"] = json!(key_id);
        report["signature"] = envelope;
        let dir = scratch_dir();
        let path = dir.join("forged-report.json");
        std::fs::write(&path, report.to_string()).unwrap();
        let mut descriptor = serde_json::to_value(forger.descriptor()).unwrap();
        descriptor["keyId"] = json!(key_id);
        descriptor["fingerprint"] = json!(fingerprint);
        for key_input in [descriptor.clone(), json!({"signing_keys": [descriptor]})] {
            let output = payability(
                &["verify", path.to_str().unwrap(), "--key", &key_input.to_string()],
                &key,
            );
            let (stdout, stderr) =
                (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            assert_eq!(output.status.code(), Some(2), "{key_id}: {stdout} {stderr}");
            assert!(stdout.is_empty(), "{stdout}");
            assert!(stderr.contains("key_unreadable"), "{stderr}");
            for shown in [&stdout, &stderr] {
                assert!(!shown.contains(&genuine.fingerprint), "{shown}");
                assert!(
                    !shown.chars().any(|c| "\u{1b}\u{7}\u{202e}\u{9b}".contains(c)),
                    "{shown:?}"
                );
            }
        }
    }
}

/// Names a target supplies (a memo report's census lists its challenge's field names) reach
/// neither view raw: the text view escapes every control, format character and line or
/// paragraph separator, and JSON escapes them too (`\uXXXX`, the same JSON value: the report
/// still verifies).
#[test]
fn names_a_target_supplies_are_escaped_in_the_text_and_the_json_view() {
    const PLANTED: [char; 13] = [
        '\u{1b}',
        '\u{7f}',
        '\u{9b}',
        '\u{85}',
        '\u{202e}',
        '\u{2066}',
        '\u{61c}',
        '\u{200b}',
        '\u{200d}',
        '\u{feff}',
        '\u{2028}',
        '\u{2029}',
        '\u{e0041}',
    ];
    let plant = |b: &mut Value, h: &mut Value| {
        for (i, c) in PLANTED.iter().enumerate() {
            b["accepts"][0][format!("name{i}{c}")] = json!(1);
            h["accepts"][0][format!("name{i}{c}")] = json!(1);
        }
    };
    let key = key_file();
    let trusted = [ReportSigner::from_seed(&[7; 32]).descriptor().clone()];
    for format in ["text", "json"] {
        let (url, target) =
            serve(|url| (0..2).map(|_| challenge(url, "pvm_abcdef12", plant)).collect());
        let output = payability(&["memo", &url, "--format", format], &key);
        target.join();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let shown = String::from_utf8(output.stdout.clone()).unwrap();
        let raw: Vec<char> = shown.chars().filter(|c| PLANTED.contains(c)).collect();
        assert!(raw.is_empty(), "{format}: {raw:?} shown raw in\n{shown}");
        assert!(shown.contains("name0"), "{format}: the census is shown");
        if format == "json" {
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert!(verify_signed(&report, &trusted).is_ok(), "the escaped report verifies");
            let census = &report["factors"]["correlation_census"]["fetch1"]["body"];
            for (i, c) in PLANTED.iter().enumerate() {
                assert!(
                    census.as_array().unwrap().contains(&json!(format!("name{i}{c}"))),
                    "{c:?}"
                );
            }
        }
    }
}

#[test]
fn a_missing_key_is_generated_once_and_announced_on_stderr() {
    let data = scratch_dir();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_payability"))
            .arg("criteria")
            .env("XDG_DATA_HOME", data.path())
            .env_remove("PAYABILITY_SIGNING_KEY_FILE")
            .output()
            .unwrap()
    };
    let first = run();
    let stderr = String::from_utf8(first.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(data.join("payability/signing-key").to_str().unwrap()));
    let second = run();
    assert!(second.stderr.is_empty());
    let criteria: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(criteria["criteria_revision"], "1.5.0");
    assert_eq!(criteria["signing_keys"].as_array().unwrap().len(), 1);
}

#[test]
fn demo_checks_the_embedded_seller_populated_and_bound() {
    let key = key_file();
    let output = Command::new(env!("CARGO_BIN_EXE_payability"))
        .arg("demo")
        .env("PAYABILITY_SIGNING_KEY_FILE", &*key)
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .output()
        .unwrap();
    let demo = report_of(&output);
    assert_eq!(demo["check"]["state"], "POPULATED", "{demo}");
    assert_eq!(demo["memo"]["state"], "BOUND", "{demo}");
    let trusted = [ReportSigner::from_seed(&[7; 32]).descriptor().clone()];
    for op in ["check", "memo"] {
        assert!(verify_signed(&demo[op], &trusted).is_ok());
    }
}
