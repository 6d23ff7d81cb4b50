"""Which addresses have accounts is not told by a sign-in's timing, nor (with reset.enumeration_protection) by the
answers of resend and reset in App Services and Parse."""
import json
import statistics
import time
import uuid

import pytest
import requests

from harness import Server
from parse_client import APP_ID, MASTER_KEY, ParseClient, ok

PASSWORD = "correct horse 9"
APPS = json.dumps([{"id": "email-app", "confirmation": {"mode": "email"}, "reset": {"mode": "email"}}])
PARSE = json.dumps([{"id": APP_ID, "master_key": MASTER_KEY, "verify_user_emails": True}])
BASE = "/api/client/v2.0/app/email-app/auth/providers/local-userpass"


@pytest.fixture(scope="module")
def server():
    # A real cost (2^15): the gap to hide is the hash itself.
    s = Server(env={"LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "15", "LATCHKEY_APP_SERVICES_APPS": APPS, "LATCHKEY_PARSE_APPS": PARSE,
                    "LATCHKEY_RESET_ENUMERATION_PROTECTION": "true"}).start()
    yield s
    s.cleanup()


def median_seconds(call, rounds=5):
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def test_unknown_disabled_and_existing_accounts_take_as_long_to_refuse(server):
    c = ParseClient(server)
    username = "u" + uuid.uuid4().hex[:10]
    ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": f"{username}@example.com"}, master=True), 201)
    parse_login = lambda name: requests.post(server.base + "/parse/login", json={"username": name, "password": "wrong password 1"},
                                             headers={"X-Parse-Application-Id": APP_ID}, timeout=30)
    known = median_seconds(lambda: parse_login(username))
    unknown = median_seconds(lambda: parse_login("nobody-" + username))
    assert unknown > 0.5 * known, (known, unknown)
    app_login = lambda email: requests.post(server.base + "/api/client/v2.0/app/email-app/auth/providers/local-userpass/login",
                                            json={"username": email, "password": "wrong password 1"}, timeout=30)
    known = median_seconds(lambda: app_login(f"{username}@example.com"))
    unknown = median_seconds(lambda: app_login(f"nobody-{username}@example.com"))
    assert unknown > 0.5 * known, (known, unknown)


def test_resend_and_reset_answer_unknown_addresses_as_known_ones(server):
    c = ParseClient(server)
    username = "u" + uuid.uuid4().hex[:10]
    known, unknown = f"{username}@example.com", f"nobody-{username}@example.com"
    ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": known}), 201)
    for path in ("/verificationEmailRequest", "/requestPasswordReset"):
        a, b = c.call("POST", path, {"email": known}), c.call("POST", path, {"email": unknown})
        assert (a.status_code, a.json()) == (b.status_code, b.json()) == (200, {}), (path, a.text, b.text)
    registered = requests.post(server.base + BASE + "/register", json={"email": "as-" + known, "password": PASSWORD}, timeout=10)
    assert registered.status_code == 201
    for step, body in (("confirm/send", {"email": "as-" + known}), ("reset/send", {"email": "as-" + known})):
        a = requests.post(f"{server.base}{BASE}/{step}", json=body, timeout=10)
        b = requests.post(f"{server.base}{BASE}/{step}", json={"email": "as-" + unknown}, timeout=10)
        assert (a.status_code, a.content) == (b.status_code, b.content), (step, a.text, b.text)
    assert server.mails(unknown) == [] and server.mails("as-" + unknown) == []
