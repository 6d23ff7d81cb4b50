#!/usr/bin/env python3
"""A login function for the tests (App Services custom-function, kind: command): reads the login payload on stdin,
records it in $LOGIN_LOG, and answers by its `mode`: id -> the external id as a string, object -> {id, name, email},
refuse -> {"error": ...}, junk, crash."""
import json
import os
import sys

payload = json.load(sys.stdin)
with open(os.environ.get("LOGIN_LOG", "/dev/null"), "a") as log:
    log.write(json.dumps(payload) + "\n")
mode = payload.get("mode", "id")
if mode == "crash":
    sys.exit(3)
if mode == "junk":
    print("this is not json")
elif mode == "refuse":
    print(json.dumps({"error": "no such employee"}))
elif mode == "object":
    print(json.dumps({"id": payload["externalId"], "name": "Grace Hopper", "email": payload.get("email")}))
else:
    print(json.dumps(payload["externalId"]))
