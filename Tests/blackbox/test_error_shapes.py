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


@pytest.mark.parametrize("target", ["/health/live", "/api/client/v2.0/app/auto-app/location", "/confirm", "example.com:443"])
def test_connect_is_refused_with_a_json_body(server, target):
    head, body = raw(server, f"CONNECT {target} HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert head.startswith("HTTP/1.1 405") and "application/json" in head, head
    answer = json.loads(body)
    assert answer["error"] == "invalid_request" and answer["error_code"] == "MethodNotAllowed" and "CONNECT" in answer["error_description"]


@pytest.mark.parametrize("path", ["/confirm;x=1", "/reset-password;a=b", "/reset-password/extra", "/parse/apps/x;y"])
def test_pages_answer_html_even_for_paths_they_do_not_serve(server, path):
    r = requests.get(server.base + path, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"].startswith("text/html"), (r.status_code, r.headers, r.text)


@pytest.mark.parametrize("path", ["/api/client/v2.0", "/api/client/v2.0/nothing", "/api/client/v2.0/app/auto-app/location;x",
                                  "/api/client/%76%32.0/app/auto-app/nothing"])
def test_app_services_paths_that_do_not_route_answer_with_an_error_code(server, path):
    r = requests.get(server.base + path, timeout=10)
    assert r.status_code == 404 and set(r.json()) == {"error", "error_code"} and r.json()["error_code"] == "NotFound", r.text
