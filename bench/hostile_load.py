#!/usr/bin/env python3
"""Issue M's load check: while attackers keep sending the worst body each endpoint accepts (64 KiB of nested
JSON to App Services, nested attributes to native sign-up, a 8 KiB nested JWT header to userinfo and
profile, broken framing), another client's /health/ready and password sign-in must stay within their idle
latency. Prints p50/p95 idle and under attack. Run after `swift build -c release`:

    python3 bench/hostile_load.py [--bin .build/release/latchkey] [--seconds 10] [--attackers 4]
"""
import argparse
import base64
import json
import multiprocessing
import os
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402
import rawhttp  # noqa: E402
from conftest import password_sign_in, sign_up  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] * 1000


def worst_requests(port):
    nested = lambda depth: "[" * depth + "]" * depth
    register = ('{"email":"x@example.com","x":[' + ",".join([nested(510)] * 60) + "]}").encode()[:64 * 1024 - 10]
    attributes = "client_id=11111111-1111-1111-1111-111111111111&username=x%40example.com&challenge_type=oob+redirect&attributes=" + \
        ('{"a":' + nested(7000) + "}")
    header = base64.urlsafe_b64encode(('{"a":' + nested(3000) + "}").encode()).decode().rstrip("=")
    return [
        rawhttp.request("POST", "/api/client/v2.0/app/bench/auth/providers/local-userpass/register", register,
                        {"Content-Type": "application/json"}),
        rawhttp.request("POST", "/signup/v1.0/start", attributes.encode(), {"Content-Type": "application/x-www-form-urlencoded"}),
        rawhttp.request("GET", "/oidc/userinfo", b"", {"Authorization": f"Bearer {header}.e30.AA"}),
        rawhttp.request("GET", "/api/client/v2.0/auth/profile", b"", {"Authorization": f"Bearer {header}.e30.AA"}),
        b"POST /signup/v1.0/start HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ]


def attacker(port, offset, stop, results):
    attacks, sent, slowest, i = worst_requests(port), 0, 0.0, offset
    while not stop.is_set():
        answer = rawhttp.send(port, attacks[i % len(attacks)], close_write=True, timeout=30)
        if answer is not None:
            assert answer.status < 500, answer.status
            slowest = max(slowest, answer.seconds)
        sent, i = sent + 1, i + 1
    results.put((sent, slowest))


def measure(s, email, seconds):
    ready, signin = [], []
    end = time.time() + seconds
    while time.time() < end:
        t = time.perf_counter()
        assert requests.get(s.base + "/health/ready", timeout=30).status_code == 200
        ready.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert password_sign_in(s, email, "correct horse battery").status_code == 200
        signin.append(time.perf_counter() - t)
    return ready, signin


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--attackers", type=int, default=4)
    ap.add_argument("--log-n", type=int, default=14)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    s = harness.Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": "bench"}]), "LATCHKEY_LOG_LEVEL": "warning",
                            "LATCHKEY_PASSWORDS_SCRYPT_LOG_N": str(args.log_n)}).start()
    try:
        email = "bench@example.com"
        sign_up(s, email)
        idle = measure(s, email, args.seconds)
        # Attackers in processes of their own, so they do not share the measuring client's interpreter lock.
        stop = multiprocessing.Event()
        results = multiprocessing.Queue()
        workers = [multiprocessing.Process(target=attacker, args=(s.port, k, stop, results)) for k in range(args.attackers)]
        for w in workers:
            w.start()
        loaded = measure(s, email, args.seconds)
        stop.set()
        totals = [results.get(timeout=60) for _ in workers]
        for w in workers:
            w.join()
        sent, slowest = sum(t[0] for t in totals), max(t[1] for t in totals)
        print(f"attack: {args.attackers} clients, {sent} hostile requests in {args.seconds:.0f} s, slowest answer {slowest * 1000:.1f} ms")
        for name, a, b in (("/health/ready", idle[0], loaded[0]), ("password sign-in", idle[1], loaded[1])):
            print(f"{name:18} idle p50 {pct(a, 50):7.1f} ms p95 {pct(a, 95):7.1f} ms | under attack p50 {pct(b, 50):7.1f} ms "
                  f"p95 {pct(b, 95):7.1f} ms")
    finally:
        s.cleanup()


if __name__ == "__main__":
    main()
