"""How a sign-in was proven (RFC 8176 `amr`, and `acr`) comes from one place for every path: App Services access
tokens say it and keep saying it through refreshes and links, and the `sign_in` audit of every dialect (Parse's
sessions included) names it. Closes "ID tokens from the native MFA path carry no amr/acr" for the App Services path."""
import base64
import json
import uuid

import pytest  # noqa: F401
import requests

from identity_support import APP, admin, api_keys, login
from identity_support import apple, google, server  # noqa: F401 (fixtures)
from parse_client import ParseClient, ok

BASE = "/api/client/v2.0"
PW = "correct horse battery"


def claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def methods(token):
    c = claims(token)
    return c.get("amr"), c.get("acr")


def password_login(s):
    email = f"amr-{uuid.uuid4().hex[:10]}@example.com"
    r = requests.post(f"{s.base}{BASE}/app/{APP}/auth/providers/local-userpass/register", json={"email": email, "password": PW},
                      timeout=10)
    assert r.status_code == 201, r.text
    r = login(s, "local-userpass", {"username": email, "password": PW})
    assert r.status_code == 200, r.text
    return r.json()


def test_app_services_tokens_say_how_the_sign_in_was_proven_through_refresh_and_link(server, apple):
    body = password_login(server)
    assert methods(body["access_token"]) == (["pwd"], "1")
    assert claims(body["refresh_token"])["amr"] == ["pwd"]
    # A refreshed access token says what the session's sign-in was.
    r = requests.post(f"{server.base}{BASE}/auth/session", headers={"Authorization": f"Bearer {body['refresh_token']}"}, timeout=10)
    assert r.status_code == 200, r.text
    assert methods(r.json()["access_token"]) == (["pwd"], "1")
    # Linking adds a way in; it proves nothing new about this session's sign-in.
    linked = login(server, "oauth2-apple", {"id_token": apple.token("001." + uuid.uuid4().hex)}, access=body["access_token"], link=True)
    assert linked.status_code == 200, linked.text
    assert methods(linked.json()["access_token"]) == (["pwd"], "1")


def test_each_way_in_has_its_own_methods_and_anonymous_proves_nobody(server, apple):
    anonymous = login(server, "anon-user").json()
    assert methods(anonymous["access_token"]) == ([], "0")
    federated = login(server, "oauth2-apple", {"id_token": apple.token("001." + uuid.uuid4().hex)}).json()
    assert methods(federated["access_token"]) == (["fed"], "1")
    owner = password_login(server)
    key = api_keys(server, "POST", refresh=owner["refresh_token"], body={"name": f"k{uuid.uuid4().hex[:6]}"})
    assert key.status_code == 201, key.text
    by_key = login(server, "api-key", {"key": key.json()["key"]})
    assert by_key.status_code == 200, by_key.text
    assert methods(by_key.json()["access_token"]) == (["api_key"], "1")


def test_the_sign_in_audit_names_the_methods_on_every_path(server):
    email = f"audit-{uuid.uuid4().hex[:10]}@example.com"
    name = f"p{uuid.uuid4().hex[:10]}"
    ok(ParseClient(server).call("POST", "/users", {"username": name, "password": PW, "email": email}), 201)
    ok(ParseClient(server).call("POST", "/login", {"username": name, "password": PW}))
    password_login(server)
    login(server, "anon-user")
    events = admin(server, "GET", "/audit?kind=sign_in&limit=1000").json()["events"]
    details = [e["detail"] for e in events]
    assert "parse password; amr [pwd]" in details, details[-5:]
    assert "app_services password; amr [pwd]" in details
    assert "anonymous; amr []" in details
