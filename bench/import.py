#!/usr/bin/env python3
"""Measures `latchkey import` at scale: writes an export of N users in a source's own format, imports it into a fresh
SQLite database (or, with --postgres URL, a fresh PostgreSQL database), and prints the wall time, the rate and the
peak memory of the import process. Then it runs the same import again (every user skipped) and times that too.

- `parse` (the default): mongoexport JSON lines with bcrypt hashes, custom fields, a pointer and dates, and N/4
  sessions.
- `app-services`: the Admin API's JSON array (no hashes exist), a Google identity on every tenth user.
- `firebase`: `auth:export` JSON with Firebase scrypt hashes under Firebase's example project parameters.
- `auth0`: NDJSON with the bcrypt password export joined by `$oid`.
- `supabase`: `COPY auth.users … CSV HEADER` with bcrypt hashes.
- `keycloak`: a realm export with pbkdf2-sha256 credentials.

    python3 bench/import.py --users 1000000
    python3 bench/import.py --users 1000000 --format firebase
    python3 bench/import.py --users 1000000 --postgres postgres://bench@127.0.0.1:5432/postgres

The binary is .build/release/latchkey (build it with `swift build -c release`) or LATCHKEY_BIN. Hashes are a few
real bcrypt strings reused: an import only checks their form and cost, it never runs bcrypt.
"""
import argparse
import base64
import ctypes
import hashlib
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


FIREBASE = {"algorithm": "SCRYPT", "base64_signer_key": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            "base64_salt_separator": "Bw==", "rounds": 8, "mem_cost": 14}
# Firebase's published example user: a real hash under those parameters (an import checks form and cost only).
FIREBASE_HASH = ("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", "42xEC+ixf3L2lw==")
PBKDF2 = [(base64.b64encode(salt).decode(), base64.b64encode(hashlib.pbkdf2_hmac("sha256", b"password", salt, 27500, 64)).decode())
          for salt in (os.urandom(16) for _ in range(4))]


def write_source(directory, users, fmt):
    """The users file (and the side files) of `fmt`; returns the import arguments after FILE."""
    path = os.path.join(directory, f"users.{fmt}")
    extra = []
    with open(path, "w") as f:
        if fmt == "app-services":
            f.write("[\n")
            for i in range(users):
                identities = [{"id": f"{i:024x}", "provider_type": "local-userpass", "provider_data": {"email": f"user{i}@example.com"}}]
                if i % 10 == 0:
                    identities.append({"id": f"g{i}", "provider_type": "oauth2-google"})
                f.write(("," if i else "") + json.dumps({"_id": f"{i:024x}", "identities": identities, "type": "normal",
                                                          "data": {"email": f"user{i}@example.com"}, "creation_date": 1600000000 + i}) + "\n")
            f.write("]\n")
        elif fmt == "firebase":
            f.write('{"users": [\n')
            for i in range(users):
                f.write(("," if i else "") + json.dumps({"localId": f"fb{i:026d}", "email": f"user{i}@example.com", "emailVerified": True,
                                                          "passwordHash": FIREBASE_HASH[0], "salt": FIREBASE_HASH[1], "displayName": f"User {i}",
                                                          "createdAt": str(1600000000000 + i), "lastSignedInAt": "1700000000000",
                                                          "providerUserInfo": []}) + "\n")
            f.write("]}\n")
            config = os.path.join(directory, "hash-config.json")
            with open(config, "w") as c:
                json.dump(FIREBASE, c)
            extra = ["--firebase-hash-config", config]
        elif fmt == "auth0":
            passwords = os.path.join(directory, "passwords.ndjson")
            with open(passwords, "w") as p:
                for i in range(users):
                    oid = f"{i:024x}"
                    f.write(json.dumps({"user_id": f"auth0|{oid}", "email": f"user{i}@example.com", "email_verified": True,
                                        "created_at": "2021-01-02T03:04:05.678Z", "identities": [{"provider": "auth0", "user_id": oid}],
                                        "user_metadata": {"plan": "free"}}) + "\n")
                    p.write(json.dumps({"_id": {"$oid": oid}, "email": f"user{i}@example.com", "passwordHash": HASHES[i % len(HASHES)]}) + "\n")
            extra = ["--auth0-passwords", passwords]
        elif fmt == "supabase":
            f.write("instance_id,id,aud,role,email,encrypted_password,email_confirmed_at,raw_user_meta_data,created_at,last_sign_in_at\n")
            for i in range(users):
                f.write(f"00000000-0000-0000-0000-000000000000,{i:08x}-0000-4000-8000-000000000000,authenticated,authenticated,"
                        f"user{i}@example.com,{HASHES[i % len(HASHES)]},2024-01-15 10:20:30.123456+00,\"{{\"\"name\"\": \"\"U{i}\"\"}}\","
                        f"2024-01-15 10:20:00+00,2024-02-01 00:00:00+00\n")
        elif fmt == "keycloak":
            f.write('{"realm": "bench", "users": [\n')
            for i in range(users):
                salt, value = PBKDF2[i % len(PBKDF2)]
                f.write(("," if i else "") + json.dumps({
                    "id": f"{i:08x}-0000-4000-8000-000000000000", "username": f"user{i}", "email": f"user{i}@example.com", "enabled": True,
                    "emailVerified": True, "createdTimestamp": 1600000000000, "firstName": "U", "lastName": str(i),
                    "credentials": [{"type": "password", "secretData": json.dumps({"value": value, "salt": salt, "additionalParameters": {}}),
                                     "credentialData": json.dumps({"hashIterations": 27500, "algorithm": "pbkdf2-sha256",
                                                                   "additionalParameters": {}})}]}) + "\n")
            f.write("]}\n")
    return path, extra


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
    parser.add_argument("--format", default="parse", choices=["parse", "app-services", "firebase", "auth0", "supabase", "keycloak"])
    options = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="latchkey-import-bench-")
    t = time.time()
    if options.format == "parse":
        users_path, sessions_path = write_export(directory, options.users)
        args = ["import", "--format", "parse", users_path, "--sessions", sessions_path]
    else:
        users_path, extra = write_source(directory, options.users, options.format)
        args = ["import", "--format", options.format, users_path, *extra]
    print(f"wrote {options.users} users ({options.format}) in {time.time() - t:.0f} s ({os.path.getsize(users_path) / 1e6:.0f} MB)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_DATABASE_PATH": os.path.join(directory, "latchkey.sqlite"), "LATCHKEY_LOG_LEVEL": "warning",
                "LATCHKEY_PARSE_APPS": '[{"id": "bench", "master_key": "bench-master-key-0123456789"}]',
                "LATCHKEY_DEVELOPMENT": "true"})
    if options.postgres:
        env.update({"LATCHKEY_DATABASE_URL": options.postgres, "LATCHKEY_DATABASE_TLS": "disable"})
    seconds, rss, cpu, out = run(env, args)
    print(out)
    print(f"first import: {seconds:.1f} s wall, {cpu:.1f} s CPU, {options.users / seconds:.0f} users/s, peak RSS {rss / 1024:.0f} MiB")
    seconds, rss, cpu, out = run(env, args)
    print(f"second import (all skipped): {seconds:.1f} s wall, {cpu:.1f} s CPU")
    print(f"files in {directory}")


if __name__ == "__main__":
    main()
