"""Open connections are capped per client address and in total: past either, a new connection is answered 503 at
once and closed, and a closed connection gives its place back."""
import json
import socket
import time

from harness import Server


def connect(s, source="127.0.0.1"):
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=5, source_address=(source, 0))
    return sock


def answered(sock):
    sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n", 1)[0].decode()


def refused(s, source="127.0.0.1"):
    with connect(s, source) as sock:
        data = b""
        while chunk := sock.recv(4096):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.startswith(b"HTTP/1.1 503") and json.loads(body)["error"] == "temporarily_unavailable"


def test_per_address_and_total_caps():
    s = Server(env={"LATCHKEY_SERVER_MAX_CONNECTIONS": "6", "LATCHKEY_SERVER_MAX_CONNECTIONS_PER_IP": "4"}).start()
    try:
        time.sleep(0.5)  # the readiness probe's connection has gone
        mine = [connect(s) for _ in range(4)]
        assert all(answered(sock) == "HTTP/1.1 200 OK" for sock in mine)
        assert refused(s)
        # Another address still gets in, up to the total.
        others = [connect(s, "127.0.0.2") for _ in range(2)]
        assert all(answered(sock) == "HTTP/1.1 200 OK" for sock in others)
        assert refused(s, "127.0.0.3")
        # Closing gives the places back.
        for sock in mine + others:
            sock.close()
        deadline = time.time() + 5
        while True:
            try:
                with connect(s) as sock:
                    if answered(sock) == "HTTP/1.1 200 OK":
                        break
            except OSError:
                pass
            assert time.time() < deadline
            time.sleep(0.1)
    finally:
        s.cleanup()


def read_response(conn):
    """One whole response: the head, then exactly Content-Length bytes, however TCP split them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        assert chunk, f"connection closed mid-response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = conn.recv(4096)
        assert chunk, "connection closed mid-body"
        body += chunk
    assert len(body) == length, "more bytes than one response"
    return head


def test_trickled_headers_are_cut():
    s = Server(env={"LATCHKEY_SERVER_HEADER_TIMEOUT_SECONDS": "2", "LATCHKEY_SERVER_IDLE_TIMEOUT_SECONDS": "60"}).start()
    try:
        with socket.create_connection(("127.0.0.1", s.port)) as conn:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n")
            start, closed = time.time(), False
            while time.time() - start < 8:
                try:
                    conn.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    closed = True
                    break
                conn.settimeout(0.5)
                try:
                    if conn.recv(1024) == b"":
                        closed = True
                        break
                except socket.timeout:
                    pass
                except OSError:  # cut with a reset rather than a FIN: closed just the same
                    closed = True
                    break
            assert closed and time.time() - start < 4
        # A kept-alive connection that stays quiet longer than the head deadline is left to the idle timeout,
        # and a trickled head on it is cut just the same.
        with socket.create_connection(("127.0.0.1", s.port)) as conn:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(conn).startswith(b"HTTP/1.1 200")
            time.sleep(3)
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(conn).startswith(b"HTTP/1.1 200")
            conn.sendall(b"GET /health/live HTTP/1.1\r\n")
            start = time.time()
            conn.settimeout(6)
            while True:
                try:
                    conn.sendall(b"X-Slow: 1\r\n")
                    if conn.recv(1024) == b"":
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
            assert time.time() - start < 4
    finally:
        s.cleanup()
