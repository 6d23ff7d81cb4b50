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
