//! `payability`: check an x402 endpoint's 402 challenge from a terminal, check its memo
//! binding, verify a signed report, or print the criteria document.

mod demo;
mod escape;
mod exit;
mod help;
mod ledger;
mod serve;
mod text;
mod verify;

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, PolicyRefusal, TargetUrl, vet_target_url};
use payability_core::report::UnsignedReport;
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use payability_runtime::settings::ALLOW_PRIVATE_TARGETS;
use payability_runtime::signing_key::{KEY_FILE_VAR, KeyError, KeySource, load_or_create};
use payability_runtime::verdict::fetch_and_grade;
use serde_json::json;

use exit::{EXIT_FAILED, EXIT_REFUSED, clock_out_of_range, current_thread_runtime, print_error};

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
    /// Fetch URL once and print its signed check report (six states).
    #[command(after_help = help::check())]
    Check(TargetArgs),
    /// Fetch URL twice, back to back, and print its signed memo-binding report (five states).
    #[command(after_help = help::check())]
    Memo(TargetArgs),
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
struct TargetArgs {
    /// The endpoint to check: a full http:// or https:// URL.
    url: String,
    /// Check a loopback or private address: lift the public-address rule for this run.
    #[arg(long)]
    allow_private: bool,
    /// How to print the report [default: text on a terminal, json when piped].
    #[arg(long, value_enum)]
    format: Option<Format>,
}

/// How `check` and `memo` print the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// The verdict line and a checklist of every factor.
    Text,
    /// The signed report.
    Json,
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
        Command::Verify { report, key } => verify::run(&report, key.as_deref()),
        Command::Criteria => print_criteria(),
        Command::Demo => run_demo(),
        Command::Ledger { command: LedgerCommand::BackfillCad { limit } } => {
            ledger::backfill(limit)
        }
        Command::Ledger { command: LedgerCommand::Refund { op, tx_signature } } => {
            ledger::refund(op, &tx_signature)
        }
        Command::Serve { port } => run_serve(port),
    }
}

/// `--allow-private`, else the allow-private-targets setting.
fn address_rule(allow_private: bool) -> Result<AddressRule, ExitCode> {
    if allow_private {
        return Ok(AddressRule::AllowPrivate);
    }
    ALLOW_PRIVATE_TARGETS.rule_from_env().map_err(|e| {
        print_error("bad_setting", &e.to_string());
        ExitCode::from(EXIT_REFUSED)
    })
}

/// Loads (or creates, saying where on stderr) the local signing key.
fn local_signer() -> Result<ReportSigner, ExitCode> {
    match load_or_create() {
        Ok((signer, KeySource::Generated(path))) => {
            eprintln!(
                "payability: generated a new signing key at {} ({})",
                path.display(),
                signer.descriptor().fingerprint
            );
            Ok(signer)
        }
        Ok((signer, KeySource::Existing(_))) => Ok(signer),
        Err(e) => {
            print_error("signing_key", &key_error_message(e));
            Err(ExitCode::from(EXIT_FAILED))
        }
    }
}

/// A key error in words that name the setting behind the file and what the file must hold.
fn key_error_message(error: KeyError) -> String {
    let named = payability_runtime::signing_key::configured_path().is_some();
    match (error, named) {
        (KeyError::Unreadable, true) => {
            format!(
                "the signing key file named by {KEY_FILE_VAR} cannot be read; it must \
             exist and hold a 32-byte Ed25519 seed as base64 (44 characters) or 64 hex digits \
             (a file named by this variable is never created: unset it to have a key generated \
             at the default path, $XDG_DATA_HOME/payability/signing-key or \
             $HOME/.local/share/payability/signing-key)"
            )
        }
        (KeyError::Malformed, true) => {
            format!(
                "the signing key file named by {KEY_FILE_VAR} must hold a 32-byte \
             Ed25519 seed as base64 (44 characters) or 64 hex digits"
            )
        }
        (KeyError::Unreadable, false) => {
            format!(
                "the default signing key file ($XDG_DATA_HOME/payability/signing-key, else \
             $HOME/.local/share/payability/signing-key) exists but cannot be read; set \
             {KEY_FILE_VAR} to a file holding a 32-byte Ed25519 seed as base64 \
             (44 characters) or 64 hex digits"
            )
        }
        (KeyError::Malformed, false) => {
            "the default signing key file ($XDG_DATA_HOME/payability/signing-key, else \
             $HOME/.local/share/payability/signing-key) must hold a 32-byte Ed25519 seed as \
             base64 (44 characters) or 64 hex digits"
                .to_owned()
        }
        (KeyError::Unwritable, _) => {
            format!(
                "the generated signing key cannot be written at the default path \
             ($XDG_DATA_HOME/payability/signing-key, else \
             $HOME/.local/share/payability/signing-key); set {KEY_FILE_VAR} to an \
             existing key file"
            )
        }
        (KeyError::NoDataDirectory, _) => {
            format!(
                "no data directory for the default signing key: set XDG_DATA_HOME or HOME, or \
             {KEY_FILE_VAR} to a file holding a 32-byte Ed25519 seed as base64 \
             (44 characters) or 64 hex digits"
            )
        }
        (KeyError::NoRandomness, _) => "the system random source failed".to_owned(),
    }
}

/// Fetches, grades and assembles one house report; None only when the clock is out of range.
async fn house_report(op: PaidOp, target: &TargetUrl, fetcher: &Fetcher) -> Option<UnsignedReport> {
    let verdict = fetch_and_grade(fetcher, op, target, clock::now, true).await?;
    Some(verdict.report)
}

fn build_fetcher(rule: AddressRule) -> Result<Fetcher, ExitCode> {
    Fetcher::new(rule).map_err(|e| {
        print_error("client_unavailable", &e.to_string());
        ExitCode::from(EXIT_FAILED)
    })
}

fn run_check(args: &TargetArgs, op: PaidOp) -> ExitCode {
    let rule = match address_rule(args.allow_private) {
        Ok(rule) => rule,
        Err(code) => return code,
    };
    let target = match vet_target_url(&args.url, rule) {
        Ok(target) => target,
        Err(refusal) => return refuse(refusal),
    };
    let (signer, fetcher) = match (local_signer(), build_fetcher(rule)) {
        (Ok(signer), Ok(fetcher)) => (signer, fetcher),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let Some(report) = current_thread_runtime().block_on(house_report(op, &target, &fetcher))
    else {
        return clock_out_of_range();
    };
    let signed = report.sign(&signer);
    let terminal = std::io::stdout().is_terminal();
    match args.format.unwrap_or(default_format(terminal)) {
        Format::Json => {
            println!("{}", escape::json_pretty(&signed));
        }
        Format::Text => {
            let value = serde_json::to_value(&signed).expect("a report serialises");
            let colour = colour_wanted(terminal, std::env::var_os("NO_COLOR").as_deref());
            print!("{}", text::render(&value, colour));
        }
    }
    ExitCode::SUCCESS
}

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
    println!("{}", escape::json_pretty(&output));
    ExitCode::SUCCESS
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

/// Prints a policy refusal, with the command line's flag hint where a seller needs one.
fn refuse(refusal: PolicyRefusal) -> ExitCode {
    match flag_hint(refusal) {
        Some(hint) => print_error(refusal.rule(), &format!("{}; {hint}", refusal.message())),
        None => print_error(refusal.rule(), refusal.message()),
    }
    ExitCode::from(EXIT_REFUSED)
}

/// What the command line adds to a refusal a seller checking a local server meets.
fn flag_hint(refusal: PolicyRefusal) -> Option<&'static str> {
    match refusal {
        PolicyRefusal::AddressNotPublic => {
            Some("to check a server on this machine or a private network, pass --allow-private")
        }
        PolicyRefusal::SchemeMissing => {
            Some("for a server on this machine or a private network, also pass --allow-private")
        }
        _ => None,
    }
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
    println!("{}", escape::json_pretty(&document));
    ExitCode::SUCCESS
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
