"""Dynamic client registration (RFC 7591) and the registering client's read and delete (RFC 7592): off unless turned
on, behind an initial access token when one is configured, loopback-http or https redirect URIs only, limited per
network; a registered client is third-party (consent, the browser sign-in only) and signs in end to end."""
import os
import secrets
import uuid

import pytest
import requests

from conftest import sign_up
from harness import Server
from openid_support import Pages
from test_openid import exchange, query
from test_openid import authorize_url as authorize

PASSWORD = "correct horse battery"
REDIRECT = "http://127.0.0.1/callback"


@pytest.fixture(scope="module")
def registrar(tmp_path_factory):
    folder = tmp_path_factory.mktemp("registration")
    token = secrets.token_hex(32)
    (folder / "registration.token").write_text(token + "\n")
    s = Server(args=("serve", "--testing"), env={"LATCHKEY_OPENID_REGISTRATION_ENABLED": "true",
                                                  "LATCHKEY_OPENID_REGISTRATION_TOKEN_FILE": str(folder / "registration.token")}).start()
    s.initial_token = token
    yield s
    s.cleanup()


def register(server, metadata, token=None):
    headers = {"Authorization": "Bearer " + token} if token else {}
    return requests.post(server.base + "/oauth2/register", json=metadata, headers=headers, timeout=10)


def refused(answer, error, status=400):
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert body["error"] == error and body["error_description"], body
    return body["error_description"]


def test_registration_is_off_unless_turned_on():
    s = Server().start()
    try:
        assert "registration_endpoint" not in requests.get(s.base + "/.well-known/oauth-authorization-server", timeout=10).json()
        refused(register(s, {"redirect_uris": [REDIRECT]}), "unauthorized_client")
    finally:
        s.cleanup()


def test_a_registered_public_client_signs_a_user_in_with_consent(registrar):
    s = registrar
    assert requests.get(s.base + "/.well-known/oauth-authorization-server", timeout=10).json()["registration_endpoint"] == \
        s.base + "/oauth2/register"
    refused(register(s, {"redirect_uris": [REDIRECT]}), "invalid_token", 401)
    refused(register(s, {"redirect_uris": [REDIRECT]}, token="x" * 64), "invalid_token", 401)
    answer = register(s, {"client_name": "Claude Desktop", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
                          "grant_types": ["authorization_code", "refresh_token"], "logo_uri": "https://ignored.example/logo.png"},
                      token=s.initial_token)
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store", answer.text
    client = answer.json()
    assert client["client_name"] == "Claude Desktop" and client["token_endpoint_auth_method"] == "none" and "client_secret" not in client
    assert client["grant_types"] == ["authorization_code", "refresh_token"] and client["response_types"] == ["code"]
    assert client["registration_client_uri"] == f"{s.base}/oauth2/register/{client['client_id']}"

    email = f"dcr-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(s, email, PASSWORD)
    url, verifier = authorize(s, client=client["client_id"], redirect="http://127.0.0.1:5123/callback")
    pages = Pages(s)
    consent = pages.sign_in(url, email, PASSWORD)
    # Third-party always: the user is asked, with the name the client gave itself.
    assert consent.status_code == 200 and "Claude Desktop" in consent.text and 'action="/ui/consent"' in consent.text, consent.text
    back = pages.submit(consent, "/ui/consent", decision="allow")
    assert back.status_code == 303
    tokens = exchange(s, query(back)["code"], verifier, client=client["client_id"], secret=None, redirect="http://127.0.0.1:5123/callback")
    assert tokens.status_code == 200 and {"access_token", "id_token", "refresh_token"} <= tokens.json().keys(), tokens.text
    # Never the native API's grants, which would skip consent.
    native = requests.post(s.base + "/oauth2/v2.0/initiate", data={"client_id": client["client_id"], "username": email,
                                                                    "challenge_type": "password redirect"}, timeout=10)
    assert native.status_code == 400 and native.json()["error"] == "unauthorized_client", native.text


def test_the_registering_client_reads_and_deletes_its_registration(registrar):
    s = registrar
    client = register(s, {"redirect_uris": ["https://app.example/cb"]}, token=s.initial_token).json()
    assert client["token_endpoint_auth_method"] == "client_secret_basic" and len(client["client_secret"]) >= 43
    uri, token = client["registration_client_uri"], client["registration_access_token"]
    read = requests.get(uri, headers={"Authorization": "Bearer " + token}, timeout=10)
    assert read.status_code == 200 and read.json()["client_id"] == client["client_id"]
    assert "client_secret" not in read.json() and "registration_access_token" not in read.json()
    refused(requests.get(uri, headers={"Authorization": "Bearer " + token[:-2] + "AA"}, timeout=10), "invalid_token", 401)
    refused(requests.get(uri, timeout=10), "invalid_token", 401)
    refused(requests.get(f"{s.base}/oauth2/register/{uuid.uuid4()}", headers={"Authorization": "Bearer " + token}, timeout=10),
            "invalid_token", 401)
    other = register(s, {"redirect_uris": ["https://app.example/cb"]}, token=s.initial_token).json()
    refused(requests.delete(uri, headers={"Authorization": "Bearer " + other["registration_access_token"]}, timeout=10), "invalid_token", 401)
    admin = requests.get(s.base + "/testing/v1/config", timeout=10).json()["admin_token"]
    listed = requests.get(s.admin_base + "/admin/v1/clients", headers={"Authorization": "Bearer " + admin}, timeout=10).json()["clients"]
    assert {c["id"]: c["source"] for c in listed}[client["client_id"]] == "registration"
    assert requests.delete(uri, headers={"Authorization": "Bearer " + token}, timeout=10).status_code == 204
    refused(requests.get(uri, headers={"Authorization": "Bearer " + token}, timeout=10), "invalid_token", 401)
    gone = Pages(s).get(authorize(s, client=client["client_id"], redirect="https://app.example/cb")[0])
    assert gone.status_code == 400 and "not registered" in gone.text


@pytest.mark.parametrize("metadata, error, words", [
    ({"redirect_uris": ["http://app.example/cb"]}, "invalid_redirect_uri", "must use https"),
    ({"redirect_uris": ["com.example.app:/cb"]}, "invalid_redirect_uri", "loopback"),
    ({"redirect_uris": ["https://app.example/cb#frag"]}, "invalid_redirect_uri", "fragment"),
    ({"redirect_uris": []}, "invalid_redirect_uri", "one to ten"),
    ({}, "invalid_redirect_uri", "one to ten"),
    ({"redirect_uris": "https://app.example/cb"}, "invalid_client_metadata", "array of strings"),
    ({"redirect_uris": [REDIRECT], "grant_types": ["password"]}, "invalid_client_metadata", "not password"),
    ({"redirect_uris": [REDIRECT], "grant_types": ["refresh_token"]}, "invalid_client_metadata", "must include authorization_code"),
    ({"redirect_uris": [REDIRECT], "response_types": ["token"]}, "invalid_client_metadata", "response_types"),
    ({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata", "token_endpoint_auth_method"),
    ({"redirect_uris": [REDIRECT], "scope": "openid payroll"}, "invalid_client_metadata", "not payroll"),
    ({"redirect_uris": [REDIRECT], "client_name": "x" * 101}, "invalid_client_metadata", "client_name"),
])
def test_metadata_that_cannot_be_registered_is_refused_naming_why(registrar, metadata, error, words):
    assert words in refused(register(registrar, metadata, token=registrar.initial_token), error)


def test_a_body_that_is_not_a_json_object_is_refused(registrar):
    for body in (b"[]", b"not json", b'{"redirect_uris": ["' + b"a" * 200_000 + b'"]}'):
        answer = requests.post(registrar.base + "/oauth2/register", data=body, timeout=10,
                               headers={"Content-Type": "application/json", "Authorization": "Bearer " + registrar.initial_token})
        assert answer.status_code in (400, 413), answer.text
    wrong_type = requests.post(registrar.base + "/oauth2/register", data="redirect_uris=x", timeout=10,
                               headers={"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + registrar.initial_token})
    assert wrong_type.status_code == 415


def test_registrations_from_one_network_are_limited():
    s = Server(env={"LATCHKEY_OPENID_REGISTRATION_ENABLED": "true", "LATCHKEY_LIMITS_ENABLED": "true"}).start()
    try:
        for _ in range(10):
            assert register(s, {"redirect_uris": [REDIRECT]}).status_code == 201
        limited = register(s, {"redirect_uris": [REDIRECT]})
        assert limited.status_code == 429 and "Retry-After" in limited.headers, limited.text
    finally:
        s.cleanup()
