"""Raw HTTP/1.1 over a socket, for requests no client library will send (broken framing, CONNECT, odd methods)."""
import http.client
import json
import socket
import time
import urllib.parse


class Answer:
    def __init__(self, status, headers, body, seconds):
        self.status, self.headers, self.body, self.seconds = status, headers, body, seconds

    def json(self):
        return json.loads(self.body)


def send(port, raw, close_write=False, timeout=5.0):
    """Sends `raw` bytes; returns the Answer, or None when the server closed without answering."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(raw)
        if close_write:
            conn.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(conn, method="HEAD" if raw.startswith(b"HEAD ") else None)
        try:
            response.begin()
            body = response.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, http.client.IncompleteRead):
            return None
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body, time.monotonic() - start)


def request(method, path, body=b"", headers=None, framing="length"):
    """Builds request bytes. framing: 'length' (Content-Length), 'chunked' (valid chunks) or 'none'."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if framing == "length":
        lines.append(f"Content-Length: {len(body)}")
        payload = body
    elif framing == "chunked":
        lines.append("Transfer-Encoding: chunked")
        payload = (f"{len(body):x}\r\n".encode() + body + b"\r\n" if body else b"") + b"0\r\n\r\n"
    else:
        payload = body
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload


def normalized(path):
    """The path as the router matches it (Surface in the code): decoded, matrix parameters and empty or `.` segments
    dropped, `..` resolved."""
    bare = urllib.parse.unquote(path.split("?")[0].split("#")[0], errors="replace")
    segments = []
    for part in bare.split("/"):
        part = part.split(";")[0]
        if part in ("", "."):
            continue
        if part == "..":
            segments = segments[:-1]
        else:
            segments.append(part)
    return "/" + "/".join(segments)


def under(path, prefix):
    return path == prefix or path.startswith(prefix + "/")


def surface_of(path, parse_mount="/parse", admin=False):
    """The surface whose shape every error at `path` takes: the code's table, written again independently."""
    path = normalized(path)
    if admin:
        return "console" if under(path, "/console") else "admin"
    if parse_mount and under(path, parse_mount + "/apps"):
        return "pages"
    if parse_mount and under(path, parse_mount):
        return "parse"
    if under(path, "/api/client/v2.0"):
        return "app_services"
    if under(path, "/ui/passkeys"):
        return "oauth"
    if any(under(path, p) for p in ("/ui", "/confirm", "/reset-password", "/oauth2/v2.0/authorize", "/oauth2/v2.0/logout")):
        return "pages"
    if path.endswith("/oauth2/v2.0/authorize") or path.endswith("/oauth2/v2.0/logout"):  # under a tenant
        return "pages"
    if any(under(path, p) for p in ("/oidc", "/.well-known", "/discovery")):
        return "oauth"
    return "native"


def check_shape(path, answer, parse_mount=None, admin=False):
    """The error shape of `path`'s surface, for any 4xx/5xx answer. Returns a reason, or None when it fits."""
    if answer.status < 400:
        return None
    kind = surface_of(path, parse_mount, admin)
    ctype = answer.headers.get("content-type", "")
    if kind in ("pages", "console"):
        return None if ctype.startswith("text/html") else f"{kind} answered {ctype!r}"
    if not answer.body:
        return "empty error body"
    try:
        body = json.loads(answer.body)
    except ValueError:
        return f"error body is not JSON: {answer.body[:80]!r}"
    if kind == "app_services":
        if ctype != "application/json":
            return f"App Services error with Content-Type {ctype!r}"
        return None if isinstance(body.get("error"), str) and isinstance(body.get("error_code"), str) else f"no error_code: {body}"
    if kind == "parse":
        # Parse Server's own 403 for a missing or wrong application id is a bare {"error": "unauthorized"}.
        if answer.status == 403 and body == {"error": "unauthorized"}:
            return None
        return None if isinstance(body.get("code"), int) and isinstance(body.get("error"), str) else f"not Parse: {body}"
    return None if isinstance(body.get("error"), str) and isinstance(body.get("error_description"), str) else f"not {kind}: {body}"
