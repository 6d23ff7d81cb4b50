"""Starts the real latchkey binary on a free port with its own SQLite file (or a shared PostgreSQL database), and
talks to it over HTTP."""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import requests

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("LATCHKEY_BIN", os.path.join(ROOT, ".build", "debug", "latchkey"))
CLIENT_ID = "11111111-1111-1111-1111-111111111111"
ALL_TYPES = "oob password redirect"


_given_ports = set()


def free_port():
    """A port free now and not handed out before in this run: the kernel may give the same ephemeral port to two
    calls in a row (a server's public and admin port once came out equal), so each is handed out once."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _given_ports:
            _given_ports.add(port)
            return port


class Server:
    """One latchkey process. `env` adds LATCHKEY_* overrides; mails are read through the test mailbox."""

    def __init__(self, env=None, config_text=None, args=("serve",), postgres_url=None):
        self.dir = tempfile.mkdtemp(prefix="latchkey-bb-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.admin_port = free_port()
        self.admin_base = f"http://127.0.0.1:{self.admin_port}"
        self.db_path = os.path.join(self.dir, "latchkey.sqlite")
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")},
            "LATCHKEY_SERVER_PORT": str(self.port),
            "LATCHKEY_ADMIN_LISTEN": f"127.0.0.1:{self.admin_port}",
            "LATCHKEY_DATABASE_PATH": self.db_path,
            "LATCHKEY_DATABASE_MIGRATIONS": os.path.join(ROOT, "Migrations", "sqlite"),
            "LATCHKEY_TESTING_MAILBOX": "true",
            "LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "12",
            # The functional suites drive hundreds of flows from 127.0.0.1; test_abuse.py turns limits back on.
            "LATCHKEY_LIMITS_ENABLED": "false",
            "LATCHKEY_PASSWORDS_COMMON_LIST": os.path.join(ROOT, "config", "common-passwords.txt"),
            "LATCHKEY_MAIL_TEMPLATES": os.path.join(ROOT, "config", "templates"),
            "LATCHKEY_APP_SERVICES_PAGES": os.path.join(ROOT, "config", "pages"),
            **(env or {}),
        }
        if "--testing" in args or self.env.get("LATCHKEY_TESTING_ENABLED") == "true":
            # Test mode makes its own database and refuses a configured one.
            del self.env["LATCHKEY_DATABASE_PATH"]
        if postgres_url:  # a replica: PostgreSQL instead of the SQLite file
            self.env.update({"LATCHKEY_DATABASE_URL": postgres_url, "LATCHKEY_DATABASE_TLS": "disable",
                             "LATCHKEY_DATABASE_MIGRATIONS": os.path.join(ROOT, "Migrations", "postgres")})
        self.args = list(args)
        if config_text is not None:
            path = os.path.join(self.dir, "latchkey.yaml")
            with open(path, "w") as f:
                f.write(config_text)
            self.args += ["--config", path]
        self.log_path = os.path.join(self.dir, "server.log")
        self.proc = None

    def start(self, timeout=30):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([BINARY, *self.args], cwd=self.dir, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"latchkey exited with {self.proc.returncode}:\n{self.read_log()}")
            try:
                if requests.get(self.base + "/health/ready", timeout=1).status_code == 200:
                    return self
            except requests.ConnectionError:
                pass
            time.sleep(0.05)
        raise RuntimeError("latchkey did not become ready:\n" + self.read_log())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None):
            self.log.close()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def read_log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    # HTTP helpers ------------------------------------------------------------------------------

    def post(self, path, data, headers=None, **kw):
        form = {"client_id": CLIENT_ID, **data}
        form = {k: v for k, v in form.items() if v is not None}
        return requests.post(self.base + path, data=form, headers=headers, timeout=30, **kw)

    def get(self, path, **kw):
        return requests.get(self.base + path, timeout=30, **kw)

    def advance_clock(self, seconds):
        """Moves a test-mode server's clock forward: what a wait would show, without the wait."""
        r = requests.post(self.base + "/testing/v1/clock", json={"advance_seconds": seconds}, timeout=10)
        assert r.status_code == 200, r.text

    def mails(self, to):
        r = self.get("/testing/v1/mail", params={"to": to})
        assert r.status_code == 200, r.text
        return r.json()["messages"]

    def wait_for_subject(self, to, fragment, timeout=10):
        """The subjects of the mails to `to`, once one containing `fragment` has been delivered."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            subjects = [m["subject"] for m in self.mails(to)]
            if any(fragment in s for s in subjects):
                return subjects
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to} with {fragment!r} in its subject")

    def wait_for_code(self, to, previous=0, timeout=10):
        """The code in the newest mail to `to`, once more than `previous` mails arrived."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            mails = self.mails(to)
            if len(mails) > previous:
                match = re.search(r"\b(\d{6,10})\b", mails[-1]["text"])
                assert match, mails[-1]
                assert match.group(1) in mails[-1]["html"]
                return match.group(1)
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to}")


def send_json(handler, status, data):
    """Answers a test server's request (http.server) with JSON bytes."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
