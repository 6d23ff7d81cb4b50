"""Each token path's floor: the CPU of the work it must do, from its parts measured on this machine.

The parts come from bench/floor (the `FloorBench` target: an ES256 signature and check through the server's own
key type, jwt-kit's RS256 check with a loaded key, an indexed read and a group-committed write through the store,
each as process CPU per operation) and from the run's own `GET /health/live`, which is what any request costs
before it does its work (HTTP, routing, the request log line, metrics). A path's floor is that plus its parts:

- userinfo: one ES256 check, one indexed read;
- refresh: one indexed read, two ES256 signatures (access and ID token), one group-committed write;
- code exchange: what a refresh does, plus the code's conditional redeem (a second write);
- ID-token login: one RS256 check plus what a refresh does;
- passkey sign-in (its assertion): one ES256 check, one indexed read, one write.

The target each path is held to is 1.5 times its floor.
"""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BINARY = os.path.join(ROOT, ".build", "release", "FloorBench")

PARTS = {
    "GET /oidc/userinfo (Bearer)": {"es256_verify": 1, "indexed_read": 1},
    "POST /oauth2/v2.0/token (refresh, rotated)": {"indexed_read": 1, "es256_sign": 2, "group_write": 1},
    "POST /oauth2/v2.0/token (code exchange)": {"indexed_read": 1, "es256_sign": 2, "group_write": 2},
    "App Services login (Google ID token, cached keys)": {"rs256_verify": 1, "indexed_read": 1, "es256_sign": 2, "group_write": 1},
    "passkey sign-in: assertion": {"es256_verify": 1, "indexed_read": 1, "group_write": 1},
}
TARGET = 1.5


def measure(postgres_url=None):
    """The parts, as {"crypto": {...}, "sqlite": {...}, "postgres": {...}} in µs of CPU per operation."""
    args = [BINARY, "--migrations", os.path.join(ROOT, "Migrations", "sqlite")]
    if postgres_url:
        args += ["--postgres", postgres_url, "--postgres-migrations", os.path.join(ROOT, "Migrations", "postgres")]
    out = subprocess.run(args, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)


def floor(path, parts, store, health_cpu):
    """The path's floor in µs of CPU per request on `store` ("sqlite" or "postgres"), or None for a path without one."""
    if path not in PARTS:
        return None
    values = {**parts["crypto"], **parts[store]}
    return health_cpu + sum(values[name] * count for name, count in PARTS[path].items())


def describe(parts):
    c = parts["crypto"]
    lines = [f"floor parts (bench/floor, µs of CPU per operation): ES256 sign {c['es256_sign']:.1f}, ES256 verify "
             f"{c['es256_verify']:.1f}, RS256 verify (jwt-kit) {c['rs256_verify']:.1f}"]
    for store in ("sqlite", "postgres"):
        if store in parts:
            s = parts[store]
            lines.append(f"  {store}: indexed read {s['indexed_read']:.1f}, group-committed write {s['group_write']:.1f} "
                         f"({s['group_writes_per_second']:.0f} writes/s from 16 tasks)")
    return "\n".join(lines)
