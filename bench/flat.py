#!/usr/bin/env python3
"""Flat as data grows (issue J): the refresh grant, userinfo, native sign-up start and App Services login on an
empty database, then on the same database after bench/seed.py filled it (N users, M refresh-token rows, most of
them expired or revoked), side by side. The server is restarted after the seed, so its background purge starts
ten seconds later and drains the expired rows in bounded batches while the second round runs: the numbers are
taken with the purge under way, as a deployment would see them.

    python3 bench/flat.py [--users 1000000] [--refresh-tokens 10000000] [--seconds 10] [--postgres URL]

Run after `swift build -c release --static-swift-stdlib` (or bench/suite.py, which builds). Needs wrk.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "blackbox"))
import harness  # noqa: E402
import suite  # noqa: E402
from issuer import GOOGLE_ISSUER, Issuer  # noqa: E402

# Each request starts a sign-up for an address nobody has: the path checks the address against every account.
SIGNUP_LUA = """
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, "client_id=" .. os.getenv("BENCH_CLIENT") .. "&challenge_type=oob%20redirect&username=flat-"
    .. os.getenv("BENCH_RUN") .. "-" .. n .. "%40example.com")
end
"""


def paths(s, workdir, seconds, connections, first):
    tokens_path, access_token = suite.fixtures(s, workdir, first=first)
    rows = {
        "POST /oauth2/v2.0/token (refresh, rotated)": suite.wrk(
            s.base, "/oauth2/v2.0/token", seconds, connections, lua=suite.REFRESH_LUA,
            env={"BENCH_TOKENS": tokens_path, "BENCH_CLIENT": harness.CLIENT_ID}),
        "GET /oidc/userinfo (Bearer)": suite.wrk(s.base, "/oidc/userinfo", seconds, connections,
                                                 headers={"Authorization": f"Bearer {access_token}"}),
        "POST /signup/v1.0/start (new address)": suite.wrk(
            s.base, "/signup/v1.0/start", seconds, connections, lua=SIGNUP_LUA,
            env={"BENCH_CLIENT": harness.CLIENT_ID, "BENCH_RUN": uuid.uuid4().hex[:8]}),
        "App Services login (scrypt, default cost)": suite.run_sign_in(s, seconds),
    }
    return rows


def fresh_postgres(url):
    name = "flat_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", url, "-X", "-q", "-c", f"CREATE DATABASE {name}"], check=True)
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{name}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--refresh-tokens", type=int, default=10_000_000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--postgres", help="a PostgreSQL server URL; a fresh database is made on it")
    ap.add_argument("--json", default=os.path.join(HERE, "flat-results.json"))
    args = ap.parse_args()
    harness.BINARY = os.path.join(ROOT, ".build", "release", "latchkey")
    url = fresh_postgres(args.postgres) if args.postgres else None
    # The suite's configuration, its Google-shaped issuer included (its keys are fetched once, at the first login).
    issuer = Issuer(GOOGLE_ISSUER, suite.GOOGLE_AUDIENCE)
    s = suite.start_server(issuer, url)
    workdir = tempfile.mkdtemp(prefix="latchkey-flat-")
    try:
        empty = paths(s, workdir, args.seconds, args.connections, first=True)
        s.stop()
        started = time.time()
        where = ["--postgres", url] if url else ["--database", s.db_path]
        subprocess.run([sys.executable, os.path.join(HERE, "seed.py"), *where, "--users", str(args.users),
                        "--refresh-tokens", str(args.refresh_tokens)], check=True)
        seed_seconds = time.time() - started
        s.start(timeout=120)
        time.sleep(12)  # the first background purge begins ten seconds after start
        seeded = paths(s, workdir, args.seconds, args.connections, first=False)
        log = s.read_log()
    finally:
        s.cleanup()
        issuer.close()
        shutil.rmtree(workdir, ignore_errors=True)
    store = "PostgreSQL" if url else "SQLite"
    print(f"\n{store}: empty database, then {args.users} users and {args.refresh_tokens} refresh tokens "
          f"(seeded in {seed_seconds:.0f} s); wrk -t1 -c{args.connections} -d{args.seconds}s")
    print(f"{'path':<46} {'empty req/s':>12} {'seeded req/s':>13} {'seeded/empty':>13} {'p99 empty':>10} {'p99 seeded':>11}")
    for path in empty:
        a, b = empty[path], seeded[path]
        print(f"{path:<46} {a['rps']:>12.0f} {b['rps']:>13.0f} {b['rps'] / a['rps']:>13.2f} {a['p99_ms']:>8.1f}ms {b['p99_ms']:>9.1f}ms")
    with open(args.json, "w") as f:
        json.dump({"store": store, "users": args.users, "refresh_tokens": args.refresh_tokens, "seed_seconds": seed_seconds,
                   "empty": empty, "seeded": seeded}, f, indent=2)
    failures = [line for line in log.splitlines() if "purge failed" in line]
    if failures:
        sys.exit("the background purge failed:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
