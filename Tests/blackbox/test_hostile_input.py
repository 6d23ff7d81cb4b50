"""Issue M: small hostile requests answer 4xx at once, in their dialect's shape, and never freeze the server."""
import base64
import json
import threading
import time

import pytest
import requests

import rawhttp
from harness import CLIENT_ID, Server

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