"""What a new operator meets before any flow: test mode on ports of their choosing from flags, mistakes that say
how to fix them (a misspelt key's nearest name, a public_url naming a port nothing listens on), the admin API's paths
asked of the public port, and a favicon on both listeners."""
import io
import re

import requests
from PIL import Image

from harness import BINARY, Server, free_port


def test_serve_takes_its_ports_and_host_from_flags():
    s = Server(args=("serve", "--testing"))
    port, admin = free_port(), free_port()
    # No LATCHKEY_SERVER_PORT or LATCHKEY_ADMIN_LISTEN: the flags alone place both listeners.
    for key in ("LATCHKEY_SERVER_PORT", "LATCHKEY_ADMIN_LISTEN"):
        del s.env[key]
    s.args += ["--port", str(port), "--host", "127.0.0.1", "--admin-port", str(admin)]
    s.port, s.base, s.admin_base = port, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{admin}"
    try:
        s.start()
        assert requests.get(s.base + "/testing/v1/config", timeout=10).status_code == 200
        assert requests.get(s.admin_base + "/metrics", timeout=10).status_code == 200
        # The published URL follows the flag (the default public_url is http://HOST:PORT).
        assert requests.get(s.base + "/.well-known/openid-configuration", timeout=10).json()["issuer"] == s.base
    finally:
        s.cleanup()


def test_a_misspelt_key_names_the_nearest_one():
    s = Server(config_text="server:\n  prot: 9000\n")
    try:
        import subprocess
        out = subprocess.run([BINARY, *s.args], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
        assert out.returncode == 78 and "server.prot: unknown key (did you mean server.port?)" in out.stderr, out.stderr
        s.env["LATCHKEY_SERVER_PROT"] = "9000"
        out = subprocess.run([BINARY, "serve"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
        assert "LATCHKEY_SERVER_PROT: names no configuration key (did you mean LATCHKEY_SERVER_PORT?)" in out.stderr, out.stderr
    finally:
        s.cleanup()


def test_a_public_url_on_another_port_is_a_warning_naming_both():
    published = free_port()
    s = Server(env={"LATCHKEY_SERVER_PUBLIC_URL": f"http://127.0.0.1:{published}"}).start()
    try:
        log = s.read_log()
        assert f"server.public_url is http://127.0.0.1:{published} (port {published}) but the server listens on port {s.port}" in log, log
    finally:
        s.cleanup()
    quiet = Server().start()
    try:
        assert "server.public_url is" not in quiet.read_log()
    finally:
        quiet.cleanup()


def test_admin_paths_on_the_public_port_say_where_the_admin_listener_is():
    s = Server().start()
    try:
        for path in ("/admin/v1/users", "/console/", "/metrics"):
            r = requests.get(s.base + path, timeout=10)
            assert r.status_code == 404 and r.headers["Content-Type"].startswith("application/json"), (path, r.text)
            body = r.json()
            assert body["error"] == "not_found" and f"http://127.0.0.1:{s.admin_port} (admin.listen)" in body["error_description"], body
    finally:
        s.cleanup()
    off = Server(env={"LATCHKEY_ADMIN_LISTEN": ""}).start()
    try:
        body = requests.get(off.base + "/admin/v1/users", timeout=10).json()
        assert "the admin listener is off" in body["error_description"], body
    finally:
        off.cleanup()


def test_both_listeners_serve_a_favicon_the_pages_link():
    s = Server().start()
    try:
        for base in (s.base, s.admin_base):
            r = requests.get(base + "/favicon.ico", timeout=10)
            assert r.status_code == 200 and r.headers["Content-Type"] == "image/x-icon", (base, r.status_code)
            # An ICO directory (reserved 0, type 1, one image of 16x16) whose bitmap is where it says.
            body = r.content
            assert body[:6] == b"\x00\x00\x01\x00\x01\x00" and body[6] == 16 and body[7] == 16
            assert int.from_bytes(body[18:22], "little") == 22 and len(body) == 22 + int.from_bytes(body[14:18], "little")
            icon = Image.open(io.BytesIO(body)).convert("RGBA")  # an independent decoder reads the key drawn
            assert icon.size == (16, 16) and icon.getpixel((3, 2)) == (30, 92, 176, 255) and icon.getpixel((0, 0))[3] == 0
        page = requests.get(s.base + "/ui/account/sign-in", timeout=10).text
        assert re.search(r'<link rel="icon" href="/favicon.ico">', page), page[:600]
    finally:
        s.cleanup()
