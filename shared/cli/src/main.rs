//! `payability`: check an x402 endpoint's 402 challenge from a terminal, check its memo
//! binding, verify a signed report, or print the criteria document.

mod demo;
mod doctor;
mod escape;
mod exit;
mod help;
mod ledger;
mod local;
mod mcp;
mod run;
mod serve;
mod targets;
mod text;
mod verify;
mod views;

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::process::ExitCode;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Parser, Subcommand};
use payability_core::criteria::{SigningKeyEntry, criteria_document, published};
use payability_core::doctor::Level;
use payability_core::expect::Expectations;
use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, vet_target_url};
use payability_runtime::signing_key::KeySource;
use serde_json::json;

use exit::{EXIT_FAILED, EXIT_REFUSED, current_thread_runtime, print_answer, print_error};
use local::{
    address_rule, build_fetcher, house_report, key_error_message, local_signer, refusal_problem,
};
use run::Format;

#[derive(Parser)]
#[command(
    name = "payability",
    version,
    about = "Signed, field-level payability verdicts on x402 402 challenges",
    after_help = help::root()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch each URL once and print its signed check report (six states).
    #[command(after_help = help::check(PaidOp::Check), override_usage = help::usage("check"))]
    Check(TargetArgs),
    /// Fetch each URL twice, back to back, and print its signed memo-binding report (five states).
    #[command(after_help = help::check(PaidOp::Memo), override_usage = help::usage("memo"))]
    Memo(TargetArgs),
    /// Run the published check list (doctor/v1) on each URL: will buyers pay it and indexers find it?
    #[command(after_help = help::doctor(), override_usage = help::doctor_usage())]
    Doctor(DoctorArgs),
    /// Verify a report's signature and say which key signed it.
    #[command(after_help = help::verify())]
    Verify {
        /// The report JSON file (`-` for standard input).
        report: String,
        /// A JWK, a key descriptor or a criteria document: inline JSON or a file path.
        /// Default: the local signing key.
        #[arg(long)]
        key: Option<String>,
    },
    /// Print the criteria document, with the local signing key's descriptor.
    #[command(after_help = help::signing_only())]
    Criteria,
    /// Start an embedded sample seller on loopback, check it with both ops, print both reports.
    #[command(after_help = help::signing_only())]
    Demo,
    /// Serve the MCP tools over stdio, free and local: check and memo signed with the local key, and doctor.
    #[command(after_help = help::mcp())]
    Mcp {
        /// Check loopback or private addresses: lift the public-address rule for this server.
        #[arg(long)]
        allow_private: bool,
    },
    /// Serve every API route on 127.0.0.1 (the same handlers as the Lambda functions).
    #[command(after_help = help::serve())]
    Serve {
        /// The port (0 picks a free one; the address is printed on stderr).
        #[arg(long, default_value_t = 8402)]
        port: u16,
    },
    /// Ledger maintenance: fill pending CAD rates, record a refund paid out of band.
    #[command(after_help = help::ledger())]
    Ledger {
        #[command(subcommand)]
        command: LedgerCommand,
    },
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// Fill the CAD rate of entries written while it was pending (Bank of Canada FXUSDCAD).
    #[command(after_help = help::ledger())]
    BackfillCad {
        /// Most entries to examine in this run.
        #[arg(long, default_value_t = 1000)]
        limit: usize,
    },
    /// Record a refund paid out of band: mark the paid entry refunded and count it.
    #[command(after_help = help::ledger())]
    Refund {
        /// The op the refunded payment paid for.
        #[arg(long, value_enum)]
        op: ledger::RefundOp,
        /// The payment's settlement transaction signature (base58).
        tx_signature: String,
    },
}

/// The arguments of `check` and `memo`.
#[derive(Args)]
#[command(group(ArgGroup::new("targets").required(true).multiple(true)))]
struct TargetArgs {
    /// The endpoints to check, in order: full http:// or https:// URLs.
    #[arg(value_name = "URL", group = "targets")]
    urls: Vec<String>,
    /// Also check the URLs of FILE: one a line; blank lines and lines starting with # skipped.
    #[arg(long, value_name = "FILE", group = "targets")]
    urls_from: Option<PathBuf>,
    /// Also check every resource ORIGIN/.well-known/x402 lists (x402 discovery), last.
    #[arg(long, value_name = "ORIGIN", group = "targets")]
    catalogue: Option<String>,
    /// Check a loopback or private address: lift the public-address rule for this run.
    #[arg(long)]
    allow_private: bool,
    /// How to print the reports [default: text on a terminal, json when piped].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Exit 3 unless every verdict's state is one of these (comma-separated, repeatable).
    #[arg(long, value_name = "STATE", value_delimiter = ',')]
    require: Vec<String>,
    /// Exit 3 unless both legs carry your term: pay-to, amount, max-amount, network, asset.
    #[arg(long, value_name = "KEY=VALUE")]
    expect: Vec<String>,
    /// Also write every report (and refusal) to FILE as JSON Lines, whatever the format.
    #[arg(long, value_name = "FILE")]
    reports: Option<PathBuf>,
}

/// The arguments of `doctor`.
#[derive(Args)]
struct DoctorArgs {
    /// The endpoints to examine, in order: full http:// or https:// URLs.
    #[arg(value_name = "URL")]
    urls: Vec<String>,
    /// Also examine the URLs of FILE: one a line; blank lines and lines starting with # skipped.
    #[arg(long, value_name = "FILE")]
    urls_from: Option<PathBuf>,
    /// Also examine every resource ORIGIN/.well-known/x402 lists (x402 discovery), last.
    #[arg(long, value_name = "ORIGIN")]
    catalogue: Option<String>,
    /// Examine a loopback or private address: lift the public-address rule for this run.
    #[arg(long)]
    allow_private: bool,
    /// How to print the findings [default: text on a terminal, json when piped].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Exit 3 when a check of this level or above failed: error, warning or info.
    #[arg(long, value_name = "LEVEL", default_value = "error")]
    fail_on: String,
    /// Also write every URL's findings (and refusals) to FILE as JSON Lines, whatever the format.
    #[arg(long, value_name = "FILE")]
    reports: Option<PathBuf>,
    /// Probe: also send an empty-body request of METHOD (POST, PUT, PATCH, DELETE, HEAD, or declared: the Bazaar declaration's method, else POST); it must get 402 too.
    #[arg(long, value_name = "METHOD")]
    method: Option<String>,
    /// Probe: ask this facilitator's /supported (and, with --discovery, its discovery listing).
    #[arg(long, value_name = "URL")]
    facilitator: Option<String>,
    /// Probe: ask this Solana RPC about each payout token account.
    #[arg(long, value_name = "URL")]
    solana_rpc: Option<String>,
    /// Probe: ask this EVM RPC about each asset contract (code, name(), version()).
    #[arg(long, value_name = "URL")]
    evm_rpc: Option<String>,
    /// Probe: read the origin's /.well-known/x402 (x402 discovery) for each URL.
    #[arg(long)]
    discovery: bool,
    /// Also examine this MCP server (Streamable HTTP): both eras, x402's MCP binding.
    #[arg(long, value_name = "URL")]
    mcp: Option<String>,
    /// With --mcp: a paid tool to call without payment (repeatable) [default: each tool whose listing declares a price, annotations.paymentHint].
    #[arg(long, value_name = "NAME", requires = "mcp")]
    tool: Vec<String>,
    /// With --mcp: the tools' arguments, a JSON object [default: {}].
    #[arg(long, value_name = "JSON", requires = "mcp")]
    arguments: Option<String>,
    /// Print the check list (text, or JSON with --format json) and exit; nothing is fetched.
    #[arg(long, conflicts_with_all = ["urls", "urls_from", "catalogue", "mcp"])]
    list: bool,
}

/// The format when none is asked for: text for a person at a terminal, JSON for a pipe.
fn default_format(terminal: bool) -> Format {
    if terminal { Format::Text } else { Format::Json }
}

/// Colour only on a terminal, and never when `NO_COLOR` is set to a non-empty value.
fn colour_wanted(terminal: bool, no_color: Option<&OsStr>) -> bool {
    terminal && no_color.is_none_or(OsStr::is_empty)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => run_check(&args, PaidOp::Check),
        Command::Memo(args) => run_check(&args, PaidOp::Memo),
        Command::Doctor(args) => match prepare_and_run_doctor(&args) {
            Ok(code) | Err(code) => code,
        },
        Command::Verify { report, key } => verify::run(&report, key.as_deref()),
        Command::Criteria => print_criteria(),
        Command::Demo => run_demo(),
        Command::Mcp { allow_private } => mcp::run(allow_private),
        Command::Ledger { command: LedgerCommand::BackfillCad { limit } } => {
            ledger::backfill(limit)
        }
        Command::Ledger { command: LedgerCommand::Refund { op, tx_signature } } => {
            ledger::refund(op, &tx_signature)
        }
        Command::Serve { port } => run_serve(port),
    }
}

/// `--require`'s states, each one of the op's published states.
fn required_states(op: PaidOp, named: &[String]) -> Result<Vec<String>, ExitCode> {
    let texts = published();
    let states = match op {
        PaidOp::Check => &texts.states,
        PaidOp::Memo => &texts.memo_op.states,
    };
    if named.iter().all(|state| states.contains(state)) {
        return Ok(named.to_vec());
    }
    let message = format!(
        "--require names a state {} does not have; its states are {}",
        op.as_str(),
        states.join(", ")
    );
    print_error("require_state_unknown", &message);
    Err(ExitCode::from(EXIT_REFUSED))
}

/// The files a run writes besides standard output: `--reports FILE` (created or emptied) and,
/// with `--format github`, the step summary GitHub names (appended).
fn output_files(
    reports: Option<&Path>,
    format: Format,
) -> Result<(Option<File>, Option<File>), ExitCode> {
    let reports = match reports {
        Some(path) => Some(output_file(
            path,
            false,
            "reports_unwritable",
            "the --reports file cannot be created",
        )?),
        None => None,
    };
    let summary = match std::env::var_os(STEP_SUMMARY) {
        Some(path) if format == Format::Github && !path.is_empty() => Some(output_file(
            Path::new(&path),
            true,
            "step_summary_unwritable",
            "the file GITHUB_STEP_SUMMARY names cannot be opened for appending",
        )?),
        _ => None,
    };
    Ok((reports, summary))
}

/// A file the run writes: `--reports` (created or emptied) or the step summary (appended).
fn output_file(
    path: &Path,
    append: bool,
    rule: &'static str,
    message: &str,
) -> Result<File, ExitCode> {
    let mut options = OpenOptions::new();
    match append {
        true => options.append(true).create(true),
        false => options.write(true).create(true).truncate(true),
    };
    options.open(path).map_err(|_| {
        print_error(rule, message);
        ExitCode::from(EXIT_REFUSED)
    })
}

fn run_check(args: &TargetArgs, op: PaidOp) -> ExitCode {
    match prepare_and_run(args, op) {
        Ok(code) | Err(code) => code,
    }
}

/// Reads every input of `check` or `memo` (each refusal before anything is fetched), then
/// runs it.
fn prepare_and_run(args: &TargetArgs, op: PaidOp) -> Result<ExitCode, ExitCode> {
    let rule = address_rule(args.allow_private)?;
    let require = required_states(op, &args.require)?;
    let expectations = Expectations::parse(&args.expect).map_err(|refusal| {
        print_error(refusal.rule(), refusal.message());
        ExitCode::from(EXIT_REFUSED)
    })?;
    let targets = targets::given(&args.urls, args.urls_from.as_deref()).map_err(|problem| {
        print_error(problem.rule, &problem.message);
        ExitCode::from(problem.exit)
    })?;
    let catalogue = args.catalogue.as_deref().map(|origin| targets::catalogue_url(origin, rule));
    let plain = targets.len() == 1 && args.urls_from.is_none() && catalogue.is_none();
    let terminal = std::io::stdout().is_terminal();
    let format = args.format.unwrap_or(default_format(terminal));
    if let ([targets::Target::Url { url, .. }], true, Format::Text | Format::Json) =
        (targets.as_slice(), plain, format)
    {
        // One URL refused by the policy: refused before the key is read, as always.
        if let Err(refusal) = vet_target_url(url, rule) {
            let problem = refusal_problem(refusal);
            print_error(problem.rule, &problem.message);
            return Err(ExitCode::from(EXIT_REFUSED));
        }
    }
    let (reports, summary) = output_files(args.reports.as_deref(), format)?;
    let (signer, fetcher) = match (local_signer(), build_fetcher(rule)) {
        (Ok(signer), Ok(fetcher)) => (signer, fetcher),
        (Err(code), _) | (_, Err(code)) => return Err(code),
    };
    let colour = colour_wanted(terminal, std::env::var_os("NO_COLOR").as_deref());
    let run = run::Run {
        op,
        rule,
        format,
        plain,
        colour,
        require,
        expectations,
        reports,
        summary,
        signer: &signer,
        fetcher: &fetcher,
    };
    let code = current_thread_runtime().block_on(run.run(targets, catalogue));
    Ok(ExitCode::from(code))
}

/// Reads every input of `doctor` (each refusal before anything is fetched), then runs it.
fn prepare_and_run_doctor(args: &DoctorArgs) -> Result<ExitCode, ExitCode> {
    let terminal = std::io::stdout().is_terminal();
    let format = args.format.unwrap_or(default_format(terminal));
    let Some(fail_on) = Level::parse(&args.fail_on) else {
        print_error(
            "fail_on_unknown",
            "--fail-on names a level the list does not have; its levels are error, warning, info",
        );
        return Err(ExitCode::from(EXIT_REFUSED));
    };
    if args.list {
        return Ok(print_answer(&doctor::list(format), ExitCode::SUCCESS));
    }
    let no_target = args.urls.is_empty() && args.urls_from.is_none() && args.catalogue.is_none();
    if no_target && args.mcp.is_none() {
        print_error(
            "no_targets",
            "doctor needs a URL, --urls-from FILE, --catalogue ORIGIN or --mcp URL (or --list)",
        );
        return Err(ExitCode::from(EXIT_REFUSED));
    }
    let rule = address_rule(args.allow_private)?;
    let targets = targets::given(&args.urls, args.urls_from.as_deref()).map_err(|problem| {
        print_error(problem.rule, &problem.message);
        ExitCode::from(problem.exit)
    })?;
    let catalogue = args.catalogue.as_deref().map(|origin| targets::catalogue_url(origin, rule));
    let flags = doctor::Flags {
        method: args.method.as_deref(),
        facilitator: args.facilitator.as_deref(),
        solana_rpc: args.solana_rpc.as_deref(),
        evm_rpc: args.evm_rpc.as_deref(),
        discovery: args.discovery,
    };
    let probes = doctor::Probes::read(&flags, rule).map_err(|problem| {
        print_error(problem.rule, &problem.message);
        ExitCode::from(problem.exit)
    })?;
    let mcp = doctor_mcp_target(args, rule)?;
    let (reports, summary) = output_files(args.reports.as_deref(), format)?;
    let fetcher = build_fetcher(rule)?;
    let colour = colour_wanted(terminal, std::env::var_os("NO_COLOR").as_deref());
    let run = doctor::Doctor {
        rule,
        format,
        colour,
        fail_on,
        reports,
        summary,
        fetcher: &fetcher,
        probes,
        mcp,
    };
    let code = current_thread_runtime().block_on(run.run(targets, catalogue));
    Ok(ExitCode::from(code))
}

/// Most tools `--tool` may name (each called once or twice).
const MAX_TOOLS: usize = 32;

/// `--mcp`, `--tool` and `--arguments`, read: the URL under the target policy, the arguments
/// a JSON object; refused before anything is fetched.
fn doctor_mcp_target(
    args: &DoctorArgs,
    rule: AddressRule,
) -> Result<Option<doctor::McpTarget>, ExitCode> {
    let Some(url) = &args.mcp else {
        return Ok(None);
    };
    let url = vet_target_url(url, rule).map_err(|refusal| {
        let problem = refusal_problem(refusal);
        print_error(problem.rule, &problem.message);
        ExitCode::from(EXIT_REFUSED)
    })?;
    // MCP's tool names: 1 to 128 of ASCII letters, digits, `_`, `-` and `.` (2025-11-25).
    let named = |tool: &String| {
        (1..=128).contains(&tool.len())
            && tool.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    };
    if args.tool.len() > MAX_TOOLS {
        let message = format!("--tool names at most {MAX_TOOLS} tools a run");
        print_error("too_many_tools", &message);
        return Err(ExitCode::from(EXIT_REFUSED));
    }
    if !args.tool.iter().all(named) {
        print_error(
            "tool_name_malformed",
            "--tool takes an MCP tool name: 1 to 128 of ASCII letters, digits, _, - and .",
        );
        return Err(ExitCode::from(EXIT_REFUSED));
    }
    let arguments = match args.arguments.as_deref() {
        None => json!({}),
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) if value.is_object() => value,
            _ => {
                print_error("arguments_malformed", "--arguments takes a JSON object");
                return Err(ExitCode::from(EXIT_REFUSED));
            }
        },
    };
    Ok(Some(doctor::McpTarget { url, tools: args.tool.clone(), arguments }))
}

/// The file GitHub Actions gives a step for its markdown summary.
const STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

fn run_demo() -> ExitCode {
    // The embedded seller listens on loopback, so only this command's own fetcher may reach
    // private addresses; the policy still vets its URL.
    let rule = AddressRule::AllowPrivate;
    let (signer, fetcher) = match (local_signer(), build_fetcher(rule)) {
        (Ok(signer), Ok(fetcher)) => (signer, fetcher),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let reports = current_thread_runtime().block_on(async {
        let url = demo::start_demo_seller().await.ok()?;
        let target = vet_target_url(&url, rule).ok()?;
        let check = house_report(PaidOp::Check, &target, &fetcher).await?;
        let memo = house_report(PaidOp::Memo, &target, &fetcher).await?;
        Some((url, check, memo))
    });
    let Some((url, check, memo)) = reports else {
        print_error("demo_unavailable", "the embedded demo seller could not be started or checked");
        return ExitCode::from(EXIT_FAILED);
    };
    let output = json!({
        "demo_target": url,
        "check": check.sign(&signer),
        "memo": memo.sign(&signer),
    });
    print_answer(&escape::json_pretty(&output), ExitCode::SUCCESS)
}

fn run_serve(port: u16) -> ExitCode {
    init_json_logs();
    let local_seed = if payability_runtime::secrets::wanted_from_aws() {
        Ok(None)
    } else {
        payability_runtime::signing_key::load_or_create_seed().map(Some)
    };
    let seed = match local_seed {
        Ok(None) => None,
        Ok(Some((seed, KeySource::Generated(path)))) => {
            eprintln!("payability: generated a new signing key at {}", path.display());
            Some(seed)
        }
        Ok(Some((seed, KeySource::Existing(_)))) => Some(seed),
        Err(e) => {
            print_error("signing_key", &key_error_message(e));
            return ExitCode::from(EXIT_FAILED);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime builds");
    match runtime.block_on(serve::serve(port, seed)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(line) => {
            eprintln!("{line}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Structured JSON log lines on stderr (request id, route, status, state, timings only).
fn init_json_logs() {
    tracing_subscriber::fmt().json().with_writer(std::io::stderr).with_current_span(false).init();
}

fn print_criteria() -> ExitCode {
    let signer = match local_signer() {
        Ok(signer) => signer,
        Err(code) => return code,
    };
    let key = SigningKeyEntry {
        descriptor: signer.descriptor().clone(),
        valid_from: None,
        valid_until: None,
    };
    let document = criteria_document(vec![key]);
    print_answer(&escape::json_pretty(&document), ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_colour_only_for_a_terminal_and_colour_never_with_no_color() {
        let vectors: [(bool, Option<&str>, Format, bool); 6] = [
            (true, None, Format::Text, true),
            (true, Some(""), Format::Text, true),
            (true, Some("1"), Format::Text, false),
            (true, Some("0"), Format::Text, false),
            (false, None, Format::Json, false),
            (false, Some("1"), Format::Json, false),
        ];
        for (terminal, no_color, format, colour) in vectors {
            assert_eq!(default_format(terminal), format);
            assert_eq!(colour_wanted(terminal, no_color.map(OsStr::new)), colour, "{no_color:?}");
        }
    }
}
