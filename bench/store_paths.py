#!/usr/bin/env python3
"""Latency of the two store-heavy paths: the refresh grant (one write transaction: find, rotate, insert) and a
passwordless native sign-up (start, challenge, continue with the mailed code, token). Scrypt is kept out of the
way so the numbers are the store's and the HTTP layer's. Run after `swift build -c release`:

    python3 bench/store_paths.py [--bin .build/release/latchkey] [--refreshes 2000] [--signups 200] [--threads 4]
"""
import argparse
import os
import statistics
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
from harness import ALL_TYPES, Server  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def server_cpu_seconds(pid):
    """User + system CPU the server process has used (steadier than wall-clock figures on a shared machine)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(name, ms, wall, cpu):
    print(f"{name:<22} n={len(ms):<5} p50={statistics.median(ms):6.2f} ms  p95={pct(ms, 95):6.2f} ms  "
          f"throughput={len(ms) / wall:7.0f}/s  server CPU={cpu / len(ms) * 1e6:6.0f} µs/op")


def passwordless_sign_up(s, email):
    """start -> challenge -> continue(oob) -> token; returns the refresh token and the time spent in the four calls
    (the wait for the mail is left out: that is the outbox worker's poll, not the store)."""
    t0 = time.perf_counter()
    start = s.post("/signup/v1.0/start", {"username": email, "challenge_type": "oob redirect"}).json()
    ch = s.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"], "challenge_type": "oob redirect"}).json()
    spent = time.perf_counter() - t0
    code = s.wait_for_code(email, 0)
    t1 = time.perf_counter()
    done = s.post("/signup/v1.0/continue", {"continuation_token": ch["continuation_token"], "grant_type": "oob", "oob": code}).json()
    tok = s.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": done["continuation_token"],
                                        "username": email, "scope": "openid offline_access"}).json()
    return tok["refresh_token"], (spent + time.perf_counter() - t1) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--refreshes", type=int, default=2000)
    ap.add_argument("--signups", type=int, default=200)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()
    import harness
    harness.BINARY = os.path.abspath(args.bin)
    # The migrations of the checkout the binary was built from (.build/release/latchkey -> the checkout's root).
    root = os.path.dirname(os.path.dirname(os.path.dirname(harness.BINARY)))
    env = {"LATCHKEY_DATABASE_MIGRATIONS": os.path.join(root, "Migrations", "sqlite"), "LATCHKEY_LOG_LEVEL": "warning", "LATCHKEY_LIMITS_ENABLED": "false", "LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "10"}
    s = Server(env=env).start()
    try:
        # Sign-up: the whole passwordless flow, one user after another (the code wait is the mailbox poll).
        ms = []
        cpu0 = server_cpu_seconds(s.proc.pid)
        tokens = []
        for _ in range(args.signups):
            token, spent = passwordless_sign_up(s, f"bench-{uuid.uuid4().hex[:12]}@example.com")
            tokens.append(token)
            ms.append(spent)
        summary("sign-up (4 calls)", ms, sum(ms) / 1000, server_cpu_seconds(s.proc.pid) - cpu0)

        # Refresh grant: each thread rotates its own family, sequentially.
        per_thread = args.refreshes // args.threads
        results = [[] for _ in range(args.threads)]

        def worker(i):
            token = tokens[i]
            for _ in range(per_thread):
                t = time.perf_counter()
                r = s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": token,
                                                  "scope": "openid offline_access"})
                results[i].append((time.perf_counter() - t) * 1000)
                assert r.status_code == 200, r.text
                token = r.json()["refresh_token"]

        worker_threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
        t0 = time.perf_counter()
        cpu0 = server_cpu_seconds(s.proc.pid)
        for t in worker_threads:
            t.start()
        for t in worker_threads:
            t.join()
        summary(f"refresh ({args.threads} threads)", [m for r in results for m in r], time.perf_counter() - t0,
                server_cpu_seconds(s.proc.pid) - cpu0)
    finally:
        s.stop()
        s.cleanup()


if __name__ == "__main__":
    main()
