"""Shared pieces of the OpenID provider suites: a Latchkey configured with browser clients (two first-party web apps,
a public native app, a third-party app and one that requires a second factor), the example web app of docs/openid.md
as the relying party (Authlib underneath), and a form driver for the hosted pages when no browser is needed."""
import html
import os
import re
import secrets
import sys
import tempfile
import threading

import pytest
import requests

from harness import ROOT, Server, free_port

sys.path.insert(0, os.path.join(ROOT, "examples", "oidc-webapp"))
from app import WebApp  # noqa: E402

WEB = "a0000000-0000-4000-8000-000000000001"
OTHER_WEB = "a0000000-0000-4000-8000-000000000002"
PUBLIC = "a0000000-0000-4000-8000-000000000003"
THIRD = "a0000000-0000-4000-8000-000000000004"
STRICT = "a0000000-0000-4000-8000-000000000005"
SECRET = secrets.token_hex(32)
PASSWORD = "correct horse battery"
CALLBACK = "http://127.0.0.1/callback"  # a loopback redirect URI: any port matches (RFC 8252 §7.3)


# One optional attribute with a label per language, unless a test brings its own schema.
LABELLED = "attributes:\n  - {name: displayName, label: {en: Display name, de: Anzeigename}}\n"


def provider_config(secret_file, app_ports, extra=""):
    logout = ", ".join(f"http://127.0.0.1:{port}/" for port in app_ports)
    return f"""
clients:
  - {{id: 11111111-1111-1111-1111-111111111111, name: native}}
  - {{id: {WEB}, name: Web app, redirect_uris: ["{CALLBACK}"], post_logout_redirect_uris: [{logout}], secret_file: "{secret_file}"}}
  - {{id: {OTHER_WEB}, name: Second app, redirect_uris: ["{CALLBACK}"], post_logout_redirect_uris: [{logout}], secret_file: "{secret_file}"}}
  - {{id: {PUBLIC}, name: Native app, redirect_uris: ["{CALLBACK}", "com.example.app:/oauth"]}}
  - {{id: {THIRD}, name: Partner tool, redirect_uris: ["{CALLBACK}"], secret_file: "{secret_file}", first_party: false}}
  - {{id: {STRICT}, name: Bank app, redirect_uris: ["{CALLBACK}"], post_logout_redirect_uris: [{logout}], secret_file: "{secret_file}", mfa: required}}
mfa:
  methods: [email, totp]
{"" if "attributes:" in extra else LABELLED}{extra}"""


@pytest.fixture(scope="module")
def oidc():
    """The provider, and the example web app once per client: WEB, OTHER_WEB, STRICT (second factor required) and THIRD
    (third-party: consent)."""
    folder = tempfile.mkdtemp(prefix="latchkey-oidc-")
    secret_file = os.path.join(folder, "client.secret")
    with open(secret_file, "w") as f:
        f.write(SECRET + "\n")
    ports = [free_port(), free_port(), free_port(), free_port()]
    server = Server(config_text=provider_config(secret_file, ports), env={"LATCHKEY_OPENID_CODE_SECONDS": "2"}).start()
    apps = [WebApp(server.base, client, SECRET, port) for client, port in zip((WEB, OTHER_WEB, STRICT, THIRD), ports)]
    for app in apps:
        threading.Thread(target=app.server.serve_forever, daemon=True).start()
    yield server, apps
    for app in apps:
        app.server.shutdown()
    server.cleanup()


def signed_in_session(app, email):
    """The example app's session for `email` (what it learnt from the ID token)."""
    for session in list(app.sessions.values()):
        if session.get("claims", {}).get("email") == email:
            return session
    raise AssertionError(f"{app.client_id} has no session for {email}")


class Pages:
    """A browser without a browser: follows the hosted pages' forms with requests (cookies kept, redirects not)."""

    def __init__(self, server):
        self.server, self.http = server, requests.Session()

    def get(self, url, **kw):
        return self.http.get(url if url.startswith("http") else self.server.base + url, allow_redirects=False, timeout=30, **kw)

    def form(self, page, action):
        match = re.search(r'<form method="post" action="%s">(.*?)</form>' % re.escape(action), page.text, re.S)
        assert match, f"no form posting to {action} in:\n{page.text[:3000]}"
        return {name: html.unescape(value) for name, value in re.findall(r'name="([^"]+)" value="([^"]*)"', match.group(1))}

    def submit(self, page, action, **fields):
        data = {**self.form(page, action), **fields}
        return self.http.post(self.server.base + action, data=data, allow_redirects=False, timeout=30)

    def sign_up(self, authorize_url, email, password=PASSWORD):
        """From /authorize through the sign-up page and the mailed code: the redirect back to the app."""
        first = self.get(authorize_url)
        assert first.status_code == 200, first.text
        interaction = self.form(first, "/ui/sign-in")["interaction"]
        page = self.get("/ui/sign-up", params={"interaction": interaction})
        before = len(self.server.mails(email))
        page = self.submit(page, "/ui/sign-up", email=email, password=password)
        assert page.status_code == 200, page.text
        return self.submit(page, "/ui/sign-up/code", code=self.server.wait_for_code(email, before))

    def sign_in(self, authorize_url, email, password=PASSWORD):
        page = self.get(authorize_url)
        assert page.status_code == 200, page.text
        return self.submit(page, "/ui/sign-in", email=email, password=password, method="password")
