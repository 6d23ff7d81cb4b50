"""Native sign-in, refresh, userinfo and discovery over a live server."""
import time
import sqlite3
import uuid

import pytest

import jwks
import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import ALL_TYPES, Server


def initiate(server, email, types=ALL_TYPES):
    return server.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": types})


def test_wrong_password_then_retry_with_same_token(server, email):
    sign_up(server, email)
    init = strict.ok(initiate(server, email), "oauth2/initiate")
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                          "challenge_type": ALL_TYPES}), "oauth2/challenge")
    form = {"grant_type": "password", "username": email, "continuation_token": ch["continuation_token"],
            "scope": "openid profile offline_access", "challenge_type": ALL_TYPES, "client_info": "true"}
    strict.error(server.post("/oauth2/v2.0/token", {**form, "password": "not my password"}), "invalid_grant", code=50126)
    strict.tokens(server.post("/oauth2/v2.0/token", {**form, "password": "correct horse battery"}))
    # The flow is finished: its token cannot be used again.
    strict.error(server.post("/oauth2/v2.0/token", {**form, "password": "correct horse battery"}), "invalid_grant")


def test_unknown_user(server):
    strict.error(initiate(server, f"nobody-{uuid.uuid4().hex}@example.com"), "user_not_found", code=50034)


def test_sign_in_by_code_with_wrong_code_first(server, email):
    types = "oob redirect"
    sign_up(server, email, password=None, types=types)
    init = strict.ok(initiate(server, email, types), "oauth2/initiate")
    before = len(server.mails(email))
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                          "challenge_type": types}), "oauth2/challenge")
    assert ch["challenge_type"] == "oob" and ch["code_length"] == 8
    code = server.wait_for_code(email, before)
    wrong = "00000000" if code != "00000000" else "11111111"
    form = {"grant_type": "oob", "continuation_token": ch["continuation_token"], "scope": "openid offline_access", "client_info": "true"}
    strict.error(server.post("/oauth2/v2.0/token", {**form, "oob": wrong}), "invalid_grant", suberror="invalid_oob_value")
    strict.tokens(server.post("/oauth2/v2.0/token", {**form, "oob": code}))


def test_password_user_with_code_only_client_gets_a_code(server, email):
    sign_up(server, email)
    init = strict.ok(initiate(server, email, "oob redirect"), "oauth2/initiate")
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                          "challenge_type": "oob redirect"}), "oauth2/challenge")
    assert ch["challenge_type"] == "oob"


def test_scope_without_offline_access_has_no_refresh_token(server, email):
    ct = sign_up(server, email)
    body = strict.tokens(token_after_sign_up(server, email, ct, scope="openid profile"), offline=False)
    assert body["scope"] == "openid profile"


def test_continuation_token_grant_is_single_use_and_bound_to_the_user(server, email):
    ct = sign_up(server, email)
    strict.error(token_after_sign_up(server, "someone-else@example.com", ct), "invalid_grant")
    strict.tokens(token_after_sign_up(server, email, ct))
    strict.error(token_after_sign_up(server, email, ct), "invalid_grant")


def test_sign_up_token_is_refused_by_sign_in_endpoints(server, email):
    s = strict.ok(server.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                     "challenge_type": ALL_TYPES}), "signup/start")
    strict.error(server.post("/oauth2/v2.0/challenge", {"continuation_token": s["continuation_token"],
                                                        "challenge_type": ALL_TYPES}), "invalid_grant", code=55200)
    # ... and a sign-in token by the sign-up endpoints.
    sign_up(server, email)
    init = strict.ok(initiate(server, email), "oauth2/initiate")
    strict.error(server.post("/signup/v1.0/challenge", {"continuation_token": init["continuation_token"],
                                                        "challenge_type": ALL_TYPES}), "invalid_grant")


def test_refresh_rotates_and_tokens_verify_against_jwks(server, email):
    ct = sign_up(server, email)
    first = strict.tokens(token_after_sign_up(server, email, ct))
    second = strict.tokens(server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
                                                              "scope": "openid profile offline_access", "client_info": "1"}))
    assert second["refresh_token"] != first["refresh_token"]
    keys = server.get("/discovery/v2.0/keys").json()
    assert jwks.verify(second["access_token"], keys)["sub"] == jwks.verify(first["id_token"], keys)["sub"]
    with pytest.raises(jwks.InvalidSignature):
        header, payload, sig = second["access_token"].split(".")
        jwks.verify(f"{header}.{payload[:-4]}AAAA.{sig}", keys)


@pytest.fixture
def no_grace_server():
    s = Server(env={"LATCHKEY_TOKENS_REFRESH_REUSE_GRACE_SECONDS": "0"}).start()
    yield s
    s.cleanup()


def test_reused_refresh_token_revokes_the_family(no_grace_server, email):
    s = no_grace_server
    first = strict.tokens(token_after_sign_up(s, email, sign_up(s, email)))
    refresh = lambda rt: s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": rt, "client_info": "1"})
    second = strict.tokens(refresh(first["refresh_token"]))
    # With no grace window every second use is a copy, however soon it comes.
    strict.error(refresh(first["refresh_token"]), "invalid_grant")
    strict.error(refresh(second["refresh_token"]), "invalid_grant")


def test_refresh_within_grace_window_is_a_retry(server, email):
    first = strict.tokens(token_after_sign_up(server, email, sign_up(server, email)))
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_info": "1"}
    a = strict.tokens(server.post("/oauth2/v2.0/token", form))
    b = strict.tokens(server.post("/oauth2/v2.0/token", form))
    # The retry answers the same child: one token never forks into two live chains.
    assert a["refresh_token"] == b["refresh_token"]
    c = strict.tokens(server.post("/oauth2/v2.0/token", {**form, "refresh_token": b["refresh_token"]}))
    strict.tokens(server.post("/oauth2/v2.0/token", {**form, "refresh_token": c["refresh_token"]}))


def test_a_refresh_token_copied_and_replayed_inside_the_grace_window_is_caught(server, email):
    """U's review, Low: a thief replaying the parent inside the grace window took the chain over silently (the
    legitimate client's child was refused, nothing detected or audited). Now the replay either gets the child the
    client already holds, or, once the client has used that child, ends the family and is audited."""
    first = strict.tokens(token_after_sign_up(server, email, sign_up(server, email)))
    form = {"grant_type": "refresh_token", "client_info": "1"}
    before = reuse_events(server)
    legit = strict.tokens(server.post("/oauth2/v2.0/token", {**form, "refresh_token": first["refresh_token"]}))
    onward = strict.tokens(server.post("/oauth2/v2.0/token", {**form, "refresh_token": legit["refresh_token"]}))
    strict.error(server.post("/oauth2/v2.0/token", {**form, "refresh_token": first["refresh_token"]}), "invalid_grant")
    strict.error(server.post("/oauth2/v2.0/token", {**form, "refresh_token": onward["refresh_token"]}), "invalid_grant")
    assert reuse_events(server) == before + 1


def reuse_events(s):
    db = sqlite3.connect(s.db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM audit_events WHERE kind = 'refresh_token_reuse'").fetchone()[0]
    finally:
        db.close()


def test_userinfo(server, email):
    body = strict.tokens(token_after_sign_up(server, email, sign_up(server, email)))
    r = server.get("/oidc/userinfo", headers={"Authorization": "Bearer " + body["access_token"]})
    assert r.status_code == 200 and r.json()["email"] == email and r.json()["email_verified"] is True
    for bad in (body["id_token"], "garbage", body["access_token"][:-3] + "abc"):
        r = server.get("/oidc/userinfo", headers={"Authorization": "Bearer " + bad})
        assert r.status_code == 401 and r.json()["error"] == "invalid_token"
        assert "PKeyAuth" not in r.headers.get("WWW-Authenticate", "")
    assert server.get("/oidc/userinfo").status_code == 401


@pytest.mark.parametrize("path", ["/.well-known/openid-configuration", "/v2.0/.well-known/openid-configuration",
                                  "/tenant.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                                  "/tenant.onmicrosoft.com/.well-known/openid-configuration"])
def test_discovery(server, path):
    doc = server.get(path).json()
    for key in ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint"):
        assert isinstance(doc[key], str) and doc[key].startswith("http://127.0.0.1:")
    if "tenant" in path:
        assert "/tenant.onmicrosoft.com/oauth2/v2.0/token" in doc["token_endpoint"]
    # Only what is served: the authorization code flow with PKCE (S256), and the native grants beside it.
    assert doc["response_types_supported"] == ["code"] and doc["code_challenge_methods_supported"] == ["S256"]
    assert "mfa_oob" in doc["grant_types_supported"] and "authorization_code" in doc["grant_types_supported"]
    # An unknown client is an error page, never a redirect.
    r = server.get(doc["authorization_endpoint"].replace(doc["issuer"], "") + "?response_type=code&client_id=x",
                   allow_redirects=False)
    assert r.status_code == 400 and r.headers["Content-Type"].startswith("text/html") and "Location" not in r.headers
    jwks_doc = server.get(doc["jwks_uri"].replace(doc["issuer"], "")).json()
    assert jwks_doc["keys"] and jwks_doc["keys"][0]["alg"] == "ES256" and "d" not in jwks_doc["keys"][0]


def test_client_request_id_is_echoed(server):
    rid = str(uuid.uuid4())
    r = server.post("/oauth2/v2.0/initiate", {"username": "x@example.com", "challenge_type": ALL_TYPES},
                    headers={"client-request-id": rid, "return-client-request-id": "true"})
    assert r.headers["client-request-id"] == rid


def test_continuation_tokens_are_bound_to_the_client_that_started_the_flow(email):
    other = "33333333-3333-3333-3333-333333333333"
    s = Server(env={"LATCHKEY_CLIENTS": f'[{{"id": "11111111-1111-1111-1111-111111111111", "name": "a"}}, '
                                        f'{{"id": "{other}", "name": "b"}}]'}).start()
    try:
        st = strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                     "challenge_type": ALL_TYPES}), "signup/start")
        strict.error(s.post("/signup/v1.0/challenge", {"client_id": other, "continuation_token": st["continuation_token"],
                                                       "challenge_type": ALL_TYPES}), "invalid_grant")
        done = sign_up(s, email.replace("@", "+2@"))
        strict.error(s.post("/oauth2/v2.0/token", {"client_id": other, "grant_type": "continuation_token",
                                                   "continuation_token": done}), "invalid_grant")
        first = strict.tokens(token_after_sign_up(s, email.replace("@", "+2@"), done))
        strict.error(s.post("/oauth2/v2.0/token", {"client_id": other, "grant_type": "refresh_token",
                                                   "refresh_token": first["refresh_token"]}), "invalid_grant")
    finally:
        s.cleanup()
