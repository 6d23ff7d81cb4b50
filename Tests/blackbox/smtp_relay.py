"""A real SMTP relay for the mail tests: aiosmtpd with STARTTLS (self-signed certificate), AUTH required,
550 for recipients whose local part starts with "reject", every accepted message kept in memory."""
import asyncio
import ssl
import subprocess
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = "latchkey", "relay-secret"


def make_certificate(directory):
    cert, key = f"{directory}/relay-cert.pem", f"{directory}/relay-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


class Handler:
    def __init__(self):
        self.messages, self.rcpt_attempts, self.lock = [], [], threading.Lock()
        # Seconds each DATA takes: a slow relay keeps a sender mid-batch (the crash tests kill it there).
        self.delay = 0.0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        with self.lock:
            self.rcpt_attempts.append(address)
        if address.startswith("reject"):
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            self.messages.append({"from": envelope.mail_from, "to": list(envelope.rcpt_tos), "data": envelope.original_content,
                                  "tls": session.ssl is not None, "auth": session.authenticated})
        return "250 Message accepted"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode()
    return AuthResult(success=ok)


class Relay:
    def __init__(self, port, cert, key, implicit_tls=False):
        self.port, self.handler = port, Handler()
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        kwargs = dict(hostname="127.0.0.1", port=port, authenticator=authenticator, auth_require_tls=True)
        if implicit_tls:
            # aiosmtpd does not see implicit TLS as encryption for auth_require_tls; the listener speaks only TLS.
            kwargs.update(ssl_context=context, auth_require_tls=False)
        else:
            kwargs.update(tls_context=context, require_starttls=True)
        self.controller = Controller(self.handler, **kwargs)

    def start(self):
        self.controller.start()
        return self

    def stop(self):
        self.controller.stop()

    @property
    def messages(self):
        with self.handler.lock:
            return list(self.handler.messages)
