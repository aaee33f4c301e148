//! What every command that checks on this machine needs: the address rule (`--allow-private`
//! or the setting), the local signing key, the bounded fetcher, one house report, and a
//! policy refusal as a run's problem with the command line's hint.

use std::process::ExitCode;

use payability_core::op::PaidOp;
use payability_core::policy::{AddressRule, PolicyRefusal, TargetUrl};
use payability_core::report::UnsignedReport;
use payability_core::signing::ReportSigner;
use payability_runtime::clock;
use payability_runtime::fetch::Fetcher;
use payability_runtime::settings::ALLOW_PRIVATE_TARGETS;
use payability_runtime::signing_key::{KEY_FILE_VAR, KeyError, KeySource, load_or_create};
use payability_runtime::verdict::fetch_and_grade;

use crate::exit::{EXIT_FAILED, EXIT_REFUSED, print_error};
use crate::targets;

/// `--allow-private`, else the allow-private-targets setting.
pub(crate) fn address_rule(allow_private: bool) -> Result<AddressRule, ExitCode> {
    if allow_private {
        return Ok(AddressRule::AllowPrivate);
    }
    ALLOW_PRIVATE_TARGETS.rule_from_env().map_err(|e| {
        print_error("bad_setting", &e.to_string());
        ExitCode::from(EXIT_REFUSED)
    })
}

/// Loads (or creates, saying where on stderr) the local signing key.
pub(crate) fn local_signer() -> Result<ReportSigner, ExitCode> {
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
pub(crate) fn key_error_message(error: KeyError) -> String {
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
pub(crate) async fn house_report(
    op: PaidOp,
    target: &TargetUrl,
    fetcher: &Fetcher,
) -> Option<UnsignedReport> {
    let verdict = fetch_and_grade(fetcher, op, target, clock::now, true).await?;
    Some(verdict.report)
}

/// The bounded fetcher under `rule`.
pub(crate) fn build_fetcher(rule: AddressRule) -> Result<Fetcher, ExitCode> {
    Fetcher::new(rule).map_err(|e| {
        print_error("client_unavailable", &e.to_string());
        ExitCode::from(EXIT_FAILED)
    })
}

/// A policy refusal as a problem, with the command line's flag hint where a seller needs one.
pub(crate) fn refusal_problem(refusal: PolicyRefusal) -> targets::Problem {
    match flag_hint(refusal) {
        Some(hint) => {
            targets::Problem::refused(refusal.rule(), format!("{}; {hint}", refusal.message()))
        }
        None => targets::Problem::refused(refusal.rule(), refusal.message()),
    }
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
