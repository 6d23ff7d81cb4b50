"""The admin listener is hardened like the public one (head deadline, idle timeout), its API never crosses a network
in clear text unless the operator says so, and a compromised signing key can be revoked at once."""
import json
import socket
import subprocess
import time

import pytest
import requests

import strict
from conftest import sign_up, token_after_sign_up
from harness import BINARY, Server, free_port

TOKEN = "0123456789abcdef0123456789abcdef-admin"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    token_file = tmp_path_factory.mktemp("admin") / "admin.token"
    token_file.write_text(TOKEN)
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file), "LATCHKEY_SERVER_HEADER_TIMEOUT_SECONDS": "1",
                    "LATCHKEY_SERVER_IDLE_TIMEOUT_SECONDS": "2"}).start()
    s.token_file = str(token_file)
    yield s
    s.cleanup()


def closed_after(port, payload, trickle=False, limit=10):
    """Seconds until the server closes a connection that sends `payload` (a byte at a time when trickling)."""
    started = time.time()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as sock:
        try:
            for byte in payload:
                sock.sendall(bytes([byte]))
                if trickle:
                    time.sleep(0.3)
            while sock.recv(1024):
                pass
        except (ConnectionResetError, BrokenPipeError):
            pass
    return time.time() - started


def test_a_trickled_head_and_a_silent_connection_are_cut_on_the_admin_port(server):
    assert closed_after(server.admin_port, b"GET /metrics HTTP/1.1\r\nX-Slow: " + b"a" * 100, trickle=True) < 4
    assert closed_after(server.admin_port, b"") < 5


def test_the_admin_api_is_refused_off_loopback_in_clear_text_unless_the_operator_says_so(server):
    env = {**server.env, "LATCHKEY_ADMIN_LISTEN": f"0.0.0.0:{free_port()}", "LATCHKEY_SERVER_PORT": str(free_port())}
    out = subprocess.run([BINARY, "serve"], env=env, cwd=server.dir, capture_output=True, timeout=60)
    assert out.returncode == 78 and b"admin.listen" in out.stderr and b"insecure_plaintext" in out.stderr, out.stderr
    port = free_port()
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": server.token_file, "LATCHKEY_ADMIN_LISTEN": f"0.0.0.0:{port}",
                    "LATCHKEY_ADMIN_INSECURE_PLAINTEXT": "true"}).start()
    try:
        r = requests.get(f"http://127.0.0.1:{port}/admin/v1/keys", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        assert r.status_code == 200
    finally:
        s.cleanup()


def test_off_loopback_with_tls_the_admin_api_is_served_over_https(server, tmp_path):
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    port = free_port()
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": server.token_file, "LATCHKEY_ADMIN_LISTEN": f"0.0.0.0:{port}",
                    "LATCHKEY_ADMIN_TLS_CERTIFICATE": cert, "LATCHKEY_ADMIN_TLS_KEY": key}).start()
    try:
        r = requests.get(f"https://127.0.0.1:{port}/admin/v1/keys", headers={"Authorization": f"Bearer {TOKEN}"}, verify=cert, timeout=10)
        assert r.status_code == 200 and r.json()["keys"]
    finally:
        s.cleanup()


def admin(s, method, path):
    return requests.request(method, s.admin_base + "/admin/v1" + path, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)


def kid_of(token):
    import base64
    head = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))["kid"]


def test_a_revoked_key_leaves_the_jwks_and_its_tokens_stop_working_at_once(server, email):
    tokens = strict.ok(token_after_sign_up(server, email, sign_up(server, email)), "token")
    old = kid_of(tokens["access_token"])
    userinfo = lambda t: requests.get(server.base + "/oidc/userinfo", headers={"Authorization": f"Bearer {t}"}, timeout=10)
    assert userinfo(tokens["access_token"]).status_code == 200
    r = admin(server, "POST", f"/keys/{old}/revoke")
    assert r.status_code == 200 and r.json()["revoked"] == old and r.json()["signing"]["kid"] != old, r.text
    assert old not in [k["kid"] for k in server.get("/discovery/v2.0/keys").json()["keys"]]
    assert userinfo(tokens["access_token"]).status_code == 401
    assert old not in [k["kid"] for k in admin(server, "GET", "/keys").json()["keys"]]
    assert admin(server, "POST", f"/keys/{old}/revoke").status_code == 404
    # New tokens are signed by the new key and verify.
    fresh = strict.ok(server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}), "token")
    assert kid_of(fresh["access_token"]) != old and userinfo(fresh["access_token"]).status_code == 200
    events = admin(server, "GET", "/audit?kind=admin.signing_key_revoked").json()["events"]
    assert events and old in events[-1]["detail"]


def test_keys_revoke_on_the_command_line(server):
    listed = subprocess.run([BINARY, "keys", "list"], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
    kid = listed.stdout.split("\t")[0]
    out = subprocess.run([BINARY, "keys", "revoke", kid], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and f"revoked {kid}" in out.stdout, out.stderr
    deadline = time.time() + 15  # the running server drops it at its next reload
    while kid in [k["kid"] for k in server.get("/discovery/v2.0/keys").json()["keys"]]:
        assert time.time() < deadline
        time.sleep(0.5)
    out = subprocess.run([BINARY, "keys", "revoke", "nope"], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 66 and "no signing key nope" in out.stderr
