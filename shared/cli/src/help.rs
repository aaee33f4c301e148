//! The text after each subcommand's `--help`: what it reads from the environment, its exit
//! codes, and (for the root) the states of both ops, one line each.

use payability_core::capture::BODY_CAP_BYTES;
use payability_core::criteria::published;
use payability_core::grade::{CheckState, MemoState};
use payability_core::op::PaidOp;
use payability_core::payment::x402::Network;
use payability_core::policy::MAX_URL_BYTES;
use payability_runtime::api::MAX_REQUEST_BODY_BYTES;
use payability_runtime::mcp::versions;
use payability_runtime::settings;
use serde_json::Value;

use crate::targets;

/// The paragraph a seller reads first: how to check a server on their own machine.
pub(crate) const FOR_SELLERS: &str = "\
For sellers: checking a local server
  The target policy refuses loopback and private addresses (the service fetches public ones
  only). To check a server on this machine or your network, pass --allow-private and the
  full URL, http:// or https:// included:
    payability check --allow-private http://127.0.0.1:3000/weather
    payability memo --allow-private http://127.0.0.1:3000/weather
    payability doctor --allow-private http://127.0.0.1:3000/weather
  On a terminal the report is shown as a checklist of its factors, grouped by leg, with the
  factors that decided the state marked; --format json prints the signed report. The rule
  reads the core fields (payTo, extra.usdc_token_account, extra.memo, amount, resource) from
  the body leg, accepts[0] of the JSON body: a challenge carried only in the PAYMENT-REQUIRED
  header grades UNCONFIGURED (check) and MEMO-ABSENT (memo). doctor runs the published
  check list (doctor/v1): will buyers pay it, browsers read it and indexers find it.";

/// The environment lines of every command that signs with the local key.
fn key_environment() -> String {
    let signing_key_file = settings::SIGNING_KEY_FILE.name();
    format!(
        "\
\x20 {signing_key_file:<33} the signing key file: a 32-byte Ed25519 seed, as base64
                                    (44 characters) or 64 hex digits; the file must exist (a
                                    file named here is never created)
  XDG_DATA_HOME, HOME               when {signing_key_file} is unset, the key is
                                    $XDG_DATA_HOME/payability/signing-key (else
                                    $HOME/.local/share/payability/signing-key), generated
                                    there on first use (mode 0600)"
    )
}

/// The environment lines of every command that opens the store.
fn store_environment() -> String {
    let table_free_tier = settings::TABLE_FREE_TIER.name();
    let table_payments = settings::TABLE_PAYMENTS.name();
    let table_metrics = settings::TABLE_METRICS.name();
    let table_ledger = settings::TABLE_LEDGER.name();
    let table_fx = settings::TABLE_FX.name();
    let store = settings::STORE.name();
    format!(
        "\
\x20 {store:<33} `dynamodb`, or the path of the embedded SQLite file
                                    (default: $XDG_DATA_HOME/payability/store.sqlite3, else
                                    $HOME/.local/share/payability/store.sqlite3)
  {table_ledger}, {table_payments}, {table_free_tier},
  {table_metrics}, {table_fx}
                                    the DynamoDB table names (all five needed with
                                    {store}=dynamodb, with the AWS SDK's usual
                                    region and credential variables)"
    )
}

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
pub(crate) fn root() -> String {
    format!(
        "States of check (one fetch):\n{}\
         States of memo (two fetches, back to back):\n{}\n\
         Exit codes: 0 success, 1 failed, 2 refused, 3 outside your terms (--require and \
         --expect\nof check and memo, --fail-on of doctor); each subcommand's --help says when.\n\
         Every subcommand's --help lists its flags, environment variables and exit codes.\n\n\
         {FOR_SELLERS}",
        check_states(),
        memo_states(),
    )
}

/// The usage lines of `check` and `memo`: URLs, a file of them, a catalogue, or any mix.
pub(crate) fn usage(op: &str) -> String {
    format!(
        "payability {op} [OPTIONS] <URL>...
       payability {op} [OPTIONS] [URL]... --urls-from <FILE> [--catalogue <ORIGIN>]
       payability {op} [OPTIONS] [URL]... --catalogue <ORIGIN>"
    )
}

/// Names separated by commas, in lines under the `--require` and `--expect` descriptions.
fn listed(names: &[String]) -> String {
    let indent = " ".repeat(30);
    let mut lines = vec![indent.clone()];
    for (name, n) in names.iter().zip(1..) {
        let piece = if n < names.len() { format!("{name}, ") } else { name.clone() };
        let last = lines.last_mut().expect("one line at least");
        if last.len() + piece.trim_end().len() > 90 {
            lines.push(indent.clone());
        }
        lines.last_mut().expect("one line at least").push_str(&piece);
    }
    lines.iter().map(|line| line.trim_end()).collect::<Vec<_>>().join("\n")
}

/// After `check --help` and `memo --help`: the views, several URLs, the caller's terms, the
/// GitHub views, the environment and the exit codes.
pub(crate) fn check(op: PaidOp) -> String {
    let allow_private_targets = settings::ALLOW_PRIVATE_TARGETS.name();
    let key_environment = key_environment();
    let texts = published();
    let (name, states, fetches) = match op {
        PaidOp::Check => ("check", listed(&texts.states), "the fetch"),
        PaidOp::Memo => ("memo", listed(&texts.memo_op.states), "each of the two fetches"),
    };
    let network = Network::SolanaMainnet;
    let (v1, caip2) = (network.v1_name(), network.caip2());
    let max_urls = targets::MAX_URLS;
    let file_bytes = targets::MAX_URLS_FILE_BYTES;
    format!(
        "Output:
  --format text (the default when standard output is a terminal): the verdict line, every
  factor as a checklist grouped by leg (fetch, body, header, equality), the factors that
  decided the state marked, then how to get the signed JSON. --format json (the default
  when standard output is not a terminal): the signed report. Colour only on a terminal,
  and never when NO_COLOR is set (not empty).

Several URLs:
  Checked in order: the command line's, then --urls-from FILE's (at most {file_bytes} bytes,
  lines of at most {MAX_URL_BYTES} bytes), then each resource --catalogue ORIGIN lists at
  ORIGIN/.well-known/x402 (fetched as a target is, at most {BODY_CAP_BYTES} bytes): a URL, a path or
  \"METHOD /path\", resolved against ORIGIN; one on another origin is refused
  (catalogue_other_origin); the rule fetches each with GET. At most {max_urls} URLs a run.
  Each URL is its own verdict under the target policy. A URL refused or not checked is
  reported in its place, {{\"item\":N,\"error\":{{\"rule\":…,\"message\":…}}}} (text: one line),
  and the others are still checked; with one URL on the command line, on stderr as before.
  --format json writes one signed report a line (JSON Lines) for several URLs or with
  --expect, then {{\"report\":…,\"expectations\":…}}; one URL alone prints the pretty JSON.

Your terms, beside the signed report and never in it:
  --require STATE[,STATE...]  every state must be one of these; {name}'s states:
{states}
  --expect KEY=VALUE          accepts[0] of the body and of the PAYMENT-REQUIRED header,
                              in {fetches}, must each carry your term:
    pay-to=ADDRESS            payTo is ADDRESS
    amount=UNITS              amount is UNITS (base units, digits only)
    max-amount=UNITS          amount is at most UNITS
    network=NAME              network is the same network ({v1} and
                              {caip2} are one; any other
                              name compares as written)
    asset=ADDRESS             asset is ADDRESS
  Each is met, unmet or absent per leg, never the value the challenge carried.

GitHub Actions:
  --format github prints an ::error annotation for each URL that makes the exit code not 0
  and, when GITHUB_STEP_SUMMARY is set, appends a markdown table to that file: URL, op,
  state, decided by, expectations, key id. --format markdown prints that table. --reports
  FILE writes the JSON Lines too (with github, the reports appear in no other form).

Environment:
  {allow_private_targets:<33} 0 (default) or 1; 1 lifts the public-address rule as
                                    --allow-private does
{key_environment}
  NO_COLOR                          set and not empty: no colour in the text view
  GITHUB_STEP_SUMMARY               --format github: the file the summary table is
                                    appended to

Exit codes:
  0  a signed report was printed for each URL, whatever its state
  1  failed: the signing key, the HTTP client, the system clock, a catalogue that did not
     answer 200, the --reports or summary file, or a write to any output
     (output_unwritable: standard output, --reports, the summary)
  2  refused: a URL (target policy; nothing was fetched), a catalogue or one of its
     resources, a malformed setting, or the command line (the file, --require, --expect)
  3  a state outside --require or an expectation unmet (every URL has its report)
  Across URLs, the first that applies in the order 1, 2, 3 is the run's, else 0.

{FOR_SELLERS}"
    )
}

/// The usage lines of `doctor`: URLs, a file of them, a catalogue, or the list.
pub(crate) fn doctor_usage() -> String {
    format!("{}\n       payability doctor --list [--format json]", usage("doctor"))
}

/// After `doctor --help`: what it sends, what it prints, the environment and the exit codes.
pub(crate) fn doctor() -> String {
    let allow_private_targets = settings::ALLOW_PRIVATE_TARGETS.name();
    let revision = payability_core::doctor::LIST_REVISION;
    let count = payability_core::doctor::CheckId::ALL.len();
    let origin = payability_core::doctor::PREFLIGHT_ORIGIN;
    format!(
        "What it sends, per URL (under the target policy, each within 5,000 ms):
  the stranger's GET that check sends, with Origin: {origin}, and beside it a CORS
  preflight (OPTIONS, Origin, Access-Control-Request-Method GET, Access-Control-Request-Headers
  payment-signature). Nothing is paid, signed or stored. The probes send more, each only
  with its flag, to URLs vetted by the same policy: --method (one empty-body request),
  --facilitator (/supported), --solana-rpc and --evm-rpc (a JSON-RPC call per address the
  offers name), --discovery (the origin's /.well-known/x402; with --facilitator, its
  /discovery/resources, at most 10 pages of 100). --mcp URL examines an MCP server too:
  server/discover, else initialize; tools/list; each --tool called without payment, with
  --arguments.

What it prints:
  The {count} checks of {revision} (payability doctor --list; docs/doctor.md), each pass, fail
  or not applicable, with its level (error, warning, info) and, for a failure, the link to
  its fix. No score. Never a value the endpoint served: check ids, outcomes and counts.
  --format text (the default on a terminal): a line a check and the counts; json (the
  default when piped): one JSON line per URL ({{item, url, list, checks, counts}}); github:
  an annotation per failed check (::error, ::warning or ::notice by its level) and the
  summary table appended to GITHUB_STEP_SUMMARY; markdown: that table. --reports FILE
  writes the JSON Lines too. Several URLs, --urls-from and --catalogue as for check.

Environment:
  {allow_private_targets:<33} 0 (default) or 1; 1 lifts the public-address rule as
                                    --allow-private does
  NO_COLOR                          set and not empty: no colour in the text view
  GITHUB_STEP_SUMMARY               --format github: the file the summary table is
                                    appended to

Exit codes:
  0  every URL was examined and no check at or above --fail-on (default error) failed
  1  failed: the HTTP client, a catalogue that did not answer 200, the --reports or summary
     file, or a write to any output (output_unwritable)
  2  refused: a URL (target policy; nothing was fetched), a catalogue or one of its
     resources, a malformed setting, or the command line (the file, --fail-on, a probe's
     URL or --method)
  3  a check at or above --fail-on failed (every URL has its findings)
  Across URLs, the first that applies in the order 1, 2, 3 is the run's, else 0."
    )
}

/// After `verify --help`.
pub(crate) fn verify() -> String {
    let key_environment = key_environment();
    format!(
        "Environment (without --key, the local signing key is read; it is never created):
{key_environment}

Exit codes:
  0  the signature is valid (and the report's checked_at inside the key's window)
  1  failed: the signature is malformed, by an unknown key, does not match, or falls
     outside the signing key's published validity window
  2  refused: the report or the --key input cannot be read (a key descriptor whose
     keyId or fingerprint is not its key's included), or the command line"
    )
}

/// After `criteria --help` and `demo --help`.
pub(crate) fn signing_only() -> String {
    let key_environment = key_environment();
    format!(
        "Environment:
{key_environment}

Exit codes:
  0  printed
  1  failed: the signing key (or, for demo, the embedded seller), or the write to
     standard output (output_unwritable)
  2  refused: the command line"
    )
}

/// After `mcp --help`: the transport, the eras, the tools, a client's configuration, the
/// environment and the exit codes.
pub(crate) fn mcp() -> String {
    let allow_private_targets = settings::ALLOW_PRIVATE_TARGETS.name();
    let key_environment = key_environment();
    let stateless = versions::STATELESS_VERSIONS.join(", ");
    let newest = versions::HANDSHAKE_VERSIONS[0];
    let oldest = versions::HANDSHAKE_VERSIONS[versions::HANDSHAKE_VERSIONS.len() - 1];
    let cap = MAX_REQUEST_BODY_BYTES;
    format!(
        "Transport (MCP's stdio):
  One JSON-RPC 2.0 message a line on standard input; one answer a line on standard output,
  in the order the requests came, and nothing else there. It ends when standard input ends.
  A line over {cap} bytes is answered -32600 and skipped unread. Errors are closed form
  (a code and a static message, never a value received).

Eras, per request, as the service's /mcp speaks them:
  {oldest} to {newest}  initialize, ping, tools/list, tools/call; notifications
  {stateless:<24}  a request naming its version in _meta: server/discover,
                            tools/list, tools/call (results carry resultType and cache hints)

Tools (free, answered on this machine, signed with the local key; no payment is taken):
  criteria   the criteria document with the local key's descriptor (as payability criteria)
  precheck   {{url, op?, caller?}}: whether url is in the target policy, signed; never
             fetches; nothing is metered (caller need only be a wallet)
  check      {{url}}: one fetch, the signed check report (as payability check)
  memo       {{url}}: two fetches, the signed memo report (as payability memo)
  doctor     {{url}}: the seller's check list doctor/v1 on one URL (as payability doctor,
             no probe): each check pass, fail or not applicable; only this server offers it
  A refusal is the tool result {{\"error\":{{\"rule\":…,\"message\":…}}}} with isError; a call
  carrying _meta[\"x402/payment\"] is refused (local_takes_no_payment), nothing charged.
  Nothing a target serves is written to standard error.

An MCP client starts it as a command, e.g. {{\"command\": \"npx\", \"args\": [\"payability\", \"mcp\"]}}.

Environment:
  {allow_private_targets:<33} 0 (default) or 1; 1 lifts the public-address rule as
                                    --allow-private does
{key_environment}

Exit codes:
  0  standard input ended
  1  failed: the signing key, the HTTP client, or standard input or output
  2  refused: a malformed setting, or the command line"
    )
}

/// After `serve --help`.
pub(crate) fn serve() -> String {
    let signing_key_secret_arn = settings::SIGNING_KEY_SECRET_ARN.name();
    let house_token_secret_arn = settings::HOUSE_TOKEN_SECRET_ARN.name();
    let signing_key_valid_from = settings::SIGNING_KEY_VALID_FROM.name();
    let allow_private_targets = settings::ALLOW_PRIVATE_TARGETS.name();
    let previous_signing_keys = settings::PREVIOUS_SIGNING_KEYS.name();
    let signing_public_key = settings::SIGNING_PUBLIC_KEY.name();
    let boc_valet_origin = settings::BOC_VALET_ORIGIN.name();
    let operator_wallet = settings::OPERATOR_WALLET.name();
    let public_base_url = settings::PUBLIC_BASE_URL.name();
    let facilitator_url = settings::FACILITATOR_URL.name();
    let solana_rpc_url = settings::SOLANA_RPC_URL.name();
    let house_token = settings::HOUSE_TOKEN.name();
    let fee_payer = settings::FEE_PAYER.name();
    let key_environment = key_environment();
    let store_environment = store_environment();
    format!(
        "Environment:
  {operator_wallet:<33} required: the base58 Solana wallet paid (payTo)
  {facilitator_url:<33} the x402 facilitator; without it (and a fee payer) paid
                                    routes answer 503
  {fee_payer:<33} the fee payer advertised when /supported cannot be read
  {solana_rpc_url:<33} JSON-RPC for getTransaction (the ledger's Solana fee)
  {public_base_url:<33} public origin of the API (default: this server's address)
  {house_token:<33} enables house checks with this bearer token
  {allow_private_targets:<33} 0 (default) or 1: targets may be loopback or private
                                    (local tests only)
  {boc_valet_origin:<33} the Bank of Canada Valet origin for CAD rates
  {signing_public_key:<33} pins the current key's public key (JWK x)
  {signing_key_valid_from} when the current key started signing
  {previous_signing_keys:<33} the retired keys /criteria publishes (a JSON array)
  {signing_key_secret_arn}, {house_token_secret_arn}
                                    read the seed and the house token from Secrets Manager
                                    instead of the local key file
{key_environment}
{store_environment}

Exit codes:
  0  stopped cleanly
  1  failed to start: a setting, the port, the signing key, the secrets or the store
  2  refused: the command line"
    )
}

/// After `ledger --help` and each ledger subcommand's.
pub(crate) fn ledger() -> String {
    let boc_valet_origin = settings::BOC_VALET_ORIGIN.name();
    let store_environment = store_environment();
    format!(
        "Environment:
{store_environment}
  {boc_valet_origin:<33} backfill-cad: the Bank of Canada Valet origin

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
        let texts = [
            root(),
            check(PaidOp::Check),
            check(PaidOp::Memo),
            verify(),
            signing_only(),
            mcp(),
            serve(),
            ledger(),
        ];
        let wide: Vec<&str> =
            texts.iter().flat_map(|t| t.lines()).filter(|l| l.chars().count() > 96).collect();
        assert!(wide.is_empty(), "{wide:#?}");
        let unindented = texts.iter().flat_map(|t| t.lines()).filter(|l| l.starts_with("PAYAB"));
        assert_eq!(unindented.count(), 0, "every variable is indented under its heading");
    }
}
