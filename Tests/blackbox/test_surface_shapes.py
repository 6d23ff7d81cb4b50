"""Every answer in its surface's shape, from the first byte: the exact bytes of each class of answer that is not a
handler's (a head the parser refuses, a header past the limit, CONNECT, 404, 405, 413, 415, broken framing, path
variants the router accepts), replayed over raw sockets against both listeners, for every surface of the table
(`Surface` in the code; docs/architecture.md)."""
import json

import pytest

import rawhttp
from console_support import TOKEN, Operator, console_server
from parse_client import ENV as PARSE_ENV

APPS = [{"id": "app1"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = console_server(tmp_path_factory, **PARSE_ENV, LATCHKEY_APP_SERVICES_APPS=json.dumps(APPS))
    yield s
    log = s.read_log()
    s.cleanup()
    assert "unhandled" not in log, log


def shape(answer, surface):
    """None when `answer` is an error in `surface`'s shape, else why not."""
    ctype = answer.headers.get("content-type", "")
    if surface in ("pages", "console"):
        return None if ctype.startswith("text/html") and answer.body.startswith(b"<!doctype html") else f"not a page: {ctype} {answer.body[:80]!r}"
    try:
        body = json.loads(answer.body)
    except ValueError:
        return f"not JSON: {ctype} {answer.body[:80]!r}"
    if surface == "app_services":
        ok = ctype == "application/json" and isinstance(body.get("error"), str) and isinstance(body.get("error_code"), str)
    elif surface == "parse":
        ok = isinstance(body.get("code"), int) and isinstance(body.get("error"), str) and "error_description" not in body
    else:  # native, oauth, admin
        ok = isinstance(body.get("error"), str) and isinstance(body.get("error_description"), str) and "error_code" not in body
    return None if ok else f"not {surface}: {ctype} {body}"


def send(port, raw, **kw):
    answer = rawhttp.send(port, raw, **kw)
    assert answer is not None, f"no answer to {raw[:80]!r}"
    return answer


# One path per surface of the public table, and the variants the router also accepts for it.
PUBLIC = {
    "native": ["/signup/v1.0/start", "//signup/v1.0/start", "/contoso.onmicrosoft.com/oauth2/v2.0/token"],
    "oauth": ["/oidc/introspect", "//oidc//revoke", "/.well-known/nope", "/ui/passkeys/nope", "/ui//passkeys/authentication/x"],
    "app_services": ["/api/client/v2.0/app/app1/location", "//api/client/v2.0/app/app1/location", "/api/client%2Fv2.0/app/app1/nope",
                     "/x/../api/client/v2.0/auth/session"],
    "parse": ["/parse/login", "//parse//loginAs;jsessionid=1", "/parse/users/nope/x"],
    "pages": ["/ui/sign-in", "/oauth2/v2.0/authorize", "/../oauth2/v2.0/logout", "/confirm;x=1", "/reset-password",
              "/parse/apps/myAppId/request_password_reset", "/ui%2Fsign-in"],
}
ADMIN = {
    "console": ["/console/sign-in", "//console/clients", "/console%2F", "/console//keys/x/revoke"],
    "admin": ["/admin/v1/users", "//admin/v1/nope", "/metrics/x"],
}


def head(method, path, extra=b""):
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() + extra + b"\r\n"


def cases(path):
    """(name, raw bytes, whether the client stops sending) of each class of answer no handler gives."""
    return [
        ("a byte the parser refuses in the target", head("GET", path + "?\xff").replace(b"?\xc3\xbf", b"?\xff"), False),
        ("a header past the limit", head("GET", path, b"X-Big: " + b"a" * 20000 + b"\r\n"), False),
        ("CONNECT", head("CONNECT", path), False),
        ("an unknown transfer coding", head("POST", path, b"Content-Type: application/json\r\nTransfer-Encoding: gzip, xchunked\r\n") + b"{}",
         True),
        ("a bad chunk size", head("POST", path, b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n") + b"zz\r\n{}\r\n",
         True),
        ("a body cut short", head("POST", path, b"Content-Type: application/json\r\nContent-Length: 100\r\n") + b"{}", True),
        ("an oversized body", head("POST", path, b"Content-Type: application/json\r\nContent-Length: 50000000\r\n"), True),
        ("an unknown method", head("FOO", path), False),
    ]


@pytest.mark.parametrize("surface", sorted(PUBLIC))
def test_the_public_listener_answers_every_class_in_the_path_s_surface(server, surface):
    for path in PUBLIC[surface]:
        for name, raw, broken in cases(path):
            answer = send(server.port, raw, close_write=broken)
            assert 400 <= answer.status < 500, (path, name, answer.status, answer.body[:200])
            if name == "CONNECT":
                assert answer.status == 405 and "allow" in answer.headers, (path, answer.headers)
            if name == "a header past the limit":
                assert answer.status == 431, (path, answer.status)
            reason = shape(answer, surface)
            assert reason is None, f"{name} at {path!r}: {reason}"


@pytest.mark.parametrize("surface", sorted(ADMIN))
def test_the_admin_listener_answers_every_class_in_the_path_s_surface(server, surface):
    for path in ADMIN[surface]:
        for name, raw, broken in cases(path):
            answer = send(server.admin_port, raw, close_write=broken)
            if surface == "console" and answer.status == 303:  # signed out: the console sends the browser to sign in
                assert answer.headers["location"].startswith("/console/sign-in"), (path, name, answer.headers)
                continue
            assert 400 <= answer.status < 500, (path, name, answer.status, answer.body[:200])
            reason = shape(answer, surface)
            assert reason is None, f"{name} at {path!r}: {reason}"


def test_unrouted_paths_and_methods_answer_in_their_surface(server):
    for surface, paths in PUBLIC.items():
        for path in paths:
            for method in ("GET", "PATCH"):
                answer = send(server.port, head(method, path + "/nothing-here"))
                assert answer.status in (404, 405), (path, method, answer.status)
                assert shape(answer, surface) is None, (path, method, shape(answer, surface))
    wrong_method = send(server.port, head("PATCH", "/oidc/userinfo"))
    assert wrong_method.status == 405 and "GET" in wrong_method.headers["allow"] and shape(wrong_method, "oauth") is None


def test_a_signed_out_console_path_the_router_accepts_redirects_to_sign_in(server):
    for path in ("//console/clients", "/console//users"):
        answer = send(server.admin_port, head("GET", path))
        assert answer.status == 303 and answer.headers["location"].startswith("/console/sign-in"), (path, answer.status, answer.body)
    posted = send(server.admin_port, head("POST", "//console//keys/x/revoke", b"Content-Type: application/x-www-form-urlencoded\r\n"
                                          b"Content-Length: 0\r\n"))
    assert posted.status in (303, 403) and posted.status < 500, (posted.status, posted.body)


def test_a_signed_in_console_refuses_broken_framing_with_a_page(server):
    operator = Operator(server).signed_in()
    cookie = "; ".join(f"{c.name}={c.value}" for c in operator.http.cookies)
    operator.get("/")
    for name, raw, broken in cases("/console/keys/rotate")[3:6]:
        raw = raw.replace(b"Host: 127.0.0.1\r\n", f"Host: 127.0.0.1\r\nCookie: {cookie}\r\n".encode())
        raw = raw.replace(b"application/json", b"application/x-www-form-urlencoded")
        answer = send(server.admin_port, raw, close_write=broken)
        assert answer.status == 400 and shape(answer, "console") is None, (name, answer.status, answer.body[:200])
    assert TOKEN not in server.read_log()
