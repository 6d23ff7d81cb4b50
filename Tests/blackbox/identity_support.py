"""What the identity tests share: a loopback Apple and Google issuer, a server with every provider on, and the
App Services calls they make."""
import json
import uuid

import pytest
import requests

from harness import Server
from issuer import APPLE_ISSUER, GOOGLE_ISSUER, Issuer
from parse_client import APP_ID, MASTER_KEY, ParseClient, ok

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
    """An App Services login (or, with `link`, a link onto the access token's user) as realm-core sends it."""
    url = f"{s.base}/api/client/v2.0/app/{APP}/auth/providers/{provider}/login" + ("?link=true" if link else "")
    headers = {"Authorization": f"Bearer {access}"} if access else {}
    return requests.post(url, json={"provider": provider, **(body or {}), "options": {"device": {"sdk": "Realm Swift"}}},
                         headers=headers, timeout=10)


def profile(s, access):
    r = requests.get(f"{s.base}/api/client/v2.0/auth/profile", headers={"Authorization": f"Bearer {access}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def app_error(r, status, code):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"] == "application/json"
    assert r.json()["error_code"] == code, r.text
    return r.json()["error"]


def user_count(s):
    return ok(ParseClient(s).call("GET", "/users", params={"count": "1", "limit": "0"}, master=True))["count"]


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
