#!/usr/bin/env bash
# Runs the app-team examples (pytest in python/, XCTest over URLSession in swift/) against `latchkey serve --testing` on free ports, as an app
# team's CI would run its own: LATCHKEY_BIN is the binary, PYTHON a Python with pytest and requests.
set -euo pipefail
cd "$(dirname "$0")"
bin=${LATCHKEY_BIN:-../../.build/debug/latchkey}
python=${PYTHON:-python3}
ports=($("$python" -c 'import socket
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'))
log=$(mktemp)
env -i PATH="$PATH" HOME="${HOME:-/tmp}" LATCHKEY_SERVER_PORT="${ports[0]}" LATCHKEY_ADMIN_LISTEN="127.0.0.1:${ports[1]}" \
    "$bin" serve --testing >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 200); do curl -sf "http://127.0.0.1:${ports[0]}/health/ready" >/dev/null && break; sleep 0.05; done
LATCHKEY_URL="http://127.0.0.1:${ports[0]}" "$python" -m pytest -q -p no:cacheprovider python
LATCHKEY_URL="http://127.0.0.1:${ports[0]}" swift test --package-path swift
