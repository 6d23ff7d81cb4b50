#!/usr/bin/env bash
# Builds Latchkey and runs every test: the generated-defaults check, Swift tests, then the black-box suite
# (pytest, with a real SMTP relay, headless Chromium and a bounded fuzz run) against the real binary.
# Installs what is missing: Debian packages (with sudo when not root) and Python packages into .venv-test/.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

need_apt=()
for pkg in libssl-dev libsqlite3-dev pkg-config chromium chromium-driver openssl python3-venv; do
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
if ! "$venv/bin/python" -c "import pytest, requests, cryptography, aiosmtpd, selenium, hypothesis" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r Tests/blackbox/requirements.txt
fi

python3 scripts/embed-defaults.py --check
swift build --build-tests
# Swift Testing only: XCTest's empty "Executed 0 tests" summary would only confuse.
swift test --skip-build --disable-xctest
LATCHKEY_BIN="$PWD/.build/debug/latchkey" "$venv/bin/python" -m pytest -q Tests/blackbox
