#!/usr/bin/env python3
"""A passkey sign-in's server CPU next to a refresh's. A passkey sign-in at the hosted pages is three requests: the
visit (`/authorize`, the sign-in page), the request options (a challenge stored, bound to the visit) and the
assertion (the challenge taken, one signature checked, the counter and a browser session written, the code issued).
A refresh is one request (one conditional write, tokens signed). soft-webauthn is the authenticator; the server's
user + system CPU is read from /proc around each loop, so the client's own work (signing) is not counted. Run after
`swift build -c release`, with the test environment's Python (`.venv-test`, made by scripts/test.sh):

    .venv-test/bin/python bench/passkey_cost.py [--bin .build/release/latchkey] [--rounds 300]

A measurement: nothing here is asserted.
"""
import argparse
import os
import sys
import tempfile
import time
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from openid_support import PUBLIC, provider_config  # noqa: E402
from proc_cpu import cpu_seconds  # noqa: E402
from test_openid import exchange  # noqa: E402
from test_passkeys import CALLBACK, register, sign_in  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    folder = tempfile.mkdtemp(prefix="latchkey-bench-")
    secret = os.path.join(folder, "client.secret")
    with open(secret, "w") as f:
        f.write("s" * 64 + "\n")
    s = harness.Server(config_text=provider_config(secret, [4999]), env={"LATCHKEY_PASSKEYS_RP_ID": "localhost", "LATCHKEY_LOG_LEVEL": "warning"})
    s.origin = f"http://localhost:{s.port}"
    s.env["LATCHKEY_PASSKEYS_ORIGINS"] = s.origin
    s.start()
    try:
        browser, device, _, credential = register(s)
        assert browser.call("/ui/passkeys/registration", credential).status_code == 200
        # Warm up both paths, and keep one sign-in's tokens for the refresh loop.
        _, answer, _, _ = sign_in(s, device)
        visitor = None
        for _ in range(20):
            visitor, answer, _, _ = sign_in(s, device)
            assert answer.status_code == 200, answer.text
        code = parse_qs(urlparse(answer.json()["location"]).query)["code"][0]
        tokens = exchange(s, code, visitor.verifier, client=PUBLIC, secret=None, redirect=CALLBACK).json()
        refresh = tokens["refresh_token"]

        before, t0 = cpu_seconds(s.proc.pid), time.perf_counter()
        for _ in range(args.rounds):
            _, answer, _, _ = sign_in(s, device)
            assert answer.status_code == 200, answer.text
        passkey_cpu, passkey_wall = cpu_seconds(s.proc.pid) - before, time.perf_counter() - t0

        # Each step alone: the visit (the sign-in page), the request options, then options and assertion together.
        from test_passkeys import Browser
        from passkey_support import authentication_json, request_options
        before = cpu_seconds(s.proc.pid)
        for _ in range(args.rounds):
            Browser(s)
        visit_cpu = cpu_seconds(s.proc.pid) - before
        one = Browser(s)
        before = cpu_seconds(s.proc.pid)
        for _ in range(args.rounds):
            assert one.call("/ui/passkeys/authentication/options").status_code == 200
        options_cpu = cpu_seconds(s.proc.pid) - before

        import requests
        http = requests.Session()
        before, t0 = cpu_seconds(s.proc.pid), time.perf_counter()
        for _ in range(args.rounds):
            r = http.post(s.base + "/oauth2/v2.0/token", data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": PUBLIC},
                          timeout=30)
            assert r.status_code == 200, r.text
            refresh = r.json()["refresh_token"]
        refresh_cpu, refresh_wall = cpu_seconds(s.proc.pid) - before, time.perf_counter() - t0
    finally:
        s.cleanup()
    n = args.rounds
    print(f"{n} rounds each, one client at a time, release build, SQLite, log level warning")
    print(f"{'path':58} {'server CPU µs':>14} {'requests':>9} {'CPU µs/request':>15} {'wall ms':>8}")
    print(f"{'passkey sign-in (visit, options, assertion)':58} {passkey_cpu / n * 1e6:14.0f} {3:9d} {passkey_cpu / n / 3 * 1e6:15.0f} "
          f"{passkey_wall / n * 1000:8.2f}")
    print(f"{'refresh (POST /oauth2/v2.0/token, rotated)':58} {refresh_cpu / n * 1e6:14.0f} {1:9d} {refresh_cpu / n * 1e6:15.0f} "
          f"{refresh_wall / n * 1000:8.2f}")
    print(f"{'  of which the visit (GET /authorize: the sign-in page)':58} {visit_cpu / n * 1e6:14.0f}")
    print(f"{'  of which the request options (a challenge stored)':58} {options_cpu / n * 1e6:14.0f}")
    print(f"{'  of which the assertion (the rest)':58} {(passkey_cpu - visit_cpu - options_cpu) / n * 1e6:14.0f}")
    print(f"ratio: a passkey sign-in costs the server {passkey_cpu / refresh_cpu:.1f} refreshes; "
          f"its assertion {(passkey_cpu - visit_cpu - options_cpu) / refresh_cpu:.1f}")


if __name__ == "__main__":
    main()
