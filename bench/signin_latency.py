#!/usr/bin/env python3
"""Sign-in latency at the configured scrypt cost (default N=2^17, r=8, p=1), and how fast a cheap endpoint
(JWKS) stays while password hashing saturates the CPU. Run after `swift build -c release`:

    python3 bench/signin_latency.py [--bin .build/release/latchkey] [--rounds 20] [--log-n 17]
"""
import argparse
import os
import statistics
import sys
import threading
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
from conftest import sign_up  # noqa: E402
from harness import ALL_TYPES, Server  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--log-n", type=int, default=17)
    args = ap.parse_args()
    os.environ["LATCHKEY_BIN"] = os.path.abspath(args.bin)
    import harness
    harness.BINARY = os.path.abspath(args.bin)

    s = Server(env={"LATCHKEY_PASSWORDS_SCRYPT_LOG_N": str(args.log_n), "LATCHKEY_LOG_LEVEL": "warning"}).start()
    try:
        email = "bench@example.com"
        sign_up(s, email, password="correct horse battery")
        token_ms, total_ms = [], []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            init = s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}).json()
            ch = s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": ALL_TYPES}).json()
            t1 = time.perf_counter()
            r = s.post("/oauth2/v2.0/token", {"grant_type": "password", "username": email, "password": "correct horse battery",
                                              "continuation_token": ch["continuation_token"], "scope": "openid offline_access"})
            t2 = time.perf_counter()
            assert r.status_code == 200, r.text
            token_ms.append((t2 - t1) * 1000)
            total_ms.append((t2 - t0) * 1000)
        print(f"scrypt ln={args.log_n}: password grant p50 {pct(token_ms, 50):.0f} ms, p95 {pct(token_ms, 95):.0f} ms; "
              f"whole sign-in (initiate+challenge+token) p50 {pct(total_ms, 50):.0f} ms over {args.rounds} rounds")

        # Saturate hashing with 4 parallel sign-in loops, and time JWKS meanwhile.
        stop = threading.Event()

        def hammer():
            while not stop.is_set():
                init = s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}).json()
                ch = s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": ALL_TYPES}).json()
                s.post("/oauth2/v2.0/token", {"grant_type": "password", "username": email, "password": "correct horse battery",
                                              "continuation_token": ch["continuation_token"]})

        threads = [threading.Thread(target=hammer) for _ in range(4)]
        [t.start() for t in threads]
        time.sleep(1)
        jwks_ms = []
        session = requests.Session()  # keep-alive, as a verifying service would
        for _ in range(200):
            t0 = time.perf_counter()
            assert session.get(s.base + "/discovery/v2.0/keys", timeout=10).status_code == 200
            jwks_ms.append((time.perf_counter() - t0) * 1000)
        stop.set()
        [t.join() for t in threads]
        print(f"JWKS while hashing saturates both cores: p50 {statistics.median(jwks_ms):.1f} ms, p95 {pct(jwks_ms, 95):.1f} ms")
    finally:
        s.cleanup()


if __name__ == "__main__":
    main()
