//! How a command ends short of its answer: the exit codes, the one closed-form error line on
//! stderr, and the runtime a command blocks on.

use std::process::ExitCode;

use serde_json::json;

/// Exit code for a refusal of the input (policy, usage, unreadable file).
pub(crate) const EXIT_REFUSED: u8 = 2;
/// Exit code for an operational failure (key, client) or a failed verification.
pub(crate) const EXIT_FAILED: u8 = 1;

/// Prints a closed-form error as JSON on stderr.
pub(crate) fn print_error(rule: &str, message: &str) {
    eprintln!("{}", json!({"error": {"rule": rule, "message": message}}));
}

/// The rule and message of a system clock outside the years a timestamp can carry.
pub(crate) const CLOCK_OUT_OF_RANGE: (&str, &str) =
    ("clock_out_of_range", "the system clock is outside the years 0000 to 9999");

/// The error line and exit of a system clock outside the years a timestamp can carry.
pub(crate) fn clock_out_of_range() -> ExitCode {
    print_error(CLOCK_OUT_OF_RANGE.0, CLOCK_OUT_OF_RANGE.1);
    ExitCode::from(EXIT_FAILED)
}

/// The current-thread tokio runtime a command blocks on.
pub(crate) fn current_thread_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread tokio runtime builds")
}
