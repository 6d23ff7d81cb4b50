"""Mail over real SMTP: STARTTLS with a self-signed certificate, AUTH, MIME structure, retries, 550, crash safety."""
import email
import re
import email.policy
import socket
import sqlite3
import ssl
import threading
import subprocess
import time
import uuid

import pytest

import strict
from harness import ALL_TYPES, BINARY, Server, free_port
from smtp_relay import PASSWORD, USER, Relay, make_certificate


def smtp_env(port, cert, **extra):
    return {"LATCHKEY_MAIL_TRANSPORT": "smtp", "LATCHKEY_MAIL_SMTP_HOST": "localhost", "LATCHKEY_MAIL_SMTP_PORT": str(port),
            "LATCHKEY_MAIL_SMTP_USERNAME": USER, "LATCHKEY_MAIL_SMTP_PASSWORD": PASSWORD, "LATCHKEY_MAIL_SMTP_TLS": "starttls",
            "LATCHKEY_MAIL_SMTP_CA_FILE": cert, "LATCHKEY_MAIL_FROM_ADDRESS": "no-reply@example.com",
            "LATCHKEY_MAIL_FROM_NAME": "Latchkëy Wächter", "LATCHKEY_MAIL_RETRY_BASE_SECONDS": "1",
            "LATCHKEY_MAIL_SMTP_TIMEOUT_SECONDS": "5", **extra}


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return make_certificate(str(tmp_path_factory.mktemp("relay")))


def wait_for(predicate, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")


def outbox(server):
    """The mail rows' statuses: a row that is `sent` or `failed` is never tried again."""
    db = sqlite3.connect(server.db_path)
    try:
        return [row[0] for row in db.execute("SELECT status FROM outbox")]
    finally:
        db.close()


def start_sign_up(server, address, headers=None):
    st = strict.ok(server.post("/signup/v1.0/start", {"username": address, "password": "correct horse battery",
                                                      "challenge_type": ALL_TYPES}, headers=headers), "signup/start")
    return strict.ok(server.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                            "challenge_type": ALL_TYPES}, headers=headers), "signup/challenge")


def test_starttls_auth_and_a_proper_mime_message(certificate):
    cert, key = certificate
    relay = Relay(free_port(), cert, key).start()
    s = Server(env=smtp_env(relay.port, cert)).start()
    try:
        address = f"ada-{uuid.uuid4().hex[:8]}@example.com"
        ch = start_sign_up(s, address, headers={"Accept-Language": "de-CH, de;q=0.9, en;q=0.5"})
        got = wait_for(lambda: relay.messages)[0]
        assert got["tls"] and got["auth"] and got["to"] == [address] and got["from"] == "no-reply@example.com"
        raw = got["data"]
        assert b"\r\n" in raw and all(len(line) <= 998 for line in raw.split(b"\r\n"))
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert msg["Subject"] == "Ihr Registrierungscode für Latchkey"
        assert msg["From"].addresses[0].display_name == "Latchkëy Wächter"
        assert msg["Date"] and msg["Message-ID"].endswith("@example.com>") and msg["MIME-Version"] == "1.0"
        assert msg.get_content_type() == "multipart/alternative"
        text, html = [part for part in msg.iter_parts()]
        assert text.get_content_type() == "text/plain" and html.get_content_type() == "text/html"
        assert text.get_content_charset() == "utf-8"
        code = re.search(r"\b(\d{8})\b", text.get_content()).group(1)
        assert code in html.get_content() and "gültig" in text.get_content()
        # The code from the mail completes the sign-up.
        strict.ok(s.post("/signup/v1.0/continue", {"continuation_token": ch["continuation_token"], "grant_type": "oob",
                                                   "oob": code}), "signup/continue")
        s.stop()
        (status, attempts, body) = sqlite3.connect(s.db_path).execute(
            "SELECT status, attempts, sealed_body FROM outbox").fetchone()
        assert (status, attempts, body) == ("sent", 1, None)
    finally:
        s.cleanup()
        relay.stop()


def test_relay_down_when_queued_is_delivered_once_it_comes_up(certificate):
    cert, key = certificate
    port = free_port()
    s = Server(env=smtp_env(port, cert)).start()
    try:
        address = f"late-{uuid.uuid4().hex[:8]}@example.com"
        start_sign_up(s, address)
        wait_for(lambda: "will retry" in s.read_log())  # a refused connection
        relay = Relay(port, cert, key).start()
        try:
            wait_for(lambda: relay.messages, timeout=30)
            wait_for(lambda: outbox(s) == ["sent"])
            assert len(relay.messages) == 1
        finally:
            relay.stop()
        assert "will retry" in s.read_log()
    finally:
        s.cleanup()


def test_550_is_marked_failed_and_not_retried(certificate):
    cert, key = certificate
    relay = Relay(free_port(), cert, key).start()
    s = Server(env=smtp_env(relay.port, cert)).start()
    try:
        address = f"reject-{uuid.uuid4().hex[:8]}@example.com"
        start_sign_up(s, address)
        wait_for(lambda: relay.handler.rcpt_attempts)
        wait_for(lambda: outbox(s) == ["failed"])  # marked failed: nothing retries it
        assert relay.handler.rcpt_attempts == [address] and relay.messages == []
        out = subprocess.run([BINARY, "mail", "status"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        failed = out.stdout.split("failed (")[1].split("sent (")[0]
        assert "550 5.1.1" in failed and address not in out.stdout and "r****" in failed
        out = subprocess.run([BINARY, "mail", "retry"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
        assert "queued 1" in out.stdout
        wait_for(lambda: len(relay.handler.rcpt_attempts) == 2)
    finally:
        s.cleanup()
        relay.stop()


def test_sigkill_between_queueing_and_delivery_delivers_exactly_once(certificate):
    cert, key = certificate
    port = free_port()
    s = Server(env=smtp_env(port, cert, LATCHKEY_MAIL_RETRY_BASE_SECONDS="60")).start()
    try:
        address = f"crash-{uuid.uuid4().hex[:8]}@example.com"
        start_sign_up(s, address)
        wait_for(lambda: "will retry" in s.read_log())  # the first attempt failed: the row waits for its backoff
        s.proc.kill()
        s.proc.wait()
        relay = Relay(port, cert, key).start()
        try:
            # The first attempt failed before the kill; the row waits for its backoff. A restart keeps the row.
            db = sqlite3.connect(s.db_path)
            assert db.execute("SELECT status FROM outbox").fetchone()[0] == "pending"
            db.execute("UPDATE outbox SET next_attempt_at = '2000-01-01 00:00:00.000'")  # skip the wait, not the row
            db.commit()
            db.close()
            s.start()
            wait_for(lambda: relay.messages)
            wait_for(lambda: outbox(s) == ["sent"])
            assert [m["to"] for m in relay.messages] == [[address]]
        finally:
            relay.stop()
    finally:
        s.cleanup()


def test_implicit_tls(certificate):
    cert, key = certificate
    relay = Relay(free_port(), cert, key, implicit_tls=True).start()
    s = Server(env=smtp_env(relay.port, cert, LATCHKEY_MAIL_SMTP_TLS="tls")).start()
    try:
        start_sign_up(s, f"tls-{uuid.uuid4().hex[:8]}@example.com")
        assert wait_for(lambda: relay.messages)[0]["auth"]  # this listener speaks only TLS
    finally:
        s.cleanup()
        relay.stop()


def test_unverifiable_certificate_is_refused_by_default(certificate):
    cert, key = certificate
    relay = Relay(free_port(), cert, key).start()
    env = smtp_env(relay.port, cert)
    del env["LATCHKEY_MAIL_SMTP_CA_FILE"]
    s = Server(env=env).start()
    try:
        start_sign_up(s, f"mitm-{uuid.uuid4().hex[:8]}@example.com")
        wait_for(lambda: "will retry" in s.read_log())
        assert relay.messages == [] and outbox(s) == ["pending"]
    finally:
        s.cleanup()
        relay.stop()


def test_smtp_configuration_errors_are_named():
    s = Server(env={"LATCHKEY_MAIL_TRANSPORT": "smtp"})
    out = subprocess.run([BINARY, "serve"], env=s.env, cwd=s.dir, capture_output=True, timeout=60)
    s.cleanup()
    assert out.returncode == 78 and b"mail.smtp.host" in out.stderr


def test_a_relay_that_offers_only_tls_1_1_is_refused(certificate):
    """An implicit-TLS listener that speaks at most TLS 1.1: Latchkey's handshake must fail (TLS 1.2 is the floor)."""
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.minimum_version, context.maximum_version = ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    listener = socket.create_server(("127.0.0.1", 0))
    handshakes = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    handshakes.append(tls.version())
                    tls.sendall(b"421 test relay closing\r\n")
            except (ssl.SSLError, OSError) as error:
                handshakes.append(type(error).__name__)

    threading.Thread(target=serve, daemon=True).start()
    s = Server(env=smtp_env(listener.getsockname()[1], cert, LATCHKEY_MAIL_SMTP_TLS="tls")).start()
    try:
        start_sign_up(s, f"old-tls-{uuid.uuid4().hex[:8]}@example.com")
        wait_for(lambda: handshakes)
        assert "TLSv1.1" not in handshakes and "TLSv1" not in handshakes, handshakes
        assert "will retry" in s.read_log()
    finally:
        s.cleanup()
        listener.close()
