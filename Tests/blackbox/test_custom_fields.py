"""A user's custom fields: bounded in number and size, declared attributes checked against their schema on every
write, field types kept per app, and account updates rate limited per address."""
import json
import uuid

import pytest
import requests

from harness import Server
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, ok

PASSWORD = "correct horse 9"
APPS = [{"id": APP_ID, "master_key": MASTER_KEY}, {"id": "otherApp"}]
ATTRIBUTES = [{"name": "displayName", "type": "string", "required": False, "regex": "^[A-Za-z ]+$"}]


@pytest.fixture(scope="module")
def server():
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(APPS), "LATCHKEY_ATTRIBUTES": json.dumps(ATTRIBUTES),
                    "LATCHKEY_PARSE_MAX_CUSTOM_FIELDS": "8", "LATCHKEY_PARSE_MAX_CUSTOM_FIELD_BYTES": "1024"}).start()
    yield s
    s.cleanup()


def signed_up(c):
    return ok(c.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD}), 201)


def test_fields_are_capped_in_number_and_size(server):
    c = ParseClient(server)
    me = signed_up(c)
    put = lambda body: c.call("PUT", f"/users/{me['objectId']}", body, session_token=me["sessionToken"])
    ok(put({f"f{i}": i for i in range(8)}))
    error(put({"oneMore": 1}), 116)
    ok(put({"f0": None, "oneMore": 1}))  # removing one makes room
    error(put({"f1": "x" * 2000}), 116)
    fields = ok(c.call("GET", "/users/me", session_token=me["sessionToken"]))
    assert fields["f1"] == 1 and "f0" not in fields and fields["oneMore"] == 1
    error(c.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD, "big": "y" * 2000}), 116)


def test_declared_attributes_are_checked_on_every_write(server):
    c = ParseClient(server)
    me = signed_up(c)
    error(c.call("PUT", f"/users/{me['objectId']}", {"displayName": "<b>Mallory</b>"}, session_token=me["sessionToken"]), 142)
    error(c.call("PUT", f"/users/{me['objectId']}", {"displayName": 7}, session_token=me["sessionToken"]), 142)
    error(c.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD, "displayName": "x<y"}), 142)
    assert "displayName" not in ok(c.call("GET", "/users/me", session_token=me["sessionToken"]))
    ok(c.call("PUT", f"/users/{me['objectId']}", {"displayName": "Ada Lovelace"}, session_token=me["sessionToken"]))
    assert ok(c.call("GET", "/users/me", session_token=me["sessionToken"]))["displayName"] == "Ada Lovelace"


def test_a_field_type_is_fixed_per_app_not_for_the_whole_deployment(server):
    first, other = ParseClient(server), ParseClient(server, app_id="otherApp")
    name = "f" + uuid.uuid4().hex[:8]
    ok(first.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD, name: "text"}), 201)
    ok(other.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD, name: 42}), 201)
    error(first.call("POST", "/users", {"username": "u" + uuid.uuid4().hex[:10], "password": PASSWORD, name: 42}), 111)


def test_account_updates_are_rate_limited_per_address():
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(APPS), "LATCHKEY_LIMITS_ENABLED": "true",
                    "LATCHKEY_LIMITS_UPDATE_PER_IP_REQUESTS": "3", "LATCHKEY_LIMITS_UPDATE_PER_IP_PER_SECONDS": "600"}).start()
    try:
        me = signed_up(ParseClient(s))
        headers = {"X-Parse-Application-Id": APP_ID, "X-Parse-Session-Token": me["sessionToken"], "Content-Type": "application/json"}
        statuses = [requests.put(f"{s.base}/parse/users/{me['objectId']}", json={"n": i}, headers=headers, timeout=10).status_code
                    for i in range(5)]
        assert statuses == [200, 200, 200, 429, 429], statuses
        # The operator's master key is not limited.
        master = {"X-Parse-Application-Id": APP_ID, "X-Parse-Master-Key": MASTER_KEY, "Content-Type": "application/json"}
        assert requests.put(f"{s.base}/parse/users/{me['objectId']}", json={"n": 9}, headers=master, timeout=10).status_code == 200
    finally:
        s.cleanup()
