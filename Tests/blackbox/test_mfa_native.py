"""The native second factor as MSAL drives it (docs/native-auth.md, "Second factors"): registration just in time
after sign-up, sign-in through mfa_required, codes by mail, text message and authenticator, and the refusals."""
import json
import sqlite3
import time

import pyotp
import requests
import pytest

import strict
from harness import Server
from mfa_support import (CAPABILITIES, OFF, OPTIONAL, PASSWORD, REQUIRED, Native, code_challenge, config, mask_check, mfa_server,
                         new_email, redirect, sms, suberror)
from parse_client import ParseClient, ok

__all__ = ["mfa_server", "sms"]  # fixtures


def test_sign_up_registers_its_address_just_in_time_then_signs_in_through_mfa(mfa_server):
    s, email = mfa_server, new_email()
    app = Native(s, REQUIRED)
    ct = app.sign_up(email)
    # The automatic sign-in after sign-up: the client has no factor yet and the policy requires one.
    ct = suberror(app.token_after(ct, email), "registration_required")
    reg = app.register_introspect(ct)
    email_method = next(m for m in reg["methods"] if m["challenge_channel"] == "email")
    assert email_method == {"id": "email", "challenge_type": "oob", "challenge_channel": "email", "login_hint": email_method["login_hint"]}
    mask_check(email_method["login_hint"], email)
    assert {m["challenge_channel"] for m in reg["methods"]} == {"email", "sms"}
    # The address the sign-up just proved needs no second code: preverified, then continue without oob.
    pre = strict.ok(app.register_challenge(reg["continuation_token"], email_method, email), "register/challenge")
    assert pre == {"continuation_token": pre["continuation_token"], "challenge_type": "preverified"}
    done = strict.ok(app.register_continue(pre["continuation_token"]), "register/continue")
    first = strict.tokens(app.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": done["continuation_token"],
                                                          "scope": "openid profile offline_access", "client_info": "true"}))
    assert s.wait_for_subject(email, "second factor was added")
    # The continue token is single use.
    strict.error(app.token_after(done["continuation_token"]), "invalid_grant")

    # Signed out; the next sign-in asks for the factor.
    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    [method] = methods["methods"]
    assert method["challenge_channel"] == "email"
    mask_check(method["login_hint"], email)
    before = len(s.mails(email))
    sent = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "email", method["login_hint"])
    assert sent["code_length"] == 8
    code = s.wait_for_code(email, before)
    assert "verify it is you" in s.mails(email)[-1]["text"]
    wrong = "00000000" if code != "00000000" else "11111111"
    strict.error(app.submit(sent["continuation_token"], wrong), "invalid_grant", suberror="invalid_oob_value")
    # MSAL retries on the same state: the same continuation token still works after a wrong code.
    second = strict.tokens(app.submit(sent["continuation_token"], code))
    assert strict.b64url_json(second["id_token"].split(".")[1])["sub"] == strict.b64url_json(first["id_token"].split(".")[1])["sub"]
    strict.error(app.submit(sent["continuation_token"], code), "invalid_grant")


def test_registration_by_code_to_another_address_after_a_password_sign_in(mfa_server):
    s, email, other = mfa_server, new_email(), new_email()
    Native(s, OFF).sign_up(email)
    app = Native(s, REQUIRED)
    ct = suberror(app.password_token(email), "registration_required")
    reg = app.register_introspect(ct)
    method = next(m for m in reg["methods"] if m["id"] == "email")
    # A password proves no mailbox: even the account's own address gets a code.
    before = len(s.mails(email))
    own = strict.ok(app.register_challenge(reg["continuation_token"], method, email), "register/challenge")
    assert own["challenge_type"] == "oob" and own["challenge_target"] == email and own["code_length"] == 8
    s.wait_for_code(email, before)
    # Changing the contact: challenge again with the post-challenge token.
    sent = strict.ok(app.register_challenge(own["continuation_token"], method, other), "register/challenge")
    assert sent["challenge_type"] == "oob" and sent["challenge_target"] == other and sent["challenge_channel"] == "email"
    assert sent["binding_method"] == "prompt" and strict.is_int(sent["code_length"])
    code = s.wait_for_code(other)
    strict.error(app.register_continue(sent["continuation_token"], "00000000" if code != "00000000" else "1" * 8),
                 "invalid_grant", suberror="invalid_oob_value")
    # An empty code (a client that saw no code_length) is a wrong code, not a malformed request.
    strict.error(app.register_continue(sent["continuation_token"], ""), "invalid_grant", suberror="invalid_oob_value")
    done = strict.ok(app.register_continue(sent["continuation_token"], code), "register/continue")
    strict.tokens(app.token_after(done["continuation_token"]))
    # The next sign-in's code goes to the registered address, not the account's.
    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    [method] = methods["methods"]
    before = len(s.mails(other))
    sent = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "email")
    strict.tokens(app.submit(sent["continuation_token"], s.wait_for_code(other, before)))


def test_without_the_capabilities_the_browser_takes_over(mfa_server):
    s, email = mfa_server, new_email()
    # No capabilities at all: a required client cannot register a factor natively.
    Native(s, OFF).sign_up(email)
    redirect(Native(s, REQUIRED, capabilities=None).password_token(email), "registration_required")
    # Only mfa_required advertised and no factor: the same redirect (Microsoft's text).
    redirect(Native(s, REQUIRED, capabilities="mfa_required").password_token(email), "Client is missing registration_required capability")
    # Register one, then a client without mfa_required is sent to the browser too.
    app = Native(s, REQUIRED)
    register_email(s, app, email)
    redirect(Native(s, REQUIRED, capabilities="registration_required").password_token(email), "Client is missing mfa_required capability")
    # Microsoft's reference spelling (`capability`, comma separated) is read too.
    init = strict.ok(s.post("/oauth2/v2.0/initiate", {"client_id": REQUIRED, "username": email, "challenge_type": "password oob redirect",
                                                      "capability": "registration_required,mfa_required"}), "oauth2/initiate")
    ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"client_id": REQUIRED, "continuation_token": init["continuation_token"],
                                                     "challenge_type": "password oob redirect"}), "oauth2/challenge")
    suberror(s.post("/oauth2/v2.0/token", {"client_id": REQUIRED, "grant_type": "password", "password": PASSWORD,
                                           "continuation_token": ch["continuation_token"], "scope": "openid"}), "mfa_required")


def register_email(s, app, email):
    """Password sign-in -> registration_required -> a code to the account's address -> enrolled; the tokens."""
    ct = suberror(app.password_token(email), "registration_required")
    reg = app.register_introspect(ct)
    method = next(m for m in reg["methods"] if m["id"] == "email")
    before = len(s.mails(email))
    sent = strict.ok(app.register_challenge(reg["continuation_token"], method, email), "register/challenge")
    done = strict.ok(app.register_continue(sent["continuation_token"], s.wait_for_code(email, before)), "register/continue")
    tokens = strict.tokens(app.token_after(done["continuation_token"]))
    # The notice is mailed after the answer: wait for it, so the next code read is not mistaken for it.
    s.wait_for_subject(email, "second factor was added")
    return tokens


def emailed_second_factor(s, app, email):
    """Password sign-in -> mfa_required -> introspect -> challenge the (only) email factor: the challenge, its code
    and the method id."""
    methods = app.introspect(suberror(app.password_token(email), "mfa_required"))
    before = len(s.mails(email))
    method = methods["methods"][0]["id"]
    sent = code_challenge(app.challenge(methods["continuation_token"], method), "email")
    code = s.wait_for_code(email, before)
    return sent, code, method


def wrong_code(code):
    return "00000000" if code != "00000000" else "11111111"


def test_policy_per_client(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    # optional: no factor, no question; off: never asked.
    strict.tokens(Native(s, OPTIONAL).password_token(email))
    register_email(s, Native(s, REQUIRED), email)
    # optional: a user with a factor must use it; off: the client never asks.
    suberror(Native(s, OPTIONAL).password_token(email), "mfa_required")
    strict.tokens(Native(s, OFF).password_token(email))


def test_text_message_registration_and_sign_in(mfa_server, sms):
    s, email, phone = mfa_server, new_email(), f"+1555{int(time.time() * 1000) % 10_000_000:07d}"
    Native(s, OFF).sign_up(email)
    app = Native(s, REQUIRED)
    ct = suberror(app.password_token(email), "registration_required")
    reg = app.register_introspect(ct)
    method = next(m for m in reg["methods"] if m["challenge_channel"] == "sms")
    bad = app.register_challenge(reg["continuation_token"], method, "not a number")
    strict.error(bad, "invalid_request", code=901001)
    fax = app.register_challenge(reg["continuation_token"], {**method, "challenge_channel": "fax"}, phone)
    assert "fax" in strict.error(fax, "invalid_request", code=901001)["error_description"]
    sent = strict.ok(app.register_challenge(reg["continuation_token"], method, phone), "register/challenge")
    assert sent["challenge_channel"] == "sms" and sent["challenge_target"] == phone
    done = strict.ok(app.register_continue(sent["continuation_token"], sms.wait_for_code(phone)), "register/continue")
    enrolled = strict.tokens(app.token_after(done["continuation_token"]))
    # How it was proven (RFC 8176): a password, then a texted code; two kinds.
    claims = strict.b64url_json(enrolled["id_token"].split(".")[1])
    assert claims["amr"] == ["pwd", "sms", "mfa"] and claims["acr"] == "2", claims

    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    [method] = methods["methods"]
    assert method["challenge_channel"] == "sms" and method["login_hint"].endswith(phone[-2:]) and phone[2:-2] not in method["login_hint"]
    texted = len(sms.codes(phone))
    # The carrier fails: a 5xx, and the same token works for the retry.
    sms.failing = True
    try:
        failed = app.challenge(methods["continuation_token"], method["id"])
        assert failed.status_code == 503 and failed.json()["error"] == "temporarily_unavailable", failed.text
        assert int(failed.headers["Retry-After"]) > 0
    finally:
        sms.failing = False
    sent = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "sms")
    code = sms.wait_for_code(phone, texted + 1)
    # Resend: a new code, and the old one stops working.
    resent = code_challenge(app.challenge(sent["continuation_token"], method["id"]), "sms")
    fresh = sms.wait_for_code(phone, texted + 2)
    if fresh != code:
        strict.error(app.submit(resent["continuation_token"], code), "invalid_grant", suberror="invalid_oob_value")
    tokens = strict.tokens(app.submit(resent["continuation_token"], fresh, grant="oob"))  # Microsoft's reference grant works too
    assert strict.b64url_json(tokens["id_token"].split(".")[1])["amr"] == ["pwd", "sms", "mfa"]


def test_authenticator_enrolled_through_parse_signs_in_natively(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    parse = ParseClient(s, app_id="mfaApp")
    user = ok(parse.call("POST", "/login", {"username": email, "password": PASSWORD}))
    secret = pyotp.random_base32()
    totp = pyotp.TOTP(secret)
    ok(parse.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": totp.now()}}},
                  session_token=user["sessionToken"]))
    app = Native(s, OPTIONAL)
    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    [method] = methods["methods"]
    assert method["challenge_channel"] == "totp" and method["login_hint"] == "authenticator app"
    asked = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "totp", "authenticator app")
    assert asked["code_length"] == 6
    # The step used to enrol is spent; the next one (allowed for clock drift) signs in, once.
    code = totp.at(time.time() + 30)
    strict.tokens(app.submit(asked["continuation_token"], code))
    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    asked = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "totp")
    strict.error(app.submit(asked["continuation_token"], code), "invalid_grant", suberror="invalid_oob_value")


def test_sign_in_after_reset_under_required(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    app = Native(s, REQUIRED)
    start = strict.ok(app.post("/resetpassword/v1.0/start", {"username": email, "challenge_type": app.types,
                                                             "capabilities": CAPABILITIES}), "resetpassword/start")
    before = len(s.mails(email))
    ch = strict.ok(app.post("/resetpassword/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                              "challenge_type": app.types}), "resetpassword/challenge")
    cont = strict.ok(app.post("/resetpassword/v1.0/continue", {"continuation_token": ch["continuation_token"], "grant_type": "oob",
                                                               "oob": s.wait_for_code(email, before)}), "resetpassword/continue")
    sub = strict.ok(app.post("/resetpassword/v1.0/submit", {"continuation_token": cont["continuation_token"],
                                                            "new_password": "a new horse battery"}), "resetpassword/submit")
    poll = strict.ok(app.post("/resetpassword/v1.0/poll_completion", {"continuation_token": sub["continuation_token"]}),
                     "resetpassword/poll_completion")
    ct = suberror(app.token_after(poll["continuation_token"], email), "registration_required")
    reg = app.register_introspect(ct)
    method = next(m for m in reg["methods"] if m["id"] == "email")
    # The reset mailed a code to this address: it is preverified.
    pre = strict.ok(app.register_challenge(reg["continuation_token"], method, email), "register/challenge")
    assert pre["challenge_type"] == "preverified"
    done = strict.ok(app.register_continue(pre["continuation_token"]), "register/continue")
    strict.tokens(app.token_after(done["continuation_token"]))


def code_sign_in(s, app, email):
    """initiate -> challenge(oob) -> token(oob) with a code-only client: the /token response."""
    init = strict.ok(app.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": app.types, "capabilities": CAPABILITIES}),
                     "oauth2/initiate")
    before = len(s.mails(email))
    ch = strict.ok(app.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": app.types}),
                   "oauth2/challenge")
    return app.submit(ch["continuation_token"], s.wait_for_code(email, before), grant="oob")


def test_a_code_sign_in_never_takes_its_own_mailbox_as_the_second_factor(mfa_server):
    """U's review, Medium: after a sign-in by emailed code, enrolling that same address "as the second factor" needed no
    proof and every later sign-in was two codes to one mailbox, with `amr ["otp","mfa"]` and `acr "2"`."""
    s, email, other = mfa_server, new_email(), new_email()
    Native(s, OFF, types="oob redirect").sign_up(email, password=None)
    app = Native(s, REQUIRED, types="oob redirect")
    reg = app.register_introspect(suberror(code_sign_in(s, app, email), "registration_required"))
    method = next(m for m in reg["methods"] if m["id"] == "email")
    refused = app.register_challenge(reg["continuation_token"], method, email)
    strict.error(refused, "invalid_request")
    assert 901001 in refused.json()["error_codes"] and "second factor" in refused.json()["error_description"]
    # Another mailbox, proven by its own code, is a second factor.
    sent = strict.ok(app.register_challenge(reg["continuation_token"], method, other), "register/challenge")
    done = strict.ok(app.register_continue(sent["continuation_token"], s.wait_for_code(other)), "register/continue")
    claims = strict.b64url_json(strict.tokens(app.token_after(done["continuation_token"]))["id_token"].split(".")[1])
    assert claims["acr"] == "2" and "mfa" in claims["amr"], claims
    # A factor enrolled on the account's own address (after a password sign-in, by its own code) is no second factor
    # for a code sign-in either; but the account holds one, so the code alone enrols nothing: the browser, where the
    # password goes first.
    s2_email = new_email()
    Native(s, OFF).sign_up(s2_email)
    register_email(s, Native(s, REQUIRED), s2_email)
    again = code_sign_in(s, app, s2_email)
    assert again.status_code == 200 and again.json()["challenge_type"] == "redirect", again.text
    assert "sign in with the password" in again.json()["redirect_reason"]


def test_wrong_steps_and_inputs(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    app = Native(s, REQUIRED)
    register_email(s, app, email)
    ct = suberror(app.password_token(email), "mfa_required")
    # mfa_oob before a challenge, a first-factor challenge without id, an unknown id.
    strict.error(app.submit(ct, "12345678"), "invalid_request")
    methods = app.introspect(ct)
    strict.error(app.challenge(methods["continuation_token"], "no-such-method"), "invalid_request", code=901001)
    # The introspect token is not the mfa_required one any more; a garbage token is invalid_grant.
    strict.error(app.post("/oauth2/v2.0/introspect", {"continuation_token": "garbage"}), "invalid_grant")
    strict.error(app.post("/register/v1.0/introspect", {"continuation_token": methods["continuation_token"]}), "invalid_request")
    strict.error(app.post("/oauth2/v2.0/introspect", {}), "invalid_request")
    # A client without oob in its challenge types is sent to the browser for the code.
    body = strict.ok(app.post("/oauth2/v2.0/challenge", {"continuation_token": methods["continuation_token"],
                                                         "challenge_type": "password redirect", "id": methods["methods"][0]["id"]}),
                     "oauth2/challenge")
    assert body["challenge_type"] == "redirect"
    # Another client cannot use this flow's token.
    strict.error(Native(s, OPTIONAL).challenge(methods["continuation_token"], methods["methods"][0]["id"]), "invalid_grant")


def test_code_attempts_run_out_and_the_account_locks():
    s = Server(config_text=config_without_sms(), env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_LIMITS_LOCKOUT_FREE_ATTEMPTS": "4"}).start()
    try:
        email = new_email()
        Native(s, OFF).sign_up(email)
        app = Native(s, REQUIRED)
        register_email(s, app, email)
        sent, code, _ = emailed_second_factor(s, app, email)
        # The password counted one attempt; three wrong codes make four: the next attempt is locked out.
        for _ in range(3):
            strict.error(app.submit(sent["continuation_token"], wrong_code(code)), "invalid_grant", suberror="invalid_oob_value")
        locked = app.submit(sent["continuation_token"], code)
        assert locked.status_code == 429 and locked.json()["error"] == "slow_down" and int(locked.headers["Retry-After"]) > 0
        events = [json.loads(line) for line in audit_lines(s, email)]
        assert any(e["kind"] == "lockout" for e in events) and sum(e["kind"] == "mfa_failed" for e in events) == 3
    finally:
        s.cleanup()


def config_without_sms():
    return f"""
clients:
  - {{id: {OFF}, name: plain}}
  - {{id: {REQUIRED}, name: strict, mfa: required}}
"""


def audit_lines(s, email):
    import subprocess
    from harness import BINARY
    out = subprocess.run([BINARY, "audit", "--json", "--limit", "100"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_expired_continuation_token(sms):
    s = Server(config_text=config(sms, "tokens: {flow_ttl_seconds: 60}"), env={"LATCHKEY_TESTING_ENABLED": "true"}).start()
    try:
        email = new_email()
        Native(s, OFF).sign_up(email)
        app = Native(s, REQUIRED)
        register_email(s, app, email)
        ct = suberror(app.password_token(email), "mfa_required")
        s.advance_clock(61)
        strict.error(app.post("/oauth2/v2.0/introspect", {"continuation_token": ct}), "expired_token")
    finally:
        s.cleanup()


def test_second_factors_are_kept_sealed(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    parse = ParseClient(s, app_id="mfaApp")
    user = ok(parse.call("POST", "/login", {"username": email, "password": PASSWORD}))
    secret = pyotp.random_base32()
    answer = ok(parse.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                           session_token=user["sessionToken"]))
    codes = answer["authDataResponse"]["mfa"]["recovery"].split(", ")
    raw = open(s.db_path, "rb").read() + open(s.db_path + "-wal", "rb").read()
    import base64
    assert secret.encode() not in raw and base64.b32decode(secret) not in raw
    assert not any(c.encode() in raw for c in codes)
    db = sqlite3.connect(s.db_path)
    kinds = [r[0] for r in db.execute("SELECT kind FROM second_factors WHERE user_id = (SELECT id FROM users WHERE email = ?)", (email,))]
    assert sorted(set(kinds)) == ["recovery", "totp"] and kinds.count("recovery") == 10


def enrol_authenticator(s, access_token):
    """A signed-in user's authenticator, as a native app enrols one: the secret, then the app's first code."""
    auth = {"Authorization": f"Bearer {access_token}"}
    offer = requests.post(s.base + "/mfa/v1.0/authenticator/start", headers=auth, timeout=10)
    assert offer.status_code == 200, offer.text
    body = offer.json()
    assert set(body) == {"secret", "otpauth_uri", "continuation_token", "code_length"} and body["code_length"] == 6
    assert body["otpauth_uri"].startswith("otpauth://totp/Latchkey%20Test%3A") and f"secret={body['secret']}" in body["otpauth_uri"]
    totp = pyotp.parse_uri(body["otpauth_uri"])
    assert totp.secret == body["secret"] and totp.issuer == "Latchkey Test"
    wrong = "123456" if totp.now() != "123456" else "654321"
    form = {"continuation_token": body["continuation_token"]}
    bad = requests.post(s.base + "/mfa/v1.0/authenticator/confirm", headers=auth, data={**form, "oob": wrong}, timeout=10)
    strict.error(bad, "invalid_grant", suberror="invalid_oob_value")
    done = requests.post(s.base + "/mfa/v1.0/authenticator/confirm", headers=auth, data={**form, "oob": totp.now()}, timeout=10)
    assert done.status_code == 200, done.text
    codes = done.json()["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    return totp, codes


def test_a_native_user_enrols_an_authenticator(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    app = Native(s, OPTIONAL)
    tokens = strict.tokens(app.password_token(email))
    totp, _ = enrol_authenticator(s, tokens["access_token"])
    assert s.wait_for_subject(email, "second factor was added")
    # The password's token changes no factor now that the account holds one (RFC 9470's step-up, for two factors)...
    start = s.base + "/mfa/v1.0/authenticator/start"
    again = requests.post(start, headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert again.status_code == 401 and again.json()["error"] == "insufficient_user_authentication", again.text
    assert 'acr_values="2"' in again.headers["WWW-Authenticate"], again.headers
    # ...the next sign-in asks for its code, and with both a second authenticator is refused while the first is there.
    ct = suberror(app.password_token(email), "mfa_required")
    methods = app.introspect(ct)
    [method] = methods["methods"]
    asked = code_challenge(app.challenge(methods["continuation_token"], method["id"]), "totp")
    both = strict.tokens(app.submit(asked["continuation_token"], totp.at(time.time() + 30)))
    strict.error(requests.post(start, headers={"Authorization": f"Bearer {both['access_token']}"}, timeout=10), "invalid_request")


def test_an_authenticator_is_enrolled_only_after_a_recent_sign_in(sms):
    """U's review, Low: an authenticator could be enrolled with nothing but an access token (refreshed for weeks, or
    stolen). Enrolment needs a sign-in within `mfa.recent_sign_in_seconds`; older, the answer is RFC 9470's
    step-up challenge, and a refresh is no new sign-in."""
    s = Server(config_text=config(sms), env={"LATCHKEY_MFA_RECENT_SIGN_IN_SECONDS": "60", "LATCHKEY_TESTING_ENABLED": "true"}).start()
    try:
        email = new_email()
        Native(s, OFF).sign_up(email)
        app = Native(s, OPTIONAL)
        tokens = strict.tokens(app.password_token(email))
        s.advance_clock(61)
        for access in (tokens["access_token"],
                       strict.tokens(s.post("/oauth2/v2.0/token", {"client_id": OPTIONAL, "grant_type": "refresh_token",
                                                                   "refresh_token": tokens["refresh_token"]}))["access_token"]):
            refused = requests.post(s.base + "/mfa/v1.0/authenticator/start", headers={"Authorization": f"Bearer {access}"}, timeout=10)
            assert refused.status_code == 401 and refused.json()["error"] == "insufficient_user_authentication", refused.text
            assert 'error="insufficient_user_authentication"' in refused.headers["WWW-Authenticate"] and "max_age=60" in refused.headers["WWW-Authenticate"]
        # Signed in again, the user enrols at once.
        fresh = strict.tokens(app.password_token(email))
        assert requests.post(s.base + "/mfa/v1.0/authenticator/start", headers={"Authorization": f"Bearer {fresh['access_token']}"},
                             timeout=10).status_code == 200
    finally:
        s.cleanup()


def test_authenticator_enrolment_needs_a_client_that_asks_for_second_factors(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    tokens = strict.tokens(Native(s, OFF).password_token(email))
    refused = requests.post(s.base + "/mfa/v1.0/authenticator/start", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    strict.error(refused, "invalid_request", code=901001)
    assert "not enabled for this client" in refused.json()["error_description"]
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Bearer {tokens['id_token']}"}):
        r = requests.post(s.base + "/mfa/v1.0/authenticator/start", headers=headers, timeout=10)
        assert r.status_code == 401 and r.json()["error"] == "invalid_token", r.text
    # Another user's offer cannot be confirmed with one's own token.
    other = new_email()
    Native(s, OFF).sign_up(other)
    mine = strict.tokens(Native(s, OPTIONAL).password_token(email))
    theirs = strict.tokens(Native(s, OPTIONAL).password_token(other))
    offer = requests.post(s.base + "/mfa/v1.0/authenticator/start", headers={"Authorization": f"Bearer {theirs['access_token']}"}, timeout=10).json()
    stolen = requests.post(s.base + "/mfa/v1.0/authenticator/confirm", headers={"Authorization": f"Bearer {mine['access_token']}"},
                           data={"continuation_token": offer["continuation_token"], "oob": pyotp.TOTP(offer["secret"]).now()}, timeout=10)
    strict.error(stolen, "invalid_request")


def test_a_mailed_second_factor_code_dies_after_five_wrong_tries(mfa_server):
    s, email = mfa_server, new_email()
    Native(s, OFF).sign_up(email)
    app = Native(s, REQUIRED)
    register_email(s, app, email)
    sent, code, method = emailed_second_factor(s, app, email)
    for _ in range(5):
        strict.error(app.submit(sent["continuation_token"], wrong_code(code)), "invalid_grant", suberror="invalid_oob_value")
    dead = strict.error(app.submit(sent["continuation_token"], code), "invalid_grant", suberror="invalid_oob_value")
    assert "no longer valid" in dead["error_description"]
    # A resend on the same token mails a new code, which works.
    before = len(s.mails(email))
    resent = code_challenge(app.challenge(sent["continuation_token"], method), "email")
    strict.tokens(app.submit(resent["continuation_token"], s.wait_for_code(email, before)))


def test_msal_js_may_call_the_new_paths_from_an_allowed_origin():
    s = Server(env={"LATCHKEY_SERVER_CORS_ALLOWED_ORIGINS": "[https://app.example.com]"}).start()
    try:
        for path in ("/oauth2/v2.0/introspect", "/register/v1.0/introspect", "/register/v1.0/challenge", "/register/v1.0/continue"):
            pre = requests.options(s.base + path, headers={"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
                                                           "Access-Control-Request-Headers": "content-type,client-request-id,x-client-sku"},
                                   timeout=10)
            assert pre.status_code == 204 and pre.headers["Access-Control-Allow-Origin"] == "https://app.example.com", (path, pre.headers)
            r = s.post(path, {"continuation_token": "x"}, headers={"Origin": "https://app.example.com"})
            assert r.headers["Access-Control-Allow-Origin"] == "https://app.example.com" and r.json()["error"] == "invalid_grant"
    finally:
        s.cleanup()
