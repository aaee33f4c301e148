#!/usr/bin/env bash
# The payability GitHub Action's one script (action.yml runs it; see docs/ci.md). Reads its
# inputs from the environment as GitHub names them, INPUT_<NAME> with the input's name
# uppercased and its hyphens kept (INPUT_URLS, INPUT_URLS-FILE, INPUT_ALLOW-PRIVATE, ...):
# action.yml passes each one with `env:`, since a composite action's inputs are not exported.
#
#   urls           newline list of URLs (blank lines and # comments skipped)
#   urls-file      a file of URLs, one a line (the command's --urls-from)
#   catalogue      an origin whose /.well-known/x402 lists the URLs (--catalogue)
#   op             check, memo, both (check, then memo) or doctor (the check list doctor/v1)
#   require        comma-separated states; empty: POPULATED for check, BOUND for memo; `none`:
#                  no requirement. With op=both each op takes the listed states that are its
#                  own (NOT-A-402 is both ops'), and each op must be given at least one
#   expect         newline list of KEY=VALUE (--expect, once each; check and memo only)
#   fail-on        doctor only: error (empty: the default), warning or info (--fail-on)
#   allow-private  true or false (--allow-private)
#   version        the release to install
#
# The binary: PAYABILITY_BINARY (a path) skips the download. Otherwise the release archive
# for the runner's platform (RUNNER_OS, RUNNER_ARCH), cargo-binstall's default name
# payability-cli-v<V>-<target>.tgz (.zip on Windows), is fetched from
# PAYABILITY_RELEASE_BASE/v<V>/ (default: this repository's GitHub releases) with the
# release's SHA256SUMS, and its SHA-256 must be the one SHA256SUMS lists for it before it is
# unpacked: a missing sums file, an archive it does not list (or lists twice) or a digest
# that differs fails closed (exit 1) and nothing is run.
#
# Runs `payability <op> --format github --reports FILE ...` per op (annotations on stdout,
# the summary table appended to GITHUB_STEP_SUMMARY by the command), writes the outputs
# `exit-code` and `reports` (the JSON Lines, check's then memo's) to GITHUB_OUTPUT in the
# multiline form (with op doctor, the reports are its JSON Lines of findings), and exits
# with the command's code (across ops: a crash code such as 101
# or 137 first, then 1, then 2, then 3, else 0). Every `urls` line must be an http(s) URL; the
# URLs go after a literal `--`, so no input becomes an option. Every value the script prints
# in a workflow command is escaped as GitHub reads one.
set -euo pipefail
# Bash 3.2 (macOS) too: no ${x,,}, no mapfile, empty arrays expanded with ${a[@]+...}.

REPOSITORY_RELEASES="https://github.com/payability-verdict/payability-verdict/releases/download"
CHECK_STATES="POPULATED AMOUNTS-ONLY UNCONFIGURED HEADER-MISSING RESOURCE-MISMATCH NOT-A-402"
MEMO_STATES="BOUND MEMO-REUSED LEG-MISMATCH MEMO-ABSENT NOT-A-402"

# An input by its name, empty when unset (hyphenated names are not shell variables).
input() { printenv "INPUT_$1" || true; }
# A workflow command's message escaped as GitHub reads it (and as the binary escapes its
# own): `%`, CR and LF, so no value in it can end the line and start another command.
escape_data() {
    local text="${1//%/%25}"
    text="${text//$'\r'/%0D}"
    printf '%s' "${text//$'\n'/%0A}"
}
fail() { echo "::error title=payability action::$(escape_data "$1")"; exit "${2:-1}"; }
lower() { printf '%s' "$1" | tr '[:upper:]' '[:lower:]'; }
# Trimmed of surrounding blanks (and a CR, for a list written on Windows).
trim() {
    local text="${1//$'\r'/}"
    text="${text#"${text%%[![:space:]]*}"}"
    printf '%s' "${text%"${text##*[![:space:]]}"}"
}

SCRATCH="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
mkdir -p "$SCRATCH"
SCRATCH="$(mktemp -d "$SCRATCH/payability-action.XXXXXX")"

# --- inputs ---------------------------------------------------------------------------------
OP="$(trim "$(input OP)")"
case "${OP:-check}" in
    check) OPS=(check) ;;
    memo) OPS=(memo) ;;
    both) OPS=(check memo) ;;
    doctor) OPS=(doctor) ;;
    *) fail "op must be check, memo, both or doctor, not '$OP'" 2 ;;
esac
# doctor's level (--fail-on); check's and memo's terms (require, expect) are not its.
FAIL_ON="$(trim "$(input FAIL-ON)")"
if [[ "${OPS[0]}" == doctor ]]; then
    case "$(lower "${FAIL_ON:-error}")" in
        error | warning | info) FAIL_ON="$(lower "${FAIL_ON:-error}")" ;;
        *) fail "fail-on must be error, warning or info, not '$FAIL_ON'" 2 ;;
    esac
    [[ -z "$(trim "$(input REQUIRE)")$(trim "$(input EXPECT)")" ]] ||
        fail "require and expect are check's and memo's terms; op doctor takes fail-on" 2
elif [[ -n "$FAIL_ON" ]]; then
    fail "fail-on is op doctor's; check and memo take require and expect" 2
fi

# The command's options (each value joined to its flag with `=`, so a value that looks like an
# option is still a value) and the URLs, which go after a literal `--`: a `urls` line is a URL
# or refused, never an option.
ARGS=()
URLS=()
while IFS= read -r line || [[ -n "$line" ]]; do
    line="$(trim "$line")"
    [[ -z "$line" || "$line" == \#* ]] && continue
    case "$(lower "$line")" in
        http://* | https://*) URLS+=("$line") ;;
        *) fail "every urls line is an http:// or https:// URL (blank lines and # comments aside), not '$line'" 2 ;;
    esac
done <<<"$(input URLS)"
urls_file="$(trim "$(input URLS-FILE)")"
[[ -z "$urls_file" ]] || ARGS+=("--urls-from=$urls_file")
catalogue="$(trim "$(input CATALOGUE)")"
[[ -z "$catalogue" ]] || ARGS+=("--catalogue=$catalogue")
while IFS= read -r line || [[ -n "$line" ]]; do
    line="$(trim "$line")"
    [[ -z "$line" ]] || ARGS+=("--expect=$line")
done <<<"$(input EXPECT)"
allow_private="$(trim "$(input ALLOW-PRIVATE)")"
case "$(lower "$allow_private")" in
    true) ARGS+=(--allow-private) ;;
    false | "") ;;
    *) fail "allow-private must be true or false, not '$allow_private'" 2 ;;
esac

# The --require of each op (REQUIRES, in the order of OPS): the listed states that are its
# own, else its default.
REQUIRE="$(trim "$(input REQUIRE)")"
REQUIRE="${REQUIRE//$'\n'/,}"
REQUIRES=()
for op in "${OPS[@]}"; do
    if [[ "$op" == check ]]; then own="$CHECK_STATES" default=POPULATED; else own="$MEMO_STATES" default=BOUND; fi
    if [[ "$op" == doctor ]]; then
        REQUIRES+=("")
    elif [[ -z "$REQUIRE" ]]; then
        REQUIRES+=("$default")
    elif [[ "$(lower "$REQUIRE")" == none ]]; then
        REQUIRES+=("")
    elif ((${#OPS[@]} == 1)); then
        REQUIRES+=("$REQUIRE")
    else
        states=""
        IFS=', ' read -r -a listed <<<"$REQUIRE"
        for state in "${listed[@]}"; do
            # A state of neither op goes to both: the command refuses it (require_state_unknown).
            if [[ -n "$state" && (" $CHECK_STATES $MEMO_STATES " != *" $state "* || " $own " == *" $state "*) ]]; then
                states="${states:+$states,}$state"
            fi
        done
        [[ -n "$states" ]] || fail "require names none of $op's states ($own); with op both, list states of both ops" 2
        REQUIRES+=("$states")
    fi
done

# --- the binary -----------------------------------------------------------------------------
sha256_of() {
    if command -v sha256sum >/dev/null; then
        sha256sum "$1" | cut -d' ' -f1
    else
        shasum -a 256 "$1" | cut -d' ' -f1
    fi
}

install_release() {
    local version target suffix exe="" archive base dir expected actual
    version="$(trim "$(input VERSION)")"
    version="${version#v}"
    [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
        fail "version must be a release version such as 0.1.0, not '$version'" 2
    case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
        Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-musl ;;
        Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-musl ;;
        macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ;;
        macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
        Windows/X64) target=x86_64-pc-windows-msvc exe=.exe ;;
        *) fail "no payability release for ${RUNNER_OS:-$(uname -s)} ${RUNNER_ARCH:-$(uname -m)}" ;;
    esac
    suffix=.tgz
    [[ -z "$exe" ]] || suffix=.zip
    archive="payability-cli-v$version-$target$suffix"
    base="${PAYABILITY_RELEASE_BASE:-$REPOSITORY_RELEASES}/v$version"
    dir="$SCRATCH/release"
    mkdir -p "$dir"
    # HTTPS only, redirects too, whatever the base; a file:// base (a release on disk) reads
    # files only.
    local curl=(curl --fail --silent --show-error --location --retry 3 --max-time 120)
    case "$(lower "$base")" in
        file://*) curl+=(--proto '=file' --proto-redir '=file') ;;
        *) curl+=(--proto '=https' --proto-redir '=https') ;;
    esac
    "${curl[@]}" --output "$dir/SHA256SUMS" "$base/SHA256SUMS" ||
        fail "could not download $base/SHA256SUMS: refusing to run an unverified binary"
    "${curl[@]}" --output "$dir/$archive" "$base/$archive" ||
        fail "could not download $base/$archive"
    expected="$(awk -v name="$archive" '{ file = $2; sub(/^\*/, "", file) } file == name { print $1 }' \
        "$dir/SHA256SUMS")"
    [[ "$expected" =~ ^[0-9a-fA-F]{64}$ ]] ||
        fail "SHA256SUMS of v$version lists $archive not exactly once: refusing to run an unverified binary"
    actual="$(sha256_of "$dir/$archive")"
    [[ "$(lower "$actual")" == "$(lower "$expected")" ]] ||
        fail "SHA-256 mismatch for $archive: SHA256SUMS says $expected, the download is $actual; not running it"
    echo "payability action: $archive sha256:$actual verified against SHA256SUMS of v$version" >&2
    mkdir -p "$dir/bin"
    if [[ "$suffix" == .zip ]]; then
        unzip -q -o "$dir/$archive" -d "$dir/bin"
    else
        tar -xzf "$dir/$archive" -C "$dir/bin"
    fi
    # A link could name any program on the runner: only a regular file is run.
    [[ -f "$dir/bin/payability$exe" && ! -L "$dir/bin/payability$exe" ]] ||
        fail "$archive holds no payability$exe file at its root (a link is refused)"
    chmod +x "$dir/bin/payability$exe"
    BINARY="$dir/bin/payability$exe"
}

if [[ -n "${PAYABILITY_BINARY:-}" ]]; then
    BINARY="$PAYABILITY_BINARY"
    [[ -x "$BINARY" ]] || fail "PAYABILITY_BINARY=$BINARY is not an executable file" 2
else
    install_release
fi

# --- the runs -------------------------------------------------------------------------------
REPORTS="$SCRATCH/reports.jsonl"
: >"$REPORTS"
code=0
for i in "${!OPS[@]}"; do
    op="${OPS[$i]}"
    run=("$BINARY" "$op" --format github --reports "$SCRATCH/$op.jsonl")
    [[ -z "${REQUIRES[$i]}" ]] || run+=(--require "${REQUIRES[$i]}")
    [[ "$op" != doctor ]] || run+=("--fail-on=$FAIL_ON")
    # The command writes the summary's heading and table itself (--format github).
    status=0
    "${run[@]}" ${ARGS[@]+"${ARGS[@]}"} -- ${URLS[@]+"${URLS[@]}"} || status=$?
    [[ ! -f "$SCRATCH/$op.jsonl" ]] || cat "$SCRATCH/$op.jsonl" >>"$REPORTS"
    # Across ops as across URLs: any other code (a crash: 101, 137) is the worst and is kept,
    # then 1, then 2, then 3, else 0.
    if ((code != 0 && code != 1 && code != 2 && code != 3)); then continue; fi
    if ((status != 0 && status != 1 && status != 2 && status != 3)); then code=$status; continue; fi
    for rank in 1 2 3; do
        if ((code == rank)); then break; fi
        if ((status == rank)); then code=$rank; break; fi
    done
done

# --- the outputs ----------------------------------------------------------------------------
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    delimiter="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    {
        printf 'exit-code<<%s\n%s\n%s\n' "$delimiter" "$code" "$delimiter"
        printf 'reports<<%s\n%s\n%s\n' "$delimiter" "$REPORTS" "$delimiter"
    } >>"$GITHUB_OUTPUT"
fi
exit "$code"
