# shellcheck shell=bash disable=SC2034 # the pins are read by the scripts that source this file
# The cargo subcommands the supply-chain, deploy and fuzz scripts run, pinned, and how they are
# installed: with `cargo install --locked` once per machine into $PAYABILITY_TOOLS_DIR (as
# .ci/run sets it; else target/), a folder per name and version, checked by version before
# every use; and the one download of every crate the lock files name. Sourced, from the
# workspace root, by scripts/audit, scripts/deploy-check, scripts/fuzz and scripts/tools (each
# with `set -euo pipefail`); it defines variables and functions and runs nothing.
#
# The newest releases on crates.io that build with the stable toolchain here (rustc 1.95);
# first-install times on this machine's two cores are in docs/supply-chain.md.
CARGO_AUDIT_VERSION=0.22.2     # advisories, for lock files (scripts/audit) and binaries (deploy-check)
CARGO_DENY_VERSION=0.20.2      # licences, duplicates and sources (scripts/audit)
CARGO_AUDITABLE_VERSION=0.7.7  # the dependency list embedded in a binary (deploy-check, scripts/package)
CARGO_CYCLONEDX_VERSION=0.5.9  # a CycloneDX SBOM per Lambda function (deploy-check)
CARGO_FUZZ_VERSION=0.13.2      # the fuzz targets' builds and runs (scripts/fuzz)

# Installs the cargo subcommand $1 at version $2 under the tools folder (a folder per version)
# unless it is there already, and prints the binary's path. The version is read from the
# folder's install record (`cargo install --list`), not from `--version`: cargo-auditable
# answers only when cargo runs it.
installed() {
    local name=$1 version=$2
    local root="${PAYABILITY_TOOLS_DIR:-$PWD/target}/$name-$version"
    if [[ ! -x $root/bin/$name ]] ||
        ! cargo install --list --root "$root" 2>/dev/null | grep -qxF "$name v$version:"; then
        echo "== installing $name $version (cargo install --locked) into $root" >&2
        rm -rf "$root"
        cargo install --quiet --locked --version "$version" --root "$root" "$name" >&2
    fi
    echo "$root/bin/$name"
}

# Downloads every crate both lock files name, for every platform (`cargo fetch` without
# --target), into cargo's registry cache: the steps that then read them offline (cargo deny
# and cargo cyclonedx run `cargo metadata`, which wants every platform's crates, even those
# this machine never builds) find them there on a fresh machine too. Quick when they are
# there already.
fetch_locked_crates() {
    cargo fetch --locked --quiet
    cargo fetch --locked --quiet --manifest-path fuzz/Cargo.toml
}

# The reviewed advisory ignore list as cargo-audit flags, one per line ("--ignore" then the
# id): each entry of supply-chain/audit.toml's `ignore` needs an id, why and reviewed.
audit_ignore_flags() {
    python3 -c 'import sys, tomllib
for entry in tomllib.load(open(sys.argv[1], "rb"))["ignore"]:
    for key in ("id", "why", "reviewed"):
        if not str(entry.get(key, "")).strip():
            sys.exit(f"supply-chain/audit.toml: every ignore entry needs {key}")
    print("--ignore")
    print(entry["id"])' supply-chain/audit.toml
}
