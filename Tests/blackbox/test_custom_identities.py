"""The operator's own ways in for App Services: custom JWTs (`custom-token`, with an HS256 secret or a PEM public
key, claims mapped into the profile) and a login function (`custom-function`, the SDK's Extended JSON payload)."""
import json
import os
import time
import uuid

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from harness import ROOT, Server

SECRET = "a-shared-secret-of-at-least-32-bytes-0123456789"
AUDIENCE = "my-app"


@pytest.fixture(scope="module")
def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def server(tmp_path_factory, rsa_key):
    folder = tmp_path_factory.mktemp("custom")
    (folder / "jwt.secret").write_text(SECRET + "\n")
    (folder / "partner.pem").write_bytes(rsa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                         serialization.PublicFormat.SubjectPublicKeyInfo))
    log = str(folder / "login.log")
    env = {
        "LATCHKEY_IDENTITIES_CUSTOM_JWT": json.dumps({
            "shared": {"audiences": [AUDIENCE], "hs256_secret_file": str(folder / "jwt.secret"),
                       "claims": {"name": "user_data.name", "occupation": "user_data.occupation"}},
            "partner": {"audiences": [AUDIENCE], "issuer": "https://partner.example.com", "public_key_file": str(folder / "partner.pem")}}),
        "LATCHKEY_FUNCTIONS": json.dumps({"login": {"kind": "command", "timeout_seconds": 5,
                                                    "command": [os.path.join(ROOT, "Tests", "blackbox", "functions", "login.py")]}}),
        "LATCHKEY_APP_SERVICES_APPS": json.dumps([
            {"id": "hs", "confirmation": {"mode": "auto"}, "providers": ["custom-token", "custom-function"], "custom_token": "shared",
             "custom_function": "login"},
            {"id": "rs", "confirmation": {"mode": "auto"}, "providers": ["custom-token"], "custom_token": "partner"}]),
        "LOGIN_LOG": log,
    }
    s = Server(env=env).start()
    s.login_log = log
    yield s
    s.cleanup()


def login(s, app, provider, body):
    return requests.post(f"{s.base}/api/client/v2.0/app/{app}/auth/providers/{provider}/login",
                         json={**body, "options": {"device": {"sdk": "Realm Swift", "platformVersion": "17.2"}}}, timeout=20)


def profile(s, access):
    return requests.get(f"{s.base}/api/client/v2.0/auth/profile", headers={"Authorization": f"Bearer {access}"}, timeout=10).json()


def refused(r, status=401):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"] == "application/json" and r.json()["error_code"] == "AuthError", r.text
    return r.json()["error"]


def hs_token(sub, **claims):
    body = {"aud": AUDIENCE, "sub": sub, "exp": int(time.time()) + 600, **claims}
    return jwt.encode(body, SECRET, algorithm="HS256")


def test_an_hs256_custom_token_signs_in_and_maps_its_claims_on_every_login(server):
    sub = uuid.uuid4().hex
    first = login(server, "hs", "custom-token", {"provider": "custom-token",
                                                  "token": hs_token(sub, user_data={"name": "Foo Bar", "occupation": "pilot"})})
    assert first.status_code == 200, first.text
    me = profile(server, first.json()["access_token"])
    assert [(i["provider_type"], i["id"]) for i in me["identities"]] == [("custom-token", sub)]
    assert me["data"] == {"name": "Foo Bar", "occupation": "pilot"}
    again = login(server, "hs", "custom-token", {"provider": "custom-token",
                                                  "token": hs_token(sub, user_data={"name": "Foo Baz", "occupation": "pilot"})})
    assert again.json()["user_id"] == first.json()["user_id"]
    assert profile(server, again.json()["access_token"])["data"]["name"] == "Foo Baz"


def test_bad_custom_tokens_are_refused(server, rsa_key):
    sub = uuid.uuid4().hex
    now = int(time.time())
    for token in (jwt.encode({"aud": AUDIENCE, "sub": sub, "exp": now + 600}, "another-secret-of-at-least-32-bytes!!", algorithm="HS256"),
                  hs_token(sub, aud="someone-else"),
                  jwt.encode({"aud": AUDIENCE, "sub": sub, "exp": now - 600}, SECRET, algorithm="HS256"),
                  jwt.encode({"aud": AUDIENCE, "sub": sub, "exp": now + 600}, None, algorithm="none"),
                  # An RSA-signed token for the app whose key is an HMAC secret.
                  jwt.encode({"aud": AUDIENCE, "sub": sub, "exp": now + 600}, rsa_key, algorithm="RS256"),
                  "garbage"):
        refused(login(server, "hs", "custom-token", {"provider": "custom-token", "token": token}))


def test_a_pem_public_key_verifies_rs256_tokens_from_its_issuer(server, rsa_key):
    sub = uuid.uuid4().hex
    claims = {"aud": AUDIENCE, "sub": sub, "iss": "https://partner.example.com", "exp": int(time.time()) + 600}
    ok = login(server, "rs", "custom-token", {"provider": "custom-token", "token": jwt.encode(claims, rsa_key, algorithm="RS256")})
    assert ok.status_code == 200, ok.text
    assert "issuer" in refused(login(server, "rs", "custom-token", {"provider": "custom-token", "token": jwt.encode(
        {**claims, "iss": "https://elsewhere.example.com"}, rsa_key, algorithm="RS256")}))
    # HS256 keyed with the public key: the algorithm-confusion forgery.
    public_pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    import base64, hashlib, hmac
    b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    head, body = b64(b'{"alg":"HS256","typ":"JWT"}'), b64(json.dumps(claims).encode())
    forged = f"{head}.{body}.{b64(hmac.new(public_pem, f'{head}.{body}'.encode(), hashlib.sha256).digest())}"
    refused(login(server, "rs", "custom-token", {"provider": "custom-token", "token": forged}))
    # The other app does not take custom-function.
    r = login(server, "rs", "custom-function", {"externalId": "x"})
    assert r.status_code == 404 and r.json()["error_code"] == "AuthProviderNotFound"


def test_a_login_function_gets_the_payload_in_plain_json_and_names_the_identity(server):
    external = "emp-" + uuid.uuid4().hex[:8]
    # What realm-core sends: canonical Extended JSON, no provider key, options added by the SDK.
    body = {"externalId": external, "mode": "object", "email": f"{external}@example.com", "level": {"$numberInt": "3"},
            "since": {"$date": {"$numberLong": "1614834367089"}}}
    first = login(server, "hs", "custom-function", body)
    assert first.status_code == 200, first.text
    with open(server.login_log) as f:
        received = json.loads(f.readlines()[-1])
    assert received["level"] == 3 and received["since"].startswith("2021-03-04T05:06:07.089") and "options" not in received
    me = profile(server, first.json()["access_token"])
    assert [(i["provider_type"], i["id"]) for i in me["identities"]] == [("custom-function", external)]
    assert me["data"]["name"] == "Grace Hopper" and me["data"]["email"] == f"{external}@example.com"
    # A plain string answer names the same identity: the same user.
    assert login(server, "hs", "custom-function", {"externalId": external}).json()["user_id"] == first.json()["user_id"]
    assert "no such employee" in refused(login(server, "hs", "custom-function", {"externalId": "x", "mode": "refuse"}))
    for mode in ("junk", "crash"):
        message = refused(login(server, "hs", "custom-function", {"externalId": "x", "mode": mode}))
        assert "login.py" not in message and "exit" not in message
