"""Passwords that never left the old system move at first sign-in: imported App Services and Auth0 accounts hold no
hash, and `accounts.legacy_password.function` (a signed webhook here) is asked once whether the password is right. A
yes stores Latchkey's scrypt and the function is not called again; a no is a wrong password, counted by the lockout;
a timeout or nonsense fails closed as "try again" and is audited; it works through App Services, the native API,
Parse and the hosted pages."""
import json
import os
import socket
import sqlite3
import uuid

import pytest
import requests

import strict
from conftest import password_sign_in
from harness import Server
from openid_support import Pages, provider_config
from parse_client import ENV as PARSE_ENV
from parse_client import ParseClient, error, ok
from test_import import cli
from test_openid import authorize_url, query
from webhook import SignedWebhook

APP = "realm-app"
OLD = {"mail": "app services password", "native": "native api password", "pages": "hosted pages password", "parse": "parse password",
       "slow": "slow one", "junk": "junk one", "auth0": "auth0 password"}


def decide(request, valid):
    assert valid and set(request) == {"user_id", "email", "username", "password", "source"}, request
    if request["password"] == OLD["junk"]:
        return b"not json"
    return {"valid": request["password"] in OLD.values() and request["password"] != OLD["slow"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("legacy")
    (folder / "client.secret").write_text("s" * 64 + "\n")
    hook = SignedWebhook(decide)
    # A listener that takes the connection and never answers: the function's timeout, with no sleep anywhere.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    functions = {"legacy": {"kind": "webhook", "url": hook.url, "secret": hook.secret, "timeout_seconds": 2},
                 "silent": {"kind": "webhook", "url": f"http://127.0.0.1:{silent.getsockname()[1]}/", "secret": hook.secret, "timeout_seconds": 1}}
    env = {**PARSE_ENV, "LATCHKEY_FUNCTIONS": json.dumps(functions), "LATCHKEY_ACCOUNTS_LEGACY_PASSWORD_FUNCTION": "legacy",
           "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": APP, "confirmation": {"mode": "auto"}}]), "LATCHKEY_LIMITS_ENABLED": "false"}
    s = Server(config_text=provider_config(str(folder / "client.secret"), [4999]), env=env).start()
    s.hook, s.silent, s.functions, s.env_base = hook, silent, functions, env
    yield s
    s.cleanup()
    hook.shutdown()
    silent.close()


def imported(server):
    """An App Services export (no hashes exist) and an Auth0 one without the password file."""
    t = uuid.uuid4().hex[:8]
    users = {name: (uuid.uuid4().hex[:24], f"lg-{name}-{t}@example.com") for name in ("mail", "native", "pages", "parse", "slow", "junk")}
    export = [{"_id": _id, "identities": [{"id": "x" + _id[1:], "provider_type": "local-userpass", "provider_data": {"email": email}}],
               "data": {"email": email}, "creation_date": 1600000000} for _id, email in users.values()]
    path = os.path.join(server.dir, f"legacy-{t}.json")
    with open(path, "w") as f:
        json.dump(export, f)
    done = cli(server, "import", "--format", "app-services", path)
    assert done.returncode == 0 and "legacy passwords        6" in done.stdout, done.stdout + done.stderr
    auth0 = (f"auth0|{uuid.uuid4().hex[:24]}", f"lg-auth0-{t}@example.com")
    path0 = os.path.join(server.dir, f"legacy-{t}.ndjson")
    with open(path0, "w") as f:
        f.write(json.dumps({"user_id": auth0[0], "email": auth0[1], "email_verified": True,
                            "identities": [{"provider": "auth0", "user_id": auth0[0][6:], "connection": "db"}]}) + "\n")
    assert cli(server, "import", "--format", "auth0", path0).returncode == 0
    users["auth0"] = auth0
    return users


def stored(server, user_id):
    with sqlite3.connect(server.db_path) as db:
        return db.execute("SELECT password_hash, failed_login_count FROM users WHERE id = ?", (user_id,)).fetchone()


def app_login(server, email, password):
    return requests.post(f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass/login",
                         json={"username": email, "password": password}, timeout=10)


def calls_for(server, email):
    return [r for r in server.hook.received if r["body"]["email"] == email]


def test_a_right_password_moves_once_through_every_dialect(server):
    users = imported(server)
    _id, email = users["mail"]
    assert stored(server, _id)[0] == "$legacy$app-services"
    r = app_login(server, email, OLD["mail"])
    assert r.status_code == 200 and r.json()["user_id"] == _id, r.text
    assert stored(server, _id)[0].startswith("$scrypt$")
    call = calls_for(server, email)
    assert len(call) == 1 and call[0]["body"] == {"user_id": _id, "email": email, "username": call[0]["body"]["username"],
                                                  "password": OLD["mail"], "source": "app-services"}
    # Never asked again: the second sign-in is Latchkey's own hash.
    assert app_login(server, email, OLD["mail"]).status_code == 200 and len(calls_for(server, email)) == 1

    _id, email = users["native"]
    strict.tokens(password_sign_in(server, email, OLD["native"]))
    assert stored(server, _id)[0].startswith("$scrypt$")

    _id, email = users["parse"]
    assert ok(ParseClient(server).call("POST", "/login", {"username": email, "password": OLD["parse"]}))["email"] == email
    assert stored(server, _id)[0].startswith("$scrypt$")

    _id, email = users["pages"]
    back = Pages(server).sign_in(authorize_url(server)[0], email, OLD["pages"])
    assert back.status_code == 303 and "code" in query(back), back.text[-600:]
    assert stored(server, _id)[0].startswith("$scrypt$")

    _id, email = users["auth0"]
    assert stored(server, _id)[0] == "$legacy$auth0"
    strict.tokens(password_sign_in(server, email, OLD["auth0"]))
    assert calls_for(server, email)[0]["body"]["source"] == "auth0" and stored(server, _id)[0].startswith("$scrypt$")


def test_a_wrong_password_counts_and_a_failing_function_fails_closed(server):
    users = imported(server)
    _id, email = users["mail"]
    wrong = app_login(server, email, "not the old password")
    assert wrong.status_code == 401 and wrong.json()["error_code"] == "InvalidPassword", wrong.text
    assert stored(server, _id) == ("$legacy$app-services", 1)  # a wrong password like any other: counted
    error(ParseClient(server).call("POST", "/login", {"username": email, "password": "still not it"}), 101)
    assert stored(server, _id)[1] == 2

    # Nonsense from the function: "try again", not a wrong password, nothing stored, the audit says why.
    _id, email = users["junk"]
    busy = app_login(server, email, OLD["junk"])
    assert busy.status_code == 503 and busy.headers["Retry-After"], busy.text
    native = password_sign_in(server, email, OLD["junk"])
    assert native.status_code in (429, 503) and native.headers.get("Retry-After"), native.text
    assert stored(server, _id) == ("$legacy$app-services", 0)
    with sqlite3.connect(server.db_path) as db:
        details = [row[0] for row in db.execute("SELECT detail FROM audit_events WHERE kind = 'legacy_password_failed' AND user_id = ?", (_id,))]
    assert details and all("legacy: answer is not" in d for d in details), details


def test_a_timeout_fails_closed_and_is_audited(server):
    # The same deployment, its function pointed at a listener that never answers.
    s = Server(env={**server.env_base, "LATCHKEY_ACCOUNTS_LEGACY_PASSWORD_FUNCTION": "silent"}).start()
    try:
        users = imported(s)
        _id, email = users["slow"]
        r = app_login(s, email, OLD["slow"])
        assert r.status_code == 503 and r.headers["Retry-After"], r.text
        assert stored(s, _id) == ("$legacy$app-services", 0)
        with sqlite3.connect(s.db_path) as db:
            detail = db.execute("SELECT detail FROM audit_events WHERE kind = 'legacy_password_failed' AND user_id = ?", (_id,)).fetchone()
        assert detail and detail[0].startswith("silent:"), detail
    finally:
        s.cleanup()
