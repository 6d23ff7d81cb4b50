"""The lockout holds under parallel guesses, and every password check counts toward it (reset/call included)."""
import concurrent.futures
import json
import os
import uuid

import strict
from conftest import audit_count, fresh, sign_up, token_after_sign_up
from harness import ALL_TYPES, ROOT, Server
from test_app_services import call, login, no_body, provider

PW = "correct horse battery"
APPS = [{"id": "email-app"}, {"id": "auto-app", "confirmation": {"mode": "auto"}}]


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
