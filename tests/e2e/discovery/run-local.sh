#!/usr/bin/env bash
# Starts the Solana RPC stub, the facilitator fixture and `payability serve` (all on loopback,
# fresh store and data directory in a temporary folder), runs run.mjs against the service with
# any extra arguments, and stops all three on every exit path. Exit status: run.mjs's.
#
#   tests/e2e/discovery/run-local.sh [run.mjs arguments, e.g. --out findings.jsonl]
#
# Needs: target/debug/payability (cargo build -p payability-cli, or PAYABILITY_BIN=<path>),
# the x402 virtualenv and the discovery auditors that scripts/test installs under
# target/test-deps (or the PAYABILITY_TEST_* variables run.mjs reads).
set -euo pipefail
cd "$(dirname "$0")/../../.."

BIN=${PAYABILITY_BIN:-target/debug/payability}
PY=${PAYABILITY_TEST_X402_PYTHON:-target/test-deps/x402-venv/bin/python}
WALLET=9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM
[[ -x "$BIN" ]] || { echo "run-local.sh: no $BIN (cargo build -p payability-cli)" >&2; exit 2; }
[[ -x "$PY" ]] || { echo "run-local.sh: no $PY (scripts/test installs it)" >&2; exit 2; }

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits for the line `ready <port>` (fixtures) or `serving on http://127.0.0.1:<port>` (the
# service, on stderr) in FILE and prints the port.
wait_port() {
  local file=$1 pattern=$2 name=$3 pid=$4 i
  for ((i = 0; i < 300; i++)); do
    if grep -qE "$pattern" "$file" 2>/dev/null; then
      grep -oE "$pattern" "$file" | head -n 1 | grep -oE '[0-9]+$'
      return
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run-local.sh: $name did not start; its output:" >&2
  cat "$file" >&2
  exit 1
}

# The fixtures exit when their stdin reaches end-of-file: give each a pipe held by this shell.
exec 3> >(exec "$PY" tests/e2e/solana_rpc_stub.py --port 0 --watch-stdin >"$WORK/rpc.out" 2>"$WORK/rpc.err")
PIDS+=($!)
RPC=$(wait_port "$WORK/rpc.out" 'ready [0-9]+' "the RPC stub" "${PIDS[-1]}")
exec 4> >(exec "$PY" tests/e2e/facilitator_fixture.py --port 0 --watch-stdin --rpc "http://127.0.0.1:$RPC" \
  >"$WORK/fac.out" 2>"$WORK/fac.err")
PIDS+=($!)
FAC=$(wait_port "$WORK/fac.out" 'ready [0-9]+' "the facilitator fixture" "${PIDS[-1]}")

mkdir -p "$WORK/data"
PAYABILITY_OPERATOR_WALLET=$WALLET \
  PAYABILITY_FACILITATOR_URL="http://127.0.0.1:$FAC" \
  PAYABILITY_SOLANA_RPC_URL="http://127.0.0.1:$RPC" \
  PAYABILITY_ALLOW_PRIVATE_TARGETS=1 \
  PAYABILITY_STORE="$WORK/store.sqlite3" \
  XDG_DATA_HOME="$WORK/data" \
  "$BIN" serve --port 0 </dev/null >"$WORK/svc.out" 2>"$WORK/svc.err" &
PIDS+=($!)
SVC=$(wait_port "$WORK/svc.err" 'serving on http://127\.0\.0\.1:[0-9]+' "payability serve" "${PIDS[-1]}")

echo "== payability serve on 127.0.0.1:$SVC (facilitator fixture :$FAC, RPC stub :$RPC)" >&2
set +e
node tests/e2e/discovery/run.mjs --base "http://127.0.0.1:$SVC" "$@"
status=$?
set -e
exit "$status"
