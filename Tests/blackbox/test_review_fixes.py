"""The security review's findings (issue F), each on the wire: the symptom it reported must not come back."""
import concurrent.futures
import json
import os
import socket
import sqlite3
import time
import uuid

import pytest
import requests

import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import ALL_TYPES, CLIENT_ID, ROOT, Server
from test_app_services import app_error, call, link_pair, login, no_body, provider

PW = "correct horse battery"
APPS = [{"id": "email-app"}, {"id": "auto-app", "confirmation": {"mode": "auto"}}]


def fresh(tag="u"):
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.com"


@pytest.fixture(scope="module")
def apps():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS),
                    "LATCHKEY_CLIENTS": json.dumps([{"id": CLIENT_ID, "name": "dev", "scopes": ["orders.read"]}])}).start()
    yield s
    s.cleanup()


def audit_count(s, kind, email):
    db = sqlite3.connect(s.db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM audit_events WHERE kind = ? AND email = ?", (kind, email)).fetchone()[0]
    finally:
        db.close()


# 1. Parallel guesses cannot get past the lockout -----------------------------------------------------------

def test_thirty_parallel_guesses_on_one_token_and_on_login_are_capped_by_the_lock():
    s = Server(env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS),
                    "LATCHKEY_LIMITS_CREDENTIAL_PER_IP_REQUESTS": "1000"}).start()
    try:
        native = fresh("native")
        strict.tokens(token_after_sign_up(s, native, sign_up(s, native)))
        init = strict.ok(s.post("/oauth2/v2.0/initiate", {"username": native, "challenge_type": ALL_TYPES}), "oauth2/initiate")
        ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                         "challenge_type": ALL_TYPES}), "oauth2/challenge")

        def guess(i):
            return s.post("/oauth2/v2.0/token", {"grant_type": "password", "username": native, "password": f"wrong guess {i}",
                                                 "continuation_token": ch["continuation_token"], "scope": "openid"})
        with concurrent.futures.ThreadPoolExecutor(30) as pool:
            answers = list(pool.map(guess, range(30)))
        verified = [r for r in answers if r.status_code == 400 and r.json().get("error_codes") == [50126]]
        locked = [r for r in answers if r.status_code == 429]
        assert len(verified) == 5 and len(locked) == 25, [r.status_code for r in answers]
        assert audit_count(s, "sign_in_failed", native) == 5

        app_user = fresh("app")
        no_body(call(s, "POST", provider("auto-app", "register"), {"email": app_user, "password": PW}), 201)
        with concurrent.futures.ThreadPoolExecutor(30) as pool:
            answers = list(pool.map(lambda i: login(s, "auto-app", app_user, f"wrong guess {i}"), range(30)))
        assert sorted(r.status_code for r in answers) == [401] * 5 + [429] * 25
        assert audit_count(s, "sign_in_failed", app_user) == 5
    finally:
        s.cleanup()


# 2. Only allowed scopes land in a token ------------------------------------------------------------------

def test_unknown_scopes_are_refused_and_client_scopes_allowed(apps):
    email = fresh()
    ct = sign_up(apps, email)
    strict.error(token_after_sign_up(apps, email, ct, scope="openid admin orders.write"), "invalid_scope")
    body = strict.tokens(token_after_sign_up(apps, email, ct, scope="openid offline_access orders.read"))
    assert "orders.read" in strict.b64url_json(body["access_token"].split(".")[1])["scp"].split()
    strict.error(password_sign_in(apps, email, PW, scope="openid admin"), "invalid_scope")
    # The refused scope cost no password attempt: the right password still signs in at once.
    strict.tokens(password_sign_in(apps, email, PW))


# 3. Auto-confirmation proves nothing about the mailbox -----------------------------------------------------

def test_auto_confirmation_keeps_email_unverified_until_a_code_sign_in(apps):
    email = fresh("auto")
    no_body(call(apps, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    body = strict.tokens(password_sign_in(apps, email, PW))
    assert strict.b64url_json(body["id_token"].split(".")[1])["email_verified"] is False
    info = apps.get("/oidc/userinfo", headers={"Authorization": "Bearer " + body["access_token"]}).json()
    assert info["email_verified"] is False
    # The real owner signs in by emailed code: verified now, and the registrant's password and sessions are gone.
    init = strict.ok(apps.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": "oob redirect"}), "oauth2/initiate")
    before = len(apps.mails(email))
    ch = strict.ok(apps.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                        "challenge_type": "oob redirect"}), "oauth2/challenge")
    code = apps.wait_for_code(email, before)
    owner = strict.tokens(apps.post("/oauth2/v2.0/token", {"grant_type": "oob", "oob": code, "scope": "openid offline_access",
                                                           "continuation_token": ch["continuation_token"]}))
    assert strict.b64url_json(owner["id_token"].split(".")[1])["email_verified"] is True
    app_error(login(apps, "auto-app", email, PW), 401, "InvalidPassword")
    strict.error(apps.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": body["refresh_token"]}),
                 "invalid_grant")


# 4. A pending App Services sign-up does not hold an address -----------------------------------------------

def test_code_verified_sign_up_replaces_a_pending_registration(apps):
    email = fresh("pending")
    no_body(call(apps, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 201)
    _, token, token_id = link_pair(apps, email)
    ct = sign_up(apps, email, password="owner's own passphrase")
    strict.tokens(token_after_sign_up(apps, email, ct))
    # The registrant's link no longer confirms anything, and their password opens nothing.
    app_error(call(apps, "POST", provider("email-app", "confirm"), {"token": token, "tokenId": token_id}), 400, "UserpassTokenInvalid")
    app_error(login(apps, "email-app", email, PW), 401, "InvalidPassword")
    assert login(apps, "email-app", email, "owner's own passphrase").status_code == 200


def test_pending_registration_expires_with_its_link():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS), "LATCHKEY_APP_SERVICES_LINK_TTL_SECONDS": "1"}).start()
    try:
        email = fresh("expiring")
        no_body(call(s, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 201)
        app_error(call(s, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 409, "AccountNameInUse")
        time.sleep(1.5)
        app_error(call(s, "POST", provider("email-app", "confirm/send"), {"email": email}), 404, "UserNotFound")
        no_body(call(s, "POST", provider("email-app", "register"), {"email": email, "password": "a newer passphrase"}), 201)
    finally:
        s.cleanup()


# 5. Only plain addresses; mail goes to the stored one; terminals get escapes ----------------------------

@pytest.mark.parametrize("bad", ["a\u0000b@example.com", "victim@example.com\u0000.evil", "a\u001b[31m@example.com",
                                 "ünï@example.com", "a b@example.com", "a@exa_mple.com", "a@-example.com", "x" * 65 + "@example.com",
                                 "a@" + "b" * 250 + ".com", ".a@example.com", "a..b@example.com"])
def test_addresses_outside_plain_ascii_are_refused(apps, bad):
    app_error(call(apps, "POST", provider("email-app", "register"), {"email": bad, "password": PW}), 400, "BadRequest")
    app_error(call(apps, "POST", provider("email-app", "reset/send"), {"email": bad}), 400, "BadRequest")
    strict.error(apps.post("/signup/v1.0/start", {"username": bad, "challenge_type": ALL_TYPES}), "invalid_request")


def test_audit_cli_escapes_control_characters(apps):
    email = fresh("agent")
    requests.post(apps.base + "/oauth2/v2.0/initiate", data={"client_id": CLIENT_ID, "username": email, "challenge_type": ALL_TYPES},
                  headers={"User-Agent": "evil\x1b]0;owned\x07agent"})
    sign_up(apps, email)
    import subprocess
    from harness import BINARY
    out = subprocess.run([BINARY, "audit", "--since", "1h"], env=apps.env, cwd=apps.dir, capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert b"\x1b" not in out.stdout and b"\x07" not in out.stdout


# 7. reset/call's current-password check is a counted password check -------------------------------------

def test_reset_call_current_password_check_is_locked_out():
    functions = {"decide": {"kind": "command", "command": [os.path.join(ROOT, "Tests", "blackbox", "functions", "decide.py")],
                            "timeout_seconds": 2}}
    app = [{"id": "cmd", "confirmation": {"mode": "auto"}, "reset": {"mode": "function", "function": "decide"}}]
    s = Server(env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_FUNCTIONS": json.dumps(functions),
                    "LATCHKEY_APP_SERVICES_APPS": json.dumps(app), "DECIDE_LOG": "/dev/null"}).start()
    try:
        user = f"fail-{uuid.uuid4().hex[:8]}@example.com"  # decide.py answers fail for it: nothing is reset
        no_body(call(s, "POST", provider("cmd", "register"), {"email": user, "password": PW}), 201)
        statuses = [call(s, "POST", provider("cmd", "reset/call"), {"email": user, "password": f"guess number {i}", "arguments": []}
                         ).status_code for i in range(7)]
        assert statuses[:5] == [400] * 5 and statuses[5:] == [429, 429], statuses
        assert audit_count(s, "sign_in_failed", user) == 5
    finally:
        s.cleanup()


# 14. Each endpoint takes only its own kind of token -----------------------------------------------------

def test_tokens_open_only_their_own_dialect(apps):
    email = fresh("typed")
    no_body(call(apps, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    app_tokens = login(apps, "auto-app", email, PW).json()
    native = strict.tokens(password_sign_in(apps, email, PW))
    assert call(apps, "GET", "/auth/profile", token=app_tokens["access_token"]).status_code == 200
    app_error(call(apps, "GET", "/auth/profile", token=native["access_token"]), 401, "InvalidSession")
    app_error(call(apps, "GET", "/auth/profile", token=native["id_token"]), 401, "InvalidSession")
    r = apps.get("/oidc/userinfo", headers={"Authorization": "Bearer " + app_tokens["access_token"]})
    assert r.status_code == 401 and r.json()["error"] == "invalid_token"
    # A session refresh repeats the login's device id.
    refreshed = call(apps, "POST", "/auth/session", token=app_tokens["refresh_token"]).json()
    assert strict.b64url_json(refreshed["access_token"].split(".")[1])["baas_device_id"] == app_tokens["device_id"]


# 15. Development defaults are refused off loopback -------------------------------------------------------

def test_development_defaults_refused_off_loopback():
    s = Server(env={"LATCHKEY_SERVER_HOST": "0.0.0.0", "LATCHKEY_TESTING_MAILBOX": "false"})
    try:
        with pytest.raises(RuntimeError) as failed:
            s.start(timeout=10)
        assert "exited with 78" in str(failed.value)
        assert "development: true" in s.read_log() and "clients" in s.read_log()
        s.env["LATCHKEY_DEVELOPMENT"] = "true"
        s.start()
    finally:
        s.cleanup()


# 16. A whole request head within server.header_timeout_seconds --------------------------------------------

def read_response(conn):
    """One whole response: the head, then exactly Content-Length bytes, however TCP split them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        assert chunk, f"connection closed mid-response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = conn.recv(4096)
        assert chunk, "connection closed mid-body"
        body += chunk
    assert len(body) == length, "more bytes than one response"
    return head


def test_trickled_headers_are_cut():
    s = Server(env={"LATCHKEY_SERVER_HEADER_TIMEOUT_SECONDS": "2", "LATCHKEY_SERVER_IDLE_TIMEOUT_SECONDS": "60"}).start()
    try:
        with socket.create_connection(("127.0.0.1", s.port)) as conn:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n")
            start, closed = time.time(), False
            while time.time() - start < 8:
                try:
                    conn.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    closed = True
                    break
                conn.settimeout(0.5)
                try:
                    if conn.recv(1024) == b"":
                        closed = True
                        break
                except socket.timeout:
                    pass
            assert closed and time.time() - start < 4
        # A kept-alive connection that stays quiet longer than the head deadline is left to the idle timeout,
        # and a trickled head on it is cut just the same.
        with socket.create_connection(("127.0.0.1", s.port)) as conn:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(conn).startswith(b"HTTP/1.1 200")
            time.sleep(3)
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(conn).startswith(b"HTTP/1.1 200")
            conn.sendall(b"GET /health/live HTTP/1.1\r\n")
            start = time.time()
            conn.settimeout(6)
            while True:
                try:
                    conn.sendall(b"X-Slow: 1\r\n")
                    if conn.recv(1024) == b"":
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
            assert time.time() - start < 4
    finally:
        s.cleanup()


# 17. A malformed reset form is an HTML 400 ---------------------------------------------------------------

def test_malformed_reset_form_is_an_html_400(apps):
    r = requests.post(apps.base + "/reset-password", data=b"token=%zz&tokenId=%", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and r.headers["Content-Type"].startswith("text/html"), (r.status_code, r.text)
