"""Client mistakes get the dialect's error shape and a 4xx, never a 5xx; nothing half-written."""
import json
import random
import time

import pytest
import requests

import strict
from harness import ALL_TYPES, CLIENT_ID, Server

ENDPOINTS = ["signup/v1.0/start", "signup/v1.0/challenge", "signup/v1.0/continue",
             "oauth2/v2.0/initiate", "oauth2/v2.0/challenge", "oauth2/v2.0/token"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_missing_and_unknown_client_id(server, endpoint):
    r = requests.post(f"{server.base}/{endpoint}", data={"username": "a@example.com", "challenge_type": ALL_TYPES})
    assert "client_id" in strict.error(r, "unauthorized_client")["error_description"]
    strict.error(server.post(f"/{endpoint}", {"client_id": "99999999-0000-0000-0000-000000000000",
                                              "username": "a@example.com", "challenge_type": ALL_TYPES}), "unauthorized_client")


def test_missing_and_invalid_username(server):
    for username in (None, "", "not-an-email", "a@b", "two@@example.com"):
        body = strict.error(server.post("/signup/v1.0/start", {"username": username, "challenge_type": ALL_TYPES}),
                            "invalid_request", code=90100)
        # Missing: the parameter is named; present but not an address: it says what is wrong with it.
        expected = "username parameter is empty or not valid" if not username else "username is not a valid email address: "
        assert expected in body["error_description"], body
    strict.error(server.post("/oauth2/v2.0/initiate", {"username": "nope", "challenge_type": ALL_TYPES}), "invalid_request")


def test_missing_challenge_type_and_continuation_token(server):
    strict.error(server.post("/signup/v1.0/start", {"username": "a@example.com"}), "invalid_request")
    strict.error(server.post("/signup/v1.0/challenge", {"challenge_type": ALL_TYPES}), "invalid_request")
    strict.error(server.post("/signup/v1.0/continue", {"grant_type": "oob", "oob": "1"}), "invalid_request")


def test_unparseable_continuation_token(server):
    for ct in ("garbage", "x" * 5000, "%00", "AAAA"):
        strict.error(server.post("/signup/v1.0/challenge", {"continuation_token": ct, "challenge_type": ALL_TYPES}),
                     "invalid_grant", code=55200)
        strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "oob", "oob": "1", "continuation_token": ct}), "invalid_grant")


def test_expired_continuation_token():
    s = Server(env={"LATCHKEY_TOKENS_FLOW_TTL_SECONDS": "1"}).start()
    try:
        body = strict.ok(s.post("/signup/v1.0/start", {"username": "late@example.com", "password": "correct horse battery",
                                                       "challenge_type": ALL_TYPES}), "signup/start")
        time.sleep(1.5)
        strict.error(s.post("/signup/v1.0/challenge", {"continuation_token": body["continuation_token"],
                                                       "challenge_type": ALL_TYPES}), "expired_token", code=552003)
    finally:
        s.cleanup()


def test_unsupported_grant_types(server):
    strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "client_credentials"}), "unsupported_grant_type")
    strict.error(server.post("/signup/v1.0/continue", {"grant_type": "magic", "continuation_token": "x"}), "unsupported_grant_type")
    strict.error(server.post("/oauth2/v2.0/token", {}), "invalid_request")
    strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token"}), "invalid_request")
    strict.error(server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": "nope"}), "invalid_grant")


def test_wrong_step_is_a_client_error(server, email):
    s = strict.ok(server.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                     "challenge_type": ALL_TYPES}), "signup/start")
    ct = s["continuation_token"]
    strict.error(server.post("/signup/v1.0/continue", {"continuation_token": ct, "grant_type": "oob", "oob": "12345678"}), "invalid_request")
    strict.error(server.post("/signup/v1.0/continue", {"continuation_token": ct, "grant_type": "password",
                                                       "password": "correct horse battery"}), "invalid_request")
    strict.error(server.post("/signup/v1.0/continue", {"continuation_token": ct, "grant_type": "attributes",
                                                       "attributes": "{}"}), "invalid_request")


def test_body_over_64_kib_is_413(server):
    r = requests.post(server.base + "/signup/v1.0/start", data={"client_id": CLIENT_ID, "username": "a" * (70 * 1024)})
    assert r.status_code == 413 and r.json()["error"] == "request_too_large"
    r = requests.post(server.base + "/signup/v1.0/start", data=b"x" * (2 * 1024 * 1024),
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


def test_unknown_path_is_404_json(server):
    r = server.get("/no/such/thing")
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/json" and r.json()["error"] == "not_found"
    # A method the path does not serve: 405 with the methods it does (RFC 9110 §15.5.6), in the dialect's shape.
    r = server.get("/signup/v1.0/start")
    assert r.status_code == 405 and r.headers["Allow"] == "POST" and r.json()["error"] == "invalid_request"
    r = requests.request("TRACE", server.base + "/.well-known/openid-configuration")
    assert r.status_code == 405 and r.headers["Allow"] == "GET"
    r = requests.put(server.base + "/contoso/oauth2/v2.0/token")
    assert r.status_code == 405 and r.headers["Allow"] == "POST"


def test_json_body_instead_of_form(server):
    r = requests.post(server.base + "/signup/v1.0/start", data=json.dumps({"client_id": CLIENT_ID}),
                      headers={"Content-Type": "application/json"})
    assert r.status_code == 415 and "application/x-www-form-urlencoded" in r.json()["error_description"], r.text


def test_random_garbage_never_yields_5xx(server):
    rng = random.Random(7)
    keys = ["client_id", "username", "password", "challenge_type", "continuation_token", "grant_type", "oob",
            "attributes", "scope", "refresh_token", "new_password", "\u00e9", "%", ""]
    values = ["", "x", "0" * 300, CLIENT_ID, "oob", "password", "redirect", "{}", "[]", "{\"postalCode\":1}", "null",
              "\u202e\u0000", "a@example.com", "1e999", "-1", "oob password redirect", "refresh_token", "continuation_token"]
    for _ in range(300):
        form = {rng.choice(keys): rng.choice(values) for _ in range(rng.randint(0, 6))}
        endpoint = rng.choice(ENDPOINTS)
        r = requests.post(f"{server.base}/{endpoint}", data=form, timeout=10)
        assert r.status_code < 500, (endpoint, form, r.status_code, r.text)
        assert "error" in r.json() or r.status_code == 200
