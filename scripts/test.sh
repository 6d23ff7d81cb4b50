#!/usr/bin/env bash
# Builds Latchkey and runs every test: Swift unit tests, then the black-box suite against the real binary.
# Installs what the tests need (system libraries, pytest and friends) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in libssl-dev libsqlite3-dev pkg-config chromium chromium-driver openssl; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "installing ${need_apt[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
if ! python3 -c "import pytest, requests, cryptography, aiosmtpd, selenium" 2>/dev/null; then
    python3 -m pip install -q -r Tests/blackbox/requirements.txt
fi

swift build
swift test
LATCHKEY_BIN="$PWD/.build/debug/latchkey" python3 -m pytest -q Tests/blackbox
