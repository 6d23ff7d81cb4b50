"""Ways in other than a password, over real sockets: anonymous accounts, Apple and Google ID tokens checked against a
loopback issuer's keys, linking and unlinking, in the App Services and Parse dialects, one account across both."""
import json
import uuid

import jwt
import pytest
import requests

from harness import Server
from issuer import APPLE_ISSUER, GOOGLE_ISSUER, Issuer
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, login_signup_response, ok

APPLE_AUD = "com.example.app"
GOOGLE_AUD = "123-abc.apps.googleusercontent.com"
APP = "my-app"
PROVIDERS = ["local-userpass", "anon-user", "api-key", "oauth2-apple", "oauth2-google"]
ADMIN_TOKEN = "0123456789abcdef0123456789abcdef-admin"


@pytest.fixture(scope="module")
def apple():
    issuer = Issuer(APPLE_ISSUER, APPLE_AUD)
    yield issuer
    issuer.close()


@pytest.fixture(scope="module")
def google():
    issuer = Issuer(GOOGLE_ISSUER, GOOGLE_AUD)
    yield issuer
    issuer.close()


def identity_env(apple, google, google_secret_file=None):
    google_entry = {"audiences": [GOOGLE_AUD], "jwks_url": google.jwks_url}
    if google_secret_file:
        google_entry.update({"client_secret_file": google_secret_file, "token_url": google.token_url})
    return {
        "LATCHKEY_IDENTITIES_PROVIDERS": json.dumps({"apple": {"audiences": [APPLE_AUD], "jwks_url": apple.jwks_url},
                                                     "google": google_entry}),
        "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": APP, "confirmation": {"mode": "auto"}, "providers": PROVIDERS}]),
        "LATCHKEY_PARSE_APPS": json.dumps([{"id": APP_ID, "master_key": MASTER_KEY, "auth": ["anonymous", "apple", "google"]}]),
    }


@pytest.fixture(scope="module")
def server(apple, google, tmp_path_factory):
    token_file = tmp_path_factory.mktemp("admin") / "admin.token"
    token_file.write_text(ADMIN_TOKEN)
    secret_file = token_file.parent / "google.secret"
    secret_file.write_text(google.client_secret + "\n")
    s = Server(env={**identity_env(apple, google, str(secret_file)), "LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    yield s
    s.cleanup()


def login(s, provider, body=None, access=None, link=False):
    url = f"{s.base}/api/client/v2.0/app/{APP}/auth/providers/{provider}/login" + ("?link=true" if link else "")
    headers = {"Authorization": f"Bearer {access}"} if access else {}
    return s.session.post(url, json={"provider": provider, **(body or {}), "options": {"device": {"sdk": "Realm Swift"}}},
                          headers=headers) if hasattr(s, "session") else __import__("requests").post(
        url, json={"provider": provider, **(body or {}), "options": {"device": {"sdk": "Realm Swift"}}}, headers=headers, timeout=10)


def profile(s, access):
    r = __import__("requests").get(f"{s.base}/api/client/v2.0/auth/profile", headers={"Authorization": f"Bearer {access}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def app_error(r, status, code):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"] == "application/json"
    assert r.json()["error_code"] == code, r.text
    return r.json()["error"]


def user_count(s):
    return ok(ParseClient(s).call("GET", "/users", params={"count": "1", "limit": "0"}, master=True))["count"]


def test_anonymous_app_services_users_are_new_accounts_the_sdk_sees_as_anonymous(server):
    first = login(server, "anon-user")
    assert first.status_code == 200, first.text
    body = first.json()
    assert set(body) >= {"access_token", "refresh_token", "user_id", "device_id"}
    me = profile(server, body["access_token"])
    # realm-core: anonymous exactly when the one identity listed is anon-user.
    assert [i["provider_type"] for i in me["identities"]] == ["anon-user"] and me["type"] == "normal" and me["data"] == {}
    assert login(server, "anon-user").json()["user_id"] != body["user_id"]
    refreshed = __import__("requests").post(f"{server.base}/api/client/v2.0/auth/session",
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
    refreshed = __import__("requests").post(f"{server.base}/api/client/v2.0/auth/session",
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


def test_an_imported_apple_user_signs_in_again_and_keeps_their_object_id(server, apple):
    """`latchkey import --format parse` carries authData: the Apple user signs in with a fresh Apple token."""
    import subprocess
    from harness import BINARY
    sub = "001234." + uuid.uuid4().hex
    object_id = "imp" + uuid.uuid4().hex[:7]
    docs = [{"_id": object_id, "username": "imported" + uuid.uuid4().hex[:6], "_created_at": {"$date": "2021-03-04T05:06:07.089Z"},
             "_auth_data_apple": {"id": sub, "token": "stale"}, "_auth_data_anonymous": None},
            {"objectId": "rest" + uuid.uuid4().hex[:6], "username": "rest" + uuid.uuid4().hex[:6],
             "authData": {"google": {"id": "g-" + uuid.uuid4().hex}, "corp": {"id": "c1"}}}]
    path = f"{server.dir}/users-{uuid.uuid4().hex[:6]}.json"
    with open(path, "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    done = subprocess.run([BINARY, "import", "--format", "parse", path], env=server.env, cwd=server.dir, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # apple and google are served here; corp is kept until it is configured.
    assert "3 (1 of providers not configured here)" in done.stdout, done.stdout
    back = ok(ParseClient(server).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 200)
    assert back["objectId"] == object_id and back["createdAt"] == "2021-03-04T05:06:07.089Z"
    # And through App Services, the same account.
    realm = login(server, "oauth2-apple", {"id_token": apple.token(sub)}).json()
    assert [i["id"] for i in profile(server, realm["access_token"])["identities"]] == [sub]


def admin(s, method, path, body=None):
    return requests.request(method, f"{s.admin_base}/admin/v1{path}", json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
                            timeout=10)


def api_keys(s, method, path="", refresh=None, body=None):
    headers = {"Authorization": f"Bearer {refresh}"} if refresh else {}
    return requests.request(method, f"{s.base}/api/client/v2.0/auth/api_keys{path}", json=body, headers=headers, timeout=10)


def registered(s):
    email = f"{uuid.uuid4().hex[:10]}@example.com"
    base = f"{s.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass"
    assert requests.post(f"{base}/register", json={"email": email, "password": "correct horse battery"}, timeout=10).status_code == 201
    r = requests.post(f"{base}/login", json={"username": email, "password": "correct horse battery"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def test_user_api_keys_sign_in_as_their_owner_and_are_managed_with_the_refresh_token(server):
    owner = registered(server)
    created = api_keys(server, "POST", refresh=owner["refresh_token"], body={"name": "laptop"})
    assert created.status_code == 201, created.text
    key = created.json()
    assert set(key) == {"_id", "key", "name", "disabled"} and len(key["_id"]) == 24 and int(key["_id"], 16) >= 0 and not key["disabled"]
    listed = api_keys(server, "GET", refresh=owner["refresh_token"]).json()
    assert listed == [{"_id": key["_id"], "name": "laptop", "disabled": False}]  # never the key again
    assert api_keys(server, "GET", f"/{key['_id']}", refresh=owner["refresh_token"]).json() == listed[0]
    signed_in = login(server, "api-key", {"key": key["key"]})
    assert signed_in.status_code == 200 and signed_in.json()["user_id"] == owner["user_id"]
    assert profile(server, signed_in.json()["access_token"])["type"] == "normal"
    # Disabled, it signs nobody in; enabled again, it does.
    assert api_keys(server, "PUT", f"/{key['_id']}/disable", refresh=owner["refresh_token"]).status_code == 200
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    assert api_keys(server, "PUT", f"/{key['_id']}/enable", refresh=owner["refresh_token"]).status_code == 200
    assert login(server, "api-key", {"key": key["key"]}).status_code == 200
    # Another user's key is not found to them (never 401: realm-core would log them out).
    stranger = registered(server)
    for method, path in (("GET", f"/{key['_id']}"), ("DELETE", f"/{key['_id']}"), ("PUT", f"/{key['_id']}/disable")):
        app_error(api_keys(server, method, path, refresh=stranger["refresh_token"]), 404, "APIKeyNotFound")
    assert api_keys(server, "GET", refresh=stranger["refresh_token"]).json() == []
    # Anonymous users have none; an API key is never linked onto an account.
    anonymous = login(server, "anon-user").json()
    app_error(api_keys(server, "POST", refresh=anonymous["refresh_token"], body={"name": "x"}), 400, "InvalidParameter")
    app_error(login(server, "api-key", {"key": key["key"]}, access=stranger["access_token"], link=True), 400, "InvalidParameter")
    # The operator sees and revokes it; then it signs nobody in.
    assert [k["id"] for k in admin(server, "GET", f"/users/{owner['user_id']}/api-keys").json()["api_keys"]] == [key["_id"]]
    assert api_keys(server, "DELETE", f"/{key['_id']}", refresh=owner["refresh_token"]).status_code == 200
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    app_error(api_keys(server, "GET", refresh="not-a-token"), 401, "InvalidSession")


def test_server_api_keys_are_made_and_revoked_by_the_operator(server):
    made = admin(server, "POST", "/api-keys", {"app": APP, "name": "backend-" + uuid.uuid4().hex[:6]})
    assert made.status_code == 201, made.text
    key = made.json()
    r = login(server, "api-key", {"key": key["key"]})
    assert r.status_code == 200, r.text
    me = profile(server, r.json()["access_token"])
    assert me["type"] == "server" and me["user_id"] == key["user_id"] and me["data"]["name"] == key["name"]
    assert key["id"] in [k["id"] for k in admin(server, "GET", f"/api-keys?app={APP}").json()["api_keys"]]
    assert "key" not in admin(server, "GET", "/api-keys").json()["api_keys"][0]
    assert admin(server, "POST", "/api-keys", {"app": "no-such-app", "name": "x"}).status_code == 404
    assert admin(server, "DELETE", f"/api-keys/{key['id']}").status_code == 204
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    assert admin(server, "DELETE", f"/api-keys/{key['id']}").status_code == 404


def test_the_operator_sees_finds_and_unlinks_identities(server, google):
    anonymous = login(server, "anon-user").json()
    sub = uuid.uuid4().hex
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}, access=anonymous["access_token"], link=True).status_code == 200
    user = anonymous["user_id"]
    assert [i["provider"] for i in admin(server, "GET", f"/users/{user}/identities").json()["identities"]] == ["anonymous", "google"]
    assert admin(server, "GET", f"/identities/google/{sub}").json()["id"] == user
    assert admin(server, "GET", "/identities/google/nobody").status_code == 404
    assert admin(server, "DELETE", f"/users/{user}/identities/google").status_code == 204
    assert admin(server, "DELETE", f"/users/{user}/identities/google").status_code == 404
    # The anonymous identity is now the only way in: it stays.
    assert admin(server, "DELETE", f"/users/{user}/identities/anonymous").json()["error"] == "last_way_in"


def test_the_cli_manages_server_keys_and_shows_identities(server):
    import subprocess
    from harness import BINARY

    def cli(*args):
        done = subprocess.run([BINARY, *args], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout
    made = dict(line.split("\t") for line in cli("api-keys", "create", "--app", APP, "--name", "cli-" + uuid.uuid4().hex[:6]).splitlines())
    signed_in = login(server, "api-key", {"key": made["key"]})
    assert signed_in.status_code == 200
    user = signed_in.json()["user_id"]
    assert made["id"] in cli("api-keys", "list", "--app", APP)
    assert f"api-key\t{made['id']}" in cli("users", "identities", user)
    assert user in cli("users", "by-identity", "api-key", made["id"])
    assert f"revoked {made['id']}" in cli("api-keys", "revoke", made["id"])
    app_error(login(server, "api-key", {"key": made["key"]}), 401, "AuthError")
    gone = subprocess.run([BINARY, "api-keys", "revoke", made["id"]], env=server.env, cwd=server.dir, capture_output=True, text=True)
    assert gone.returncode != 0 and "no API key has that id" in gone.stderr


def test_export_and_import_carry_identities_to_another_deployment(server, apple, google, tmp_path):
    import subprocess
    from harness import BINARY
    sub = "001234." + uuid.uuid4().hex
    made = ok(ParseClient(server).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 201)
    export = str(tmp_path / "users.jsonl")
    done = subprocess.run([BINARY, "export", export], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(export) as f:
        lines = [json.loads(line) for line in f]
    mine = next(line for line in lines if line["object_id"] == made["objectId"])
    assert mine["identities"] == [{"provider": "apple", "subject": sub}] and "token" not in json.dumps(mine)
    other = Server(env=identity_env(apple, google)).start()
    try:
        done = subprocess.run([BINARY, "import", "--format", "jsonl", export], env=other.env, cwd=other.dir, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        back = ok(ParseClient(other).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 200)
        assert back["objectId"] == made["objectId"]
    finally:
        other.cleanup()


def test_a_google_server_auth_code_is_exchanged_for_the_same_identity(server, google):
    sub = uuid.uuid4().hex
    by_code = login(server, "oauth2-google", {"authCode": google.code_for(sub)})
    assert by_code.status_code == 200, by_code.text
    # The id_token form reaches the same account.
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}).json()["user_id"] == by_code.json()["user_id"]
    assert "refused" in app_error(login(server, "oauth2-google", {"authCode": "4/used-or-made-up"}), 401, "AuthError")
