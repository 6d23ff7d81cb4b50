"""Every value realm-core (v14.14.0, under every Realm SDK) parses from the App Services dialect, checked the way
core reads it, not only for its shape (docs/app-services.md, "What the Realm SDKs read").

core's `RealmJWT` (jwt.cpp) takes a token as three dot-separated parts with a non-empty signature and a base64url
payload that parses as JSON with 64-bit integer `exp` and `iat` (a float or a string asserts); `app_metadata.cpp`
builds one from the refresh token as from the access token, and a login whose tokens do not parse fails with
"malformed JWT". API keys' `_id` is read as an ObjectId (24 hex, asserted), the profile's fields as strings, error
bodies only under `Content-Type: application/json` exactly, and `error_code` by name."""
import base64
import json
import re
import time
import uuid

import pytest
import requests

from identity_support import APP, app_error, login, profile
from identity_support import apple, google, server  # noqa: F401 (fixtures)
from jwks import verify as verify_es256

BASE = "/api/client/v2.0"
PW = "correct horse battery"
SIXTY_DAYS, FIVE_YEARS = 5_184_000, 157_680_000
# core's ErrorCodes names (error_codes.cpp) the App Services answers below must map to; anything else becomes
# AppServerError, which no SDK turns into the error an app catches.
CORE_SERVICE_CODES = {"AccountNameInUse", "InvalidPassword", "AuthError", "UserpassTokenInvalid", "BadRequest", "InvalidSession",
                      "UserAlreadyConfirmed", "UserNotFound", "MissingParameter", "InvalidParameter", "APIKeyNotFound",
                      "AuthProviderNotFound"}


def b64(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def core_jwt(token):
    """What RealmJWT accepts: the payload, or an assertion naming what core would refuse."""
    assert isinstance(token, str)
    parts = token.split(".")
    assert len(parts) == 3 and parts[0] and parts[2], f"not three parts with a signature: {token[:60]}"
    assert re.fullmatch(r"[A-Za-z0-9_-]+", parts[1]), "payload is not base64url"
    payload = json.loads(b64(parts[1]))
    assert isinstance(payload, dict)
    for claim in ("exp", "iat"):
        # bool is an int in Python; core's BSON of JSON true is no Int64.
        assert type(payload[claim]) is int and -2**63 <= payload[claim] < 2**63, (claim, payload[claim])
    if "user_data" in payload:
        assert isinstance(payload["user_data"], dict)
    return payload


def login_answer(r):
    assert r.status_code == 200, r.text
    body = r.json()
    for field in ("access_token", "refresh_token", "user_id", "device_id"):
        assert isinstance(body[field], str) and body[field], field
    assert re.fullmatch(r"[0-9a-f]{24}", body["device_id"]) and body["device_id"] != "0" * 24
    access, refresh = core_jwt(body["access_token"]), core_jwt(body["refresh_token"])
    assert access["sub"] == body["user_id"] and access["typ"] == "access"
    assert refresh["sub"] == body["user_id"] and refresh["typ"] == "refresh"
    assert re.fullmatch(r"[0-9a-f]{24}", refresh["baas_id"]) and refresh["baas_device_id"] == body["device_id"]
    return body, access, refresh


def session(s, method, refresh):
    return requests.request(method, f"{s.base}{BASE}/auth/session", headers={"Authorization": f"Bearer {refresh}"}, timeout=10)


def register_and_login(s):
    email = f"core-{uuid.uuid4().hex[:10]}@example.com"
    r = requests.post(f"{s.base}{BASE}/app/{APP}/auth/providers/local-userpass/register", json={"email": email, "password": PW},
                      timeout=10)
    assert r.status_code == 201, r.text
    return email, login(s, "local-userpass", {"username": email, "password": PW})


def test_every_login_answers_a_refresh_token_core_parses_as_a_jwt(server, apple, google):
    _, r = register_and_login(server)
    _, _, refresh = login_answer(r)
    assert refresh["exp"] - refresh["iat"] == SIXTY_DAYS and abs(refresh["iat"] - time.time()) < 60
    _, _, anonymous = login_answer(login(server, "anon-user"))
    assert anonymous["exp"] - anonymous["iat"] == FIVE_YEARS
    login_answer(login(server, "oauth2-apple", {"id_token": apple.token("001." + uuid.uuid4().hex)}))
    login_answer(login(server, "oauth2-google", {"id_token": google.token(uuid.uuid4().hex)}))


def test_an_api_key_login_answers_a_jwt_and_api_key_objects_are_what_core_reads(server):
    _, r = register_and_login(server)
    body, _, _ = login_answer(r)
    keys = f"{server.base}{BASE}/auth/api_keys"
    bearer = {"Authorization": f"Bearer {body['refresh_token']}"}
    created = requests.post(keys, json={"name": "ci"}, headers=bearer, timeout=10)
    assert created.status_code == 201, created.text
    key = created.json()
    assert re.fullmatch(r"[0-9a-f]{24}", key["_id"]) and key["name"] == "ci" and key["disabled"] is False
    assert isinstance(key["key"], str) and key["key"]
    listed = requests.get(keys, headers=bearer, timeout=10).json()
    fetched = requests.get(f"{keys}/{key['_id']}", headers=bearer, timeout=10).json()
    for item in listed + [fetched]:
        # core reads `key` as optional: absent is fine, null is not a string.
        assert re.fullmatch(r"[0-9a-f]{24}", item["_id"]) and isinstance(item["disabled"], bool) and "key" not in item
    as_key, _, _ = login_answer(login(server, "api-key", {"key": key["key"]}))
    assert as_key["user_id"] == body["user_id"]


def test_refresh_link_location_and_profile_are_what_core_reads(server, apple):
    email, r = register_and_login(server)
    body, _, _ = login_answer(r)
    refreshed = session(server, "POST", body["refresh_token"])
    assert refreshed.status_code == 200 and core_jwt(refreshed.json()["access_token"])["sub"] == body["user_id"]
    anon, _, _ = login_answer(login(server, "anon-user"))
    linked = login(server, "oauth2-apple", {"id_token": apple.token("001." + uuid.uuid4().hex)}, access=anon["access_token"], link=True)
    assert linked.status_code == 200, linked.text
    assert core_jwt(linked.json()["access_token"])["sub"] == anon["user_id"]
    location = requests.get(f"{server.base}{BASE}/app/{APP}/location", timeout=10).json()
    assert isinstance(location["hostname"], str) and isinstance(location["ws_hostname"], str)
    me = profile(server, body["access_token"])
    assert isinstance(me["identities"], list) and isinstance(me["data"], dict) and isinstance(me["type"], str)
    for identity in me["identities"]:
        assert isinstance(identity["id"], str) and isinstance(identity["provider_type"], str)
    # UserProfile reads these as strings (a cast that asserts on anything else).
    for field in ("name", "email", "picture_url", "first_name", "last_name", "gender", "birthday", "min_age", "max_age"):
        assert field not in me["data"] or isinstance(me["data"][field], str), field
    assert me["data"]["email"] == email


def test_the_refresh_token_is_a_revocable_bearer_secret(server):
    _, r = register_and_login(server)
    body, _, claims = login_answer(r)
    token = body["refresh_token"]
    header, payload, signature = token.split(".")
    # Changing any claim (signature kept) or the signature is refused, without the session ending.
    longer = dict(claims, exp=claims["exp"] + 86400)
    altered = header + "." + base64.urlsafe_b64encode(json.dumps(longer).encode()).rstrip(b"=").decode() + "." + signature
    app_error(session(server, "POST", altered), 401, "InvalidSession")
    app_error(session(server, "POST", f"{header}.{payload}.{signature[:-4]}AAAA"), 401, "InvalidSession")
    assert session(server, "POST", token).status_code == 200
    # Not an access token: the profile refuses it, and it verifies under no published key.
    app_error(requests.get(f"{server.base}{BASE}/auth/profile", headers={"Authorization": f"Bearer {token}"}, timeout=10),
              401, "InvalidSession")
    assert json.loads(b64(header))["alg"] == "HS256"
    jwks = requests.get(f"{server.base}/discovery/v2.0/keys", timeout=10).json()
    with pytest.raises(Exception):
        verify_es256(token, jwks)
    # Logout ends it.
    assert session(server, "DELETE", token).status_code == 204
    app_error(session(server, "POST", token), 401, "InvalidSession")


def test_errors_core_maps_by_name_come_as_core_reads_them(server):
    email, r = register_and_login(server)
    login_answer(r)
    again = requests.post(f"{server.base}{BASE}/app/{APP}/auth/providers/local-userpass/register",
                          json={"email": email, "password": PW}, timeout=10)
    cases = [
        (again, 409, "AccountNameInUse"),
        (login(server, "local-userpass", {"username": email, "password": "wrong password here"}), 401, "InvalidPassword"),
        (requests.post(f"{server.base}{BASE}/app/{APP}/auth/providers/local-userpass/confirm",
                       json={"token": "a_token", "tokenId": "a_token_id"}, timeout=10), 400, "BadRequest"),
        (requests.post(f"{server.base}{BASE}/app/{APP}/auth/providers/local-userpass/reset/send",
                       json={"email": f"nobody-{uuid.uuid4().hex[:8]}@example.com"}, timeout=10), 404, "UserNotFound"),
        (session(server, "POST", "not-a-token"), 401, "InvalidSession"),
    ]
    for response, status, code in cases:
        assert code in CORE_SERVICE_CODES
        app_error(response, status, code)
