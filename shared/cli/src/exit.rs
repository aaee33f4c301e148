//! How a command ends short of its answer: the exit codes, the one closed-form error line on
//! stderr, and the runtime a command blocks on.

use std::io::Write;
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

/// The rule of a write to an output (standard output, `--reports`, the step summary) that
/// failed: what the command answered is incomplete, so it fails (exit 1).
pub(crate) const OUTPUT_UNWRITABLE: &str = "output_unwritable";

/// Writes `text` to standard output; false when the write failed.
pub(crate) fn to_stdout(text: &str) -> bool {
    std::io::stdout().write_all(text.as_bytes()).is_ok()
}

/// Prints a command's one answer and a newline on standard output, flushed, and returns
/// `code`; a write that fails is the `output_unwritable` error and exit 1, not a panic.
pub(crate) fn print_answer(text: &str, code: ExitCode) -> ExitCode {
    if to_stdout(&format!("{text}\n")) && std::io::stdout().flush().is_ok() {
        return code;
    }
    print_error(OUTPUT_UNWRITABLE, "a write failed, so this output is incomplete: standard output");
    ExitCode::from(EXIT_FAILED)
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
