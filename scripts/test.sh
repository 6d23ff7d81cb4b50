#!/usr/bin/env bash
# Builds Latchkey and runs every test: the generated-defaults check, Swift tests (the store contract on SQLite and
# on PostgreSQL), then the black-box suite (pytest, with a real SMTP relay, headless Chromium, a bounded fuzz run
# and two replicas sharing PostgreSQL) against the real binary.
# Installs what is missing: Debian packages (with sudo when not root) and Python packages into .venv-test/.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

need_apt=()
for pkg in libssl-dev libsqlite3-dev libcrypt-dev libargon2-dev pkg-config chromium chromium-driver openssl python3-venv postgresql; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "installing ${need_apt[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

# Python test dependencies live in a virtual environment of their own (stock Debian refuses pip into the
# system Python); pinned ranges in requirements.txt keep runs reproducible.
venv=.venv-test
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import pytest, requests, cryptography, aiosmtpd, selenium, hypothesis, schemathesis, bcrypt, pyotp, authlib, oic, webauthn, soft_webauthn, firebase_scrypt, argon2, msal, mcp, jwt, zxingcpp" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r Tests/blackbox/requirements.txt
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r Tests/blackbox/requirements-nodeps.txt
fi

# Every stage runs and reports, so one failing Swift test does not hide the black-box suite; the script fails
# when any stage failed. A stage whose input is missing (no binary after a failed build) is reported as not run.
results=()
stage() {
    local name=$1; shift
    echo "=== $name"
    local started=$SECONDS
    if "$@"; then results+=("passed  $name ($((SECONDS - started)) s)"); else results+=("FAILED  $name ($((SECONDS - started)) s)"); fi
}
report() {
    echo; echo "=== stages"
    printf '%s\n' "${results[@]}"
    for line in "${results[@]}"; do [[ $line == passed* ]] || return 1; done
}

stage "OpenAPI document is current" python3 scripts/openapi.py --check
# The refresh-cost ablation (bench/README.md) is a patch against the grant's source: keep it applying.
stage "bench ablation patch applies" git apply --check bench/refresh-ablation.patch

# A throwaway PostgreSQL cluster (Debian's binaries, a temporary directory, a free port, a non-root owner) for the
# PostgreSQL contract cases and the two-replica black-box tests; stopped and removed however the run ends.
pg_url=$(scripts/postgres-cluster.sh start 2>.pg-cluster-dir)
pg_dir=$(tail -1 .pg-cluster-dir); rm -f .pg-cluster-dir
trap 'scripts/postgres-cluster.sh stop "$pg_dir"' EXIT
export LATCHKEY_TEST_POSTGRES_URL="$pg_url" LATCHKEY_TEST_POSTGRES_DIR="$pg_dir"
stage "swift build (debug, with tests)" swift build --build-tests
if [ -x .build/debug/latchkey ] && [[ ${results[-1]} == passed* ]]; then
    # Swift Testing only: XCTest's empty "Executed 0 tests" summary would only confuse.
    stage "Swift tests (engine, both stores, routers)" swift test --skip-build --disable-xctest
    # The browser suites' screenshots are kept: .build/test-artifacts/screenshots/*.png.
    mkdir -p .build/test-artifacts/screenshots
    stage "black-box suite (real binary, sockets, relay, browser, PostgreSQL)" \
        env LATCHKEY_BIN="$PWD/.build/debug/latchkey" LATCHKEY_SCREENSHOTS="$PWD/.build/test-artifacts/screenshots" \
        FUZZ_TALLY="$PWD/.build/test-artifacts/fuzz-tally.json" \
        "$venv/bin/python" -m pytest -q Tests/blackbox
    # docs/testing.md's worked examples, as an app team's CI runs them: against `latchkey serve --testing`.
    stage "app-team examples against test mode" \
        env LATCHKEY_BIN="$PWD/.build/debug/latchkey" PYTHON="$PWD/$venv/bin/python" examples/testing/run.sh
    # What the fuzz stage sent, by surface and class of answer (every surface of both listeners).
    if [ -f .build/test-artifacts/fuzz-tally.json ]; then echo "fuzz: $(tr -d '\n' < .build/test-artifacts/fuzz-tally.json)"; fi
else
    results+=("FAILED  Swift tests: not run, the build failed" "FAILED  black-box suite: not run, the build failed")
fi
report
