#!/usr/bin/env python3
"""What a second factor adds to a native sign-in: the password grant of a client with `mfa: off` against the same
account on a client with `mfa: required`, whose `/token` answers `mfa_required`, then `introspect`, `challenge`
(a code mailed to the enrolled address: one outbox row) and the `mfa_oob` grant. Each step's latency is timed on
its own; reading the mailed code from the testing mailbox is not timed. Run after `swift build -c release`:

    python3 bench/second_factor.py [--bin .build/release/latchkey] [--rounds 30] [--log-n 17]

A measurement: nothing here is asserted.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "blackbox"))
import harness  # noqa: E402
from mfa_support import OFF, REQUIRED, Native, TextMessages, config, new_email  # noqa: E402


def p50(values):
    return statistics.median(values) * 1000


def timed(call):
    t0 = time.perf_counter()
    result = call()
    return result, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "latchkey"))
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--log-n", type=int, default=17)
    args = ap.parse_args()
    harness.BINARY = os.path.abspath(args.bin)
    sms = TextMessages()
    s = harness.Server(config_text=config(sms), env={"LATCHKEY_PASSWORDS_SCRYPT_LOG_N": str(args.log_n),
                                                     "LATCHKEY_LOG_LEVEL": "warning"}).start()
    try:
        email = new_email()
        plain, strict = Native(s, OFF), Native(s, REQUIRED)
        plain.sign_up(email)
        # Enrol the account's address once (just-in-time registration), as the test suite does.
        from test_mfa_native import register_email
        register_email(s, strict, email)
        steps = {"password grant, mfa off": [], "password grant -> mfa_required": [], "introspect": [], "challenge (mails a code)": [],
                 "mfa_oob grant": []}
        for _ in range(args.rounds):
            r, t = timed(lambda: plain.password_token(email))
            assert r.status_code == 200, r.text
            steps["password grant, mfa off"].append(t)
            r, t = timed(lambda: strict.password_token(email))
            assert r.json().get("suberror") == "mfa_required", r.text
            steps["password grant -> mfa_required"].append(t)
            methods, t = timed(lambda: strict.introspect(r.json()["continuation_token"]))
            steps["introspect"].append(t)
            before = len(s.mails(email))
            sent, t = timed(lambda: strict.challenge(methods["continuation_token"], methods["methods"][0]["id"]).json())
            steps["challenge (mails a code)"].append(t)
            code = s.wait_for_code(email, before)
            done, t = timed(lambda: strict.submit(sent["continuation_token"], code))
            assert done.status_code == 200, done.text
            steps["mfa_oob grant"].append(t)
        print(f"scrypt ln={args.log_n}, {args.rounds} rounds, p50 per step (initiate and challenge included in the grants' rows):")
        for name, values in steps.items():
            print(f"  {name:34s} {p50(values):8.1f} ms")
        extra = p50(steps["introspect"]) + p50(steps["challenge (mails a code)"]) + p50(steps["mfa_oob grant"])
        print(f"  second-factor steps together       {extra:8.1f} ms")
    finally:
        s.cleanup()
        sms.hook.shutdown()


if __name__ == "__main__":
    main()
