"""Native self-service password reset (docs/native-auth.md) over a live server."""
import time
import uuid

import pytest

import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import ALL_TYPES, Server

OLD, NEW = "correct horse battery", "new staple battery horse"


def rp(server, step, **fields):
    return server.post(f"/resetpassword/v1.0/{step}", fields)


def reach_submit(server, email):
    """start -> challenge -> continue(oob); returns the token for submit."""
    st = strict.ok(rp(server, "start", username=email, challenge_type=ALL_TYPES), "resetpassword/start")
    before = len(server.mails(email))
    ch = strict.ok(rp(server, "challenge", continuation_token=st["continuation_token"], challenge_type=ALL_TYPES),
                   "resetpassword/challenge")
    assert ch["challenge_type"] == "oob" and ch["challenge_channel"] == "email" and strict.is_int(ch["interval"])
    code = server.wait_for_code(email, before)
    cont = strict.ok(rp(server, "continue", continuation_token=ch["continuation_token"], grant_type="oob", oob=code),
                     "resetpassword/continue")
    assert 0 < cont["expires_in"] <= 600
    return cont["continuation_token"]


def test_whole_flow_signs_in_with_the_new_password(server, email):
    first = strict.tokens(token_after_sign_up(server, email, sign_up(server, email, password=OLD)))
    ct = reach_submit(server, email)
    # Poll before submit: nothing started yet.
    assert strict.ok(rp(server, "poll_completion", continuation_token=ct), "resetpassword/poll_completion")["status"] == "not_started"
    sub = strict.ok(rp(server, "submit", continuation_token=ct, new_password=NEW), "resetpassword/submit")
    poll = strict.ok(rp(server, "poll_completion", continuation_token=sub["continuation_token"]), "resetpassword/poll_completion")
    assert poll["status"] == "succeeded"
    # The client may poll again with the same submit token.
    assert strict.ok(rp(server, "poll_completion", continuation_token=sub["continuation_token"]),
                     "resetpassword/poll_completion")["status"] == "succeeded"
    body = strict.tokens(server.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "username": email,
                                                            "continuation_token": poll["continuation_token"],
                                                            "scope": "openid profile offline_access", "client_info": "true"}))
    assert body["id_token"]
    # The reset token is spent.
    strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "username": email,
                                                    "continuation_token": poll["continuation_token"]}), "invalid_grant")
    # Old password fails, new one works; refresh tokens from before the reset are revoked.
    strict.error(password_sign_in(server, email, OLD), "invalid_grant", code=50126)
    strict.tokens(password_sign_in(server, email, NEW))
    strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}),
                 "invalid_grant")
    server.wait_for_subject(email, "password was changed")


def test_start_errors(server, email):
    strict.error(rp(server, "start", username=f"nobody-{uuid.uuid4().hex}@example.com", challenge_type=ALL_TYPES), "user_not_found")
    sign_up(server, email, password=None, types="oob redirect")
    strict.error(rp(server, "start", username=email, challenge_type=ALL_TYPES), "invalid_request", code=500222)
    strict.error(rp(server, "start", username="bad", challenge_type=ALL_TYPES), "invalid_request")
    strict.error(rp(server, "start", username=email, challenge_type="oob"), "unsupported_challenge_type")


def test_wrong_code_retry_and_five_strikes(server, email):
    sign_up(server, email, password=OLD)
    st = strict.ok(rp(server, "start", username=email, challenge_type=ALL_TYPES), "resetpassword/start")
    ch = strict.ok(rp(server, "challenge", continuation_token=st["continuation_token"], challenge_type=ALL_TYPES), "resetpassword/challenge")
    code = server.wait_for_code(email, 1)
    wrong = "00000000" if code != "00000000" else "11111111"
    for _ in range(5):
        strict.error(rp(server, "continue", continuation_token=ch["continuation_token"], grant_type="oob", oob=wrong),
                     "invalid_grant", suberror="invalid_oob_value")
    strict.error(rp(server, "continue", continuation_token=ch["continuation_token"], grant_type="oob", oob=code),
                 "invalid_grant", suberror="invalid_oob_value")
    # Resend (challenge again) brings a new code that works.
    again = strict.ok(rp(server, "challenge", continuation_token=ch["continuation_token"], challenge_type=ALL_TYPES),
                      "resetpassword/challenge")
    fresh = server.wait_for_code(email, 2)
    strict.ok(rp(server, "continue", continuation_token=again["continuation_token"], grant_type="oob", oob=fresh), "resetpassword/continue")


def test_submit_policy_errors_then_retry_with_same_token(server, email):
    sign_up(server, email, password=OLD)
    ct = reach_submit(server, email)
    for password, suberror in {"short": "password_too_short", "y" * 300: "password_too_long", email: "password_banned",
                               "zzzzzzzzzz": "password_too_weak", OLD: "password_recently_used"}.items():
        strict.error(rp(server, "submit", continuation_token=ct, new_password=password), "invalid_grant", suberror=suberror)
    strict.error(rp(server, "submit", continuation_token=ct), "invalid_request")
    strict.ok(rp(server, "submit", continuation_token=ct, new_password=NEW), "resetpassword/submit")
    # Submitting twice is refused: the flow moved on.
    strict.error(rp(server, "submit", continuation_token=ct, new_password="yet another passphrase"), "invalid_grant")


def test_tokens_do_not_cross_flows(server, email):
    sign_up(server, email, password=OLD)
    st = strict.ok(rp(server, "start", username=email, challenge_type=ALL_TYPES), "resetpassword/start")
    strict.error(server.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"], "challenge_type": ALL_TYPES}),
                 "invalid_grant")
    other = f"other-{uuid.uuid4().hex[:8]}@example.com"
    su = strict.ok(server.post("/signup/v1.0/start", {"username": other, "password": OLD, "challenge_type": ALL_TYPES}), "signup/start")
    strict.error(rp(server, "challenge", continuation_token=su["continuation_token"], challenge_type=ALL_TYPES), "invalid_grant")
    strict.error(rp(server, "submit", continuation_token=su["continuation_token"], new_password=NEW), "invalid_grant")
    # A completed sign-up token cannot finish a reset either.
    done = sign_up(server, f"third-{uuid.uuid4().hex[:8]}@example.com")
    strict.error(rp(server, "poll_completion", continuation_token=done), "invalid_grant")


def test_reset_under_tenant_segment(server, email):
    sign_up(server, email, password=OLD)
    r = server.post("/contoso.onmicrosoft.com/resetpassword/v1.0/start", {"username": email, "challenge_type": ALL_TYPES})
    strict.ok(r, "resetpassword/start")


@pytest.fixture(scope="module")
def protected():
    s = Server(env={"LATCHKEY_RESET_ENUMERATION_PROTECTION": "true"}).start()
    yield s
    s.cleanup()


def test_enumeration_protection_answers_alike(protected, email):
    s = protected
    sign_up(s, email, password=OLD)
    code_only = f"codeonly-{uuid.uuid4().hex[:8]}@example.com"
    sign_up(s, code_only, password=None, types="oob redirect")
    unknown = f"ghost-{uuid.uuid4().hex[:8]}@example.com"
    shapes = {}
    for who in (email, code_only, unknown):
        mails_before = len(s.mails(who))
        st = strict.ok(rp(s, "start", username=who, challenge_type=ALL_TYPES), "resetpassword/start")
        ch = strict.ok(rp(s, "challenge", continuation_token=st["continuation_token"], challenge_type=ALL_TYPES), "resetpassword/challenge")
        shapes[who] = (sorted(st), sorted(ch), ch["code_length"], ch["challenge_type"])
        if who != email:
            r = rp(s, "continue", continuation_token=ch["continuation_token"], grant_type="oob", oob="12345678")
            strict.error(r, "invalid_grant", suberror="invalid_oob_value")
            time.sleep(0.5)  # the outbox worker polls every 100 ms; give a real mail time to show
            assert len(s.mails(who)) == mails_before, "no reset mail for an address without a password account"
        else:
            s.wait_for_code(who, mails_before)
    assert shapes[email] == shapes[code_only] == shapes[unknown]
