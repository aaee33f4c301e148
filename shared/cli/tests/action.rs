//! The GitHub Action (`action.yml`, `action/run.sh`) run here as GitHub runs it: the script
//! with its inputs as `INPUT_*` variables, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and
//! `RUNNER_TEMP`, against loopback sellers. Its outputs in the multiline form, the summary
//! table, the reports file's lines and the exit code; `action.yml` passing every input it
//! declares; and the release path: an archive run only when its SHA-256 is the one the
//! release's SHA256SUMS lists, served from a `file://` directory (no network).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn};
use serde_json::{Value, json};

use crate::support::world::{Ran, run_bounded};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../action/run.sh");
const ACTION_YML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../action.yml");
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// One run of the script: up to two ops over two loopback sellers.
const RUN_WITHIN: Duration = Duration::from_secs(120);

/// A loopback seller answering 402 with a fresh memo each time: configured (POPULATED,
/// BOUND) or without its token account (UNCONFIGURED).
fn seller(configured: bool) -> StandIn {
    StandIn::replying_with(move |origin| {
        let origin = origin.to_owned();
        let served = AtomicUsize::new(0);
        move |request: &Recorded| {
            let url = format!("{origin}{}", request.path);
            let memo = format!("pvm_{:08}", served.fetch_add(1, Ordering::SeqCst));
            let account = if configured { json!("Ata1") } else { json!(null) };
            let body = json!({"x402Version": 1, "accepts": [{
                "scheme": "exact", "network": "solana", "amount": "10000",
                "maxAmountRequired": "10000", "resource": url, "description": "weather",
                "payTo": "Wallet1",
                "extra": {"feePayer": "Fee1", "usdc_token_account": account, "memo": memo}}]});
            let header = json!({"x402Version": 2, "resource": {"url": url}, "accepts": [{
                "scheme": "exact", "amount": "10000", "payTo": "Wallet1",
                "extra": {"memo": memo}}]});
            Reply::json(402, &body).header("payment-required", STANDARD.encode(header.to_string()))
        }
    })
}

/// A runner's files for one job: the step summary, the outputs file, RUNNER_TEMP and a home
/// for the generated signing key.
struct Runner {
    dir: ScratchDir,
}

impl Runner {
    fn new() -> Self {
        let dir = ScratchDir::new("action");
        std::fs::create_dir_all(dir.join("runner-temp")).unwrap();
        std::fs::write(dir.join("summary.md"), "").unwrap();
        std::fs::write(dir.join("output"), "").unwrap();
        Self { dir }
    }

    /// The script with `inputs` (INPUT_<NAME>, as action.yml passes them), the test's binary
    /// unless `binary` is None (then the release path, with `env`).
    fn run(&self, inputs: &[(&str, &str)], binary: Option<&str>, env: &[(&str, &str)]) -> Ran {
        let mut command = Command::new("bash");
        command
            .arg(SCRIPT)
            .env("GITHUB_STEP_SUMMARY", self.dir.join("summary.md"))
            .env("GITHUB_OUTPUT", self.dir.join("output"))
            .env("RUNNER_TEMP", self.dir.join("runner-temp"))
            .env("XDG_DATA_HOME", self.dir.path())
            .env_remove("PAYABILITY_SIGNING_KEY_FILE")
            .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
            .env_remove("PAYABILITY_BINARY")
            .env_remove("PAYABILITY_RELEASE_BASE");
        for (name, _) in std::env::vars() {
            if name.starts_with("INPUT_") {
                command.env_remove(name);
            }
        }
        for (name, value) in inputs {
            command.env(format!("INPUT_{}", name.to_uppercase()), value);
        }
        if let Some(binary) = binary {
            command.env("PAYABILITY_BINARY", binary);
        }
        command.envs(env.iter().copied());
        run_bounded(command, RUN_WITHIN)
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.dir.join("summary.md")).unwrap()
    }

    /// GITHUB_OUTPUT read as the runner reads it: every entry `name<<DELIMITER`, the value's
    /// lines, the delimiter alone on its line; each name once.
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(self.dir.join("output")).unwrap();
        let mut outputs = BTreeMap::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let (name, delimiter) = line.split_once("<<").unwrap_or_else(|| panic!("{text}"));
            assert!(delimiter.len() >= 20, "an unguessable delimiter: {text}");
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
            let had = outputs.insert(name.to_owned(), value.join("\n"));
            assert!(had.is_none(), "{name} written twice: {text}");
        }
        outputs
    }

    /// The `reports` output's file, each line parsed.
    fn reports(&self) -> Vec<Value> {
        let path = self.outputs()["reports"].clone();
        assert!(path.starts_with(self.dir.join("runner-temp").to_str().unwrap()), "{path}");
        let text = std::fs::read_to_string(&path).unwrap();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    }
}

fn code(ran: &Ran) -> Option<i32> {
    ran.status.and_then(|status| status.code())
}

fn states(reports: &[Value]) -> Vec<&str> {
    reports.iter().map(|report| report["state"].as_str().unwrap_or("-")).collect()
}

#[test]
fn the_action_checks_each_url_and_writes_its_outputs_the_summary_and_the_exit_code() {
    let (good, unconfigured) = (seller(true), seller(false));
    let (good_url, bad_url) = (good.url("/weather"), unconfigured.url("/weather"));
    let runner = Runner::new();
    let urls = format!("  {good_url}\n\n# the shop's second endpoint\n{bad_url}\r\n");
    let inputs =
        [("urls", urls.as_str()), ("op", "check"), ("require", ""), ("allow-private", "true")];
    let ran = runner.run(&inputs, Some(env!("CARGO_BIN_EXE_payability")), &[]);
    assert_eq!(code(&ran), Some(3), "the default --require POPULATED: {ran}");

    let outputs = runner.outputs();
    assert_eq!(outputs.keys().collect::<Vec<_>>(), ["exit-code", "reports"], "{outputs:?}");
    assert_eq!(outputs["exit-code"], "3");
    let reports = runner.reports();
    assert_eq!(states(&reports), ["POPULATED", "UNCONFIGURED"], "{reports:?}");
    assert_eq!(reports[0]["url"], good_url);
    assert_eq!(reports[1]["url"], bad_url);
    assert!(reports.iter().all(|r| r["signature"]["alg"] == "Ed25519"), "{reports:?}");

    let annotations: Vec<&str> = ran.stdout.lines().filter(|l| l.starts_with("::error")).collect();
    assert_eq!(annotations.len(), 1, "one annotation, for the unconfigured seller: {ran}");
    let summary = runner.summary();
    assert!(summary.starts_with("### payability check\n\n"), "{summary}");
    assert_eq!(summary.matches("### payability").count(), 1, "one heading: {summary}");
    let rows: Vec<&str> = summary.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), 4, "a header, its rule and a row a URL: {summary}");
    assert!(rows[2].contains(&good_url) && rows[2].contains("POPULATED"), "{summary}");
    assert!(rows[3].contains(&bad_url) && rows[3].contains("UNCONFIGURED"), "{summary}");

    // Within the terms given: exit 0, still every report.
    let runner = Runner::new();
    let inputs = [
        ("urls", urls.as_str()),
        ("require", "POPULATED,UNCONFIGURED"),
        ("allow-private", "true"),
        ("expect", "\npay-to=Wallet1\n  amount=10000  \n"),
    ];
    let ran = runner.run(&inputs, Some(env!("CARGO_BIN_EXE_payability")), &[]);
    assert_eq!(code(&ran), Some(0), "{ran}");
    assert_eq!(runner.outputs()["exit-code"], "0");
    let reports = runner.reports();
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert!(reports.iter().all(|r| r["expectations"].is_object()), "{reports:?}");
    assert!(!ran.stdout.contains("::error"), "{ran}");

    // Loopback without allow-private: refused (2), nothing fetched.
    let (before, runner) = (good.requests().len(), Runner::new());
    let ran = runner.run(&[("urls", &good_url)], Some(env!("CARGO_BIN_EXE_payability")), &[]);
    assert_eq!(code(&ran), Some(2), "{ran}");
    assert_eq!(runner.outputs()["exit-code"], "2");
    assert_eq!(good.requests().len(), before);
}

#[test]
fn op_both_runs_check_then_memo_each_with_its_own_required_states() {
    let good = seller(true);
    let url = good.url("/weather");
    let binary = Some(env!("CARGO_BIN_EXE_payability"));
    for require in ["", "POPULATED,BOUND", "none"] {
        let runner = Runner::new();
        let inputs = [("urls", url.as_str()), ("op", "both"), ("require", require)];
        let ran =
            runner.run(&[inputs[0], inputs[1], inputs[2], ("allow-private", "TRUE")], binary, &[]);
        assert_eq!(code(&ran), Some(0), "require {require:?}: {ran}");
        let reports = runner.reports();
        assert_eq!(states(&reports), ["POPULATED", "BOUND"], "{reports:?}");
        let lines: Vec<&str> =
            reports.iter().map(|r| r["verdict_line"].as_str().unwrap()).collect();
        assert!(lines[0].starts_with("CHALLENGE PAYABILITY VERDICT"), "{lines:?}");
        assert!(lines[1].starts_with("MEMO BINDING VERDICT"), "{lines:?}");
        let summary = runner.summary();
        let (check, memo) =
            (summary.find("### payability check"), summary.find("### payability memo"));
        assert!(check.is_some() && check < memo, "{summary}");
        assert_eq!(summary.matches("### payability").count(), 2, "a heading an op: {summary}");
    }

    // A memo state only memo can have: memo outside its terms (3) while check is within.
    let runner = Runner::new();
    let inputs = [
        ("urls", url.as_str()),
        ("op", "both"),
        ("require", "POPULATED,MEMO-ABSENT"),
        ("allow-private", "true"),
    ];
    let ran = runner.run(&inputs, binary, &[]);
    assert_eq!(code(&ran), Some(3), "{ran}");
    assert_eq!(runner.outputs()["exit-code"], "3");

    // States of one op only, or an op of neither name: refused before anything is fetched.
    let before = good.requests().len();
    for (op, require, says) in [
        ("both", "POPULATED", "require names none of memo's states"),
        ("all", "", "op must be check, memo, both or doctor"),
    ] {
        let runner = Runner::new();
        let inputs =
            [("urls", url.as_str()), ("op", op), ("require", require), ("allow-private", "true")];
        let ran = runner.run(&inputs, binary, &[]);
        assert_eq!(code(&ran), Some(2), "{ran}");
        assert!(ran.stdout.contains(&format!("::error title=payability action::{says}")), "{ran}");
    }
    assert_eq!(good.requests().len(), before);
}

#[test]
fn op_doctor_runs_the_check_list_at_its_fail_on_level_and_takes_none_of_checks_terms() {
    // The header's offer lacks network and asset (accepts-shape, an error); the v1 body and
    // the v2 header are a dual-version challenge (legs-agree not applicable).
    let seller = seller(true);
    let url = seller.url("/weather");
    let binary = Some(env!("CARGO_BIN_EXE_payability"));
    let runner = Runner::new();
    let inputs = [("urls", url.as_str()), ("op", "doctor"), ("allow-private", "true")];
    let ran = runner.run(&inputs, binary, &[]);
    assert_eq!(code(&ran), Some(3), "{ran}");
    assert_eq!(runner.outputs()["exit-code"], "3");
    let reports = runner.reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["list"], "doctor/v1");
    let failed: Vec<&str> = reports[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(failed.contains(&"accepts-shape") && !failed.contains(&"legs-agree"), "{failed:?}");
    assert!(ran.stdout.contains("::error title=payability doctor"), "{ran}");
    assert!(ran.stdout.contains("::warning title=payability doctor"), "{ran}");
    let summary = runner.summary();
    assert!(summary.starts_with("### payability doctor\n\n"), "{summary}");
    assert_eq!(summary.matches("### payability").count(), 1, "{summary}");

    // Check's and memo's terms are not doctor's, nor doctor's level theirs: refused (2)
    // before anything is fetched.
    let before = seller.requests().len();
    for (inputs, says) in [
        ([("op", "doctor"), ("require", "POPULATED")], "require and expect are check's"),
        ([("op", "doctor"), ("expect", "pay-to=Wallet1")], "require and expect are check's"),
        ([("op", "doctor"), ("fail-on", "fatal")], "fail-on must be error, warning or info"),
        ([("op", "check"), ("fail-on", "warning")], "fail-on is op doctor's"),
    ] {
        let runner = Runner::new();
        let all = [("urls", url.as_str()), ("allow-private", "true"), inputs[0], inputs[1]];
        let ran = runner.run(&all, binary, &[]);
        assert_eq!(code(&ran), Some(2), "{inputs:?}: {ran}");
        assert!(ran.stdout.contains(&format!("::error title=payability action::{says}")), "{ran}");
    }
    assert_eq!(seller.requests().len(), before);
}

#[test]
fn no_input_becomes_an_option_of_the_command_and_no_value_starts_a_workflow_command() {
    let good = seller(true);
    let url = good.url("/weather");
    let binary = Some(env!("CARGO_BIN_EXE_payability"));
    // A `urls` line that is not an http(s) URL: refused (2) before the binary runs, even one
    // that would lift allow-private or point the command at another list.
    for line in [
        "--require=NOT-A-402",
        "--help",
        "--allow-private",
        "--urls-from=/etc/passwd",
        "-h",
        "ftp://x.example/",
        "127.0.0.1/weather",
    ] {
        let runner = Runner::new();
        let urls = format!("{url}\n{line}\n");
        let ran = runner.run(&[("urls", &urls), ("allow-private", "false")], binary, &[]);
        assert_eq!(code(&ran), Some(2), "{line}: {ran}");
        assert!(
            ran.stdout.starts_with("::error title=payability action::every urls line is an http"),
            "{line}: {ran}"
        );
        assert!(runner.outputs().is_empty(), "{line}: the command never ran");
    }
    assert!(good.requests().is_empty(), "nothing fetched");

    // A value that looks like an option stays a value: an expectation is an expectation.
    let runner = Runner::new();
    let inputs = [("urls", url.as_str()), ("allow-private", "true"), ("expect", "--help")];
    let ran = runner.run(&inputs, binary, &[]);
    assert_eq!(code(&ran), Some(2), "{ran}");
    assert!(ran.stderr.contains("expect_"), "refused as an expectation: {ran}");

    // A newline in an input the script echoes cannot start a workflow command.
    let smuggled = "x\n::add-mask::secret\r\n::stop-commands::token\n%0A";
    for (input, says) in [
        ("op", "op must be check, memo, both or doctor"),
        ("allow-private", "allow-private must be true or false"),
        ("version", "version must be a release version"),
    ] {
        let runner = Runner::new();
        let binary = if input == "version" { None } else { binary };
        let ran = runner.run(&[("urls", url.as_str()), (input, smuggled)], binary, &[]);
        assert_eq!(code(&ran), Some(2), "{input}: {ran}");
        assert_eq!(ran.stdout.lines().count(), 1, "{input}: one line: {ran}");
        assert!(ran.stdout.contains(says), "{input}: {ran}");
        assert!(
            ran.stdout.contains("x%0A::add-mask::secret%0A::stop-commands::token%0A%250A"),
            "{input}: the value escaped (its CR dropped by the trim): {ran}"
        );
    }
}

/// A stand-in for the binary: a script that exits with `check`'s code for check and `memo`'s
/// for memo.
fn exiting(dir: &ScratchDir, check: u8, memo: u8) -> PathBuf {
    let path = dir.join(&format!("exits-{check}-{memo}"));
    let script =
        format!("#!/bin/sh\ncase \"$1\" in check) exit {check} ;; *) exit {memo} ;; esac\n");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path
}

#[test]
fn across_ops_a_crash_code_outranks_failed_refused_and_terms_unmet() {
    let dir = ScratchDir::new("action-exits");
    // (check's code, memo's code, the run's)
    let vectors: [(u8, u8, u8); 8] = [
        (101, 1, 101),
        (101, 2, 101),
        (137, 3, 137),
        (137, 0, 137),
        (3, 101, 101),
        (0, 137, 137),
        (3, 1, 1),
        (2, 3, 2),
    ];
    for (check, memo, expected) in vectors {
        let binary = exiting(&dir, check, memo);
        let runner = Runner::new();
        let inputs = [("urls", "https://shop.example/paid"), ("op", "both"), ("require", "none")];
        let ran = runner.run(&inputs, Some(binary.to_str().unwrap()), &[]);
        assert_eq!(code(&ran), Some(i32::from(expected)), "{check} then {memo}: {ran}");
        assert_eq!(runner.outputs()["exit-code"], expected.to_string(), "{check} then {memo}");
    }
}

/// action.yml as YAML (python3's yaml, as GitHub's parser would read it), as JSON.
fn action_yml() -> Value {
    let program =
        "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)";
    let output = Command::new("python3").args(["-c", program, ACTION_YML]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn action_yml_is_a_composite_action_passing_every_input_to_the_script() {
    let action = action_yml();
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "one step, the script: {steps:?}");
    let step = &steps[0];
    assert_eq!(step["id"], "run");
    assert_eq!(step["shell"], "bash");
    assert_eq!(step["run"], "bash \"$GITHUB_ACTION_PATH/action/run.sh\"");

    let inputs = action["inputs"].as_object().unwrap();
    let env = step["env"].as_object().unwrap();
    let wanted: BTreeMap<String, String> = inputs
        .keys()
        .map(|name| (format!("INPUT_{}", name.to_uppercase()), format!("${{{{ inputs.{name} }}}}")))
        .collect();
    let passed: BTreeMap<String, String> =
        env.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect();
    assert_eq!(passed, wanted, "every input passed as INPUT_<NAME>, nothing else");
    let names: Vec<&str> = inputs.keys().map(String::as_str).collect();
    let mut expected = [
        "urls",
        "urls-file",
        "catalogue",
        "op",
        "require",
        "expect",
        "fail-on",
        "allow-private",
        "version",
    ];
    expected.sort_unstable();
    let mut names = names;
    names.sort_unstable();
    assert_eq!(names, expected);
    let script = std::fs::read_to_string(SCRIPT).unwrap();
    for name in inputs.keys() {
        let read = format!("input {}", name.to_uppercase());
        assert!(script.contains(&read), "action/run.sh never reads {name}");
    }
    assert_eq!(inputs["version"]["default"], VERSION, "the action installs its own release");
    assert_eq!(inputs["op"]["default"], "check");
    for (output, from) in [("exit-code", "exit-code"), ("reports", "reports")] {
        let value = &action["outputs"][output]["value"];
        assert_eq!(*value, format!("${{{{ steps.run.outputs.{from} }}}}"), "{output}");
    }
}

/// A release directory as GitHub serves one: `v<V>/<archive>` and `v<V>/SHA256SUMS`. The
/// archive's `payability` is a script that runs the test's binary.
struct Release {
    dir: ScratchDir,
    archive: PathBuf,
}

const LINUX_X64_ARCHIVE: &str = "x86_64-unknown-linux-musl.tgz";

impl Release {
    fn new() -> Self {
        let dir = ScratchDir::new("action-release");
        let stage = dir.join("stage");
        std::fs::create_dir_all(&stage).unwrap();
        let launcher = format!("#!/bin/sh\nexec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_payability"));
        std::fs::write(stage.join("payability"), launcher).unwrap();
        std::fs::set_permissions(
            stage.join("payability"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let tag = dir.join(&format!("v{VERSION}"));
        std::fs::create_dir_all(&tag).unwrap();
        let archive = tag.join(format!("payability-cli-v{VERSION}-{LINUX_X64_ARCHIVE}"));
        let release = Self { dir, archive };
        release.pack(&stage);
        release
    }

    /// The archive made anew of `stage`'s `payability`, and SHA256SUMS naming it.
    fn pack(&self, stage: &Path) {
        let tar = Command::new("tar")
            .arg("-czf")
            .arg(&self.archive)
            .arg("-C")
            .arg(stage)
            .arg("payability")
            .status()
            .unwrap();
        assert!(tar.success());
        self.write_sums(&self.archive_name());
    }

    fn archive_name(&self) -> String {
        self.archive.file_name().unwrap().to_str().unwrap().to_owned()
    }

    /// SHA256SUMS (sha256sum's format) naming the archive's digest under `name`.
    fn write_sums(&self, name: &str) {
        let output = Command::new("sha256sum").arg(&self.archive).output().unwrap();
        assert!(output.status.success());
        let digest = String::from_utf8(output.stdout).unwrap()[..64].to_owned();
        let sums = format!("{}  other-v{VERSION}.zip\n{digest}  {name}\n", "0".repeat(64));
        std::fs::write(self.sums(), sums).unwrap();
    }

    fn sums(&self) -> PathBuf {
        self.archive.with_file_name("SHA256SUMS")
    }

    fn base(&self) -> String {
        format!("file://{}", self.dir.path().display())
    }
}

fn release_run(release: &Release, url: &str) -> (Runner, Ran) {
    release_run_from(&release.base(), url)
}

/// The release path with PAYABILITY_RELEASE_BASE at `base`.
fn release_run_from(base: &str, url: &str) -> (Runner, Ran) {
    let runner = Runner::new();
    let inputs = [("urls", url), ("version", VERSION), ("allow-private", "true")];
    let env = [("PAYABILITY_RELEASE_BASE", base), ("RUNNER_OS", "Linux"), ("RUNNER_ARCH", "X64")];
    let ran = runner.run(&inputs, None, &env);
    (runner, ran)
}

/// Whether any file named `payability` is under `dir`.
fn unpacked(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() { unpacked(&path) } else { path.ends_with("payability") }
    })
}

/// A way to spoil a release directory.
type Spoil = dyn Fn(&Release);

#[test]
fn the_release_archive_runs_only_when_its_sha256_is_the_one_its_sums_file_lists() {
    let good = seller(true);
    let url = good.url("/weather");
    let release = Release::new();

    let (runner, ran) = release_run(&release, &url);
    assert_eq!(code(&ran), Some(0), "{ran}");
    assert!(ran.stderr.contains(&format!("{} sha256:", release.archive_name())), "{ran}");
    assert!(ran.stderr.contains("verified against SHA256SUMS"), "{ran}");
    assert_eq!(states(&runner.reports()), ["POPULATED"]);
    let fetched = good.requests().len();
    assert_eq!(fetched, 1);

    // Each way the download can fail to be the release's: exit 1, nothing run, no outputs.
    let refusals: [(&str, &Spoil); 4] = [
        ("SHA-256 mismatch for", &|r| {
            let mut bytes = std::fs::read(&r.archive).unwrap();
            bytes.push(0);
            std::fs::write(&r.archive, bytes).unwrap();
        }),
        ("lists payability-cli-", &|r| r.write_sums("payability-cli-v0.0.0-elsewhere.tgz")),
        ("lists payability-cli-", &|r| {
            let sums = std::fs::read_to_string(r.sums()).unwrap();
            std::fs::write(r.sums(), format!("{sums}{sums}")).unwrap();
        }),
        ("could not download", &|r| std::fs::remove_file(r.sums()).unwrap()),
    ];
    // The archive's `payability` a link (here to a program that would pass): refused.
    let release = Release::new();
    let stage = release.dir.join("linked");
    std::fs::create_dir_all(&stage).unwrap();
    std::os::unix::fs::symlink("/bin/true", stage.join("payability")).unwrap();
    release.pack(&stage);
    let (runner, ran) = release_run(&release, &url);
    assert_eq!(code(&ran), Some(1), "{ran}");
    assert!(ran.stdout.contains("a link is refused"), "{ran}");
    assert!(runner.outputs().is_empty());
    assert_eq!(good.requests().len(), fetched, "the link never ran");

    for (says, spoil) in refusals {
        let release = Release::new();
        spoil(&release);
        let (runner, ran) = release_run(&release, &url);
        assert_eq!(code(&ran), Some(1), "{says}: {ran}");
        assert!(ran.stdout.starts_with("::error title=payability action::"), "{says}: {ran}");
        assert!(ran.stdout.contains(says), "{says}: {ran}");
        assert!(runner.outputs().is_empty(), "{says}");
        assert_eq!(good.requests().len(), fetched, "{says}: the binary never ran");
        assert!(!unpacked(&runner.dir.join("runner-temp")), "{says}: nothing unpacked");
    }
}

#[test]
fn a_release_base_other_than_a_file_one_is_read_over_https_only() {
    // A loopback release server over plain HTTP: curl refuses the protocol before it connects.
    let release = Release::new();
    let archive = std::fs::read(&release.archive).unwrap();
    let sums = std::fs::read(release.sums()).unwrap();
    let server = StandIn::replying(move |request: &Recorded| {
        let bytes =
            if request.path.ends_with("SHA256SUMS") { sums.clone() } else { archive.clone() };
        Reply::status(200).body(bytes)
    });
    let (runner, ran) = release_run_from(&server.origin(), "https://shop.example/paid");
    assert_eq!(code(&ran), Some(1), "{ran}");
    assert!(ran.stdout.contains("could not download"), "{ran}");
    assert!(runner.outputs().is_empty());
    assert_eq!(server.accepted(), 0, "no plain-HTTP connection: {ran}");
}
