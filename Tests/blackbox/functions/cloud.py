#!/usr/bin/env python3
"""A Parse cloud function for the tests (kind: command): reads Parse's webhook body on stdin, records it in
$CLOUD_LOG, and answers by `params.mode`: echo -> {"success": ...}, refuse -> {"error": ...}, junk, slow, crash."""
import json
import os
import signal
import sys

body = json.load(sys.stdin)
with open(os.environ.get("CLOUD_LOG", "/dev/null"), "a") as log:
    log.write(json.dumps(body) + "\n")
mode = body["params"].get("mode", "echo")
if mode == "slow":
    signal.pause()  # until the server ends it at its timeout
if mode == "crash":
    sys.exit(3)
if mode == "junk":
    print("this is not json")
elif mode == "refuse":
    print(json.dumps({"error": "refused by cloud.py"}))
else:
    print(json.dumps({"success": {"params": body["params"], "user": (body.get("user") or {}).get("objectId"), "master": body["master"]}}))
