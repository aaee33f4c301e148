# shellcheck shell=bash
# The pinned test dependencies that both scripts/test and scripts/watch use, installed on first
# use into the test-deps folder below (each is reinstalled only when its pinned version differs from what
# is installed): moto's server (pip, in a virtualenv), the official x402 Python SDK with the
# packages the end-to-end fixtures and buyers rely on (pip, in its own virtualenv) and
# cargo-lambda (pip, in its own virtualenv). Sourced, from the workspace root, by a script with
# `set -euo pipefail`; it defines variables and functions and runs nothing.

# Where they go: $PAYABILITY_TOOLS_DIR/test-deps (a folder kept per machine, as .ci/run sets
# it, so a fresh clone on a warm machine reuses them), else target/test-deps; always absolute.
# The logs of installs and servers stay with the checkout.
DEPS=${PAYABILITY_TOOLS_DIR:-$PWD/target}/test-deps
LOGS=$PWD/target/test-logs

MOTO_VERSION=5.2.5
MOTO_VENV=$DEPS/venv
# The x402 buyer and fixtures (tests/e2e): the SDK pinned, with the packages whose formats
# the fixtures rely on pinned too, and the third-party report verifier's RFC 8785 and
# Ed25519 libraries; the test sellers (tests/e2e/sellers/seller.py) add the SDK's FastAPI and
# Flask middleware (the `fastapi` and `flask` extras, their frameworks and servers pinned) and
# jsonschema, which the SDK's bazaar extension imports. Python 3.11+ (solana-py needs it).
X402_VERSION=2.25.0
X402_ALSO_PINNED="solders==0.27.1 solana==0.39.0 httpx==0.28.1 rfc8785==0.1.4 cryptography==50.0.2"
X402_ALSO_PINNED+=" fastapi==0.165.0 starlette==1.10.0 uvicorn==0.54.0 flask==3.1.3 werkzeug==3.1.9 jsonschema==4.26.0"
# The MCP buyer (tests/e2e/mcp_buyer.py): the SDK's `mcp` extra with the MCP SDK pinned to 1.x
# (x402 2.25.0's MCP client reads `result.isError`, which mcp 2.x renamed) and its transport's
# packages pinned too.
X402_ALSO_PINNED+=" mcp==1.30.0 httpx-sse==0.4.3 sse-starlette==3.7.1 pydantic-settings==2.16.3 python-multipart==0.0.34"
# The A2A buyer (tests/e2e/a2a_buyer.py): the official A2A SDK's client (A2A 1.0, with its 0.3
# compatibility layer), its protobuf and JSON-RPC packages pinned too.
X402_ALSO_PINNED+=" a2a-sdk==1.3.0 protobuf==7.36.2 google-api-core==2.44.0 googleapis-common-protos==1.76.0 json-rpc==1.15.0 culsans==0.11.0"
# The doctor's Base sellers (tests/e2e/sellers/seller.py, doctor-base*): the SDK's `evm` extra,
# its web3 and eth-account pinned.
X402_ALSO_PINNED+=" web3==8.0.0 eth-account==0.14.0"
X402_PINS="x402==$X402_VERSION $X402_ALSO_PINNED"
X402_VENV=$DEPS/x402-venv
# The MCP 2026-07-28 clients (tests/e2e/mcp2_*.py): the official MCP SDK 2.x, which speaks the
# stateless revision and the handshake era, beside x402's Solana client (the `svm` extra, no
# `mcp` extra: x402 2.25.0's MCP client is written for mcp 1.x), in their own virtualenv; the
# packages both bring pinned as the x402 virtualenv pins them.
MCP2_PINS="mcp==2.3.0 mcp-types==2.3.0 httpx2==2.17.0 httpcore2==2.17.0 pydantic==2.14.4 anyio==4.16.0"
MCP2_PINS+=" starlette==1.10.0 uvicorn==0.55.0 sse-starlette==3.7.1 python-multipart==0.0.34"
MCP2_PINS+=" x402==$X402_VERSION solders==0.27.1 solana==0.39.0 httpx==0.28.1 rfc8785==0.1.4 cryptography==50.0.2"
MCP2_VENV=$DEPS/mcp2-venv
# cargo-lambda (PyPI, pinned as scripts/deploy-check pins it) for `cargo lambda watch`
# (scripts/watch, and through it the deployed-shape test). In its own virtualenv, not
# deploy-check's (that one is rebuilt whenever its pins change), and without its ziglang
# dependency: `watch` builds for this machine with cargo and never cross-links.
CARGO_LAMBDA_VERSION=1.9.2
CARGO_LAMBDA_VENV=$DEPS/cargo-lambda-venv

say() { printf '== %s\n' "$*" >&2; }

installed_moto() {
  "$MOTO_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))' 2>/dev/null || true
}

installed_x402() {
  "$X402_VENV/bin/python" -c 'import importlib.metadata as m
names = ("x402", "solders", "solana", "httpx", "rfc8785", "cryptography", "fastapi",
         "starlette", "uvicorn", "flask", "werkzeug", "jsonschema", "mcp", "httpx-sse",
         "sse-starlette", "pydantic-settings", "python-multipart", "a2a-sdk", "protobuf",
         "google-api-core", "googleapis-common-protos", "json-rpc", "culsans", "web3",
         "eth-account")
print(" ".join(f"{n}=={m.version(n)}" for n in names))' 2>/dev/null || true
}

installed_mcp2() {
  "$MCP2_VENV/bin/python" -c 'import importlib.metadata as m, sys
print(" ".join(f"{n}=={m.version(n)}" for n in sys.argv[1:]))' mcp mcp-types httpx2 httpcore2 pydantic \
    anyio starlette uvicorn sse-starlette python-multipart x402 solders solana httpx rfc8785 cryptography 2>/dev/null || true
}

installed_cargo_lambda() {
  "$CARGO_LAMBDA_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("cargo-lambda"))' 2>/dev/null || true
}

# A Python 3.11 or newer for the x402 virtualenv.
x402_base_python() {
  local py
  for py in python3 python3.13 python3.12 python3.11; do
    if command -v "$py" >/dev/null && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      command -v "$py"
      return
    fi
  done
  say "the x402 end-to-end fixtures need Python 3.11 or newer (python3 is older)"
  exit 1
}

install_moto() {
  mkdir -p "$LOGS"
  if [[ "$(installed_moto)" != "$MOTO_VERSION" ]]; then
    say "installing moto[server] $MOTO_VERSION (pip, in a virtualenv) into $MOTO_VENV"
    { python3 -m venv "$MOTO_VENV" && "$MOTO_VENV/bin/pip" install --quiet "moto[server]==$MOTO_VERSION"; } >"$LOGS/install-moto.log" 2>&1 \
      || { cat "$LOGS/install-moto.log" >&2; exit 1; }
  fi
}

# Makes the virtualenv $1 anew with a Python 3.11+ and pip-installs the rest of the arguments
# into it, logging to $LOGS/install-$(basename $1).log (printed when it fails).
fresh_venv() {
  local venv=$1 log
  shift
  log=$LOGS/install-$(basename "$venv").log
  mkdir -p "$LOGS"
  { rm -rf "$venv" && "$(x402_base_python)" -m venv "$venv" \
      && "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"; } >"$log" 2>&1 \
    || { cat "$log" >&2; exit 1; }
}

install_x402() {
  if [[ "$(installed_x402)" != "$X402_PINS" ]]; then
    say "installing x402[svm,evm,httpx,fastapi,flask,mcp] (${X402_PINS// /, }) (pip, in a virtualenv) into $X402_VENV"
    # shellcheck disable=SC2086 # the pins are words
    fresh_venv "$X402_VENV" "x402[svm,evm,httpx,fastapi,flask,mcp]==$X402_VERSION" $X402_ALSO_PINNED
  fi
}

install_mcp2() {
  if [[ "$(installed_mcp2)" != "$MCP2_PINS" ]]; then
    say "installing mcp 2.x and x402[svm] (${MCP2_PINS// /, }) (pip, in a virtualenv) into $MCP2_VENV"
    # shellcheck disable=SC2086 # the pins are words; x402's extra is named apart
    fresh_venv "$MCP2_VENV" ${MCP2_PINS/x402==/x402[svm]==}
  fi
}

install_cargo_lambda() {
  mkdir -p "$LOGS"
  if [[ "$(installed_cargo_lambda)" != "$CARGO_LAMBDA_VERSION" ]]; then
    say "installing cargo-lambda $CARGO_LAMBDA_VERSION (pip, in a virtualenv, no dependencies) into $CARGO_LAMBDA_VENV"
    { rm -rf "$CARGO_LAMBDA_VENV" && python3 -m venv "$CARGO_LAMBDA_VENV" \
        && "$CARGO_LAMBDA_VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps \
          "cargo-lambda==$CARGO_LAMBDA_VERSION"; } >"$LOGS/install-cargo-lambda.log" 2>&1 \
      || { cat "$LOGS/install-cargo-lambda.log" >&2; exit 1; }
  fi
}
