"""Issue K end to end: Prometheus metrics and the admin API on the admin listener, the users/keys CLI, key rotation
and the request log, against the real binary."""
import base64
import json
import os
import re
import subprocess
import time

import pytest
import requests

import jwks
import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import BINARY, Server
from parse_client import APP_ID, ParseClient
from parse_client import ENV as PARSE_ENV

PASSWORD = "correct horse battery"
TOKEN = "a" * 8 + "0123456789abcdef0123456789abcdef"  # 40 characters
APPS = json.dumps([{"id": "auto-app", "confirmation": {"mode": "auto"}}])


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    folder = tmp_path_factory.mktemp("admin")
    token_file = folder / "admin.token"
    token_file.write_text(TOKEN + "\n")
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file), "LATCHKEY_APP_SERVICES_APPS": APPS,
                    "LATCHKEY_LOG_FORMAT": "json", **PARSE_ENV}).start()
    yield s
    s.cleanup()


def admin(s, method, path, token=TOKEN, **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.request(method, s.admin_base + "/admin/v1" + path, headers=headers, timeout=30, **kw)


def metrics(s):
    r = requests.get(s.admin_base + "/metrics", timeout=30)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain"), r.text
    values = {}
    for line in r.text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values, r.text


def metric(values, name, **labels):
    """The sum of every series of `name` whose labels include `labels`."""
    total = 0.0
    for series, value in values.items():
        base, _, rest = series.partition("{")
        found = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if base == name and all(found.get(k) == v for k, v in labels.items()):
            total += value
    return total


def cli(s, *args):
    return subprocess.run([BINARY, *args], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)


def app_login(s, email, password=PASSWORD):
    return requests.post(s.base + "/api/client/v2.0/app/auto-app/auth/providers/local-userpass/login",
                         json={"username": email, "password": password}, timeout=30)


def refresh(s, token):
    return s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": token})


def new_user(s, email):
    tokens = strict.ok(token_after_sign_up(s, email, sign_up(s, email)), "token")
    return tokens


def test_metrics_move_with_flows_and_carry_route_templates_only(ops, email):
    before, _ = metrics(ops)
    tokens = new_user(ops, email)
    assert password_sign_in(ops, email, "wrong password!").status_code == 400
    strict.ok(refresh(ops, tokens["refresh_token"]), "refresh")
    after, text = metrics(ops)
    assert metric(after, "latchkey_sign_ups_total", dialect="native") == metric(before, "latchkey_sign_ups_total", dialect="native") + 1
    assert metric(after, "latchkey_sign_ins_total", dialect="native", outcome="wrong_password") \
        == metric(before, "latchkey_sign_ins_total", dialect="native", outcome="wrong_password") + 1
    assert metric(after, "latchkey_refreshes_total", outcome="rotated") == metric(before, "latchkey_refreshes_total", outcome="rotated") + 1
    assert metric(after, "latchkey_http_requests_total", http_route="/signup/v1.0/start", http_response_status_code="200") \
        >= metric(before, "latchkey_http_requests_total", http_route="/signup/v1.0/start", http_response_status_code="200") + 1
    assert metric(after, "latchkey_http_request_duration_seconds_count", http_route="/oauth2/v2.0/token") >= 3
    assert metric(after, "latchkey_mail_sent_total") >= 1
    assert "latchkey_outbox_pending" in text and "latchkey_hashing_queue_depth" in text
    # No unbounded label values: no address, no token, no raw path with an id in it.
    assert email not in text and tokens["refresh_token"] not in text
    ParseClient(ops).call("GET", "/users/abcdefghij", master=True)
    _, text = metrics(ops)
    assert "abcdefghij" not in text and re.search(r'http_route="/parse/users/\{\w+\}"', text)


def test_admin_api_refuses_missing_and_wrong_tokens_and_is_not_on_the_public_port(ops):
    for token in (None, "wrong", TOKEN[:-1], TOKEN + "x"):
        r = admin(ops, "GET", "/users", token=token)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized", r.text
        assert r.headers["WWW-Authenticate"].startswith("Bearer")
    unknown = admin(ops, "GET", "/nope")
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found", unknown.text
    for path in ("/admin/v1/users", "/metrics", "/admin/v1/keys"):
        assert requests.get(ops.base + path, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30).status_code == 404


def test_without_a_token_file_the_api_is_off_and_says_so():
    s = Server().start()
    try:
        r = requests.get(s.admin_base + "/admin/v1/users", headers={"Authorization": "Bearer anything"}, timeout=30)
        assert r.status_code == 503 and r.json()["error"] == "admin_api_off" and "token_file" in r.json()["error_description"]
        assert requests.get(s.admin_base + "/metrics", timeout=30).status_code == 200
    finally:
        s.cleanup()


def test_admin_listen_empty_turns_the_listener_off():
    s = Server(env={"LATCHKEY_ADMIN_LISTEN": ""}).start()
    try:
        with pytest.raises(requests.ConnectionError):
            requests.get(s.admin_base + "/metrics", timeout=5)
    finally:
        s.cleanup()


def test_a_taken_admin_port_is_named_in_one_line():
    import socket
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        s = Server(env={"LATCHKEY_ADMIN_LISTEN": f"127.0.0.1:{busy.getsockname()[1]}"})
        out = subprocess.run([BINARY, "serve"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
        assert out.returncode == 69
        port = busy.getsockname()[1]
        assert out.stderr.strip() == f"latchkey: admin.listen: 127.0.0.1:{port} is already in use; pick another port with " \
            f"--admin-port N or LATCHKEY_ADMIN_LISTEN=127.0.0.1:N"
        s.cleanup()
    finally:
        busy.close()


def test_a_short_token_file_is_refused_at_start(tmp_path):
    short = tmp_path / "short.token"
    short.write_text("tooshort\n")
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": str(short)})
    try:
        with pytest.raises(RuntimeError, match="admin.token_file"):
            s.start()
    finally:
        s.cleanup()


def test_list_search_paginate_and_show(ops):
    tag = os.urandom(4).hex()
    emails = [f"page-{tag}-{i}@example.com" for i in range(5)]
    for e in emails:
        new_user(ops, e)
    seen, cursor = [], None
    while True:
        params = {"q": f"page-{tag}", "limit": 2, **({"cursor": cursor} if cursor else {})}
        body = admin(ops, "GET", "/users", params=params).json()
        assert len(body["users"]) <= 2
        seen += [u["email"] for u in body["users"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == emails
    shown = admin(ops, "GET", f"/users/{emails[0]}").json()
    assert shown["email"] == emails[0] and shown["status"] == "active" and shown["last_sign_in_at"]
    assert set(shown) >= {"id", "object_id", "username", "email_verified", "created_at", "last_sign_in_at", "status"}
    assert admin(ops, "GET", f"/users/{shown['object_id']}").json()["id"] == shown["id"]
    assert admin(ops, "GET", "/users/nobody@example.com").status_code == 404
    assert admin(ops, "GET", "/users", params={"q": "100%_"}).json()["users"] == []
    for bad in ({"cursor": "!!"}, {"limit": "0"}, {"limit": "abc"}, {"cursor": base64.urlsafe_b64encode(b"x|y").decode()}):
        r = admin(ops, "GET", "/users", params=bad)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (bad, r.text)


def test_a_disabled_user_is_refused_in_every_dialect_and_their_tokens_die(ops, email):
    tokens = new_user(ops, email)
    parse_session = strict_parse_login(ops, email)
    assert app_login(ops, email).status_code == 200
    r = admin(ops, "POST", f"/users/{email}/disable")
    assert r.status_code == 200 and r.json()["status"] == "disabled"
    assert refresh(ops, tokens["refresh_token"]).json()["error"] == "invalid_grant"
    assert native_refused(ops, email)
    assert app_login(ops, email).status_code == 401
    assert ParseClient(ops).call("POST", "/login", {"username": email, "password": PASSWORD}).status_code == 404
    assert ParseClient(ops).call("GET", "/users/me", session_token=parse_session).status_code == 400
    assert ops.get("/oidc/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}).status_code == 401
    assert admin(ops, "POST", f"/users/{email}/enable").json()["status"] == "active"
    assert password_sign_in(ops, email, PASSWORD).status_code == 200
    events = admin(ops, "GET", "/audit", params={"kind": "admin.user_disabled"}).json()["events"]
    assert any(e["email"] == email for e in events)


def native_refused(s, email):
    """A disabled account answers the native sign-in as an unknown one does."""
    r = s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": "oob password redirect"})
    return r.status_code == 400 and r.json()["error"] == "user_not_found"


def strict_parse_login(s, email):
    r = ParseClient(s).call("POST", "/login", {"username": email, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return r.json()["sessionToken"]


def test_revoke_sessions_verify_email_delete_and_audit(ops, email):
    # A Parse sign-up leaves the address unverified (no code was mailed), so verify-email has something to do.
    created = ParseClient(ops).call("POST", "/users", {"username": email, "password": PASSWORD, "email": email})
    assert created.status_code == 201, created.text
    session = created.json()["sessionToken"]
    assert admin(ops, "GET", f"/users/{email}").json()["email_verified"] is False
    assert admin(ops, "POST", f"/users/{email}/revoke-sessions").status_code == 204
    assert ParseClient(ops).call("GET", "/users/me", session_token=session).status_code == 400
    shown = admin(ops, "POST", f"/users/{email}/verify-email").json()
    assert shown["email_verified"] is True
    assert admin(ops, "DELETE", f"/users/{email}").status_code == 204
    assert admin(ops, "GET", f"/users/{email}").status_code == 404
    assert admin(ops, "DELETE", f"/users/{email}").status_code == 404
    kinds = [e["kind"] for e in admin(ops, "GET", "/audit", params={"user_id": shown["id"]}).json()["events"]]
    # The operator's action, and the address proof it went through (which ends nothing: the operator vouches).
    assert kinds[-4:] == ["admin.sessions_revoked", "address_proven", "admin.email_verified", "admin.user_deleted"], kinds
    assert admin(ops, "GET", "/audit", params={"since": "yesterday"}).status_code == 400


def test_failed_mail_list_and_retry(ops):
    body = admin(ops, "GET", "/mail/failed").json()
    assert isinstance(body["mails"], list)
    r = admin(ops, "POST", "/mail/retry")
    assert r.status_code == 200 and isinstance(r.json()["queued"], int)
    assert any(e["kind"] == "admin.mail_retried" for e in admin(ops, "GET", "/audit").json()["events"])


def test_rotation_keeps_old_tokens_valid_and_signs_new_ones_with_the_new_kid(ops, email):
    tokens = new_user(ops, email)
    old_kid = json.loads(base64.urlsafe_b64decode(tokens["access_token"].split(".")[0] + "=="))["kid"]
    r = admin(ops, "POST", "/keys/rotate")
    assert r.status_code == 201
    new_kid = r.json()["kid"]
    assert new_kid != old_kid
    published = ops.get("/discovery/v2.0/keys").json()
    assert [k["kid"] for k in published["keys"]][:2] == [new_kid, old_kid]
    # The old access token still verifies, with the published old key and on the server.
    jwks.verify(tokens["access_token"], published)
    assert ops.get("/oidc/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}).status_code == 200
    fresh = strict.ok(refresh(ops, tokens["refresh_token"]), "refresh")
    header = json.loads(base64.urlsafe_b64decode(fresh["access_token"].split(".")[0] + "=="))
    assert header["kid"] == new_kid
    jwks.verify(fresh["access_token"], published)
    states = {k["kid"]: k["state"] for k in admin(ops, "GET", "/keys").json()["keys"]}
    assert states[new_kid] == "signing" and states[old_kid] == "published"


def test_cli_mirrors_the_api_and_a_running_server_picks_up_a_rotation_without_restart(ops, email):
    new_user(ops, email)
    listed = cli(ops, "users", "list", email[:12])
    assert listed.returncode == 0 and email in listed.stdout, listed.stderr
    shown = cli(ops, "users", "show", email, "--json")
    assert json.loads(shown.stdout)["status"] == "active"
    assert cli(ops, "users", "disable", email).returncode == 0
    assert native_refused(ops, email)
    assert cli(ops, "users", "enable", email).returncode == 0
    assert cli(ops, "users", "verify-email", email).returncode == 0
    assert cli(ops, "users", "revoke-sessions", email).returncode == 0
    refused = cli(ops, "users", "delete", email)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert cli(ops, "users", "delete", email, "--yes").returncode == 0
    missing = cli(ops, "users", "show", email)
    assert missing.returncode != 0 and "no user" in missing.stderr
    events = admin(ops, "GET", "/audit", params={"kind": "admin.user_deleted"}).json()["events"]
    assert any(e["email"] == email and "cli" in (e["user_agent"] or "") for e in events)

    rotated = cli(ops, "keys", "rotate")
    assert rotated.returncode == 0, rotated.stderr
    kid = rotated.stdout.split()[-1]
    deadline = time.time() + 20
    while time.time() < deadline and ops.get("/discovery/v2.0/keys").json()["keys"][0]["kid"] != kid:
        time.sleep(0.5)
    assert ops.get("/discovery/v2.0/keys").json()["keys"][0]["kid"] == kid
    listed = cli(ops, "keys", "list").stdout.splitlines()
    assert listed[0].startswith(kid) and "signing" in listed[0] and all("\tpublished\t" in line or "\tretired\t" in line for line in listed[1:])


def test_request_log_lines_are_json_with_id_route_status_and_no_secrets(ops, email):
    request_id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    tokens = new_user(ops, email)
    ops.get("/oidc/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}", "client-request-id": request_id})
    time.sleep(0.2)
    lines = [json.loads(line) for line in ops.read_log().splitlines() if line.startswith("{")]
    mine = [line for line in lines if line.get("request_id") == request_id]
    assert mine and mine[0]["message"] == "request" and mine[0]["route"] == "/oidc/userinfo" and mine[0]["status"] == "200"
    assert mine[0]["method"] == "GET" and float(mine[0]["duration_ms"]) >= 0 and mine[0]["level"] == "info"
    log = ops.read_log()
    assert tokens["access_token"] not in log and tokens["refresh_token"] not in log and PASSWORD not in log


def test_a_quiet_server_hands_back_what_it_left_resident():
    """Once quiet, the server gives back the binary's pages and the allocator's free pages that start-up and the first
    requests left resident (a check of its own CPU time every five seconds), and still answers afterwards."""
    s = Server(env={"LATCHKEY_LOG_LEVEL": "debug"}).start()
    try:
        deadline = time.time() + 60
        while time.time() < deadline and "released the pages a busy spell left" not in s.read_log():
            time.sleep(0.5)
        line = next(line for line in s.read_log().splitlines() if "released the pages a busy spell left" in line)
        before, after = (float(n) for n in re.search(r"resident ([0-9.]+) -> ([0-9.]+) MiB", line).groups())
        assert after < before, line
        assert s.get("/health/ready").status_code == 200
    finally:
        s.cleanup()
