"""Shared pieces of the account page suites: a Latchkey with browser clients, passkeys on `localhost`, an upstream
issuer to link (a second Latchkey on 127.0.0.2, as in the federation suite) and text messages through a webhook
function; and a requests driver of the account page's forms."""
import html
import re

import pytest

from harness import Server, free_port
from openid_support import PASSWORD, Pages, provider_config

ACCOUNT = "/ui/account"
UPSTREAM_CLIENT = "b0000000-0000-4000-8000-000000000009"


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    folder = tmp_path_factory.mktemp("account-upstream")
    secret = folder / "client.secret"
    secret.write_text("u" * 64 + "\n")
    s = Server(config_text=f"""
clients:
  - {{id: {UPSTREAM_CLIENT}, name: Account page, redirect_uris: ["http://127.0.0.1/ui/upstream/callback/corp"], secret_file: "{secret}"}}
""", env={"LATCHKEY_SERVER_HOST": "127.0.0.2"})
    s.base = s.base.replace("127.0.0.1", "127.0.0.2")
    s.secret_file = str(secret)
    s.start()
    yield s
    s.cleanup()


def account_server(upstream, extra_env=None, public_host=None, extra=""):
    secret = upstream.secret_file
    s = Server(config_text=provider_config(secret, [free_port()], extra=f"""
identities:
  providers:
    corp:
      issuer: "{upstream.base}"
      jwks_url: "{upstream.base}/discovery/v2.0/keys"
      audiences: [{UPSTREAM_CLIENT}]
      client_secret_file: "{secret}"
      token_url: "{upstream.base}/oauth2/v2.0/token"
      authorization_url: "{upstream.base}/oauth2/v2.0/authorize"
{extra}"""), env={"LATCHKEY_PASSKEYS_RP_ID": "localhost", **(extra_env or {})})
    s.env["LATCHKEY_PASSKEYS_ORIGINS"] = f"http://localhost:{s.port}"
    if public_host:
        s.env["LATCHKEY_SERVER_PUBLIC_URL"] = f"http://{public_host}:{s.port}"
    return s.start()


class Account(Pages):
    """The account page driven by requests: sign-up through the hosted pages as the built-in client, then its forms."""

    def open(self):
        """GET /ui/account, following the sign-in redirects to the page it lands on."""
        page = self.get(ACCOUNT)
        while page.status_code in (302, 303):
            page = self.get(page.headers["location"])
        return page

    def sign_up_here(self, email, password=PASSWORD):
        first = self.open()
        assert "/ui/sign-in" in first.text, first.text[:500]
        interaction = self.form(first, "/ui/sign-in")["interaction"]
        page = self.get("/ui/sign-up", params={"interaction": interaction})
        before = len(self.server.mails(email))
        page = self.submit(page, "/ui/sign-up", email=email, password=password)
        assert page.status_code == 200, page.text
        return self.follow(self.submit(page, "/ui/sign-up/code", code=self.server.wait_for_code(email, before)))

    def sign_in_here(self, email, password=PASSWORD):
        page = self.open()
        return self.follow(self.submit(page, "/ui/sign-in", email=email, password=password, method="password"))

    def follow(self, answer):
        """Follows redirects; the passkey offer after a sign-in is answered "Not now"."""
        while True:
            while answer.status_code in (302, 303):
                answer = self.get(answer.headers["location"])
            later = re.search(r'id="passkey-later" href="([^"]+)"', answer.text)
            if not later:
                return answer
            answer = self.get(html.unescape(later.group(1)))

    def act(self, action, page=None, containing="", **fields):
        """Posts the account page's form for `action` (the first holding `containing`) and follows where it leads."""
        page = page if page is not None else self.get(ACCOUNT)
        forms = [f for f in re.findall(r'<form method="post" action="%s"[^>]*>(.*?)</form>' % re.escape(action), page.text, re.S)
                 if containing in f]
        assert forms, f"no form posting to {action} in:\n{page.text[:3000]}"
        data = {name: html.unescape(value) for name, value in re.findall(r'name="([^"]+)" value="([^"]*)"', forms[0])}
        data.update(fields)
        return self.follow(self.http.post(self.server.base + action, data=data, allow_redirects=False, timeout=30))

    def post_form(self, action, **fields):
        """Posts `fields` to `action` with the page's CSRF token, as a hand-made form would (no redirects followed)."""
        csrf = self.form(self.get(ACCOUNT), "/ui/account/email")["csrf"]
        return self.http.post(self.server.base + action, data={"csrf": csrf, **fields}, allow_redirects=False, timeout=30)
