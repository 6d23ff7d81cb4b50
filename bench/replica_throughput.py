#!/usr/bin/env python3
"""Sign-up and refresh-grant throughput on SQLite, on PostgreSQL with one replica and with two replicas sharing it,
in one run on one machine (issue I). Each setup gets a fresh database; scrypt is kept cheap so the numbers are the
store's and the HTTP layer's. A sign-up is Parse's `POST /users` (an account and a session in one call); the refresh
grant is the native one, each client thread rotating its own token family. Clients spread over the replicas.

    swift build -c release
    url=$(scripts/postgres-cluster.sh start 2>/tmp/pgdir)
    python3 bench/replica_throughput.py --postgres "$url" [--seconds 10] [--threads 8]
    scripts/postgres-cluster.sh stop "$(tail -1 /tmp/pgdir)"

The client, the replicas and PostgreSQL share the machine's cores, so read the numbers side by side, not as a
ceiling: on a machine with more cores than the client needs, a second replica adds what its cores add.
"""
import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from urllib.parse import urlsplit

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402
from harness import ALL_TYPES, Server  # noqa: E402

PASSWORD = "correct horse battery"
HEADERS = {"X-Parse-Application-Id": "bench"}


def fresh_database(url):
    name = "bench_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", url, "-X", "-q", "-c", f"CREATE DATABASE {name}"], check=True)
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{name}"


def start(count, postgres_url, root):
    env = {"LATCHKEY_LOG_LEVEL": "warning", "LATCHKEY_LIMITS_ENABLED": "false", "LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "10",
           "LATCHKEY_SERVER_PUBLIC_URL": "https://id.example.test", "LATCHKEY_TESTING_MAILBOX": "false",
           "LATCHKEY_PARSE_APPS": '[{"id": "bench", "master_key": "bench-master-key-0123"}]',
           "LATCHKEY_DATABASE_MIGRATIONS": os.path.join(root, "Migrations", "postgres" if postgres_url else "sqlite")}
    return [Server(env=env, postgres_url=postgres_url).start() for _ in range(count)]


def run_for(seconds, threads, servers, step):
    """Calls `step(server, thread, i)` from `threads` threads for `seconds`; returns completed calls per second."""
    done = [0] * threads
    stop = threading.Event()

    def worker(t):
        server, i = servers[t % len(servers)], 0
        while not stop.is_set():
            step(server, t, i)
            i += 1
            done[t] += 1

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    return sum(done) / (time.perf_counter() - t0)


def measure(name, servers, seconds, threads):
    run = uuid.uuid4().hex[:8]

    def sign_up(server, t, i):
        r = requests.post(server.base + "/parse/users", headers=HEADERS, timeout=30,
                          json={"username": f"u-{run}-{t}-{i}", "password": PASSWORD, "email": f"u-{run}-{t}-{i}@example.com"})
        assert r.status_code == 201, r.text

    signups = run_for(seconds, threads, servers, sign_up)

    # One refresh-token family per thread, from a native password sign-in of an account made above.
    tokens = []
    for t in range(threads):
        s, who = servers[t % len(servers)], f"u-{run}-{t}-0@example.com"
        init = s.post("/oauth2/v2.0/initiate", {"username": who, "challenge_type": ALL_TYPES}).json()
        ch = s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": ALL_TYPES}).json()
        tok = s.post("/oauth2/v2.0/token", {"grant_type": "password", "username": who, "password": PASSWORD, "scope": "openid offline_access",
                                            "continuation_token": ch["continuation_token"], "challenge_type": ALL_TYPES}).json()
        tokens.append(tok["refresh_token"])

    def refresh(server, t, i):
        r = server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens[t]})
        assert r.status_code == 200, r.text
        tokens[t] = r.json()["refresh_token"]

    refreshes = run_for(seconds, threads, servers, refresh)
    print(f"{name:<28} sign-up {signups:7.0f}/s   refresh grant {refreshes:7.0f}/s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--postgres", required=True, help="a cluster URL whose user may CREATE DATABASE")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--threads", type=int, default=8)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    root = os.path.dirname(os.path.dirname(os.path.dirname(harness.BINARY)))
    print(f"{args.threads} client threads, {args.seconds:g} s per measurement, {os.cpu_count()} cores shared by everything")
    for name, count, url in (("SQLite, one process", 1, None), ("PostgreSQL, one replica", 1, fresh_database(args.postgres)),
                             ("PostgreSQL, two replicas", 2, fresh_database(args.postgres))):
        servers = start(count, url, root)
        try:
            measure(name, servers, args.seconds, args.threads)
        finally:
            for s in servers:
                s.cleanup()


if __name__ == "__main__":
    main()
