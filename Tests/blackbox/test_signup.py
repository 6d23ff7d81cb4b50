"""Native sign-up in all four shapes, over a live server, decoded as strictly as the SDK does."""
import json

import jwks
import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import ALL_TYPES


def start(server, email, **fields):
    return server.post("/signup/v1.0/start", {"username": email, "challenge_type": ALL_TYPES, **fields})


def challenge(server, ct, types=ALL_TYPES):
    return server.post("/signup/v1.0/challenge", {"continuation_token": ct, "challenge_type": types})


def cont(server, ct, **fields):
    return server.post("/signup/v1.0/continue", {"continuation_token": ct, **fields})


def test_password_up_front_then_sign_in_after_sign_up(server, email):
    ct = sign_up(server, email)
    body = strict.tokens(token_after_sign_up(server, email, ct))
    keys = server.get("/discovery/v2.0/keys").json()
    claims = jwks.verify(body["id_token"], keys)
    assert claims["email"] == email and claims["preferred_username"] == email
    assert claims["aud"] == "11111111-1111-1111-1111-111111111111"
    access = jwks.verify(body["access_token"], keys)
    assert access["sub"] == claims["sub"]
    # The same account signs in with its password afterwards.
    strict.tokens(password_sign_in(server, email, "correct horse battery"))


def test_challenge_answers_oob_with_everything_the_sdk_requires(server, email):
    s = strict.ok(start(server, email, password="correct horse battery"), "signup/start")
    c = strict.ok(challenge(server, s["continuation_token"]), "signup/challenge")
    assert c["challenge_type"] == "oob" and c["challenge_channel"] == "email"
    assert c["code_length"] == 8 and "@" in c["challenge_target_label"] and email not in c["challenge_target_label"]
    assert c["continuation_token"] != s["continuation_token"]
    assert len(server.wait_for_code(email)) == 8


def test_passwordless_sign_up_then_code_sign_in(server, email):
    types = "oob redirect"
    s = strict.ok(start(server, email, challenge_type=types), "signup/start")
    c = strict.ok(challenge(server, s["continuation_token"], types), "signup/challenge")
    code = server.wait_for_code(email)
    done = strict.ok(cont(server, c["continuation_token"], grant_type="oob", oob=code), "signup/continue")
    assert strict.is_int(done["expires_in"])
    strict.tokens(token_after_sign_up(server, email, done["continuation_token"]))
    # No password exists: sign-in mails a code even though the client could do passwords.
    init = strict.ok(server.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}), "oauth2/initiate")
    before = len(server.mails(email))
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                          "challenge_type": ALL_TYPES}), "oauth2/challenge")
    assert ch["challenge_type"] == "oob"
    code = server.wait_for_code(email, before)
    strict.tokens(server.post("/oauth2/v2.0/token", {"grant_type": "oob", "oob": code, "continuation_token": ch["continuation_token"],
                                                     "scope": "openid profile offline_access", "client_info": "true"}))


def test_password_asked_after_the_code(server, email):
    s = strict.ok(start(server, email), "signup/start")
    c = strict.ok(challenge(server, s["continuation_token"]), "signup/challenge")
    code = server.wait_for_code(email)
    required = strict.error(cont(server, c["continuation_token"], grant_type="oob", oob=code), "credential_required", code=55103)
    ct = required["continuation_token"]
    pw = strict.ok(challenge(server, ct), "signup/challenge")
    assert pw["challenge_type"] == "password"
    weak = cont(server, pw["continuation_token"], grant_type="password", password="short")
    strict.error(weak, "invalid_grant", suberror="password_too_short")
    # Same continuation token may retry after a policy error.
    done = strict.ok(cont(server, pw["continuation_token"], grant_type="password", password="correct horse battery"), "signup/continue")
    strict.tokens(token_after_sign_up(server, email, done["continuation_token"]))
    strict.tokens(password_sign_in(server, email, "correct horse battery"))


def test_attributes_up_front(attr_server, email):
    attrs = json.dumps({"displayName": "Ada", "postalCode": "90210"})
    ct = sign_up(attr_server, email, attributes=attrs)
    body = strict.tokens(token_after_sign_up(attr_server, email, ct))
    info = attr_server.get("/oidc/userinfo", headers={"Authorization": "Bearer " + body["access_token"]}).json()
    assert info["email"] == email and info["name"] == "Ada"


def test_attributes_missing_then_supplied_over_several_calls(attr_server, email):
    s = strict.ok(start(attr_server, email, password="correct horse battery"), "signup/start")
    c = strict.ok(challenge(attr_server, s["continuation_token"]), "signup/challenge")
    code = attr_server.wait_for_code(email)
    need = strict.error(cont(attr_server, c["continuation_token"], grant_type="oob", oob=code), "attributes_required", code=55106)
    assert need["required_attributes"] == [{"name": "postalCode", "type": "string", "required": True,
                                            "options": {"regex": "^[1-9][0-9]*$"}}]
    # An invalid value: attribute_validation_failed naming it; the same token may retry.
    bad = cont(attr_server, need["continuation_token"], grant_type="attributes", attributes=json.dumps({"postalCode": "0abc"}))
    body = strict.error(bad, "invalid_grant", suberror="attribute_validation_failed")
    assert body["invalid_attributes"] == [{"name": "postalCode"}]
    # Only an optional one: still required, with a fresh token.
    again = strict.error(cont(attr_server, need["continuation_token"], grant_type="attributes",
                              attributes=json.dumps({"displayName": "Bo"})), "attributes_required")
    assert again["continuation_token"] != need["continuation_token"]
    done = strict.ok(cont(attr_server, again["continuation_token"], grant_type="attributes",
                          attributes=json.dumps({"postalCode": 12345})), "signup/continue")
    strict.tokens(token_after_sign_up(attr_server, email, done["continuation_token"]))


def test_invalid_attributes_at_start(attr_server, email):
    r = start(attr_server, email, password="correct horse battery", attributes=json.dumps({"postalCode": "012"}))
    assert strict.error(r, "invalid_grant", suberror="attribute_validation_failed")["invalid_attributes"] == [{"name": "postalCode"}]
    strict.error(start(attr_server, email, attributes="{not json"), "invalid_request")


def test_user_already_exists_case_insensitively(server, email):
    sign_up(server, email)
    strict.error(start(server, email.upper(), password="another good one"), "user_already_exists", code=1003037)


def test_password_policy_suberrors(server, email):
    cases = {"short": "password_too_short", "x" * 257: "password_too_long", email: "password_banned",
             email.split("@")[0]: "password_banned", "password123": "password_banned", "abababababab": "password_too_weak"}
    for password, suberror in cases.items():
        strict.error(start(server, email, password=password), "invalid_grant", suberror=suberror, code=399246)


def test_wrong_code_then_right_code_with_same_token(server, email):
    s = strict.ok(start(server, email, password="correct horse battery"), "signup/start")
    c = strict.ok(challenge(server, s["continuation_token"]), "signup/challenge")
    code = server.wait_for_code(email)
    wrong = "00000000" if code != "00000000" else "11111111"
    strict.error(cont(server, c["continuation_token"], grant_type="oob", oob=wrong), "invalid_grant", suberror="invalid_oob_value")
    strict.ok(cont(server, c["continuation_token"], grant_type="oob", oob=code), "signup/continue")


def test_resend_replaces_the_code(server, email):
    s = strict.ok(start(server, email, password="correct horse battery"), "signup/start")
    c1 = strict.ok(challenge(server, s["continuation_token"]), "signup/challenge")
    first = server.wait_for_code(email)
    c2 = strict.ok(challenge(server, c1["continuation_token"]), "signup/challenge")
    second = server.wait_for_code(email, 1)
    # The old continuation token is spent by the resend, and the old code no longer works.
    strict.error(cont(server, c1["continuation_token"], grant_type="oob", oob=first), "invalid_grant")
    if first != second:
        strict.error(cont(server, c2["continuation_token"], grant_type="oob", oob=first), "invalid_grant", suberror="invalid_oob_value")
    strict.ok(cont(server, c2["continuation_token"], grant_type="oob", oob=second), "signup/continue")


def test_five_wrong_codes_kill_the_code(server, email):
    s = strict.ok(start(server, email, password="correct horse battery"), "signup/start")
    c = strict.ok(challenge(server, s["continuation_token"]), "signup/challenge")
    code = server.wait_for_code(email)
    wrong = "00000000" if code != "00000000" else "11111111"
    for _ in range(5):
        strict.error(cont(server, c["continuation_token"], grant_type="oob", oob=wrong), "invalid_grant", suberror="invalid_oob_value")
    strict.error(cont(server, c["continuation_token"], grant_type="oob", oob=code), "invalid_grant", suberror="invalid_oob_value")
    resent = strict.ok(challenge(server, c["continuation_token"]), "signup/challenge")
    fresh = server.wait_for_code(email, 1)
    strict.ok(cont(server, resent["continuation_token"], grant_type="oob", oob=fresh), "signup/continue")


def test_client_without_oob_gets_redirect(server, email):
    body = strict.ok(start(server, email, password="correct horse battery", challenge_type="password redirect"), "signup/start")
    assert body["challenge_type"] == "redirect" and isinstance(body["redirect_reason"], str)


def test_challenge_type_without_redirect_is_refused(server, email):
    strict.error(start(server, email, challenge_type="oob password"), "unsupported_challenge_type")


def test_tenant_segment_prefix(server, email):
    s = server.post("/contoso.onmicrosoft.com/signup/v1.0/start",
                    {"username": email, "password": "correct horse battery", "challenge_type": ALL_TYPES})
    s = strict.ok(s, "signup/start")
    strict.ok(server.post("/contoso.onmicrosoft.com/signup/v1.0/challenge",
                          {"continuation_token": s["continuation_token"], "challenge_type": ALL_TYPES}), "signup/challenge")
