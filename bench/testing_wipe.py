#!/usr/bin/env python3
"""Test mode's wipe at size: ten thousand accounts made in one `POST /testing/v1/users` array, then one
`DELETE /testing/v1/data`, timed from the client and as the server reports it. Run after `swift build -c release`:

    python3 bench/testing_wipe.py [--bin .build/release/latchkey] [--accounts 10000]

A measurement: nothing here is asserted.
"""
import argparse
import os
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--accounts", type=int, default=10000)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    s = harness.Server(args=("serve", "--testing"), env={"LATCHKEY_LOG_LEVEL": "warning"})
    del s.env["LATCHKEY_DATABASE_PATH"]  # test mode's own temporary database, as app teams run it
    s.start()
    try:
        body = [{"email": f"bulk-{i}@example.com", "attributes": {}} for i in range(args.accounts)]
        t0 = time.perf_counter()
        made = requests.post(s.base + "/testing/v1/users", json=body, timeout=600)
        make_seconds = time.perf_counter() - t0
        assert made.status_code == 201 and len(made.json()) == args.accounts, made.text[:300]
        t0 = time.perf_counter()
        wiped = requests.delete(s.base + "/testing/v1/data", timeout=60)
        wipe_seconds = time.perf_counter() - t0
        assert wiped.status_code == 200, wiped.text
    finally:
        s.cleanup()
    print(f"{args.accounts} accounts (no passwords) made in one POST /testing/v1/users: {make_seconds:.2f} s")
    print(f"DELETE /testing/v1/data: {wipe_seconds * 1000:.0f} ms at the client, {wiped.json()['milliseconds']:.0f} ms in the server")


if __name__ == "__main__":
    main()
