"""The Parse dialect's user and session routes: users by id (private), updates, deletes, the master key's routes,
verifyPassword, sessions per installation, password changes ending sessions."""
import datetime
import json
import uuid

import requests

from harness import Server
from parse_client import DATE, ENV, OBJECT_ID, SESSION_TOKEN, ParseClient, error, login_signup_response, ok

PASSWORD = "correct horse 9"
NEW_PASSWORD = "battery staple 10"


def name():
    return "u" + uuid.uuid4().hex[:10]


def signed_up(s, **fields):
    c = ParseClient(s)
    username = name()
    body = {"username": username, "password": PASSWORD, **fields}
    created = login_signup_response(ok(c.call("POST", "/users", body), 201))
    c.session_token = created["sessionToken"]
    c.username, c.object_id = username, created["objectId"]
    return c


def test_users_are_private_and_their_owner_updates_them():
    s = Server(env=ENV).start()
    try:
        alice = signed_up(s, age=30, email=f"{name()}@example.com", nickname="al")
        bob = signed_up(s, email=f"{name()}@example.com")
        path = f"/users/{alice.object_id}"
        mine = ok(alice.call("GET", path))
        assert mine["username"] == alice.username and mine["age"] == 30 and mine["email"].endswith("@example.com")
        assert mine["sessionToken"] == alice.session_token and "password" not in mine
        error(bob.call("GET", path), 101, "Object not found.")
        error(ParseClient(s).call("GET", path), 101, "Object not found.")
        seen = ok(ParseClient(s).call("GET", path, master=True))
        assert seen["email"] == mine["email"] and "sessionToken" not in seen
        error(alice.call("GET", path, params={"where": "{}"}), 102)

        # ParseSwift sends back the whole user (ACL included) and drops an unchanged email: server keys are ignored.
        answer = ok(alice.call("PUT", path, {"age": 31, "username": alice.username, "ACL": mine["ACL"], "objectId": alice.object_id}))
        assert set(answer) == {"updatedAt"}
        assert ok(alice.call("GET", path))["age"] == 31
        error(alice.call("PUT", path, {"age": "thirty"}), 111)
        error(alice.call("PUT", path, {"bad-name": 1}), 105)
        error(alice.call("PUT", path, {"emailVerified": True}), 119)
        error(alice.call("PUT", path, {"username": bob.username.upper()}), 202)
        error(alice.call("PUT", path, {"email": ok(bob.call("GET", "/users/me"))["email"]}), 203)
        error(alice.call("PUT", path, {"email": 5}), 125)
        ok(alice.call("PUT", path, {"age": {"__op": "Increment", "amount": 2}, "nickname": {"__op": "Delete"}}))
        after = ok(alice.call("GET", path))
        assert after["age"] == 33 and "nickname" not in after
        # Only the master key writes emailVerified; a new email (even the same one) is unverified again.
        ok(ParseClient(s).call("PUT", path, {"emailVerified": True}, master=True))
        assert ok(alice.call("GET", path))["emailVerified"] is True
        ok(alice.call("PUT", path, {"email": after["email"]}))
        assert ok(alice.call("GET", path))["emailVerified"] is False

        error(bob.call("PUT", path, {"age": 1}), 206, "Insufficient auth.")
        error(ParseClient(s).call("PUT", path, {"age": 1}), 206, f"Cannot modify user {alice.object_id}.")
        error(ParseClient(s).call("PUT", "/users/ZZZZZZZZZZ", {"age": 1}, master=True), 101)
        error(bob.call("DELETE", path), 206)
        error(ParseClient(s).call("DELETE", path), 206)
        assert ok(alice.call("DELETE", path)) == {}
        error(ParseClient(s).call("POST", "/login", {"username": alice.username, "password": PASSWORD}), 101)
        error(ParseClient(s).call("GET", path, master=True), 101)
        error(alice.call("GET", "/users/me"), 209)
    finally:
        s.cleanup()


def test_password_change_ends_the_other_sessions_and_returns_a_new_token():
    s = Server(env=ENV).start()
    try:
        phone = signed_up(s, email=f"{name()}@example.com")
        laptop = ParseClient(s)
        laptop.session_token = login_signup_response(ok(laptop.call("POST", "/login", {"username": phone.username, "password": PASSWORD})))["sessionToken"]
        old = phone.session_token
        answer = ok(phone.call("PUT", f"/users/{phone.object_id}", {"password": NEW_PASSWORD}))
        assert set(answer) == {"updatedAt", "sessionToken"} and SESSION_TOKEN.match(answer["sessionToken"])
        error(phone.call("GET", "/users/me", session_token=old), 209)
        error(laptop.call("GET", "/users/me"), 209)
        assert ok(phone.call("GET", "/users/me", session_token=answer["sessionToken"]))["objectId"] == phone.object_id
        error(ParseClient(s).call("POST", "/login", {"username": phone.username, "password": PASSWORD}), 101)
        ok(ParseClient(s).call("POST", "/login", {"username": phone.username, "password": NEW_PASSWORD}))
        error(phone.call("PUT", f"/users/{phone.object_id}", {"password": "short"}, session_token=answer["sessionToken"]), 142)
        # The master key changes a password without opening a session; every session ends.
        by_master = ok(ParseClient(s).call("PUT", f"/users/{phone.object_id}", {"password": PASSWORD}, master=True))
        assert set(by_master) == {"updatedAt"}
        error(phone.call("GET", "/users/me", session_token=answer["sessionToken"]), 209)
    finally:
        s.cleanup()


def test_sessions_one_per_installation_listed_and_ended():
    s = Server(env=ENV).start()
    try:
        phone = signed_up(s)
        signup_token = phone.session_token
        phone.session_token = ok(phone.call("POST", "/login", {"username": phone.username, "password": PASSWORD}))["sessionToken"]
        error(phone.call("GET", "/users/me", session_token=signup_token), 209)  # same installation: the older one ended
        laptop = ParseClient(s)
        laptop.session_token = ok(laptop.call("POST", "/login", {"username": phone.username, "password": PASSWORD}))["sessionToken"]

        me = ok(phone.call("GET", "/sessions/me"))
        assert OBJECT_ID.match(me["objectId"]) and me["sessionToken"] == phone.session_token
        assert me["user"] == {"__type": "Pointer", "className": "_User", "objectId": phone.object_id}
        assert me["createdWith"] == {"action": "login", "authProvider": "password"}
        assert me["installationId"] == phone.installation_id and DATE.match(me["createdAt"])
        assert me["expiresAt"]["__type"] == "Date" and DATE.match(me["expiresAt"]["iso"])
        expires = datetime.datetime.strptime(me["expiresAt"]["iso"], "%Y-%m-%dT%H:%M:%S.%fZ")
        assert abs((expires - datetime.datetime.utcnow()).days - 365) <= 1

        listed = ok(phone.call("GET", "/sessions"))["results"]
        assert len(listed) == 2
        other = next(x for x in listed if x["objectId"] != me["objectId"])
        # Only hashes are stored: another session's token cannot be shown, so it is empty (the key stays for ParseSwift).
        assert other["sessionToken"] == "" and other["installationId"] == laptop.installation_id
        assert ok(phone.call("GET", f"/sessions/{other['objectId']}"))["objectId"] == other["objectId"]

        stranger = signed_up(s)
        error(stranger.call("DELETE", f"/sessions/{other['objectId']}"), 101)
        assert ok(phone.call("DELETE", f"/sessions/{other['objectId']}")) == {}
        error(laptop.call("GET", "/users/me"), 209)
        error(phone.call("DELETE", "/sessions/AAAAAAAAAA"), 101)
        error(ParseClient(s).call("GET", "/sessions"), 209)
        error(ParseClient(s).call("GET", "/sessions/me"), 209)
        assert ok(phone.call("POST", "/logout")) == {}
        error(phone.call("GET", "/sessions/me"), 209)
    finally:
        s.cleanup()


def test_master_key_routes_and_verify_password():
    s = Server(env={**ENV, "LATCHKEY_LIMITS_ENABLED": "true"}).start()
    try:
        address = f"{name()}@example.com"
        alice = signed_up(s, email=address)
        for i in range(3):
            signed_up(s)
        anyone = ParseClient(s)
        error(anyone.call("GET", "/users"), 119)
        found = ok(anyone.call("GET", "/users", params={"where": f'{{"username": "{alice.username.upper()}"}}'}, master=True))
        assert [u["objectId"] for u in found["results"]] == [alice.object_id] and found["results"][0]["email"] == address
        by_email = ok(anyone.call("GET", "/users", params={"where": f'{{"email": "{address}"}}', "count": "1"}, master=True))
        assert by_email["count"] == 1 and len(by_email["results"]) == 1
        page = ok(anyone.call("GET", "/users", params={"limit": "2", "skip": "1", "count": "1"}, master=True))
        assert len(page["results"]) == 2 and page["count"] == 4
        error(anyone.call("GET", "/users", params={"where": '{"age": 3}'}, master=True), 102)
        error(anyone.call("GET", "/users", params={"where": '{"username": {"$regex": "."}}'}, master=True), 102)
        error(anyone.call("GET", "/users", params={"limit": "-1"}, master=True), 102)

        error(anyone.call("POST", "/loginAs", {"userId": alice.object_id}), 119, "master key is required")
        error(anyone.call("POST", "/loginAs", {}, master=True), 162)
        error(anyone.call("POST", "/loginAs", {"userId": "ZZZZZZZZZZ"}, master=True), 101, "user not found")
        as_alice = login_signup_response(ok(anyone.call("POST", "/loginAs", {"userId": alice.object_id}, master=True)))
        created_with = ok(anyone.call("GET", "/sessions/me", session_token=as_alice["sessionToken"]))["createdWith"]
        assert created_with == {"action": "login", "authProvider": "masterkey"}

        error(anyone.call("GET", "/serverInfo"), 119)
        assert ok(anyone.call("GET", "/serverInfo", master=True))["parseServerVersion"] == "7.0.0"

        verified = ok(anyone.call("GET", "/verifyPassword", params={"username": alice.username, "password": PASSWORD}))
        assert verified["objectId"] == alice.object_id and "sessionToken" not in verified
        assert ok(anyone.call("POST", "/verifyPassword", {"email": address, "password": PASSWORD}))["objectId"] == alice.object_id
        error(anyone.call("GET", "/verifyPassword", params={"username": alice.username, "password": "wrong"}), 101, "Invalid username/password.")
        # verifyPassword counts toward the lockout like login: after the free attempts even the right password is refused.
        for _ in range(5):
            error(anyone.call("POST", "/verifyPassword", {"username": alice.username, "password": "wrong"}), 101)
        locked = error(anyone.call("POST", "/login", {"username": alice.username, "password": PASSWORD}), 101)
        assert locked["error"].startswith("Your account is locked due to multiple failed login attempts."), locked
    finally:
        s.cleanup()


def test_method_override_rate_limits_and_unknown_routes():
    s = Server(env={**ENV, "LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_LIMITS_CREDENTIAL_PER_IP_REQUESTS": "3"}).start()
    try:
        alice = signed_up(s)
        base = s.base + "/parse"
        r = requests.post(base + "/users/me", json={"_method": "GET", "_ApplicationId": "myAppId", "_SessionToken": alice.session_token})
        assert ok(r)["objectId"] == alice.object_id
        r = requests.post(base + f"/users/{alice.object_id}", json={"_method": "PUT", "_ApplicationId": "myAppId",
                                                                     "_SessionToken": alice.session_token, "age": 7})
        assert set(ok(r)) == {"updatedAt"}
        r = requests.post(base + "/users/me", json={"_method": "DELETE", "_ApplicationId": "myAppId", "_SessionToken": alice.session_token})
        assert r.status_code == 405 and r.headers["Allow"] == "GET" and r.json() == {"code": 107, "error": "cannot route"}, r.text
        for path, method, status in (("/nothing/here", "GET", 404), ("/login", "DELETE", 405)):
            r = requests.request(method, base + path, headers={"X-Parse-Application-Id": "myAppId"})
            assert r.status_code == status and r.json() == {"code": 107, "error": "cannot route"}, r.text
        # Over a limit: 429, Retry-After and Parse Server's body (ParseSwift retries it).
        statuses = []
        for _ in range(5):
            r = requests.post(base + "/login", json={"username": alice.username, "password": "wrong"},
                              headers={"X-Parse-Application-Id": "myAppId"})
            statuses.append(r.status_code)
        assert statuses[-1] == 429 and int(r.headers["Retry-After"]) > 0
        assert r.json()["code"] == 100 and r.json()["error"].startswith("Too many ") and "(limits." in r.json()["error"], r.text
    finally:
        s.cleanup()


def test_client_key_and_master_key_addresses():
    apps = [{"id": "keyed", "client_key": "the-client-key", "master_key": "0123456789abcdef-master"}]
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(apps), "LATCHKEY_PARSE_MASTER_KEY_IPS": '["10.9.8.7"]'}).start()
    try:
        base = s.base + "/parse/users"
        body = {"username": name(), "password": PASSWORD}
        for headers in ({}, {"X-Parse-Client-Key": "wrong"}):
            r = requests.post(base, json=body, headers={"X-Parse-Application-Id": "keyed", **headers})
            assert r.status_code == 403 and r.json() == {"error": "unauthorized"}
        r = requests.post(base, json=body, headers={"X-Parse-Application-Id": "keyed", "X-Parse-Client-Key": "the-client-key"})
        login_signup_response(ok(r, 201))
        # The right master key from an address outside parse.master_key_ips (loopback is not listed here) is refused.
        r = requests.get(base, headers={"X-Parse-Application-Id": "keyed", "X-Parse-Master-Key": "0123456789abcdef-master"})
        assert r.status_code == 403 and r.json() == {"error": "unauthorized"}
    finally:
        s.cleanup()
