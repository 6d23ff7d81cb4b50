#!/usr/bin/env python3
"""An operator function for the tests (kind: command): reads the JSON argument list on stdin, decides by the
username or password, records what it got in $DECIDE_LOG, and answers {"status": ...} on stdout."""
import json
import os
import signal
import sys

args = json.load(sys.stdin)
with open(os.environ.get("DECIDE_LOG", "/dev/null"), "a") as log:
    log.write(json.dumps(args) + "\n")
first = args[0]
# Confirmations are decided by the username, resets by the proposed password.
who = first["password"] if "password" in first else first["username"]
if "slow" in who:
    signal.pause()  # until the server ends it at its timeout
if "crash" in who:
    sys.exit(3)
if "junk" in who:
    print("this is not json")
    sys.exit(0)
status = "success" if "ok" in who else "pending" if "later" in who else "fail"
print(json.dumps({"status": status, "message": "decided by decide.py"}))
