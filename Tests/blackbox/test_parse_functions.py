"""Parse cloud functions: `POST /parse/functions/<name>` runs the operator's function over a signed webhook and as a
command, with Parse's webhook body; answers map to {"result": ...} or code 141."""
import json
import os
import threading
import uuid

import pytest
import requests

from harness import ROOT, Server
from webhook import SignedWebhook
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, login_signup_response, ok

PASSWORD = "correct horse 9"


# A slow hook holds its request until the test has had its answer, so the answer cannot have waited for the hook.
hook_held, hook_release = threading.Event(), threading.Event()


def answer(request, valid):
    mode = request["params"].get("mode")
    if mode == "slow":
        hook_held.set()
        hook_release.wait(30)
        hook_release.clear()
    if mode == "junk":
        return b'{"success": '
    return {"error": "no hello for you"} if mode == "refuse" else {"success": {"hello": request["params"].get("name", "world")}}


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    log = str(tmp_path_factory.mktemp("cloud") / "cloud.log")
    hook = SignedWebhook(answer)
    functions = {
        "hello": {"kind": "webhook", "url": hook.url, "secret": hook.secret, "timeout_seconds": 2},
        "echo": {"kind": "command", "command": [os.path.join(ROOT, "Tests", "blackbox", "functions", "cloud.py")], "timeout_seconds": 2},
        "unlisted": {"kind": "command", "command": [os.path.join(ROOT, "Tests", "blackbox", "functions", "cloud.py")], "timeout_seconds": 2},
    }
    apps = [{"id": APP_ID, "master_key": MASTER_KEY, "cloud_functions": ["hello", "echo"]}]
    s = Server(env={"LATCHKEY_FUNCTIONS": json.dumps(functions), "LATCHKEY_PARSE_APPS": json.dumps(apps), "CLOUD_LOG": log}).start()
    s.cloud_log, s.hook = log, hook
    yield s
    s.cleanup()
    hook.shutdown()


def test_webhook_function_gets_parse_webhook_body(cloud):
    c = ParseClient(cloud)
    username = "u" + uuid.uuid4().hex[:10]
    created = login_signup_response(ok(c.call("POST", "/users", {"username": username, "password": PASSWORD}), 201))
    received = cloud.hook.received
    received.clear()
    answer = ok(c.call("POST", "/functions/hello", {"name": "Ada"}, session_token=created["sessionToken"]))
    assert answer == {"result": {"hello": "Ada"}}
    got = received[-1]
    assert got["valid"], "signed as Standard Webhooks"
    body = got["body"]
    assert body["functionName"] == "hello" and body["params"] == {"name": "Ada"} and body["master"] is False
    assert body["user"]["objectId"] == created["objectId"] and body["user"]["username"] == username and "password" not in body["user"]
    assert body["installationId"] == c.installation_id and body["ip"] == "127.0.0.1"
    headers = {k.lower(): v for k, v in body["headers"].items()}
    assert headers["x-parse-application-id"] == APP_ID and "x-parse-session-token" not in headers
    # Without a session: no user; with the master key: master is true and the key is not passed on.
    ok(c.call("POST", "/functions/hello", {}, master=True))
    body = received[-1]["body"]
    assert "user" not in body and body["master"] is True and "x-parse-master-key" not in {k.lower() for k in body["headers"]}
    error(c.call("POST", "/functions/hello", {"mode": "refuse"}), 141, "no hello for you")
    error(c.call("POST", "/functions/hello", {"mode": "junk"}), 141, "Cloud function hello failed.")
    error(c.call("POST", "/functions/hello", {"mode": "slow"}), 141, "Cloud function hello failed.")
    assert hook_held.is_set()  # the hook got the call and still holds it: the server stopped waiting at its timeout
    hook_release.set()
    assert "deadlineExceeded" in cloud.read_log() or "timed out" in cloud.read_log()


def test_command_function_and_unknown_names(cloud):
    c = ParseClient(cloud)
    assert ok(c.call("POST", "/functions/echo", {"n": 1, "list": [1, "a"]})) == {
        "result": {"params": {"n": 1, "list": [1, "a"]}, "user": None, "master": False}}
    with open(cloud.cloud_log) as log:
        body = json.loads(log.readlines()[-1])
    assert body["functionName"] == "echo" and set(body) >= {"functionName", "params", "master", "ip", "headers", "installationId"}
    error(c.call("POST", "/functions/echo", {"mode": "refuse"}), 141, "refused by cloud.py")
    error(c.call("POST", "/functions/echo", {"mode": "junk"}), 141)
    error(c.call("POST", "/functions/echo", {"mode": "crash"}), 141)
    error(c.call("POST", "/functions/unlisted", {}), 141, 'Invalid function: "unlisted"')
    error(c.call("POST", "/functions/nope", {}), 141, 'Invalid function: "nope"')
    log = cloud.read_log()
    assert "exited with status 3" in log and "neither" in log


def test_credentials_never_reach_a_function(cloud):
    received = cloud.hook.received
    received.clear()
    headers = {"X-Parse-Application-Id": APP_ID, "Content-Type": "application/json", "Proxy-Authorization": "Basic c2VjcmV0",
               "X-Api-Key": "secret-api-key", "X-Parse-REST-API-Key": "rest-key", "User-Agent": "parse-test"}
    body = {"name": "Ada", "_RESTAPIKey": "rest-key", "_ClientVersion": "js5", "_JavaScriptKey": "js", "_anything": 1}
    r = requests.post(cloud.base + "/parse/functions/hello", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    got = received[-1]["body"]
    assert got["params"] == {"name": "Ada"}, got["params"]
    forwarded = {k.lower(): v for k, v in got["headers"].items()}
    assert forwarded.get("user-agent") == "parse-test" and forwarded["x-parse-application-id"] == APP_ID
    assert not {"proxy-authorization", "x-api-key", "x-parse-rest-api-key", "authorization", "cookie"} & set(forwarded), forwarded
