#!/usr/bin/env python3
"""What the operator console's pages cost with a deployment's worth of data behind them (issue S: under 100 ms with
100,000 users). A release server's SQLite database is seeded with `bench/seed.py` (users and refresh-token
families) and with a month of audit events (sign-ups, sign-ins of each dialect and outcome, lockouts, rate-limit
denials) and their hourly counts (as the server keeps them), then each page is fetched from a keep-alive connection
as a signed-in operator. The server's CPU per
request is read from /proc. Run after `swift build -c release`:

    python3 bench/console.py [--bin .build/release/latchkey] [--users 100000] [--events 1000000] [--rounds 50]

A measurement: nothing here is asserted.
"""
import argparse
import collections
import datetime
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402
from console_support import TOKEN, Operator  # noqa: E402
from proc_cpu import cpu_seconds  # noqa: E402

KINDS = [("sign_in", 0.62), ("token_issued", 0.2), ("sign_in_failed", 0.1), ("sign_up", 0.05), ("lockout", 0.015),
         ("rate_limited", 0.015)]
DIALECTS = ["native", "app_services", "parse", "openid"]


def seed_audit(path, events, rng):
    """`events` audit rows over the last 30 days, about users the seed made, in time order (as they are appended)."""
    db = sqlite3.connect(path)
    users = [row[0] for row in db.execute("SELECT id FROM users ORDER BY random() LIMIT 5000")]
    now = datetime.datetime.now(datetime.timezone.utc)
    kinds, weights = zip(*KINDS)
    offsets = sorted(rng.uniform(0, 30 * 86400) for _ in range(events))
    rows, counts = [], collections.Counter()
    for offset in reversed(offsets):
        moment = now - datetime.timedelta(seconds=offset)
        at = moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:23]
        kind, dialect = rng.choices(kinds, weights)[0], rng.choice(DIALECTS)
        rows.append((at, kind, rng.choice(users), f"192.0.2.{rng.randrange(1, 255)}", dialect))
        counts[(int(moment.timestamp()) // 3600, kind, dialect)] += 1  # what the server's append keeps
        if len(rows) == 50_000:
            db.executemany("INSERT INTO audit_events (at, kind, user_id, client_ip, dialect) VALUES (?, ?, ?, ?, ?)", rows)
            rows = []
    db.executemany("INSERT INTO audit_events (at, kind, user_id, client_ip, dialect) VALUES (?, ?, ?, ?, ?)", rows)
    db.executemany("""INSERT INTO audit_counts (hour, kind, dialect, count) VALUES (?, ?, ?, ?)
                      ON CONFLICT (hour, kind, dialect) DO UPDATE SET count = count + excluded.count""",
                   [(*key, n) for key, n in counts.items()])
    db.commit()
    return users


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--refresh-tokens", type=int, default=200_000)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=50)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    folder = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".build", "bench-console"))
    os.makedirs(folder, exist_ok=True)
    token_file = os.path.join(folder, "admin.token")
    with open(token_file, "w") as f:
        f.write(TOKEN)
    s = harness.Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": token_file, "LATCHKEY_LOG_LEVEL": "warning"}).start()
    s.stop()  # migrated: now seed it
    t0 = time.time()
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "seed.py"), "--database", s.db_path,
                    "--users", str(args.users), "--refresh-tokens", str(args.refresh_tokens)], check=True, stdout=subprocess.DEVNULL)
    users = seed_audit(s.db_path, args.events, random.Random(1))
    print(f"seeded {args.users} users, {args.refresh_tokens} refresh tokens, {args.events} audit events in {time.time() - t0:.0f} s")
    s.start()
    try:
        operator = Operator(s, "bench").signed_in()
        email = sqlite3.connect(s.db_path).execute("SELECT email FROM users WHERE id = ?", (users[0],)).fetchone()[0]
        pages = [("overview (24 h and 30 days of counts)", "/"), ("users, first page", "/users"),
                 ("users, prefix search", "/users?q=" + email[:4]), ("users, exact email", "/users?q=" + email),
                 ("users, prefix matching nothing", "/users?q=zzzz-nobody"), ("one user's page", f"/users/{users[0]}"),
                 ("audit, last 7 days", "/audit"), ("audit, one user", f"/audit?user={users[0]}"),
                 ("audit, one kind", "/audit?kind=lockout"), ("audit, one IP", "/audit?ip=192.0.2.7"),
                 ("mail", "/mail"), ("keys", "/keys"), ("clients and apps", "/clients")]
        print(f"latchkey {args.bin}, {args.rounds} rounds each, one keep-alive connection")
        for name, path in pages:
            assert operator.get(path).status_code == 200, path
            latencies, cpu0 = [], cpu_seconds(s.proc.pid)
            for _ in range(args.rounds):
                started = time.perf_counter()
                r = operator.get(path)
                latencies.append(time.perf_counter() - started)
                assert r.status_code == 200, (path, r.status_code)
            cpu = (cpu_seconds(s.proc.pid) - cpu0) / args.rounds
            latencies.sort()
            print(f"{name:<40} p50 {statistics.median(latencies) * 1000:7.2f} ms   p99 "
                  f"{latencies[max(int(len(latencies) * 0.99) - 1, 0)] * 1000:7.2f} ms   server CPU {cpu * 1000:6.2f} ms/request")
        assert re.search(r"Sign-ups: <span", operator.get("/").text)
    finally:
        s.cleanup()


if __name__ == "__main__":
    main()
