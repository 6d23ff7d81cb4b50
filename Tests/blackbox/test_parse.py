"""The Parse dialect over real sockets, decoded as strictly as ParseSwift (parse_client.py)."""
import base64
import json
import threading
import uuid

import requests

from conftest import password_sign_in, sign_up
from harness import Server
from test_app_services import call, provider
from test_app_services import login as app_login
from parse_client import ENV, ParseClient, error, login_signup_response, ok

PASSWORD = "correct horse 9"


def name():
    return "u" + uuid.uuid4().hex[:10]


def test_sign_up_log_in_me_and_log_out():
    s = Server(env=ENV).start()
    try:
        c = ParseClient(s)
        username = name()
        r = c.call("POST", "/users", {"age": 30, "email": f"{username}@Example.com", "password": PASSWORD, "username": username})
        created = login_signup_response(ok(r, 201))
        assert set(created) == {"objectId", "createdAt", "sessionToken"}, "custom fields are not echoed"
        assert r.headers["Location"] == f"{s.base}/parse/users/{created['objectId']}"

        logged = login_signup_response(ok(c.call("POST", "/login", {"password": PASSWORD, "username": username})))
        assert logged["objectId"] == created["objectId"] and logged["age"] == 30 and logged["username"] == username
        assert logged["email"] == f"{username}@example.com" and logged["emailVerified"] is False
        assert logged["ACL"] == {created["objectId"]: {"read": True, "write": True}}
        assert "password" not in logged and not any(k.startswith("_") for k in logged)

        me = ok(c.call("GET", "/users/me", session_token=logged["sessionToken"]))
        assert me["objectId"] == created["objectId"] and me["sessionToken"] == logged["sessionToken"]
        # One session per installation: the login ended the sign-up's session, which came from the same one.
        error(c.call("GET", "/users/me", session_token=created["sessionToken"]), 209, "Invalid session token")

        assert ok(c.call("POST", "/logout", session_token=logged["sessionToken"])) == {}
        error(c.call("GET", "/users/me", session_token=logged["sessionToken"]), 209)
        # GET login with the query string, an email typed into username, a stale token ignored on /login only.
        again = ok(c.call("GET", "/login", params={"username": f"{username}@example.com", "password": PASSWORD},
                          session_token=logged["sessionToken"]))
        assert again["objectId"] == created["objectId"]
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD}, session_token=logged["sessionToken"]), 209)
    finally:
        s.cleanup()


def test_errors_carry_parse_codes():
    s = Server(env=ENV).start()
    try:
        c = ParseClient(s)
        taken = name()
        ok(c.call("POST", "/users", {"username": taken, "password": PASSWORD, "email": f"{taken}@example.com", "age": 1}), 201)
        error(c.call("POST", "/users", {"password": PASSWORD}), 200)
        error(c.call("POST", "/users", {"username": name()}), 201)
        error(c.call("POST", "/users", {"username": taken.upper(), "password": PASSWORD}), 202, "Account already exists for this username.")
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "email": f"{taken.upper()}@EXAMPLE.com"}), 203)
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "email": "not-an-address"}), 125)
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "age": "thirty"}), 111,
              "schema mismatch for _User.age; expected Number but got String")
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "bad-name": 1}), 105)
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "objectId": "abc"}), 105)
        error(c.call("POST", "/users", {"username": name(), "password": PASSWORD, "emailVerified": True}), 119)
        error(c.call("POST", "/users", {"username": name(), "password": "short"}), 142)
        error(c.call("POST", "/login", {"username": taken, "password": "wrong password"}), 101, "Invalid username/password.")
        error(c.call("POST", "/login", {"username": "nobody-" + name(), "password": PASSWORD}), 101, "Invalid username/password.")
        error(c.call("POST", "/login", {"password": PASSWORD}), 200, "username/email is required.")
        error(c.call("POST", "/login", {"username": taken}), 201)
        error(c.call("GET", "/users/me"), 209)
        error(c.call("GET", "/users/me", session_token="r:" + "0" * 32), 209)
        # Nothing half-written: the refused sign-ups left no account behind.
        error(c.call("POST", "/login", {"username": "bad-name", "password": PASSWORD}), 101)
        for unknown in (ParseClient(s, app_id="otherApp"),):
            r = unknown.call("POST", "/users", {"username": name(), "password": PASSWORD})
            assert r.status_code == 403 and r.json() == {"error": "unauthorized"}
        r = requests.post(s.base + "/parse/users", data="{not json", headers={"X-Parse-Application-Id": "myAppId"})
        error(r, 107)
        r = requests.post(s.base + "/parse/users", json={"username": name(), "password": PASSWORD},
                          headers={"X-Parse-Application-Id": "myAppId", "X-Parse-Master-Key": "wrong"})
        assert r.status_code == 403 and r.json() == {"error": "unauthorized"}
        assert ok(requests.post(s.base + "/parse/health", headers={"Content-Type": "application/json"})) == {"status": "ok"}
    finally:
        s.cleanup()


def test_js_sdk_body_fields_and_any_content_type():
    s = Server(env=ENV).start()
    try:
        username = name()
        r = requests.post(s.base + "/parse/users", data=f'{{"_ApplicationId": "myAppId", "username": "{username}", "password": "{PASSWORD}"}}',
                          headers={"Content-Type": "text/plain"})
        created = login_signup_response(ok(r, 201))
        r = requests.get(s.base + "/parse/users/me", data=f'{{"_ApplicationId": "myAppId", "_SessionToken": "{created["sessionToken"]}"}}',
                         headers={"Content-Type": "text/plain"})
        assert r.status_code == 403 and r.json() == {"error": "unauthorized"}  # a GET body is not read
        me = ok(requests.get(s.base + "/parse/users/me", headers={"X-Parse-Application-Id": "myAppId",
                                                                  "X-Parse-Session-Token": created["sessionToken"]}))
        assert me["username"] == username and "_ApplicationId" not in me
    finally:
        s.cleanup()


def test_accounts_cross_dialects(email):
    s = Server(env={**ENV, "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": "auto-app", "confirmation": {"mode": "auto"}}])}).start()
    try:
        # A native account signs in through Parse with its email as username.
        sign_up(s, email, password=PASSWORD)
        native = ok(ParseClient(s).call("POST", "/login", {"username": email, "password": PASSWORD}))
        assert native["username"] == email and native["email"] == email and native["emailVerified"] is True
        # A Parse account with an email signs in through the native API's password grant.
        username = name()
        address = f"{username}@example.com"
        ok(ParseClient(s).call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
        r = password_sign_in(s, address, PASSWORD)
        assert r.status_code == 200, r.text
        payload = r.json()["id_token"].split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        assert claims["email"] == address and claims["email_verified"] is False
        # ... and through App Services.
        r = app_login(s, "auto-app", address, PASSWORD)
        assert r.status_code == 200 and r.json()["user_id"], r.text
        # An App Services account signs in through Parse too.
        other = "as-" + address
        assert call(s, "POST", provider("auto-app", "register"), {"email": other, "password": PASSWORD}).status_code == 201
        via_parse = ok(ParseClient(s).call("POST", "/login", {"username": other, "password": PASSWORD}))
        assert via_parse["email"] == other
    finally:
        s.cleanup()


def test_parallel_sign_ups_of_one_username_make_one_account():
    s = Server(env=ENV).start()
    try:
        username = name()
        results = []

        def attempt(i):
            results.append(ParseClient(s).call("POST", "/users", {"username": username if i % 2 else username.upper(),
                                                                  "password": PASSWORD}))
        threads = [threading.Thread(target=attempt, args=(i,)) for i in range(100)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        assert sorted(r.status_code for r in results).count(201) == 1, [r.text for r in results if r.status_code != 400][:3]
        for r in results:
            if r.status_code != 201:
                error(r, 202)
    finally:
        s.cleanup()
