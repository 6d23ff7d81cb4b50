"""Ways in other than a password, over real sockets: anonymous accounts, Apple and Google ID tokens checked against a
loopback issuer's keys, linking and unlinking, in the App Services and Parse dialects, one account across both."""
import json
import uuid

import jwt
import pytest
import requests

from harness import Server
from identity_support import ADMIN_TOKEN, APP, APPLE_AUD, admin, app_error, identity_env, login, profile, user_count
from identity_support import apple, google, server  # noqa: F401 (fixtures)
from issuer import APPLE_ISSUER, Issuer
from parse_client import ParseClient, error, login_signup_response, ok


def test_anonymous_app_services_users_are_new_accounts_the_sdk_sees_as_anonymous(server):
    first = login(server, "anon-user")
    assert first.status_code == 200, first.text
    body = first.json()
    assert set(body) >= {"access_token", "refresh_token", "user_id", "device_id"}
    me = profile(server, body["access_token"])
    # realm-core: anonymous exactly when the one identity listed is anon-user.
    assert [i["provider_type"] for i in me["identities"]] == ["anon-user"] and me["type"] == "normal" and me["data"] == {}
    assert login(server, "anon-user").json()["user_id"] != body["user_id"]
    refreshed = requests.post(f"{server.base}/api/client/v2.0/auth/session",
                                            headers={"Authorization": f"Bearer {body['refresh_token']}"}, timeout=10)
    assert refreshed.status_code == 200 and profile(server, refreshed.json()["access_token"])["user_id"] == body["user_id"]


def test_an_apple_token_signs_in_one_account_and_keys_are_fetched_once(server, apple):
    sub = "001234." + uuid.uuid4().hex
    email = f"{uuid.uuid4().hex[:8]}@privaterelay.appleid.com"
    fetches = apple.fetches
    first = login(server, "oauth2-apple", {"id_token": apple.token(sub, email=email)})
    assert first.status_code == 200, first.text
    again = login(server, "oauth2-apple", {"id_token": apple.token(sub, email=email)})
    assert again.json()["user_id"] == first.json()["user_id"]
    me = profile(server, again.json()["access_token"])
    assert [(i["provider_type"], i["id"]) for i in me["identities"]] == [("oauth2-apple", sub)]
    # Apple vouches for the address: the account has it.
    assert me["data"]["email"] == email
    assert apple.fetches - fetches <= 1


@pytest.mark.parametrize("case", ["wrong_audience", "wrong_issuer", "expired", "future", "forged", "alg_none", "hs256_with_public_key",
                                  "unknown_kid", "garbage", "oversized"])
def test_a_bad_id_token_is_refused_and_writes_nothing(server, apple, case):
    sub = "bad-" + uuid.uuid4().hex
    other = Issuer(APPLE_ISSUER, APPLE_AUD)
    try:
        public_pem = apple.keys[-1][1].public_key().public_bytes(
            __import__("cryptography.hazmat.primitives.serialization", fromlist=["x"]).Encoding.PEM,
            __import__("cryptography.hazmat.primitives.serialization", fromlist=["x"]).PublicFormat.SubjectPublicKeyInfo)
        token = {
            "wrong_audience": lambda: apple.token(sub, aud="com.someone.else"),
            "wrong_issuer": lambda: apple.token(sub, iss="https://evil.example.com"),
            "expired": lambda: apple.token(sub, exp_in=-120),
            "future": lambda: apple.token(sub, iat_offset=600, nbf=0),
            # Signed by another key under the real key's id.
            "forged": lambda: apple.token(sub, key=other.keys[-1][1]),
            "alg_none": lambda: jwt.encode({"iss": APPLE_ISSUER, "aud": APPLE_AUD, "sub": sub, "exp": 9999999999}, None, algorithm="none",
                                           headers={"kid": apple.keys[-1][0]}),
            "hs256_with_public_key": lambda: jwt.api_jws.PyJWS().encode(
                json.dumps({"iss": APPLE_ISSUER, "aud": APPLE_AUD, "sub": sub, "exp": 9999999999}).encode(), public_pem,
                algorithm="HS256", headers={"kid": apple.keys[-1][0]}) if False else _hs256(sub, public_pem, apple.keys[-1][0]),
            "unknown_kid": lambda: apple.token(sub, kid="nope", key=other.keys[-1][1]),
            "garbage": lambda: "not.a.jwt",
            "oversized": lambda: apple.token(sub, padding="x" * 20000),
        }[case]()
        before = user_count(server)
        r = login(server, "oauth2-apple", {"id_token": token})
        message = app_error(r, 401, "AuthError")
        assert token not in message
        assert user_count(server) == before
    finally:
        other.close()


def _hs256(sub, secret, kid):
    """An HMAC token keyed with the issuer's public key: the classic algorithm-confusion forgery."""
    import base64
    import hashlib
    import hmac

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head = b64(json.dumps({"alg": "HS256", "kid": kid, "typ": "JWT"}).encode())
    body = b64(json.dumps({"iss": APPLE_ISSUER, "aud": APPLE_AUD, "sub": sub, "exp": 9999999999}).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(signature)}"


def test_linking_keeps_the_user_and_refuses_another_accounts_identity(server, google):
    anonymous = login(server, "anon-user").json()
    google_sub = uuid.uuid4().hex
    linked = login(server, "oauth2-google", {"id_token": google.token(google_sub)}, access=anonymous["access_token"], link=True)
    assert linked.status_code == 200, linked.text
    assert linked.json()["user_id"] == anonymous["user_id"] and "refresh_token" not in linked.json()
    me = profile(server, linked.json()["access_token"])
    assert [i["provider_type"] for i in me["identities"]] == ["anon-user", "oauth2-google"]
    # The refresh token the SDK keeps still works.
    refreshed = requests.post(f"{server.base}/api/client/v2.0/auth/session",
                                            headers={"Authorization": f"Bearer {anonymous['refresh_token']}"}, timeout=10)
    assert refreshed.status_code == 200
    # Signing in with Google later reaches the same account.
    assert login(server, "oauth2-google", {"id_token": google.token(google_sub)}).json()["user_id"] == anonymous["user_id"]
    other = login(server, "anon-user").json()
    app_error(login(server, "oauth2-google", {"id_token": google.token(google_sub)}, access=other["access_token"], link=True),
              401, "InvalidSession")
    app_error(login(server, "anon-user", access=other["access_token"], link=True), 400, "InvalidParameter")
    assert [i["provider_type"] for i in profile(server, other["access_token"])["identities"]] == ["anon-user"]


def test_a_provider_the_app_does_not_enable_is_not_found(apple, google):
    env = identity_env(apple, google)
    env["LATCHKEY_APP_SERVICES_APPS"] = json.dumps([{"id": APP, "confirmation": {"mode": "auto"}}])
    s = Server(env=env).start()
    try:
        app_error(login(s, "anon-user"), 404, "AuthProviderNotFound")
        app_error(login(s, "oauth2-apple", {"id_token": apple.token("x")}), 404, "AuthProviderNotFound")
    finally:
        s.cleanup()


def test_parse_anonymous_sign_up_login_link_and_upgrade(server, apple):
    c = ParseClient(server)
    anon_id = str(uuid.uuid4()).lower()
    created = login_signup_response(ok(c.call("POST", "/users", {"authData": {"anonymous": {"id": anon_id}}}), 201))
    assert len(created["username"]) == 25 and "authData" not in created
    again = ok(c.call("POST", "/users", {"authData": {"anonymous": {"id": anon_id}}}), 200)
    assert again["objectId"] == created["objectId"] and again["authData"] == {"anonymous": {"id": anon_id}}
    token = again["sessionToken"]
    path = f"/users/{created['objectId']}"
    # Link Apple as ParseSwift does: the cached anonymous entry nulled, the new provider added.
    apple_sub = "001234." + uuid.uuid4().hex
    linked = ok(c.call("PUT", path, {"authData": {"anonymous": None, "apple": {"id": apple_sub, "token": apple.token(apple_sub)}}},
                       session_token=token))
    assert set(linked) == {"updatedAt"}
    me = ok(c.call("GET", "/users/me", session_token=token))
    assert me["authData"] == {"apple": {"id": apple_sub}}
    # ParseSwift re-sends its cached (maybe expired) token with the same id: unchanged, not checked again.
    ok(c.call("PUT", path, {"authData": {"apple": {"id": apple_sub, "token": "expired-long-ago"}}}, session_token=token))
    # The Apple identity now signs into this account.
    back = ok(c.call("POST", "/users", {"authData": {"apple": {"id": apple_sub, "token": apple.token(apple_sub)}}}), 200)
    assert back["objectId"] == created["objectId"]
    # One session per installation, as Parse Server: the new login replaced the earlier one.
    error(c.call("GET", "/users/me", session_token=token), 209)
    assert ok(c.call("GET", "/users/me", session_token=back["sessionToken"]))["objectId"] == created["objectId"]


def test_parse_anonymous_upgrade_to_username_and_password_keeps_the_account(server):
    c = ParseClient(server)
    created = ok(c.call("POST", "/users", {"authData": {"anonymous": {"id": str(uuid.uuid4())}}}), 201)
    path = f"/users/{created['objectId']}"
    username = "upgraded" + uuid.uuid4().hex[:6]
    # What ParseSwift's User.signup(username:password:) sends while anonymous.
    upgraded = ok(c.call("PUT", path, {"username": username, "password": "correct horse 9", "authData": {"anonymous": None}},
                         session_token=created["sessionToken"]))
    assert upgraded["sessionToken"] and upgraded["sessionToken"] != created["sessionToken"]
    me = ok(c.call("GET", "/users/me", session_token=upgraded["sessionToken"]))
    assert me["objectId"] == created["objectId"] and me["username"] == username and "authData" not in me
    again = ok(c.call("POST", "/login", {"username": username, "password": "correct horse 9"}))
    assert again["objectId"] == created["objectId"]
    # The anonymous identity is gone; removing it again is nothing to do.
    ok(c.call("PUT", path, {"authData": {"anonymous": None}}, session_token=again["sessionToken"]))


def test_the_last_way_in_cannot_be_unlinked(server):
    c = ParseClient(server)
    created = ok(c.call("POST", "/users", {"authData": {"anonymous": {"id": str(uuid.uuid4())}}}), 201)
    error(c.call("PUT", f"/users/{created['objectId']}", {"authData": {"anonymous": None}}, session_token=created["sessionToken"]), -1)


def test_parse_refuses_mismatched_foreign_and_disabled_auth_data(server, apple):
    c = ParseClient(server)
    sub = "001234." + uuid.uuid4().hex
    # The token's subject must be the id the client names.
    error(c.call("POST", "/users", {"authData": {"apple": {"id": "someone-else", "token": apple.token(sub)}}}), 101)
    error(c.call("POST", "/users", {"authData": {"facebook": {"id": "1", "access_token": "x"}}}), 252)
    error(c.call("POST", "/users", {"authData": {"apple": {"id": sub}}}), 101)
    error(c.call("POST", "/users", {"authData": {"apple": {"id": sub, "token": 5}}}), 252)
    error(c.call("POST", "/users", {"authData": None}), 252)
    owner = ok(c.call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 201)
    other = ok(c.call("POST", "/users", {"authData": {"anonymous": {"id": str(uuid.uuid4())}}}), 201)
    path = f"/users/{other['objectId']}"
    error(c.call("PUT", path, {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}, session_token=other["sessionToken"]), 208)
    # On an update a refused token is Parse's 206.
    error(c.call("PUT", path, {"authData": {"apple": {"id": "x" + sub, "token": apple.token(sub, aud="wrong")}}},
                 session_token=other["sessionToken"]), 206, "Insufficient auth.")
    assert owner["objectId"] != other["objectId"]


def test_one_account_across_dialects(server, apple):
    """An account made through App Services with Apple is the one Parse's Apple authData reaches, and the reverse."""
    sub = "001234." + uuid.uuid4().hex
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    realm = login(server, "oauth2-apple", {"id_token": apple.token(sub, email=email)}).json()
    parse = ok(ParseClient(server).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 200)
    assert parse["email"] == email and parse["authData"] == {"apple": {"id": sub}}
    assert profile(server, realm["access_token"])["data"]["email"] == parse["email"]


def test_cached_keys_outlive_an_issuer_outage_and_unknown_keys_fail_cleanly(apple, google):
    s = Server(env=identity_env(apple, google)).start()
    cold = None
    try:
        sub = uuid.uuid4().hex
        assert login(s, "oauth2-google", {"id_token": google.token(sub)}).status_code == 200
        google.down = True
        assert login(s, "oauth2-google", {"id_token": google.token(sub)}).status_code == 200
        # A key it has never seen, within a minute of the last fetch: refused without asking the issuer again.
        fetches = google.fetches
        new_kid = google.rotate()
        assert "unknown signing key" in app_error(login(s, "oauth2-google", {"id_token": google.token(sub, kid=new_kid)}), 401, "AuthError")
        assert google.fetches == fetches
        # A server that never got the keys: the issuer being down is the server's trouble (503), not the token's.
        cold = Server(env=identity_env(apple, google)).start()
        app_error(login(cold, "oauth2-google", {"id_token": google.token(sub)}), 503, "AuthError")
    finally:
        google.down = False
        google.keys = google.keys[:1]  # later tests sign with the key every server has cached
        s.cleanup()
        if cold:
            cold.cleanup()


def test_a_google_server_auth_code_is_exchanged_for_the_same_identity(server, google):
    sub = uuid.uuid4().hex
    by_code = login(server, "oauth2-google", {"authCode": google.code_for(sub)})
    assert by_code.status_code == 200, by_code.text
    # The id_token form reaches the same account.
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}).json()["user_id"] == by_code.json()["user_id"]
    assert "refused" in app_error(login(server, "oauth2-google", {"authCode": "4/used-or-made-up"}), 401, "AuthError")


def test_an_anonymous_user_links_an_email_and_password_and_keeps_its_id(server):
    anonymous = login(server, "anon-user").json()
    email = f"{uuid.uuid4().hex[:10]}@example.com"
    base = f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass"
    # What realm-core does: register the address, then link the credentials onto the current user.
    assert requests.post(f"{base}/register", json={"email": email, "password": "correct horse battery"}, timeout=10).status_code == 201
    linked = requests.post(f"{base}/login?link=true", json={"username": email, "password": "correct horse battery"},
                           headers={"Authorization": f"Bearer {anonymous['access_token']}"}, timeout=10)
    assert linked.status_code == 200, linked.text
    assert linked.json()["user_id"] == anonymous["user_id"]
    me = profile(server, linked.json()["access_token"])
    assert [i["provider_type"] for i in me["identities"]] == ["anon-user", "local-userpass"] and me["data"]["email"] == email
    again = requests.post(f"{base}/login", json={"username": email, "password": "correct horse battery"}, timeout=10)
    assert again.json()["user_id"] == anonymous["user_id"]
    # A second address on the same user, or a wrong password, is refused.
    other = login(server, "anon-user").json()
    wrong = requests.post(f"{base}/login?link=true", json={"username": email, "password": "not the password"},
                          headers={"Authorization": f"Bearer {other['access_token']}"}, timeout=10)
    assert wrong.status_code == 401


def test_a_private_issuer_is_reached_over_https_with_its_own_trust_anchor(tmp_path):
    """Any OpenID issuer the operator names, here one whose HTTPS certificate only `ca_file` vouches for."""
    from smtp_relay import make_certificate
    cert, key = make_certificate(str(tmp_path))
    corp = Issuer("https://id.corp.example", "corp-app", algorithm="ES256", tls=(cert, key))
    servers = []
    try:
        def start(**extra):
            provider = {"issuer": "https://id.corp.example", "jwks_url": corp.jwks_url, "audiences": ["corp-app"], **extra}
            s = Server(env={"LATCHKEY_IDENTITIES_PROVIDERS": json.dumps({"corp": provider}),
                            "LATCHKEY_PARSE_APPS": json.dumps([{"id": "myAppId", "auth": ["corp"]}])}).start()
            servers.append(s)
            return s
        trusting, untrusting = start(ca_file=cert), start()
        sub = uuid.uuid4().hex
        body = {"authData": {"corp": {"id": sub, "id_token": corp.token(sub)}}}
        made = ok(ParseClient(trusting).call("POST", "/users", body), 201)
        assert ok(ParseClient(trusting).call("POST", "/users", body), 200)["objectId"] == made["objectId"]
        # Without the anchor the keys cannot be fetched: the issuer is unreachable, not the token wrong, so try later.
        unreachable = ParseClient(untrusting).call("POST", "/users", body)
        assert unreachable.status_code == 503 and unreachable.json()["code"] == 1, unreachable.text
        assert int(unreachable.headers["Retry-After"]) > 0
    finally:
        for s in servers:
            s.cleanup()
        corp.close()


def test_a_verified_address_joins_an_account_only_when_the_operator_allows_it(apple, google, tmp_path):
    email = f"{uuid.uuid4().hex[:10]}@example.com"
    (tmp_path / "admin.token").write_text(ADMIN_TOKEN)
    base = lambda s: f"{s.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass"  # noqa: E731
    for joins in (False, True):
        env = {**identity_env(apple, google), "LATCHKEY_IDENTITIES_LINK_BY_VERIFIED_EMAIL": str(joins).lower(),
               "LATCHKEY_ADMIN_TOKEN_FILE": str(tmp_path / "admin.token")}
        s = Server(env=env).start()
        try:
            assert requests.post(f"{base(s)}/register", json={"email": email, "password": "correct horse battery"}, timeout=10).status_code == 201
            owner = requests.post(f"{base(s)}/login", json={"username": email, "password": "correct horse battery"}, timeout=10).json()
            # The app confirms at once without a mail, so the address is not verified until the operator says so.
            assert admin(s, "POST", f"/users/{email}/verify-email").status_code == 200
            sub = uuid.uuid4().hex
            r = login(s, "oauth2-apple", {"id_token": apple.token(sub, email=email)})
            assert r.status_code == 200, r.text
            me = profile(s, r.json()["access_token"])
            if joins:
                assert r.json()["user_id"] == owner["user_id"]
                assert [i["provider_type"] for i in me["identities"]] == ["local-userpass", "oauth2-apple"]
            else:
                # An account of its own, without the address another account holds.
                assert r.json()["user_id"] != owner["user_id"] and "email" not in me["data"]
            # An unverified claim never joins.
            other = login(s, "oauth2-apple", {"id_token": apple.token(uuid.uuid4().hex, email=email, verified=False)})
            assert other.json()["user_id"] != owner["user_id"]
        finally:
            s.cleanup()


def test_an_app_services_user_deletes_itself(server):
    anonymous = login(server, "anon-user").json()
    r = requests.delete(f"{server.base}/api/client/v2.0/auth/delete", headers={"Authorization": f"Bearer {anonymous['access_token']}"},
                        timeout=10)
    assert r.status_code == 200 and r.content == b""
    refreshed = requests.post(f"{server.base}/api/client/v2.0/auth/session",
                              headers={"Authorization": f"Bearer {anonymous['refresh_token']}"}, timeout=10)
    app_error(refreshed, 401, "InvalidSession")


def test_parse_sign_up_with_auth_data_and_a_password_keeps_both(server):
    """ParseSwift's instance signup() on a user that already has authData sends both; a new account gets both."""
    c = ParseClient(server)
    username, device = "both" + uuid.uuid4().hex[:6], str(uuid.uuid4())
    made = login_signup_response(ok(c.call("POST", "/users", {"username": username, "password": "correct horse 9",
                                                              "authData": {"anonymous": {"id": device}}}), 201))
    assert made["username"] == username
    assert ok(c.call("POST", "/login", {"username": username, "password": "correct horse 9"}))["objectId"] == made["objectId"]
    # Once the identity is known, the body's username and password are ignored (a login), as Parse Server does.
    again = ok(c.call("POST", "/users", {"username": "someone-else", "password": "x", "authData": {"anonymous": {"id": device}}}), 200)
    assert again["objectId"] == made["objectId"] and again["username"] == username


def test_an_account_made_with_apple_signs_in_natively_by_its_verified_address(server, apple):
    """Native authentication finds the account by its address whatever identities it has; its ID token's `sub` is
    the account id, the same as App Services' `user_id`."""
    import base64
    import strict
    from harness import ALL_TYPES
    email = f"{uuid.uuid4().hex[:10]}@example.com"
    realm = login(server, "oauth2-apple", {"id_token": apple.token("001234." + uuid.uuid4().hex, email=email)}).json()
    init = strict.ok(server.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}), "initiate")
    before = len(server.mails(email))
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": ALL_TYPES}),
                   "challenge")
    assert ch["challenge_type"] == "oob"  # no password: a code to the address Apple vouched for
    tokens = strict.ok(server.post("/oauth2/v2.0/token", {"grant_type": "oob", "oob": server.wait_for_code(email, before),
                                                          "continuation_token": ch["continuation_token"], "username": email,
                                                          "scope": "openid offline_access", "challenge_type": ALL_TYPES}), "token")
    payload = tokens["id_token"].split(".")[1]
    assert json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"] == realm["user_id"]


def test_a_server_that_fetched_issuer_keys_stops_cleanly(apple, google):
    """The issuers' HTTP clients live as long as the process: stopping after a key fetch is an orderly exit 0 (it
    once crashed after "latchkey stopped", as async-http-client refuses to be released without a shutdown)."""
    s = Server(env=identity_env(apple, google)).start()
    try:
        assert login(s, "oauth2-google", {"id_token": google.token(uuid.uuid4().hex)}).status_code == 200
        s.stop()
        assert s.proc.returncode == 0, s.read_log()[-2000:]
        assert "latchkey stopped" in s.read_log() and "Fatal error" not in s.read_log()
    finally:
        s.cleanup()
