//! `payability`: check an x402 endpoint's 402 challenge from a terminal, check its memo
//! binding, verify a signed report, or print the criteria document.

mod demo;
mod ledger;
mod serve;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use payability_core::criteria::{SigningKeyEntry, criteria_document};
use payability_core::grade::{grade_check, grade_memo};
use payability_core::policy::{AddressRule, PolicyRefusal, TargetUrl, vet_target_url};
use payability_core::report::{Op, UnsignedReport, check_report, memo_report};
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use payability_runtime::settings::ALLOW_PRIVATE_TARGETS;
use payability_runtime::signing_key::{KeySource, load_or_create};
use serde_json::json;

/// Exit code for a refusal of the input (policy, usage, unreadable file).
const EXIT_REFUSED: u8 = 2;
/// Exit code for an operational failure (key, client) or a failed verification.
const EXIT_FAILED: u8 = 1;

#[derive(Parser)]
#[command(
    name = "payability",
    version,
    about = "Signed, field-level payability verdicts on x402 402 challenges"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch URL once and print its signed check report (six states).
    Check {
        /// The endpoint to check.
        url: String,
    },
    /// Fetch URL twice, back to back, and print its signed memo-binding report (five states).
    Memo {
        /// The endpoint to check.
        url: String,
    },
    /// Verify a report's signature and say which key signed it.
    Verify {
        /// The report JSON file (`-` for standard input).
        report: String,
        /// A JWK, a key descriptor or a criteria document: inline JSON or a file path.
        /// Default: the local signing key.
        #[arg(long)]
        key: Option<String>,
    },
    /// Print the criteria document, with the local signing key's descriptor.
    Criteria,
    /// Start an embedded sample seller on loopback, check it with both ops, print both reports.
    Demo,
    /// Serve every API route on 127.0.0.1 (the same handlers as the Lambda functions).
    Serve {
        /// The port (0 picks a free one; the address is printed on stderr).
        #[arg(long, default_value_t = 8402)]
        port: u16,
    },
    /// Ledger maintenance.
    Ledger {
        #[command(subcommand)]
        command: LedgerCommand,
    },
}

#[derive(Subcommand)]
enum LedgerCommand {
    /// Fill the CAD rate of entries written while it was pending (Bank of Canada FXUSDCAD).
    BackfillCad {
        /// Most entries to examine in this run.
        #[arg(long, default_value_t = 1000)]
        limit: usize,
    },
    /// Record a refund paid out of band: mark the paid entry refunded and count it.
    Refund {
        /// The op the refunded payment paid for.
        #[arg(long, value_enum)]
        op: ledger::RefundOp,
        /// The payment's settlement transaction signature (base58).
        tx_signature: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { url } => run_check(&url, Op::Check),
        Command::Memo { url } => run_check(&url, Op::Memo),
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

/// Prints a closed-form error as JSON on stderr.
fn print_error(rule: &str, message: &str) {
    eprintln!("{}", json!({"error": {"rule": rule, "message": message}}));
}

fn address_rule() -> Result<AddressRule, ExitCode> {
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
            print_error("signing_key", &e.to_string());
            Err(ExitCode::from(EXIT_FAILED))
        }
    }
}

fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread tokio runtime builds")
}

/// Fetches, grades and assembles one house report; None only when the clock is out of range.
async fn house_report(op: Op, target: &TargetUrl, fetcher: &Fetcher) -> Option<UnsignedReport> {
    match op {
        Op::Check => {
            let outcome = fetcher.fetch(target).await;
            let verdict = grade_check(target.as_str(), &outcome);
            check_report(target, verdict, clock::now(), true).ok()
        }
        Op::Memo => {
            let [first, second] = fetcher.fetch_twice(target).await;
            let verdict = grade_memo(&first, &second);
            memo_report(target, verdict, clock::now(), true).ok()
        }
    }
}

fn build_fetcher(rule: AddressRule) -> Result<Fetcher, ExitCode> {
    Fetcher::new(rule).map_err(|e| {
        print_error("client_unavailable", &e.to_string());
        ExitCode::from(EXIT_FAILED)
    })
}

fn clock_out_of_range() -> ExitCode {
    print_error("clock_out_of_range", "the system clock is outside the years 0000 to 9999");
    ExitCode::from(EXIT_FAILED)
}

fn run_check(submitted: &str, op: Op) -> ExitCode {
    let rule = match address_rule() {
        Ok(rule) => rule,
        Err(code) => return code,
    };
    let target = match vet_target_url(submitted, rule) {
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
    println!("{}", serde_json::to_string_pretty(&signed).expect("a report serialises"));
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
        let check = house_report(Op::Check, &target, &fetcher).await?;
        let memo = house_report(Op::Memo, &target, &fetcher).await?;
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
    println!("{}", serde_json::to_string_pretty(&output).expect("reports serialise"));
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
            print_error("signing_key", &e.to_string());
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

fn refuse(refusal: PolicyRefusal) -> ExitCode {
    print_error(refusal.rule(), refusal.message());
    ExitCode::from(EXIT_REFUSED)
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
    println!("{}", serde_json::to_string_pretty(&document).expect("the criteria serialise"));
    ExitCode::SUCCESS
}
