#!/usr/bin/env python3
"""What the OpenID provider's cheap paths cost: a second app's sign-in through the SSO session (`/authorize` with
the session cookie: a 303 with a code, no page), the code's exchange at the token endpoint (a confidential client,
PKCE, an ID token), a refresh of the tokens it gave, and rendering the sign-in page for a browser without a
session. Each request is timed on its own from a keep-alive connection; the server's CPU per request is read from
/proc. Run after `swift build -c release`:

    python3 bench/openid.py [--bin .build/release/latchkey] [--rounds 300]

A measurement: nothing here is asserted.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402
import openid_support  # noqa: E402
from test_openid import authorize_url, exchange, new_user, query  # noqa: E402
from proc_cpu import cpu_seconds  # noqa: E402


def measure(name, rounds, pid, call):
    latencies, cpu0 = [], cpu_seconds(pid)
    for _ in range(rounds):
        t0 = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - t0)
    cpu = (cpu_seconds(pid) - cpu0) / rounds
    latencies.sort()
    print(f"{name:<46} p50 {statistics.median(latencies) * 1000:6.2f} ms   p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:6.2f} ms"
          f"   server CPU {cpu * 1000:5.2f} ms/request")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    folder = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".build", "bench-openid"))
    os.makedirs(folder, exist_ok=True)
    secret_file = os.path.join(folder, "client.secret")
    with open(secret_file, "w") as f:
        f.write(openid_support.SECRET)
    s = harness.Server(config_text=openid_support.provider_config(secret_file, [4999]), env={"LATCHKEY_LOG_LEVEL": "warning"}).start()
    try:
        pages, _, _ = new_user(s)
        pid = s.proc.pid
        print(f"latchkey {args.bin}, {args.rounds} rounds each, one keep-alive connection")

        def sso_code():
            url, verifier = authorize_url(s, prompt="none")
            answer = pages.get(url)
            assert "code" in query(answer), answer.text
            return query(answer)["code"], verifier

        measure("/authorize with the SSO cookie -> 303 + code", args.rounds, pid, sso_code)
        codes = [sso_code() for _ in range(args.rounds)]
        tokens = []
        measure("token: authorization_code (Basic, PKCE, ID token)", args.rounds, pid,
                lambda: tokens.append(exchange(s, *codes[len(tokens)]).json()))
        http = pages.http
        refresh_tokens = [t["refresh_token"] for t in tokens]
        measure("token: refresh_token (confidential client)", args.rounds, pid,
                lambda: http.post(s.base + "/oauth2/v2.0/token", auth=(openid_support.WEB, openid_support.SECRET), timeout=10,
                                  data={"grant_type": "refresh_token", "refresh_token": refresh_tokens.pop()}).raise_for_status())
        fresh = harness.requests.Session()
        measure("/authorize without a session -> the sign-in page", args.rounds, pid,
                lambda: fresh.get(authorize_url(s)[0], allow_redirects=False, timeout=10).raise_for_status())
    finally:
        s.cleanup()


if __name__ == "__main__":
    main()
