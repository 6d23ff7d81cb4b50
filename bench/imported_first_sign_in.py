#!/usr/bin/env python3
"""What an imported Firebase user's first sign-in costs against a native one: imports N users holding Firebase's
published example hash (its project's parameters: scrypt N=2^14, r=8, then AES), signs each in through the native
API twice, and prints the latency and the server's CPU per sign-in. The first checks Firebase's hash and stores
Latchkey's own scrypt (N=2^17, r=8), so it pays both; the second is a native sign-in. Run after
`swift build -c release --product latchkey`:

    python3 bench/imported_first_sign_in.py [--users 20]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
os.environ.setdefault("LATCHKEY_BIN", os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
from conftest import password_sign_in  # noqa: E402
from harness import Server  # noqa: E402
from import_fixtures import FIREBASE_CONFIG, FIREBASE_EXAMPLE  # noqa: E402
from test_import import cli  # noqa: E402


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=20)
    args = ap.parse_args()
    server = Server(env={"LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "17"}).start()  # the default cost, not the test suite's
    try:
        users = [{"localId": f"bench{i}", "email": f"fb{i}@example.com", "emailVerified": True, "passwordHash": FIREBASE_EXAMPLE["hash"],
                  "salt": FIREBASE_EXAMPLE["salt"], "createdAt": "1600000000000"} for i in range(args.users)]
        path, config = os.path.join(server.dir, "users.json"), os.path.join(server.dir, "config.json")
        with open(path, "w") as f:
            json.dump({"users": users}, f)
        with open(config, "w") as f:
            json.dump(FIREBASE_CONFIG, f)
        done = cli(server, "import", "--format", "firebase", path, "--firebase-hash-config", config)
        assert done.returncode == 0, done.stderr
        pid = server.proc.pid
        for label in ("first sign-in (Firebase scrypt checked, Latchkey scrypt stored)", "second sign-in (native scrypt)"):
            latencies, cpu = [], cpu_seconds(pid)
            for user in users:
                start = time.perf_counter()
                r = password_sign_in(server, user["email"], FIREBASE_EXAMPLE["password"])
                latencies.append(time.perf_counter() - start)
                assert r.status_code == 200, r.text
            cpu = (cpu_seconds(pid) - cpu) / len(users)
            print(f"{label}: median {statistics.median(latencies) * 1000:.0f} ms, server CPU {cpu * 1000:.0f} ms per sign-in "
                  f"({len(users)} users)")
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
