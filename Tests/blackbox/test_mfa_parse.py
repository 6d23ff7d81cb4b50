"""Parse `authData.mfa` as Parse Server's adapter answers it (docs/parse.md, "Second factor"): authenticator
enrolment with recovery codes, login with a code, a recovery code (once) or a texted code, replays refused,
turning it off, and the app's policy."""
import time
import uuid

import pyotp

from mfa_support import mfa_server, sms
from parse_client import ParseClient, error, login_signup_response, ok

__all__ = ["mfa_server", "sms"]  # fixtures
PASSWORD = "correct horse 9"


def signed_up(s, app_id="mfaApp"):
    c = ParseClient(s, app_id=app_id)
    username = "u" + uuid.uuid4().hex[:10]
    user = login_signup_response(ok(c.call("POST", "/users", {"username": username, "password": PASSWORD,
                                                              "email": f"{username}@example.com"}), 201))
    return c, username, user


def enrol(c, user, secret=None):
    secret = secret or pyotp.random_base32()
    r = c.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
               session_token=user["sessionToken"])
    body = ok(r)
    recovery = body["authDataResponse"]["mfa"]["recovery"]
    assert isinstance(recovery, str)
    return secret, recovery.split(", ")


def next_code(secret):
    """The next step's code: the enrolment spent the current step, and ±1 step is allowed for drift."""
    return pyotp.TOTP(secret).at(time.time() + 30)


def test_enrol_then_log_in_with_a_code_once(mfa_server):
    c, username, user = signed_up(mfa_server)
    secret, codes = enrol(c, user)
    assert len(codes) == 10 and len(set(codes)) == 10 and all("," not in code and code.strip() == code for code in codes)
    # Reads show the status, never the secret (ParseSwift decodes string maps only).
    me = ok(c.call("GET", "/users/me", session_token=user["sessionToken"]))
    assert me["authData"] == {"mfa": {"status": "enabled"}}
    master = ok(c.call("GET", f"/users/{user['objectId']}", master=True))
    assert master["authData"] == {"mfa": {"status": "enabled"}}
    assert mfa_server.wait_for_subject(f"{username}@example.com", "second factor was added")

    error(c.call("POST", "/login", {"username": username, "password": PASSWORD}), -1, "Missing additional authData mfa")
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD, "authData": {"mfa": {"token": "123456" if
          next_code(secret) != "123456" else "654321"}}}), 141, "Invalid MFA token")
    # The password is checked first: a wrong one is 101 whatever the token.
    error(c.call("POST", "/login", {"username": username, "password": "wrong", "authData": {"mfa": {"token": next_code(secret)}}}), 101)
    code = next_code(secret)
    logged = login_signup_response(ok(c.call("POST", "/login", {"username": username, "password": PASSWORD,
                                                                 "authData": {"mfa": {"token": code}}})))
    assert logged["authData"] == {"mfa": {"status": "enabled"}} and logged["authDataResponse"] == {}
    assert logged["objectId"] == user["objectId"]
    # The same step again is a replay.
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD, "authData": {"mfa": {"token": code}}}), 141,
          "Invalid MFA token")


def test_recovery_code_works_once(mfa_server):
    c, username, user = signed_up(mfa_server)
    _, codes = enrol(c, user)
    body = {"username": username, "password": PASSWORD, "authData": {"mfa": {"token": codes[3].upper()}}}
    login_signup_response(ok(c.call("POST", "/login", body)))
    error(c.call("POST", "/login", body), 141, "Invalid MFA token")
    login_signup_response(ok(c.call("POST", "/login", {**body, "authData": {"mfa": {"token": codes[4]}}})))


def test_change_needs_the_current_factor_and_turning_off_needs_a_code(mfa_server):
    c, username, user = signed_up(mfa_server)
    secret, codes = enrol(c, user)
    url = f"/users/{user['objectId']}"
    token = user["sessionToken"]
    new = pyotp.random_base32()
    # A new secret without `old`, or with a wrong one, is refused; with a recovery code as `old`, accepted.
    error(c.call("PUT", url, {"authData": {"mfa": {"secret": new, "token": pyotp.TOTP(new).now()}}}, session_token=token), 141)
    error(c.call("PUT", url, {"authData": {"mfa": {"secret": new, "token": pyotp.TOTP(new).now(), "old": "000000"}}},
                 session_token=token), 141, "Invalid MFA token")
    changed = ok(c.call("PUT", url, {"authData": {"mfa": {"secret": new, "token": pyotp.TOTP(new).now(), "old": codes[0]}}},
                        session_token=token))
    fresh = changed["authDataResponse"]["mfa"]["recovery"].split(", ")
    assert len(fresh) == 10 and not set(fresh) & set(codes)
    # The old secret's codes and the old recovery codes are gone.
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD, "authData": {"mfa": {"token": codes[1]}}}), 141)
    # ParseSwift sends back what it read: a no-op, not a failed token.
    ok(c.call("PUT", url, {"authData": {"mfa": {"status": "enabled"}}, "nickname": "x"}, session_token=token))
    # Off: `null` alone is not enough for a user; a valid code with disable is.
    error(c.call("PUT", url, {"authData": {"mfa": None}}, session_token=token), 141, "Invalid MFA token")
    ok(c.call("PUT", url, {"authData": {"mfa": {"token": next_code(new), "disable": "true"}}}, session_token=token))
    logged = login_signup_response(ok(c.call("POST", "/login", {"username": username, "password": PASSWORD})))
    assert mfa_server.wait_for_subject(f"{username}@example.com", "second factor was removed")
    me = ok(c.call("GET", "/users/me", session_token=logged["sessionToken"]))
    assert "mfa" not in me.get("authData", {})


def test_master_key_turns_it_off(mfa_server):
    c, username, user = signed_up(mfa_server)
    enrol(c, user)
    ok(c.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": None}}, master=True))
    login_signup_response(ok(c.call("POST", "/login", {"username": username, "password": PASSWORD})))


def test_bad_enrolment_data(mfa_server):
    c, _, user = signed_up(mfa_server)
    url, token = f"/users/{user['objectId']}", user["sessionToken"]
    secret = pyotp.random_base32()
    for bad in ({"secret": "JBSWY3DPEHPK3PXP", "token": "123456"},  # shorter than 20
                {"secret": secret},
                {"token": "123456"},
                {"secret": "!" * 32, "token": "123456"}):
        error(c.call("PUT", url, {"authData": {"mfa": bad}}, session_token=token), 141, "Invalid MFA data")
    wrong = "123456" if pyotp.TOTP(secret).now() != "123456" else "654321"
    error(c.call("PUT", url, {"authData": {"mfa": {"secret": secret, "token": wrong}}}, session_token=token), 141, "Invalid MFA token")
    # A token that is not a string is an invalid token, as in Parse Server (ParseSwift sends strings only).
    error(c.call("PUT", url, {"authData": {"mfa": {"secret": secret, "token": 123456}}}, session_token=token), 141)
    error(c.call("POST", "/login", {"username": "x", "password": "y", "authData": {"mfa": {"token": 123456}}}), 141)
    # Another user's object: 206 as every update of someone else.
    other_c, _, other = signed_up(mfa_server)
    error(c.call("PUT", f"/users/{other['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                 session_token=token), 206)


def test_apps_without_mfa_refuse_it(mfa_server):
    c, username, user = signed_up(mfa_server, app_id="plainApp")
    secret = pyotp.random_base32()
    error(c.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                 session_token=user["sessionToken"]), 252)


def test_required_app_enrols_at_login(mfa_server):
    c, username, _ = signed_up(mfa_server, app_id="strictApp")
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD}), -1, "Missing additional authData mfa")
    secret = pyotp.random_base32()
    logged = login_signup_response(ok(c.call("POST", "/login", {"username": username, "password": PASSWORD,
                                                                 "authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}})))
    assert len(logged["authDataResponse"]["mfa"]["recovery"].split(", ")) == 10
    assert logged["authData"] == {"mfa": {"status": "enabled"}}
    login_signup_response(ok(c.call("POST", "/login", {"username": username, "password": PASSWORD,
                                                        "authData": {"mfa": {"token": next_code(secret)}}})))


def test_text_message_enrolment_and_login(mfa_server, sms):
    c, username, user = signed_up(mfa_server)
    url, token = f"/users/{user['objectId']}", user["sessionToken"]
    phone = f"+1555{int(time.time() * 1000) % 10_000_000:07d}"
    error(c.call("PUT", url, {"authData": {"mfa": {"mobile": "call me"}}}, session_token=token), 141, "Invalid mobile number.")
    ok(c.call("PUT", url, {"authData": {"mfa": {"mobile": phone}}}, session_token=token))
    code = sms.wait_for_code(phone)
    error(c.call("PUT", url, {"authData": {"mfa": {"mobile": "+15550000001", "token": code}}}, session_token=token), 141,
          "This number is not pending")
    ok(c.call("PUT", url, {"authData": {"mfa": {"mobile": phone, "token": code}}}, session_token=token))
    error(c.call("PUT", url, {"authData": {"mfa": {"mobile": phone}}}, session_token=token), 141, "MFA is already set up on this account")

    body = {"username": username, "password": PASSWORD}
    error(c.call("POST", "/login", body), -1, "Missing additional authData mfa")
    texted = len(sms.codes(phone))
    error(c.call("POST", "/login", {**body, "authData": {"mfa": {"token": "request"}}}), 141, "Please enter the token")
    code = sms.wait_for_code(phone, texted)
    error(c.call("POST", "/login", {**body, "authData": {"mfa": {"token": "0" * len(code) if code != "0" * len(code) else "1" * len(code)}}}),
          141, "Invalid MFA token")
    logged = login_signup_response(ok(c.call("POST", "/login", {**body, "authData": {"mfa": {"token": code}}})))
    assert logged["authData"] == {"mfa": {"status": "enabled"}}
    # A texted code is used once.
    error(c.call("POST", "/login", {**body, "authData": {"mfa": {"token": code}}}), 141, "Invalid MFA token")


def test_an_update_that_fails_leaves_the_second_factor_as_it_was(mfa_server):
    """U's review: `PUT users/:id` ran the second factor, the identities and the rest as three transactions, so a refusal
    in the last left the authenticator enrolled. Now the update is one transaction: all of it, or nothing."""
    c, username, user = signed_up(mfa_server)
    _, other, _ = signed_up(mfa_server)
    secret = pyotp.random_base32()
    refused = c.call("PUT", f"/users/{user['objectId']}",
                     {"username": other, "authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                     session_token=user["sessionToken"])
    error(refused, 202, "Account already exists for this username.")
    me = ok(c.call("GET", "/users/me", session_token=user["sessionToken"]))
    assert "mfa" not in (me.get("authData") or {}) and me["username"] == username, me
    logged = ok(c.call("POST", "/login", {"username": username, "password": PASSWORD}))  # no second factor asked for
    assert logged["username"] == username
    # The same change alone goes through, recovery codes and all (the login replaced this installation's session).
    assert enrol(c, {**user, "sessionToken": logged["sessionToken"]}, secret=pyotp.random_base32())[1]
