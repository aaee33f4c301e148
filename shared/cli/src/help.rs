//! The text after each subcommand's `--help`: what it reads from the environment, its exit
//! codes, and (for the root) the states of both ops, one line each.

use payability_core::criteria::published;
use payability_core::grade::{CheckState, MemoState};
use serde_json::Value;

/// The paragraph a seller reads first: how to check a server on their own machine.
pub const FOR_SELLERS: &str = "\
For sellers: checking a local server
  The target policy refuses loopback and private addresses (the service fetches public ones
  only). To check a server on this machine or your network, pass --allow-private and the
  full URL, http:// or https:// included:
    payability check --allow-private http://127.0.0.1:3000/weather
    payability memo --allow-private http://127.0.0.1:3000/weather
  On a terminal the report is shown as a checklist of its factors, grouped by leg, with the
  factors that decided the state marked; --format json prints the signed report. The rule
  reads the core fields (payTo, extra.usdc_token_account, extra.memo, amount, resource) from
  the body leg, accepts[0] of the JSON body: a challenge carried only in the PAYMENT-REQUIRED
  header grades UNCONFIGURED (check) and MEMO-ABSENT (memo).";

/// The environment lines of every command that signs with the local key.
const KEY_ENVIRONMENT: &str = "\
\x20 PAYABILITY_SIGNING_KEY_FILE       the signing key file: a 32-byte Ed25519 seed, as base64
                                    (44 characters) or 64 hex digits; the file must exist (a
                                    file named here is never created)
  XDG_DATA_HOME, HOME               when PAYABILITY_SIGNING_KEY_FILE is unset, the key is
                                    $XDG_DATA_HOME/payability/signing-key (else
                                    $HOME/.local/share/payability/signing-key), generated
                                    there on first use (mode 0600)";

/// The environment lines of every command that opens the store.
const STORE_ENVIRONMENT: &str = "\
\x20 PAYABILITY_STORE                  `dynamodb`, or the path of the embedded SQLite file
                                    (default: $XDG_DATA_HOME/payability/store.sqlite3, else
                                    $HOME/.local/share/payability/store.sqlite3)
  PAYABILITY_TABLE_LEDGER, PAYABILITY_TABLE_PAYMENTS, PAYABILITY_TABLE_FREE_TIER,
  PAYABILITY_TABLE_METRICS, PAYABILITY_TABLE_FX
                                    the DynamoDB table names (all five needed with
                                    PAYABILITY_STORE=dynamodb, with the AWS SDK's usual
                                    region and credential variables)";

/// The one-line meaning of a check state (the core's own definition).
fn check_state_line(state: CheckState) -> &'static str {
    match state {
        CheckState::Populated => "every field check passes",
        CheckState::AmountsOnly => {
            "amounts present and consistent; recipient, token account and memo absent"
        }
        CheckState::Unconfigured => {
            "a core field absent, amounts absent or inconsistent, or an equality false"
        }
        CheckState::HeaderMissing => {
            "the PAYMENT-REQUIRED header is absent, over its cap, or cannot be decoded"
        }
        CheckState::ResourceMismatch => "a present resource is not equal to the called URL",
        CheckState::NotA402 => "no 402 within the deadline and the body cap",
    }
}

/// The one-line meaning of a memo state (the core's own definition).
fn memo_state_line(state: MemoState) -> &'static str {
    match state {
        MemoState::Bound => "fresh, unique, leg-consistent body memos in both fetches",
        MemoState::MemoReused => "both fetches carry the same body memo",
        MemoState::LegMismatch => "header and body memos disagree in a fetch",
        MemoState::MemoAbsent => {
            "the body leg carries no memo (in either fetch, or by completion in one)"
        }
        MemoState::NotA402 => "either fetch is not a 402 within the deadline and the body cap",
    }
}

/// One `  STATE  meaning` line.
fn state_line(name: &str, meaning: &str) -> String {
    format!("  {name:<19}{meaning}\n")
}

/// The check states, one line each, in the published order.
fn check_states() -> String {
    let state = |name: &String| -> CheckState {
        serde_json::from_value(Value::String(name.clone())).expect("a published check state")
    };
    published()
        .states
        .iter()
        .map(state)
        .map(|s| state_line(s.as_str(), check_state_line(s)))
        .collect()
}

/// The memo states, one line each, in the published order.
fn memo_states() -> String {
    let state = |name: &String| -> MemoState {
        serde_json::from_value(Value::String(name.clone())).expect("a published memo state")
    };
    let states = &published().memo_op.states;
    states.iter().map(state).map(|s| state_line(s.as_str(), memo_state_line(s))).collect()
}

/// After `payability --help`: the states of both ops, the exit codes, the seller paragraph.
pub fn root() -> String {
    format!(
        "States of check (one fetch):\n{}\
         States of memo (two fetches, back to back):\n{}\n\
         Exit codes: 0 success, 1 failed, 2 refused (each subcommand's --help says when).\n\
         Every subcommand's --help lists its flags, environment variables and exit codes.\n\n\
         {FOR_SELLERS}",
        check_states(),
        memo_states(),
    )
}

/// After `check --help` and `memo --help`.
pub fn check() -> String {
    format!(
        "Output:
  --format text (the default when standard output is a terminal): the verdict line, every
  factor as a checklist grouped by leg (fetch, body, header, equality), the factors that
  decided the state marked, then how to get the signed JSON. --format json (the default
  when standard output is not a terminal): the signed report. Colour only on a terminal,
  and never when NO_COLOR is set (not empty).

Environment:
  PAYABILITY_ALLOW_PRIVATE_TARGETS  0 (default) or 1; 1 lifts the public-address rule as
                                    --allow-private does
{KEY_ENVIRONMENT}
  NO_COLOR                          set and not empty: no colour in the text view

Exit codes:
  0  a signed report was printed, whatever its state
  1  failed: the signing key, the HTTP client or the system clock
  2  refused: the URL (target policy; nothing was fetched), a malformed setting, or the
     command line

{FOR_SELLERS}"
    )
}

/// After `verify --help`.
pub fn verify() -> String {
    format!(
        "Environment (without --key, the local signing key is read; it is never created):
{KEY_ENVIRONMENT}

Exit codes:
  0  the signature is valid (and the report's checked_at inside the key's window)
  1  failed: the signature is malformed, by an unknown key, does not match, or falls
     outside the signing key's published validity window
  2  refused: the report or the --key input cannot be read, or the command line"
    )
}

/// After `criteria --help` and `demo --help`.
pub fn signing_only() -> String {
    format!(
        "Environment:
{KEY_ENVIRONMENT}

Exit codes:
  0  printed
  1  failed: the signing key (or, for demo, the embedded seller)
  2  refused: the command line"
    )
}

/// After `serve --help`.
pub fn serve() -> String {
    format!(
        "Environment:
  PAYABILITY_OPERATOR_WALLET        required: the base58 Solana wallet paid (payTo)
  PAYABILITY_FACILITATOR_URL        the x402 facilitator; without it (and a fee payer) paid
                                    routes answer 503
  PAYABILITY_FEE_PAYER              the fee payer advertised when /supported cannot be read
  PAYABILITY_SOLANA_RPC_URL         JSON-RPC for getTransaction (the ledger's Solana fee)
  PAYABILITY_PUBLIC_BASE_URL        public origin of the API (default: this server's address)
  PAYABILITY_HOUSE_TOKEN            enables house checks with this bearer token
  PAYABILITY_ALLOW_PRIVATE_TARGETS  0 (default) or 1: targets may be loopback or private
                                    (local tests only)
  PAYABILITY_BOC_VALET_ORIGIN       the Bank of Canada Valet origin for CAD rates
  PAYABILITY_SIGNING_PUBLIC_KEY     pins the current key's public key (JWK x)
  PAYABILITY_SIGNING_KEY_VALID_FROM when the current key started signing
  PAYABILITY_PREVIOUS_SIGNING_KEYS  the retired keys /criteria publishes (a JSON array)
  PAYABILITY_SIGNING_KEY_SECRET_ARN, PAYABILITY_HOUSE_TOKEN_SECRET_ARN
                                    read the seed and the house token from Secrets Manager
                                    instead of the local key file
{KEY_ENVIRONMENT}
{STORE_ENVIRONMENT}

Exit codes:
  0  stopped cleanly
  1  failed to start: a setting, the port, the signing key, the secrets or the store
  2  refused: the command line"
    )
}

/// After `ledger --help` and each ledger subcommand's.
pub fn ledger() -> String {
    format!(
        "Environment:
{STORE_ENVIRONMENT}
  PAYABILITY_BOC_VALET_ORIGIN       backfill-cad: the Bank of Canada Valet origin

Exit codes:
  0  done: the summary or the refund was printed
  1  failed: the store or the rate source; refund: not refundable (no paid entry with this
     transaction, or already refunded) or the refund was marked but not counted
  2  refused: a malformed store setting, a transaction signature that is not base58, or
     the command line"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_help_lists_every_published_state_of_both_ops_once() {
        let text = root();
        let texts = published();
        for state in texts.states.iter().chain(&texts.memo_op.states) {
            let lines = text.lines().filter(|l| l.trim_start().starts_with(&format!("{state} ")));
            assert_eq!(lines.count(), if state == "NOT-A-402" { 2 } else { 1 }, "{state}");
        }
    }

    #[test]
    fn help_lines_fit_a_terminal_and_variables_are_indented() {
        let texts = [root(), check(), verify(), signing_only(), serve(), ledger()];
        let wide: Vec<&str> =
            texts.iter().flat_map(|t| t.lines()).filter(|l| l.chars().count() > 96).collect();
        assert!(wide.is_empty(), "{wide:#?}");
        let unindented = texts.iter().flat_map(|t| t.lines()).filter(|l| l.starts_with("PAYAB"));
        assert_eq!(unindented.count(), 0, "every variable is indented under its heading");
    }
}
