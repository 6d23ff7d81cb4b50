#!/usr/bin/env python3
"""The benchmark suite: one command that builds in release, starts the server on a temporary SQLite database and
then on a throwaway PostgreSQL cluster, loads each cheap path with wrk, plus sign-in at the default (OWASP) scrypt
cost, the provider's code exchange and a passkey sign-in (bench/browser_paths.py), and prints one table: req/s,
p50/p99 latency, the server's CPU time per request, each token path's floor (bench/floors.py) and, on PostgreSQL,
the statements (round trips) per request, and two ratios:
- `bare`: to the framework's own ceiling, a bare Hummingbird app on the same dependency versions (bench/reference,
  built by this script) answering the same `/health/live` body, measured in the same run just before;
- `own`: to Latchkey's own `GET /health/live` in the same run.
It also times start to ready and reads the server's RSS when idle after start, after the loads, and after the loads a
second time (growth would show there). With `--baseline BIN` (an earlier release build) every measurement runs on
that binary first, and the table shows both. The table is written as JSON too.

    python3 bench/suite.py [--seconds 10] [--connections 16] [--no-build] [--no-postgres] [--baseline BIN]
                           [--json bench/results.json]

It runs under the test environment's Python (`.venv-test`, made by scripts/test.sh: soft-webauthn signs the passkey
sign-ins) and re-executes itself there when started by another.

Needs wrk (`apt-get install wrk`) and, for the PostgreSQL half, Debian's postgresql (scripts/postgres-cluster.sh).
Limits are off (one client address would hit them at once); everything else is the shipped default, including
logging at `info` (one line per request), metrics, the embedded common-password list, templates and pages. No
number here is asserted anywhere: it is a measurement.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV_PYTHON = os.path.join(ROOT, ".venv-test", "bin", "python")
try:
    import soft_webauthn  # noqa: F401  (the passkey sign-ins' authenticator)
except ImportError:
    if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(ROOT, ".venv-test")):
        os.execv(VENV_PYTHON, [VENV_PYTHON, *sys.argv])
    sys.exit("soft-webauthn is missing: run scripts/test.sh once (it makes .venv-test), or install "
             "Tests/blackbox/requirements.txt and requirements-nodeps.txt (--no-deps) into this Python")
sys.path.insert(0, os.path.join(ROOT, "Tests", "blackbox"))
import harness  # noqa: E402
from conftest import sign_up  # noqa: E402
from harness import CLIENT_ID, Server  # noqa: E402
from issuer import GOOGLE_ISSUER, Issuer  # noqa: E402
from proc_cpu import cpu_seconds  # noqa: E402
sys.path.insert(0, HERE)
import browser_paths  # noqa: E402
import floors  # noqa: E402
import suite_table  # noqa: E402

APP = "bench-app"
GOOGLE_AUDIENCE = "bench.apps.googleusercontent.com"
PASSWORD = "correct horse battery staple"
REFERENCE = os.path.join(ROOT, ".build", "release", "ReferenceServer")
REFRESH_CHAINS = 64  # token families fed to the refresh load; each connection keeps rotating one
CODES = 8000  # codes made for the exchange's load (two seconds of it)
PASSKEY_VISITS = 10000  # visits prepared for the passkey assertions' load (two seconds of it, stopping before it runs dry)

REPORT_LUA = """
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format('WRKJSON {"requests": %d, "duration_us": %d, "errors": %d, "p50_us": %d, "p99_us": %d}\\n',
    summary.requests, summary.duration, errors, latency:percentile(50), latency:percentile(99)))
end
"""

# Each response hands its rotated refresh token back to a shared pool; each request takes one. wrk calls
# request() for a connection some time after that connection's response(), so a pool, not a variable.
REFRESH_LUA = """
local pool = {}
for line in io.lines(os.getenv("BENCH_TOKENS")) do pool[#pool + 1] = line end
local client = os.getenv("BENCH_CLIENT")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
request = function()
  local token = table.remove(pool)
  if token == nil then error("refresh token pool ran dry: a refresh failed") end
  return wrk.format(nil, nil, nil, "client_id=" .. client .. "&grant_type=refresh_token&scope=openid%20offline_access&refresh_token=" .. token)
end
response = function(status, headers, body)
  local token = body:match('"refresh_token":"([^"]+)"')
  if token then pool[#pool + 1] = token end
end
"""


def wrk(base, path, seconds, connections, lua="", headers=None, method=None, body=None, env=None, timeout=2, pid=None, allow_errors=False):
    """One wrk run; with `pid`, the server's CPU per request; with a round-trip counter set, its statements per request."""
    script = REPORT_LUA + lua
    if method:
        script += f'\nwrk.method = "{method}"\n'
    if body is not None:
        script += f"\nwrk.body = {json.dumps(body)}\n"
    for name, value in (headers or {}).items():
        script += f'\nwrk.headers["{name}"] = {json.dumps(value)}\n'
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script)
    cpu_before = cpu_seconds(pid) if pid else None
    if pid and ROUND_TRIPS:
        ROUND_TRIPS.reset()
    try:
        out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", f"--timeout={timeout}s",
                              "-s", f.name, base + path],
                             capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=seconds + 60)
    finally:
        os.unlink(f.name)
    match = re.search(r"WRKJSON (\{.*\})", out.stdout)
    if not match:
        raise RuntimeError(f"wrk on {path} printed no report:\n{out.stdout}\n{out.stderr}")
    r = json.loads(match.group(1))
    if r["errors"] and not allow_errors:
        raise RuntimeError(f"wrk on {path}: {r['errors']} errors (non-2xx or socket):\n{out.stdout}")
    row = {"rps": r["requests"] / (r["duration_us"] / 1e6), "p50_ms": r["p50_us"] / 1000, "p99_ms": r["p99_us"] / 1000,
           "requests": r["requests"]}
    if pid:
        row["cpu_us_per_request"] = (cpu_seconds(pid) - cpu_before) * 1e6 / max(r["requests"], 1)
        if ROUND_TRIPS:
            row["round_trips"] = ROUND_TRIPS.count() / max(r["requests"], 1)
    return row


class RoundTrips:
    """Statements the server sent PostgreSQL, from pg_stat_statements (the test cluster preloads it). postgres-nio
    sends each statement, BEGIN and COMMIT included, as one exchange with the server, so statements are round trips."""

    def __init__(self, url):
        self.url = url
        self.psql = os.path.join(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1], "psql")
        self.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")

    def sql(self, text):
        return subprocess.run([self.psql, self.url, "-XAtqc", text], capture_output=True, text=True, check=True).stdout.strip()

    def reset(self):
        self.sql("SELECT pg_stat_statements_reset()")

    def count(self):
        return int(self.sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' "
                            "AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"))


ROUND_TRIPS = None


def reference_row(seconds, connections):
    """The bare Hummingbird app's `/health/live`: what the framework allows on this machine, now."""
    port = harness.free_port()
    proc = subprocess.Popen([REFERENCE, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                if requests.get(f"http://127.0.0.1:{port}/health/live", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.1)
        wrk(f"http://127.0.0.1:{port}", "/health/live", 2, connections)  # warm-up, as Latchkey's paths get
        return wrk(f"http://127.0.0.1:{port}", "/health/live", seconds, connections, pid=proc.pid)
    finally:
        proc.kill()
        proc.wait()


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


LOG_LEVEL = "info"


def start_server(issuer, postgres_url=None):
    env = {"LATCHKEY_LOG_LEVEL": LOG_LEVEL, "LATCHKEY_LIMITS_ENABLED": "false",
           "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": APP, "confirmation": {"mode": "auto"},
                                                      "providers": ["local-userpass", "oauth2-google", "api-key"]}]),
           # A loopback issuer signing the way Google does: its keys are fetched once, then every sign-in uses the cache.
           "LATCHKEY_IDENTITIES_PROVIDERS": json.dumps({"google": {"audiences": [GOOGLE_AUDIENCE], "jwks_url": issuer.jwks_url}})}
    s = Server(env=env, postgres_url=postgres_url)
    # The shipped defaults: the default scrypt cost and the list, templates and pages embedded in the binary.
    for key in ("LATCHKEY_PASSWORDS_SCRYPT_LOG_N", "LATCHKEY_PASSWORDS_COMMON_LIST", "LATCHKEY_MAIL_TEMPLATES",
                "LATCHKEY_APP_SERVICES_PAGES", "LATCHKEY_DATABASE_MIGRATIONS"):
        s.env.pop(key, None)
    return s.start()


def fixtures(s, workdir, first=True):
    """Refresh-token families from passwordless sign-ups (no hashing), an access token, and one password user."""
    tokens = []
    for i in range(REFRESH_CHAINS):
        email = f"bench-{i}-{uuid.uuid4().hex[:6]}@example.com"
        ct = sign_up(s, email, password=None, types="oob redirect")
        r = s.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": ct, "username": email,
                                          "scope": "openid offline_access"})
        assert r.status_code == 200, r.text
        tokens.append(r.json())
    path = os.path.join(workdir, "refresh-tokens.txt")
    with open(path, "w") as f:
        f.write("\n".join(t["refresh_token"] for t in tokens) + "\n")
    if first:
        r = requests.post(f"{s.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass/register",
                          json={"email": "signin@example.com", "password": PASSWORD}, timeout=30)
        assert r.status_code == 201, r.text
    return path, tokens[0]["access_token"]


def run_paths(s, tokens_path, access_token, seconds, connections):
    rows, pid = {}, s.proc.pid
    wrk(s.base, "/health/live", 2, connections)  # warm-up: the first load pays for the allocator's and the pool's growth
    rows["GET /health/live (ceiling)"] = wrk(s.base, "/health/live", seconds, connections, pid=pid)
    rows["GET /discovery/v2.0/keys (JWKS)"] = wrk(s.base, "/discovery/v2.0/keys", seconds, connections, pid=pid)
    rows["GET /.well-known/openid-configuration"] = wrk(s.base, "/.well-known/openid-configuration", seconds, connections, pid=pid)
    rows["GET /oidc/userinfo (Bearer)"] = wrk(s.base, "/oidc/userinfo", seconds, connections, pid=pid,
                                              headers={"Authorization": f"Bearer {access_token}"})
    rows["POST /oauth2/v2.0/token (refresh, rotated)"] = wrk(s.base, "/oauth2/v2.0/token", seconds, connections, lua=REFRESH_LUA,
                                                             env={"BENCH_TOKENS": tokens_path, "BENCH_CLIENT": CLIENT_ID}, pid=pid)
    return rows


def run_identity_sign_ins(s, issuer, seconds, connections):
    """ID-token and API-key logins beside the refresh row: each is one token check and one session write, no hashing."""
    login = f"/api/client/v2.0/app/{APP}/auth/providers/{{}}/login"
    headers = {"Content-Type": "application/json"}
    rows = {}
    token = issuer.token("bench-google-user", exp_in=3600)
    fetches = issuer.fetches
    rows["App Services login (Google ID token, cached keys)"] = wrk(
        s.base, login.format("oauth2-google"), seconds, connections, method="POST", headers=headers,
        body=json.dumps({"provider": "oauth2-google", "id_token": token}), pid=s.proc.pid)
    rows["App Services login (Google ID token, cached keys)"]["key_fetches"] = issuer.fetches - fetches
    user = requests.post(f"{s.base}{login.format('local-userpass')}", json={"username": "signin@example.com", "password": PASSWORD},
                         timeout=60).json()
    key = requests.post(f"{s.base}/api/client/v2.0/auth/api_keys", json={"name": f"bench-{uuid.uuid4().hex[:6]}"},
                        headers={"Authorization": f"Bearer {user['refresh_token']}"}, timeout=10).json()["key"]
    rows["App Services login (user API key)"] = wrk(s.base, login.format("api-key"), seconds, connections, method="POST",
                                                    headers=headers, body=json.dumps({"provider": "api-key", "key": key}), pid=s.proc.pid)
    return rows


def run_sign_in(s, seconds):
    # Hashing is bound by the cores, so sign-in gets two connections per core and a long timeout: more would only
    # queue in the hashing pool (and be refused by it, as designed), not go faster.
    login = f"/api/client/v2.0/app/{APP}/auth/providers/local-userpass/login"
    return wrk(s.base, login, seconds, 2 * os.cpu_count(), timeout=30, method="POST", headers={"Content-Type": "application/json"},
               body=json.dumps({"username": "signin@example.com", "password": PASSWORD}), pid=s.proc.pid)


def settled_rss(pid):
    """RSS once the server is idle again: after a busy spell the server hands back what it left resident when it
    finds itself quiet (a check every five seconds, `IdlePages`), so this waits for two checks."""
    time.sleep(12)
    return rss_mib(pid)


def start_to_ready(issuer, postgres_url=None, rounds=5):
    """Milliseconds from starting the process to its first 200 from /health/ready (the shipped defaults, an
    existing database: the second start onwards), the median of `rounds` starts."""
    s = start_server(issuer, postgres_url)
    s.stop()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        proc = subprocess.Popen([harness.BINARY, *s.args], cwd=s.dir, env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                try:
                    if requests.get(s.base + "/health/ready", timeout=1).status_code == 200:
                        break
                except requests.ConnectionError:
                    if proc.poll() is not None:
                        raise RuntimeError(f"latchkey exited with {proc.returncode}")
                    time.sleep(0.002)
            times.append((time.perf_counter() - t0) * 1000)
        finally:
            proc.terminate()
            proc.wait()
    s.cleanup()
    return sorted(times)[len(times) // 2]


def run_browser_paths(postgres_url, connections):
    s = browser_paths.start_provider(postgres_url)
    try:
        rows = {"POST /oauth2/v2.0/token (code exchange)": browser_paths.code_exchange_row(s, wrk, connections, CODES)}
        rows.update(browser_paths.passkey_rows(s, wrk, connections, PASSKEY_VISITS, ROUND_TRIPS))
        return rows
    finally:
        s.cleanup()


def measure(label, seconds, connections, postgres_url=None):
    reference = reference_row(seconds, connections)
    issuer = Issuer(GOOGLE_ISSUER, GOOGLE_AUDIENCE)
    ready_ms = start_to_ready(issuer, postgres_url)
    s = start_server(issuer, postgres_url)
    workdir = tempfile.mkdtemp(prefix="latchkey-bench-")
    try:
        memory = {"idle_after_start_mib": settled_rss(s.proc.pid), "start_to_ready_ms": ready_ms}
        tokens_path, access_token = fixtures(s, workdir)
        rows = run_paths(s, tokens_path, access_token, seconds, connections)
        memory["after_loads_mib"] = settled_rss(s.proc.pid)
        # The same loads again: RSS that keeps climbing here is a leak, not a working set. The refresh pool was
        # consumed by the first round, so the second round starts from fresh families.
        tokens_path, access_token = fixtures(s, workdir, first=False)
        run_paths(s, tokens_path, access_token, seconds, connections)
        memory["after_second_loads_mib"] = settled_rss(s.proc.pid)
        rows.update(run_identity_sign_ins(s, issuer, seconds, connections))
        rows["App Services login (scrypt, default cost)"] = run_sign_in(s, seconds)
        # Each hash at the default cost takes 128 MiB while it runs; it is returned to the system when it ends.
        memory["after_sign_in_mib"] = settled_rss(s.proc.pid)
        ceiling = rows["GET /health/live (ceiling)"]["rps"]
        for row in rows.values():
            row["ratio"] = row["rps"] / ceiling
            row["bare_ratio"] = row["rps"] / reference["rps"]
    except Exception:
        # What the server said about the failed requests, before its folder goes.
        print("\n".join(line for line in s.read_log().splitlines() if " error " in line or "status=5" in line or "status=4" in line)[-4000:])
        raise
    finally:
        s.cleanup()
        issuer.close()
        shutil.rmtree(workdir, ignore_errors=True)
    rows.update(run_browser_paths(postgres_url, connections))
    return {"store": label, "reference": reference, "paths": rows, "memory": memory}


def measure_stores(args, postgres_url):
    """Both stores with the binary in harness.BINARY."""
    global ROUND_TRIPS
    results = [] if args.no_sqlite else [measure("SQLite", args.seconds, args.connections)]
    if postgres_url:
        # A database of its own for each binary measured: the fixtures make the same accounts each time.
        database = f"bench_{uuid.uuid4().hex[:12]}"
        RoundTrips(postgres_url).sql(f"CREATE DATABASE {database}")
        url = postgres_url.rsplit("/", 1)[0] + "/" + database
        ROUND_TRIPS = RoundTrips(url)
        try:
            results.append(measure("PostgreSQL", args.seconds, args.connections, postgres_url=url))
        finally:
            ROUND_TRIPS = None
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-postgres", action="store_true")
    ap.add_argument("--no-sqlite", action="store_true", help="the PostgreSQL half only")
    ap.add_argument("--baseline", help="an earlier release binary, measured first for the `before` column")
    ap.add_argument("--json", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--log-level", default="info", help="the server's log.level (info, the default, writes a line per request)")
    args = ap.parse_args()
    global LOG_LEVEL
    LOG_LEVEL = args.log_level
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: apt-get install wrk")
    if not args.no_build:
        # As the image builds it (Dockerfile): the Swift runtime linked in, which is also what its memory is.
        for product in ("latchkey", "ReferenceServer", "FloorBench"):
            subprocess.run(["swift", "build", "-c", "release", "--product", product, "--static-swift-stdlib"], cwd=ROOT, check=True)
    url = cluster_dir = None
    if not args.no_postgres:
        cluster = subprocess.run([os.path.join(ROOT, "scripts", "postgres-cluster.sh"), "start"], capture_output=True,
                                 text=True, check=True)
        url, cluster_dir = cluster.stdout.strip(), cluster.stderr.strip().splitlines()[-1]
    try:
        parts = floors.measure(url)
        baseline = None
        if args.baseline:
            harness.BINARY = os.path.abspath(args.baseline)
            baseline = measure_stores(args, url)
        harness.BINARY = os.path.join(ROOT, ".build", "release", "latchkey")
        results = measure_stores(args, url)
    finally:
        if cluster_dir:
            subprocess.run([os.path.join(ROOT, "scripts", "postgres-cluster.sh"), "stop", cluster_dir], check=False)
    suite_table.print_table(results, baseline, parts, args.seconds, args.connections, LOG_LEVEL)
    with open(args.json, "w") as f:
        json.dump({"seconds": args.seconds, "connections": args.connections, "cores": os.cpu_count(), "floor_parts": parts,
                   "baseline": baseline, "results": results}, f, indent=2)
    print(f"\nwritten to {args.json}")


if __name__ == "__main__":
    main()
