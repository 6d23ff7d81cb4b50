"""Every answer carries a body in the shape of the dialect its path belongs to, including what no route serves."""
import json
import socket

import pytest
import requests

from harness import Server
from parse_client import ENV as PARSE_ENV


@pytest.fixture(scope="module")
def server():
    s = Server(env={**PARSE_ENV, "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": "auto-app", "confirmation": {"mode": "auto"}}])}).start()
    yield s
    s.cleanup()


def raw(s, text):
    with socket.create_connection(("127.0.0.1", s.port), timeout=5) as sock:
        sock.sendall(text.encode())
        data = b""
        while chunk := sock.recv(4096):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode(), body


@pytest.mark.parametrize("target,surface", [("/health/live", "native"), ("/api/client/v2.0/app/auto-app/location", "app_services"),
                                            ("/confirm", "pages"), ("example.com:443", "native")])
def test_connect_is_refused_in_the_target_s_surface(server, target, surface):
    head, body = raw(server, f"CONNECT {target} HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert head.startswith("HTTP/1.1 405") and "\r\nallow: " in head.lower(), head
    if surface == "pages":
        assert "content-type: text/html" in head.lower() and b"CONNECT is not supported." in body, (head, body)
        return
    assert "content-type: application/json\r\n" in head.lower() + "\r\n", head
    answer = json.loads(body)
    if surface == "app_services":
        assert answer == {"error": "CONNECT is not supported.", "error_code": "BadRequest"}, answer
    else:
        assert answer["error"] == "invalid_request" and "CONNECT" in answer["error_description"] and "error_code" not in answer, answer


@pytest.mark.parametrize("path", ["/confirm;x=1", "/reset-password;a=b", "/reset-password/extra", "/parse/apps/x;y"])
def test_pages_answer_html_even_for_paths_they_do_not_serve(server, path):
    r = requests.get(server.base + path, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"].startswith("text/html"), (r.status_code, r.headers, r.text)


@pytest.mark.parametrize("path", ["/api/client/v2.0", "/api/client/v2.0/nothing", "/api/client/v2.0/app/auto-app/location;x",
                                  "/api/client/%76%32.0/app/auto-app/nothing"])
def test_app_services_paths_that_do_not_route_answer_with_an_error_code(server, path):
    r = requests.get(server.base + path, timeout=10)
    assert r.status_code == 404 and set(r.json()) == {"error", "error_code"} and r.json()["error_code"] == "NotFound", r.text


APP = "/api/client/v2.0/app/auto-app/auth/providers/local-userpass"


def test_a_json_body_to_a_form_endpoint_is_415_naming_the_form_type(server):
    r = requests.post(server.base + "/signup/v1.0/start", json={"client_id": "x", "username": "a@example.com"}, timeout=10)
    assert r.status_code == 415, (r.status_code, r.text)
    body = r.json()
    assert body["error"] == "invalid_request" and "application/x-www-form-urlencoded" in body["error_description"]
    assert "application/json" in body["error_description"], body


def test_a_form_body_to_app_services_is_415_naming_json(server):
    r = requests.post(server.base + f"{APP}/register", data={"email": "a@example.com", "password": "correct horse 9"}, timeout=10)
    assert r.status_code == 415 and r.headers["Content-Type"] == "application/json", (r.status_code, r.text)
    assert r.json()["error_code"] == "BadRequest" and "application/json" in r.json()["error"], r.text
    # A charset parameter, as realm-core sends it, is the same media type.
    ok = requests.post(server.base + f"{APP}/register", data=json.dumps({"email": "charset@example.com", "password": "correct horse 9"}),
                       headers={"Content-Type": "application/json;charset=utf-8"}, timeout=10)
    assert ok.status_code == 201, ok.text


def test_an_app_services_field_of_the_wrong_type_is_named(server):
    r = requests.post(server.base + f"{APP}/register", json={"email": 5, "password": "correct horse 9"}, timeout=10)
    assert r.status_code == 400 and r.json() == {"error": "email must be a string", "error_code": "BadRequest"}, r.text


@pytest.mark.parametrize("address,reason", [("no-at-sign", "needs one @"), ("a..b@example.com", "before the @"),
                                            ("a@localhost", "after the @"), ("ä@example.com", "internationalized")])
def test_an_invalid_email_says_why_in_every_dialect(server, address, reason):
    native = requests.post(server.base + "/signup/v1.0/start", data={"client_id": "11111111-1111-1111-1111-111111111111",
                                                                    "username": address, "challenge_type": "oob redirect"}, timeout=10)
    assert native.status_code == 400 and reason in native.json()["error_description"], native.text
    app = requests.post(server.base + f"{APP}/register", json={"email": address, "password": "correct horse 9"}, timeout=10)
    assert app.status_code == 400 and reason in app.json()["error"], app.text


@pytest.mark.parametrize("path,surface", [("/api/client/v2.0/app/auto-app/auth/providers/local-userpass/register", "app_services"),
                                          ("/signup/v1.0/start", "native"), ("/parse/users", "parse")])
def test_an_announced_body_past_the_limit_is_refused_before_it_is_sent(server, path, surface):
    """A client announcing 10 MB hears 413 at once, before sending a byte of it (it used to be read first)."""
    content_type = "application/x-www-form-urlencoded" if surface == "native" else "application/json"
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nX-Parse-Application-Id: myAppId\r\n"
            f"Content-Length: 10000000\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as sock:
        sock.sendall(head)
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
