"""Raw HTTP/1.1 over a socket, for requests no client library will send (broken framing, CONNECT, odd methods)."""
import http.client
import json
import socket
import time


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


def dialect_of(path):
    if path.startswith("/api/client/v2.0"):
        return "app_services"
    bare = path.split("?")[0]
    if any(bare == p or bare.startswith(p + "/") for p in ("/confirm", "/reset-password", "/ui", "/oauth2/v2.0/logout")):
        return "pages"
    if bare.endswith("/oauth2/v2.0/authorize"):  # the browser's, also under a tenant
        return "pages"
    return "native"


def check_shape(path, answer):
    """The error shape of `path`'s dialect, for any 4xx/5xx answer. Returns a reason, or None when it fits."""
    if answer.status < 400:
        return None
    kind = dialect_of(path)
    ctype = answer.headers.get("content-type", "")
    if kind == "pages":
        return None if ctype.startswith("text/html") else f"pages answered {ctype!r}"
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
    return None if isinstance(body.get("error"), str) and isinstance(body.get("error_description"), str) else f"not native: {body}"
