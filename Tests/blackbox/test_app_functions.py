"""App Services confirmation and reset by the operator's functions: command and signed webhook."""
import base64
import json
import os
import threading
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from harness import ROOT, Server, free_port
from webhook import SignedWebhook
from test_app_services import app_error, call, link_pair, login, no_body, provider

PW = "correct horse battery"


# A slow hook holds its request until the test has had its answer, so the answer cannot have waited for the hook.
hook_held, hook_release = threading.Event(), threading.Event()


def decide(request, valid):
    who = request[0]["username"]
    if "slow" in who:
        hook_held.set()
        hook_release.wait(30)
        hook_release.clear()
    return {"status": "fail" if not valid else "success" if "ok" in who else "pending" if "later" in who else "fail"}


@pytest.fixture(scope="module")
def fn_server(tmp_path_factory):
    log = str(tmp_path_factory.mktemp("fn") / "decide.log")
    hook = SignedWebhook(decide)
    functions = {
        "decide": {"kind": "command", "command": [os.path.join(ROOT, "Tests", "blackbox", "functions", "decide.py")], "timeout_seconds": 2},
        "hook": {"kind": "webhook", "url": hook.url, "secret": hook.secret, "timeout_seconds": 2},
    }
    apps = [{"id": "cmd", "confirmation": {"mode": "function", "function": "decide"}, "reset": {"mode": "function", "function": "decide"}},
            {"id": "web", "confirmation": {"mode": "function", "function": "hook"}, "reset": {"mode": "email"}}]
    s = Server(env={"LATCHKEY_FUNCTIONS": json.dumps(functions), "LATCHKEY_APP_SERVICES_APPS": json.dumps(apps), "DECIDE_LOG": log}).start()
    s.decide_log, s.hook = log, hook
    yield s
    s.cleanup()
    hook.shutdown()


def name(tag):
    return f"{tag}-{uuid.uuid4().hex[:8]}@example.com"


def test_confirmation_function_success_pending_fail(fn_server):
    s = fn_server
    ok = name("ok")
    no_body(call(s, "POST", provider("cmd", "register"), {"email": ok, "password": PW}), 201)
    assert login(s, "cmd", ok, PW).status_code == 200
    later = name("later")
    no_body(call(s, "POST", provider("cmd", "register"), {"email": later, "password": PW}), 201)
    app_error(login(s, "cmd", later, PW), 401, "AuthError")
    with open(s.decide_log) as f:
        last = json.loads(f.readlines()[-1])
    assert set(last[0]) == {"token", "tokenId", "username"} and last[0]["username"] == later
    # The function delivered the pair out of band; the client confirms with it.
    no_body(call(s, "POST", provider("cmd", "confirm"), {"token": last[0]["token"], "tokenId": last[0]["tokenId"]}))
    assert login(s, "cmd", later, PW).status_code == 200
    bad = name("bad")
    app_error(call(s, "POST", provider("cmd", "register"), {"email": bad, "password": PW}), 400, "BadRequest",
              f'failed to confirm user "{bad}"')
    # No account was created: the address can register again.
    app_error(call(s, "POST", provider("cmd", "register"), {"email": bad, "password": PW}), 400, "BadRequest")
    app_error(call(s, "POST", provider("cmd", "confirm/call"), {"email": bad}), 404, "UserNotFound")
    app_error(call(s, "POST", provider("cmd", "confirm/call"), {"email": ok}), 400, "UserAlreadyConfirmed")


def test_broken_functions_fail_within_their_timeout(fn_server):
    s = fn_server
    # A slow command waits until it is ended: an answer at all is the timeout's.
    for tag in ("slow", "crash", "junk"):
        app_error(call(s, "POST", provider("cmd", "register"), {"email": name(tag), "password": PW}), 400, "BadRequest")
    assert "operator function failed" in s.read_log()


def test_reset_function(fn_server):
    s = fn_server
    user = name("ok")
    no_body(call(s, "POST", provider("cmd", "register"), {"email": user, "password": PW}), 201)
    app_error(call(s, "POST", provider("cmd", "reset/send"), {"email": user}), 400, "BadRequest", "please use reset password via function")
    no_body(call(s, "POST", provider("cmd", "reset/call"), {"email": user, "password": "new ok passphrase",
                                                             "arguments": ["magic", {"$numberInt": "42"}]}))
    with open(s.decide_log) as f:
        last = json.loads(f.readlines()[-1])
    assert last[0]["currentPasswordValid"] is False and last[0]["password"] == "new ok passphrase"
    assert last[1:] == ["magic", {"$numberInt": "42"}]
    assert login(s, "cmd", user, "new ok passphrase").status_code == 200
    # pending: nothing changes until `reset` with the pair the function kept.
    no_body(call(s, "POST", provider("cmd", "reset/call"), {"email": user, "password": "later passphrase here", "arguments": []}))
    with open(s.decide_log) as f:
        last = json.loads(f.readlines()[-1])
    app_error(login(s, "cmd", user, "later passphrase here"), 401, "InvalidPassword")
    no_body(call(s, "POST", provider("cmd", "reset"), {"token": last[0]["token"], "tokenId": last[0]["tokenId"],
                                                      "password": "later passphrase here"}))
    assert login(s, "cmd", user, "later passphrase here").status_code == 200
    app_error(call(s, "POST", provider("cmd", "reset/call"), {"email": user, "password": "refused passphrase", "arguments": []}),
              400, "FunctionExecutionError", "failed to reset password")
    app_error(call(s, "POST", provider("cmd", "reset/call"), {"email": name("ghost"), "password": PW, "arguments": []}), 404, "UserNotFound")


def test_signed_webhook_confirmation(fn_server):
    s = fn_server
    ok = name("ok")
    no_body(call(s, "POST", provider("web", "register"), {"email": ok, "password": PW}), 201)
    assert s.hook.received[-1]["valid"] and s.hook.received[-1]["body"][0]["username"] == ok
    assert login(s, "web", ok, PW).status_code == 200
    later = name("later")
    no_body(call(s, "POST", provider("web", "register"), {"email": later, "password": PW}), 201)
    app_error(login(s, "web", later, PW), 401, "AuthError")
    no_body(call(s, "POST", provider("web", "confirm/call"), {"email": later}))  # still pending
    app_error(call(s, "POST", provider("web", "confirm/call"), {"email": ok}), 400, "UserAlreadyConfirmed")
    app_error(call(s, "POST", provider("web", "register"), {"email": name("slow"), "password": PW}), 400, "BadRequest")
    assert hook_held.is_set()  # the hook got the request and still holds it: the server stopped waiting at its timeout
    hook_release.set()
    app_error(call(s, "POST", provider("web", "reset/call"), {"email": ok, "password": PW, "arguments": []}), 400, "InvalidConfiguration")


class Redirector(BaseHTTPRequestHandler):
    """Answers the webhook with a 307 to /elsewhere, and records whether anything arrives there."""
    followed = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/elsewhere":
            Redirector.followed.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "20")
            self.end_headers()
            self.wfile.write(b'{"status":"success"}')
            return
        self.send_response(307)
        self.send_header("Location", "/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_webhooks_follow_no_redirect():
    hook = HTTPServer(("127.0.0.1", free_port()), Redirector)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    functions = {"hook": {"kind": "webhook", "url": f"http://127.0.0.1:{hook.server_port}/hook", "secret": "whsec_" + base64.b64encode(b"redirect test").decode(), "timeout_seconds": 2}}
    apps = [{"id": "redir", "confirmation": {"mode": "auto"}, "reset": {"mode": "function", "function": "hook"}}]
    s = Server(env={"LATCHKEY_FUNCTIONS": json.dumps(functions), "LATCHKEY_APP_SERVICES_APPS": json.dumps(apps)}).start()
    try:
        user = name("redirected")
        no_body(call(s, "POST", provider("redir", "register"), {"email": user, "password": PW}), 201)
        app_error(call(s, "POST", provider("redir", "reset/call"), {"email": user, "password": "a new passphrase", "arguments": []}),
                  400, "FunctionExecutionError")
        assert Redirector.followed == []  # the new password and token were not re-posted anywhere
        assert "webhook answered HTTP 307" in s.read_log()
    finally:
        s.cleanup()
        hook.shutdown()
