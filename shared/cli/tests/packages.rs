//! The npm and PyPI packages and the MCP bundle as a user installs them: `scripts/package
//! --binary` packs this test binary's `payability`, and the tarballs and the wheel are installed
//! offline, from the files alone, into a fresh npm project and a fresh virtualenv. Each entry
//! point (npm's launcher, the wheel's script, `python -m payability`) checks a loopback seller
//! and prints a signed report; the launcher passes exit codes and signals through and honours
//! `PAYABILITY_BINARY`. The bundle, unpacked by the bundle format's own CLI, serves its tools to
//! both official MCP SDKs as its manifest says; and the MCP registry listing (server.json) names
//! these packages as they were made and as the registry proves them ours. Needs `scripts/test`
//! (the packaging tools, the MCP SDKs' pythons).

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use payability_core::signing::verify_signed;
use payability_runtime::mcp::tools::{Offer, names};
use payability_tests::scratch::ScratchDir;
use payability_tests::standin::{Recorded, Reply, StandIn, closed_port};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::mcp_stdio::{Server, client_run, key_file, keys_of};
use crate::support::world::{Ran, run_bounded};
use crate::support::{HOUSE_TOKEN, WALLET};

/// Packing an 80 MB debug binary twice (gzip and deflate) on a shared machine.
const PACKAGE_WITHIN: Duration = Duration::from_secs(300);
/// An offline install from local files, or one command run.
const RUN_WITHIN: Duration = Duration::from_secs(120);
/// How long the launcher has to end once it is signalled.
const EXIT_WITHIN: Duration = Duration::from_secs(10);

/// The artefacts of one `scripts/package --binary` run.
struct Artefacts {
    main: PathBuf,
    platform: PathBuf,
    wheel: PathBuf,
    bundle: PathBuf,
}

/// The one file in `dir` whose name satisfies `wanted`.
fn only(dir: &Path, wanted: impl Fn(&str) -> bool) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| wanted(path.file_name().unwrap().to_str().unwrap()))
        .collect();
    assert_eq!(found.len(), 1, "{found:?} in {}", dir.display());
    found.into_iter().next().unwrap()
}

fn succeeded(ran: Ran, what: &str) -> Ran {
    assert_eq!(ran.status.and_then(|s| s.code()), Some(0), "{what}: {ran}");
    ran
}

fn package(out: &Path) -> Artefacts {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/package");
    let mut command = Command::new(script);
    command.args(["--binary", env!("CARGO_BIN_EXE_payability"), "--out"]).arg(out);
    let ran = succeeded(run_bounded(command, PACKAGE_WITHIN), "scripts/package");
    let version = env!("CARGO_PKG_VERSION");
    let main = format!("payability-{version}.tgz");
    let artefacts = Artefacts {
        main: only(&out.join("npm"), |n| n == main),
        platform: only(&out.join("npm"), |n| n.starts_with("payability-") && n != main),
        wheel: only(&out.join("pypi"), |n| {
            n.starts_with(&format!("payability-{version}-py3-none-")) && n.ends_with(".whl")
        }),
        bundle: only(&out.join("mcpb"), |n| {
            n.starts_with(&format!("payability-{version}-")) && n.ends_with(".mcpb")
        }),
    };
    for path in [&artefacts.main, &artefacts.platform, &artefacts.wheel, &artefacts.bundle] {
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(ran.stdout.contains(name), "the script names each artefact and its size: {ran}");
    }
    artefacts
}

/// The seller: every request gets the same POPULATED challenge for its URL.
fn seller() -> (StandIn, String) {
    let stand_in = StandIn::replying_with(|origin| {
        let url = format!("{origin}/paid");
        let body = json!({"x402Version": 1, "accepts": [{
            "scheme": "exact", "network": "solana", "amount": "10000",
            "maxAmountRequired": "10000", "resource": url, "description": "weather",
            "payTo": "Wallet1",
            "extra": {"feePayer": "Fee1", "usdc_token_account": "Ata1", "memo": "pvm_abcdef12"}}]});
        let header = json!({"x402Version": 2, "resource": {"url": url}, "accepts": [{
            "scheme": "exact", "amount": "10000", "payTo": "Wallet1",
            "extra": {"memo": "pvm_abcdef12"}}]});
        let reply =
            Reply::json(402, &body).header("payment-required", STANDARD.encode(header.to_string()));
        move |_: &Recorded| reply.clone()
    });
    let url = stand_in.url("/paid");
    (stand_in, url)
}

/// `program args...` with a home of its own for the generated signing key.
fn command(program: &[&Path], args: &[&str], home: &Path) -> Command {
    let mut command = Command::new(program[0]);
    command
        .args(&program[1..])
        .args(args)
        .env("XDG_DATA_HOME", home)
        .env_remove("PAYABILITY_SIGNING_KEY_FILE")
        .env_remove("PAYABILITY_ALLOW_PRIVATE_TARGETS")
        .env_remove("PAYABILITY_BINARY");
    command
}

/// `check --allow-private URL --format json` through `program`: a signed POPULATED report,
/// which the same entry point's `verify` accepts.
fn checks_the_seller(program: &[&Path], url: &str, home: &Path, what: &str) {
    let args = ["check", "--allow-private", "--format", "json", url];
    let ran = succeeded(run_bounded(command(program, &args, home), RUN_WITHIN), what);
    let report: Value =
        serde_json::from_str(&ran.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {ran}"));
    assert_eq!(report["state"], "POPULATED", "{what}: {report}");
    assert_eq!(report["url"], url, "{what}");
    assert_eq!(report["signature"]["alg"], "Ed25519", "{what}");
    let file = home.join("report.json");
    std::fs::write(&file, &ran.stdout).unwrap();
    let verify = command(program, &["verify", file.to_str().unwrap()], home);
    succeeded(run_bounded(verify, RUN_WITHIN), what);
}

/// `npm install --offline` of both tarballs into a fresh project, with an empty cache: npm's
/// local-file installs need no registry, and the main package's optionalDependency on this
/// platform's package is the tarball installed with it (the other platforms' are skipped).
fn npm_install(project: &Path, artefacts: &Artefacts) -> PathBuf {
    std::fs::create_dir_all(project).unwrap();
    std::fs::write(project.join("package.json"), r#"{"private": true}"#).unwrap();
    let mut npm = Command::new("npm");
    npm.current_dir(project)
        .args(["install", "--offline", "--no-audit", "--no-fund", "--cache"])
        .arg(project.join("npm-cache"))
        .arg(&artefacts.platform)
        .arg(&artefacts.main);
    succeeded(run_bounded(npm, RUN_WITHIN), "npm install --offline");
    let launcher = project.join("node_modules/.bin/payability");
    assert!(launcher.exists(), "npm linked the launcher");
    manifests_are_biomes_layout(&project.join("node_modules"), artefacts);
    launcher
}

/// The installed manifests: the main package's bin and its optionalDependency on this
/// platform's package at the same version; the platform package's `os`, `cpu` and (on Linux)
/// `libc`; no install script in either.
fn manifests_are_biomes_layout(modules: &Path, artefacts: &Artefacts) {
    let manifest = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(modules.join(name).join("package.json")).unwrap())
            .unwrap()
    };
    let version = env!("CARGO_PKG_VERSION");
    let file = artefacts.platform.file_name().unwrap().to_str().unwrap();
    let name = file.strip_suffix(&format!("-{version}.tgz")).unwrap();
    let (main, platform) = (manifest("payability"), manifest(name));
    assert_eq!(main["bin"]["payability"], "bin/payability");
    assert_eq!(main["optionalDependencies"][name], version, "{main}");
    assert_eq!(platform["version"], version);
    assert_eq!(platform["os"], json!([std::env::consts::OS]), "{platform}");
    assert!(platform["cpu"].as_array().is_some_and(|cpu| cpu.len() == 1), "{platform}");
    if cfg!(target_os = "linux") {
        let libc = if name.ends_with("-musl") { "musl" } else { "glibc" };
        assert_eq!(platform["libc"], json!([libc]), "{platform}");
    }
    for package in [&main, &platform] {
        assert!(package.get("scripts").is_none(), "no install script: {package}");
    }
    assert!(modules.join(name).join("payability").is_file(), "the binary is in {name}");
}

/// A fresh virtualenv with the wheel installed from the file (`--no-index`); its python.
fn pip_install(venv: &Path, wheel: &Path) -> PathBuf {
    let mut create = Command::new("python3");
    create.args(["-m", "venv"]).arg(venv);
    succeeded(run_bounded(create, RUN_WITHIN), "python3 -m venv");
    let mut pip = Command::new(venv.join("bin/pip"));
    pip.args(["install", "--no-index", "--disable-pip-version-check", "--quiet"]).arg(wheel);
    succeeded(run_bounded(pip, RUN_WITHIN), "pip install --no-index");
    venv.join("bin/python")
}

/// The launcher's exit code is the binary's: 2 for a refused URL, 0 for a verdict (above),
/// and any other code a `PAYABILITY_BINARY` returns, with its arguments passed unchanged.
fn launcher_passes_exit_codes_and_honours_the_override(launcher: &Path, home: &Path) {
    let refused = format!("http://127.0.0.1:{}/paid", closed_port());
    let ran = run_bounded(command(&[launcher], &["check", &refused], home), RUN_WITHIN);
    assert_eq!(ran.status.and_then(|s| s.code()), Some(2), "a refused URL: {ran}");
    assert!(ran.stdout.is_empty() && ran.stderr.contains("\"rule\""), "{ran}");

    let stand_in = home.join("stand-in-binary");
    std::fs::write(&stand_in, "#!/bin/sh\necho \"stand-in: $*\"\nexit 7\n").unwrap();
    std::fs::set_permissions(&stand_in, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let mut overridden = command(&[launcher], &["check", "a b"], home);
    overridden.env("PAYABILITY_BINARY", &stand_in);
    let ran = run_bounded(overridden, RUN_WITHIN);
    assert_eq!(ran.status.and_then(|s| s.code()), Some(7), "{ran}");
    assert_eq!(ran.stdout, "stand-in: check a b\n");
}

/// `payability serve` under the launcher: the signal sent to the launcher reaches the
/// server, which it kills, and the launcher ends by the same signal (or 128 + its number).
fn launcher_forwards_signals(launcher: &Path, home: &Path) {
    for (name, number) in [("TERM", 15), ("INT", 2)] {
        let mut serve = Command::new(launcher);
        serve
            .args(["serve", "--port", "0"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("PAYABILITY_OPERATOR_WALLET", WALLET)
            .env("PAYABILITY_STORE", home.join(format!("store-{name}.sqlite3")))
            .env("XDG_DATA_HOME", home)
            .env("PAYABILITY_HOUSE_TOKEN", HOUSE_TOKEN)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut launched = serve.process_group(0).spawn().unwrap();
        // Past a failed assertion, the launcher's group (the server too) is killed by its id.
        let group = Group(launched.id());
        let mut stderr = BufReader::new(launched.stderr.take().unwrap());
        let mut address = None;
        for _ in 0..5 {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap() == 0 {
                break;
            }
            if let Some(base) = line.trim().strip_prefix("payability: serving on http://") {
                address = Some(base.to_owned());
                break;
            }
        }
        let address = address.expect("serve under the launcher announced its address");
        assert!(TcpStream::connect(&address).is_ok(), "the server listens on {address}");
        let (signal, pid) = (format!("-{name}"), launched.id().to_string());
        assert!(Command::new("kill").args([&signal, &pid]).status().unwrap().success());
        let deadline = Instant::now() + EXIT_WITHIN;
        let status = loop {
            if let Some(status) = launched.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the launcher ended within {EXIT_WITHIN:?} of SIG{name}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(
            status.signal() == Some(number) || status.code() == Some(128 + number),
            "SIG{name}: the launcher ended by {status}"
        );
        // The server ended with it: its port closes.
        while TcpStream::connect(&address).is_ok() {
            assert!(Instant::now() < deadline, "the server is gone after SIG{name}");
            std::thread::sleep(Duration::from_millis(20));
        }
        drop(group);
    }
}

/// The MCP registry listing at the repository root.
fn listing() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../server.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The listing's package of `registry_type`, the one it must be.
fn listed_package(listing: &Value, registry_type: &str) -> Value {
    let packages = listing["packages"].as_array().unwrap();
    let found: Vec<&Value> =
        packages.iter().filter(|p| p["registryType"] == registry_type).collect();
    assert_eq!(found.len(), 1, "one {registry_type} package: {packages:?}");
    found[0].clone()
}

/// `text` names the listing as the registry reads an ownership proof: `mcp-name: NAME`
/// followed by a boundary (whitespace, a tag, the end), on a line that is not a comment.
fn proves(text: &str, name: &str) -> bool {
    let token = format!("mcp-name: {name}");
    text.lines().filter(|line| !line.contains("<!--")).any(|line| {
        line.match_indices(&token).any(|(at, _)| {
            let after = line[at + token.len()..].chars().next();
            after.is_none_or(|c| c.is_whitespace() || c == '<' || c == '`')
        })
    })
}

/// The listing names the packages as `scripts/package` made them and as the registry proves
/// them ours: the installed npm package's name and `mcpName`; the installed wheel's name and
/// its README's `mcp-name:` line; this crate's name and its README's visible line (crates.io
/// drops comments); each at the workspace version, run as `<package> mcp` over stdio.
fn listing_names_the_packages(modules: &Path, venv: &Path) {
    let listing = listing();
    let (name, version) = (listing["name"].as_str().unwrap(), env!("CARGO_PKG_VERSION"));
    assert_eq!(listing["version"], version);
    for registry_type in ["npm", "pypi", "cargo"] {
        let package = listed_package(&listing, registry_type);
        assert_eq!(package["version"], version, "{package}");
        assert_eq!(package["transport"], json!({"type": "stdio"}), "{package}");
        let arguments = json!([{"type": "positional", "value": "mcp"}]);
        assert_eq!(package["packageArguments"], arguments, "{package}");
    }

    let npm: Value =
        serde_json::from_slice(&std::fs::read(modules.join("payability/package.json")).unwrap())
            .unwrap();
    assert_eq!(listed_package(&listing, "npm")["identifier"], npm["name"]);
    assert_eq!(npm["mcpName"], name, "npm's ownership proof: {npm}");

    let pypi = listed_package(&listing, "pypi");
    let identifier = pypi["identifier"].as_str().unwrap();
    let dist_info = format!("{identifier}-{version}.dist-info");
    let metadata = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|python| python.unwrap().path().join("site-packages").join(&dist_info))
        .find(|path| path.is_dir())
        .map(|path| std::fs::read_to_string(path.join("METADATA")).unwrap())
        .unwrap_or_else(|| panic!("the wheel's {dist_info} is installed"));
    assert!(metadata.contains(&format!("\nName: {identifier}\n")), "{metadata}");
    assert!(metadata.contains(&format!("\nVersion: {version}\n")), "{metadata}");
    assert!(proves(&metadata, name), "PyPI's ownership proof, in the wheel's README");

    assert_eq!(listed_package(&listing, "cargo")["identifier"], env!("CARGO_PKG_NAME"));
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    assert!(proves(&std::fs::read_to_string(readme).unwrap(), name), "the crate's README");
}

#[test]
fn an_ownership_proof_is_the_token_then_a_boundary_outside_a_comment() {
    for (text, proven) in [
        ("mcp-name: a/b\n", true),
        ("x `mcp-name: a/b` y", true),
        ("<p>mcp-name: a/b</p>", true),
        ("<!-- mcp-name: a/b -->", false),
        ("mcp-name: a/b.", false),
        ("mcp-name: a/bc", false),
        ("mcp-name: a/c", false),
    ] {
        assert_eq!(proves(text, "a/b"), proven, "{text}");
    }
}

/// The MCP bundle as an MCP host installs it: unpacked by the bundle format's own CLI, its
/// manifest runs the binary inside with `mcp`; the server it names, started by the official
/// SDKs' stdio clients (`mcp` 1.x and 2.x) as the manifest says, lists the four tools with the
/// manifest's descriptions and checks the loopback seller, the report verified against its
/// criteria tool's key, with nothing on stderr. The release's listing names the bundle by its
/// release URL and SHA-256.
fn bundle_serves_its_tools(bundle: &Path, url: &str, dir: &Path) {
    let modules = std::env::var("PAYABILITY_TEST_MCP_PACKAGING_MODULES")
        .expect("scripts/test exports the packaging tools");
    let unpacked = dir.join("bundle");
    let mut unpack = Command::new(Path::new(&modules).join(".bin/mcpb"));
    unpack.arg("unpack").arg(bundle).arg(&unpacked);
    succeeded(run_bounded(unpack, RUN_WITHIN), "mcpb unpack");
    let manifest_path = unpacked.join("manifest.json");
    let manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"), "{manifest}");
    let server = &manifest["server"];
    assert_eq!(server["type"], "binary", "{manifest}");
    let entry_point = server["entry_point"].as_str().unwrap();
    assert_eq!(server["mcp_config"]["command"], format!("${{__dirname}}/{entry_point}"));
    assert_eq!(server["mcp_config"]["args"], json!(["mcp"]), "{manifest}");
    let mode = std::fs::metadata(unpacked.join(entry_point)).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0, "the unpacked binary is executable");
    let names = names(Offer::Local);
    let described: serde_json::Map<String, Value> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool["description"].clone()))
        .collect();
    assert_eq!(described.keys().collect::<Vec<_>>().len(), names.len(), "{manifest}");

    let key = key_file();
    for (python_var, sdk) in
        [("PAYABILITY_TEST_X402_PYTHON", "1"), ("PAYABILITY_TEST_MCP2_PYTHON", "2")]
    {
        let python = std::env::var(python_var).expect("scripts/test exports the SDKs' pythons");
        let manifest = Server::Manifest(&manifest_path);
        let (run, stderr) = client_run(&manifest, &python, sdk, "auto", url, key.as_ref());
        let said = format!("sdk {sdk}: {run}");
        assert_eq!(run["tools"], json!(names), "{said}");
        assert_eq!(run["descriptions"], Value::Object(described.clone()), "{said}");
        let keys = keys_of(&run["criteria"]["structuredContent"]);
        let report = &run["check"]["structuredContent"];
        assert_eq!((&report["state"], &report["url"]), (&json!("POPULATED"), &json!(url)));
        assert!(verify_signed(report, &keys).is_ok(), "{said}");
        assert_eq!(stderr, "", "nothing on stderr: {said}");
    }

    let bundles = bundle.parent().unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/package");
    let mut release = Command::new(script);
    release.args(["--listing", "--bundles"]).arg(bundles);
    succeeded(run_bounded(release, RUN_WITHIN), "scripts/package --listing --bundles");
    let released: Value =
        serde_json::from_slice(&std::fs::read(bundles.join("server.json")).unwrap()).unwrap();
    let mcpb = listed_package(&released, "mcpb");
    let file = bundle.file_name().unwrap().to_str().unwrap();
    let release_url = format!(
        "{}/releases/download/v{}/{file}",
        listing()["repository"]["url"].as_str().unwrap(),
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(mcpb["identifier"], release_url, "{mcpb}");
    let sha256: String =
        Sha256::digest(std::fs::read(bundle).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(mcpb["fileSha256"], sha256, "{mcpb}");
}

/// A process group, killed (SIGKILL, by its id) on drop: nothing a test started outlives it.
struct Group(u32);

impl Drop for Group {
    fn drop(&mut self) {
        let group = format!("-{}", self.0);
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
    }
}

#[test]
fn every_package_installs_offline_each_entry_point_reaches_a_signed_verdict_and_the_listing_names_them()
 {
    let dir = ScratchDir::new("packages");
    let artefacts = package(&dir.join("out"));
    let (_seller, url) = seller();

    let started = Instant::now();
    let launcher = npm_install(&dir.join("npm-project"), &artefacts);
    let npm_home = dir.join("npm-home");
    std::fs::create_dir_all(&npm_home).unwrap();
    checks_the_seller(&[&launcher], &url, &npm_home, "npm's payability");
    eprintln!("packages: npm, install to first verdict: {:?}", started.elapsed());

    let started = Instant::now();
    let python = pip_install(&dir.join("venv"), &artefacts.wheel);
    let pip_home = dir.join("pip-home");
    std::fs::create_dir_all(&pip_home).unwrap();
    let script = dir.join("venv/bin/payability");
    checks_the_seller(&[&script], &url, &pip_home, "the wheel's payability");
    eprintln!("packages: pip, venv and install to first verdict: {:?}", started.elapsed());
    checks_the_seller(
        &[&python, Path::new("-m"), Path::new("payability")],
        &url,
        &pip_home,
        "python -m payability",
    );

    launcher_passes_exit_codes_and_honours_the_override(&launcher, &npm_home);
    launcher_forwards_signals(&launcher, &npm_home);

    listing_names_the_packages(&dir.join("npm-project/node_modules"), &dir.join("venv"));
    bundle_serves_its_tools(&artefacts.bundle, &url, dir.path());
}
