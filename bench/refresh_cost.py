#!/usr/bin/env python3
"""Where a refresh grant's cost goes (issue J): server CPU per request, read from /proc around each wrk run.

    python3 bench/refresh_cost.py [--binary .build/release/latchkey] [--ablation-binary PATH] [--rounds 2]

The cost ladder, on the shipped binary: `GET /health/live`, a token request refused before any lookup (unknown
client), one refused after the HMAC and the indexed lookup (unknown refresh token), and a rotated refresh.

With --ablation-binary (a build with bench/refresh-ablation.patch applied, never shipped) it also runs the rotated
refresh with the durable write skipped, then with the write and the two signatures skipped, so the share of each
is measured rather than read off a profile:

    git worktree add /tmp/ablation && cd /tmp/ablation && git apply bench/refresh-ablation.patch
    swift build -c release --product latchkey --static-swift-stdlib
    cd - && python3 bench/refresh_cost.py --ablation-binary /tmp/ablation/.build/release/latchkey

Each variant gets a fresh server on a temporary SQLite database and its own `/health/live` ceiling.
Limits are off, as in bench/suite.py. Nothing here is asserted anywhere: it is a measurement.
"""
import argparse
import base64
import os
import re
import secrets
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Tests", "blackbox"))
import harness  # noqa: E402
import suite  # noqa: E402
from proc_cpu import cpu_seconds  # noqa: E402


def plain_wrk(base, path, seconds, connections, form=None):
    """wrk without the suite's error check: the refused requests here are meant to be refused."""
    script = ""
    if form:
        script = ('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n'
                  f'wrk.body = "{form}"\n')
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
    try:
        out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", f.name, base + path],
                             capture_output=True, text=True, timeout=seconds + 60).stdout
    finally:
        os.unlink(f.name)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    return requests, float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def measured(s, run):
    before = cpu_seconds(s.proc.pid)
    requests, rps = run()
    return rps, 1e6 * (cpu_seconds(s.proc.pid) - before) / requests


def rotated(s, tokens, seconds, connections):
    r = suite.wrk(s.base, "/oauth2/v2.0/token", seconds, connections, lua=suite.REFRESH_LUA,
                  env={"BENCH_TOKENS": tokens, "BENCH_CLIENT": harness.CLIENT_ID})
    return r["requests"], r["rps"]


def run_variant(binary, env, seconds, connections, ladder):
    harness.BINARY = binary
    saved = {k: os.environ.pop(k, None) for k in ("LK_ABLATE_WRITE", "LK_ABLATE_SIGNING")}
    os.environ.update(env)
    s = suite.start_server(None)
    rows = []
    try:
        work = tempfile.mkdtemp()
        live = measured(s, lambda: plain_wrk(s.base, "/health/live", seconds, connections))
        rows.append(("GET /health/live", live))
        tokens, _ = suite.fixtures(s, work, first=False)
        if ladder:
            unknown = base64.urlsafe_b64encode(secrets.token_bytes(38)).decode().rstrip("=")[:51]
            for label, form in [("token, unknown client (400)", "client_id=nope&grant_type=refresh_token&refresh_token=x"),
                                ("refresh, unknown token (400)", f"client_id={harness.CLIENT_ID}&grant_type=refresh_token"
                                                                 f"&scope=openid%20offline_access&refresh_token={unknown}")]:
                rows.append((label, measured(s, lambda: plain_wrk(s.base, "/oauth2/v2.0/token", seconds, connections, form))))
        rows.append(("refresh, rotated", measured(s, lambda: rotated(s, tokens, seconds, connections))))
    finally:
        s.cleanup()
        for k in env:
            os.environ.pop(k, None)
        os.environ.update({k: v for k, v in saved.items() if v is not None})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(HERE), ".build", "release", "latchkey"))
    ap.add_argument("--ablation-binary")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--connections", type=int, default=16)
    args = ap.parse_args()
    if args.rounds < 1 or args.seconds < 1:
        ap.error("--rounds and --seconds must be at least 1")
    for binary in filter(None, [args.binary, args.ablation_binary]):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            ap.error(f"no executable at {binary} (build it first: swift build -c release --product latchkey "
                     "--static-swift-stdlib)")
    variants = [("shipped", args.binary, {}, True)]
    if args.ablation_binary:
        variants += [("ablation: no write", args.ablation_binary, {"LK_ABLATE_WRITE": "1"}, False),
                     ("ablation: no write, no signing", args.ablation_binary,
                      {"LK_ABLATE_WRITE": "1", "LK_ABLATE_SIGNING": "1"}, False)]
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, limits off, server CPU per request from /proc")
    print(f"{'round':5} {'variant':32} {'path':30} {'req/s':>8} {'ratio':>6} {'CPU µs':>7}")
    for round_ in range(1, args.rounds + 1):
        for name, binary, env, ladder in variants:
            rows = run_variant(binary, env, args.seconds, args.connections, ladder)
            ceiling = rows[0][1][0]
            for path, (rps, cpu) in rows:
                print(f"{round_:5} {name:32} {path:30} {rps:8.0f} {rps / ceiling:6.2f} {cpu:7.0f}", flush=True)


if __name__ == "__main__":
    main()
