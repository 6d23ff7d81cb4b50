#!/usr/bin/env python3
"""Measures `latchkey import` at scale (issue L): writes a Parse Server export of N users (mongoexport JSON lines,
with bcrypt hashes, custom fields, a pointer and dates) and N/4 sessions, imports it into a fresh SQLite database
(or, with --postgres URL, a fresh PostgreSQL database), and prints the wall time, the rate and the peak memory of
the import process. Then it runs the same import again (every user skipped) and times that too.

    python3 bench/import.py --users 1000000
    python3 bench/import.py --users 1000000 --postgres postgres://bench@127.0.0.1:5432/postgres

The binary is .build/release/latchkey (build it with `swift build -c release`) or LATCHKEY_BIN. Hashes are a few
real bcrypt strings reused: an import only checks their form and cost, it never runs bcrypt.
"""
import argparse
import ctypes
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BINARY = os.environ.get("LATCHKEY_BIN", os.path.join(ROOT, ".build", "release", "latchkey"))
# Real bcrypt cost-10 strings, as Parse Server writes them, made by libxcrypt.
_libcrypt = ctypes.CDLL("libcrypt.so.1")
_libcrypt.crypt_gensalt.restype = _libcrypt.crypt.restype = ctypes.c_char_p
_libcrypt.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
_libcrypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
HASHES = [_libcrypt.crypt(f"password {i}".encode(), _libcrypt.crypt_gensalt(b"$2b$", 10, None, 0)).decode() for i in range(8)]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def object_id(i):
    return f"u{i:09d}"


def write_export(directory, users):
    rng = random.Random(7)
    users_path, sessions_path = os.path.join(directory, "users.json"), os.path.join(directory, "sessions.json")
    with open(users_path, "w") as f:
        for i in range(users):
            day = f"20{rng.randint(15, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:11:12.131Z"
            f.write(json.dumps({
                "_id": object_id(i), "username": f"user{i}", "email": f"user{i}@example.com", "emailVerified": i % 3 != 0,
                "_hashed_password": HASHES[i % len(HASHES)], "_created_at": {"$date": day}, "_updated_at": {"$date": day},
                "_rperm": ["*", object_id(i)], "_wperm": [object_id(i)], "score": rng.randint(0, 10000),
                "nickname": f"nick{i}", "_p_team": f"Team${rng.randint(0, 999):010d}", "lastSeen": {"$date": day},
            }) + "\n")
    with open(sessions_path, "w") as f:
        for i in range(0, users, 4):
            f.write(json.dumps({
                "_id": "s" + object_id(i)[1:], "_session_token": "r:" + os.urandom(16).hex(), "_p_user": "_User$" + object_id(i),
                "installationId": f"inst-{i}", "createdWith": {"action": "login", "authProvider": "password"},
                "_created_at": {"$date": "2024-01-01T00:00:00.000Z"}, "_expires_at": {"$date": "2099-01-01T00:00:00.000Z"},
            }) + "\n")
    return users_path, sessions_path


def run(env, args):
    start = time.time()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([BINARY, *args], env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"import failed ({out.returncode}):\n{out.stderr}")
    return time.time() - start, after.ru_maxrss, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, out.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--postgres", help="a PostgreSQL database URL to import into (it must be empty)")
    options = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="latchkey-import-bench-")
    t = time.time()
    users_path, sessions_path = write_export(directory, options.users)
    print(f"wrote {options.users} users and {options.users // 4} sessions in {time.time() - t:.0f} s "
          f"({os.path.getsize(users_path) / 1e6:.0f} MB)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_DATABASE_PATH": os.path.join(directory, "latchkey.sqlite"), "LATCHKEY_LOG_LEVEL": "warning",
                "LATCHKEY_PARSE_APPS": '[{"id": "bench", "master_key": "bench-master-key-0123456789"}]',
                "LATCHKEY_DEVELOPMENT": "true"})
    if options.postgres:
        env.update({"LATCHKEY_DATABASE_URL": options.postgres, "LATCHKEY_DATABASE_TLS": "disable"})
    args = ["import", "--format", "parse", users_path, "--sessions", sessions_path]
    seconds, rss, cpu, out = run(env, args)
    print(out)
    print(f"first import: {seconds:.1f} s wall, {cpu:.1f} s CPU, {options.users / seconds:.0f} users/s, peak RSS {rss / 1024:.0f} MiB")
    seconds, rss, cpu, out = run(env, args)
    print(f"second import (all skipped): {seconds:.1f} s wall, {cpu:.1f} s CPU")
    print(f"files in {directory}")


if __name__ == "__main__":
    main()
