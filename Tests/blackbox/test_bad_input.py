"""Client mistakes and hostile requests get a 4xx at once in the dialect's error shape, never a 5xx, never a frozen
server, and nothing half-written."""
import base64
import json
import random
import threading
import time

import pytest
import requests

import rawhttp
import strict
from harness import ALL_TYPES, CLIENT_ID, Server
from test_app_services import app_error, call, provider

PW = "correct horse battery"

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


@pytest.mark.parametrize("bad", ["a\u0000b@example.com", "victim@example.com\u0000.evil", "a\u001b[31m@example.com",
                                 "ünï@example.com", "a b@example.com", "a@exa_mple.com", "a@-example.com", "x" * 65 + "@example.com",
                                 "a@" + "b" * 250 + ".com", ".a@example.com", "a..b@example.com"])
def test_addresses_outside_plain_ascii_are_refused(apps, bad):
    app_error(call(apps, "POST", provider("email-app", "register"), {"email": bad, "password": PW}), 400, "BadRequest")
    app_error(call(apps, "POST", provider("email-app", "reset/send"), {"email": bad}), 400, "BadRequest")
    strict.error(apps.post("/signup/v1.0/start", {"username": bad, "challenge_type": ALL_TYPES}), "invalid_request")


def test_malformed_reset_form_is_an_html_400(apps):
    r = requests.post(apps.base + "/reset-password", data=b"token=%zz&tokenId=%", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and r.headers["Content-Type"].startswith("text/html"), (r.status_code, r.text)


# Hostile shapes: deep nesting, broken framing, odd heads ------------------------------------------------------

APPS = [{"id": "app1"}]
REGISTER = "/api/client/v2.0/app/app1/auth/providers/local-userpass/register"


@pytest.fixture(scope="module")
def hostile():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS)}).start()
    yield s
    s.cleanup()


def nested(depth, copies):
    return '{"x":[' + ",".join(["[" * depth + "]" * depth] * copies) + "]}"


def test_deeply_nested_json_is_refused_at_once_and_does_not_freeze(hostile):
    body = nested(510, 16).encode()
    ready_times = []

    def probe():
        for _ in range(20):
            t = time.monotonic()
            requests.get(hostile.base + "/health/ready", timeout=10)
            ready_times.append(time.monotonic() - t)
    watcher = threading.Thread(target=probe)
    watcher.start()
    for _ in range(4):
        t = time.monotonic()
        answer = rawhttp.send(hostile.port, rawhttp.request("POST", REGISTER, body, {"Content-Type": "application/json"}))
        assert answer.status == 400 and answer.json()["error_code"] == "BadRequest"
        assert time.monotonic() - t < 0.5
    watcher.join()
    assert max(ready_times) < 0.5, ready_times


def test_nested_attributes_and_token_headers_are_refused_at_once(hostile):
    attributes = '{"a":' + "[" * 500 + "]" * 500 + "}"
    t = time.monotonic()
    r = requests.post(hostile.base + "/signup/v1.0/start", data={"client_id": CLIENT_ID, "username": "n@example.com",
                                                                 "challenge_type": "oob redirect", "attributes": attributes})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request" and time.monotonic() - t < 0.5
    header = base64.urlsafe_b64encode(("{\"a\":" + "[" * 5000 + "]" * 5000 + "}").encode()).decode().rstrip("=")
    for path in ("/oidc/userinfo", "/api/client/v2.0/auth/profile"):
        t = time.monotonic()
        r = requests.get(hostile.base + path, headers={"Authorization": f"Bearer {header}.e30.AAAA"})
        assert r.status_code == 401 and time.monotonic() - t < 0.5


FRAMING = [b"Transfer-Encoding: gzip\r\n", b"Transfer-Encoding: identity\r\n", b"Transfer-Encoding: xchunked\r\n",
           b"Transfer-Encoding: chunked\r\n"]


@pytest.mark.parametrize("path", ["/signup/v1.0/start", "/oauth2/v2.0/token", "/tenant/resetpassword/v1.0/start",
                                  "/reset-password", REGISTER])
@pytest.mark.parametrize("framing", FRAMING)
def test_broken_body_framing_is_a_4xx_in_the_dialect(hostile, path, framing):
    raw = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n").encode() + framing + b"\r\nzz\r\n"
    answer = rawhttp.send(hostile.port, raw, close_write=True)
    assert answer is not None and 400 <= answer.status < 500, answer and (answer.status, answer.body)
    assert rawhttp.check_shape(path, answer) is None, rawhttp.check_shape(path, answer)


@pytest.mark.parametrize("path", ["/signup/v1.0/start", "/reset-password", REGISTER])
def test_body_shorter_than_its_length_is_not_a_5xx(hostile, path):
    raw = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nabc".encode()
    answer = rawhttp.send(hostile.port, raw, close_write=True)
    assert answer is None or (400 <= answer.status < 500 and rawhttp.check_shape(path, answer) is None)
    assert requests.get(hostile.base + "/health/ready").status_code == 200


def test_connect_is_refused_at_once(hostile):
    answer = rawhttp.send(hostile.port, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    # HTTP/1.1 encoders carry no body on an answer to CONNECT, so the status is all there is.
    assert answer.status == 405 and answer.seconds < 1 and answer.headers["connection"] == "close"


def test_router_errors_speak_each_dialect(hostile):
    wrong_method = rawhttp.send(hostile.port, rawhttp.request("GET", REGISTER))
    assert wrong_method.status == 405 and wrong_method.headers["allow"] == "POST" and rawhttp.check_shape(REGISTER, wrong_method) is None
    unknown = rawhttp.send(hostile.port, rawhttp.request("POST", "/api/client/v2.0/app/app1/nowhere"))
    assert unknown.status == 404 and unknown.json()["error_code"]
    for raw, status in ((rawhttp.request("PUT", "/reset-password"), None), (rawhttp.request("GET", "/confirm/x"), 404),
                        (rawhttp.request("POST", "/reset-password", b"a=" + b"x" * 70000,
                                         {"Content-Type": "application/x-www-form-urlencoded"}), 413)):
        answer = rawhttp.send(hostile.port, raw)
        assert answer.status >= 400 and (status is None or answer.status == status)
        assert answer.headers["content-type"].startswith("text/html"), answer.headers


def test_form_fields_are_read_flat_and_strictly(hostile):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    start = hostile.base + "/signup/v1.0/start"
    # Keys are literal: 20,000 brackets cost one pass and name a field nobody asked for.
    r = requests.post(start, data=(f"client_id={CLIENT_ID}&username" + "[a]" * 20000 + "=a@example.com&challenge_type=oob").encode(), headers=form)
    assert r.status_code == 400 and r.json()["error"] == "invalid_request" and "username" in r.json()["error_description"], r.text
    # A field sent twice, an escape that is not one, or bytes that are not UTF-8 once decoded: a malformed body.
    for body in (f"client_id={CLIENT_ID}&client_id={CLIENT_ID}&username=a@example.com&challenge_type=oob",
                 f"client_id={CLIENT_ID}&username=a%zz@example.com&challenge_type=oob",
                 f"client_id={CLIENT_ID}&username=a%4@example.com&challenge_type=oob",
                 f"client_id={CLIENT_ID}&username=a%C3@example.com&challenge_type=oob"):
        r = requests.post(start, data=body.encode(), headers=form)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (body, r.text)
        assert r.json()["error_description"].startswith("body "), (body, r.text)
    # Escapes decode and "+" is a space in a value: %40 is "@", and "oob+redirect" is two challenge types.
    r = requests.post(start, data=f"client_id={CLIENT_ID}&username=c%40example.com&challenge_type=oob+redirect".encode(), headers=form)
    assert r.status_code == 200 and "continuation_token" in r.json(), r.text
    # A JSON attribute value sent unencoded (curl -d) keeps working.
    r = requests.post(start, data=f'client_id={CLIENT_ID}&username=b@example.com&challenge_type=oob redirect'
                      '&attributes={"displayName":"[x]"}'.encode(), headers=form)
    assert r.status_code == 200, r.text
