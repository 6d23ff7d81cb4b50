"""The operator console from a test's side: a server with an admin token, and an operator's browser-like session
(cookies, the CSRF token of the last page) over real sockets."""
import html
import re

import pytest
import requests

from harness import Server

TOKEN = "console-admin-token-0123456789abcdef0123456789"


def console_server(tmp_path_factory, **env):
    token_file = tmp_path_factory.mktemp("console") / "admin.token"
    token_file.write_text(TOKEN + "\n")
    return Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file), **env}).start()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = console_server(tmp_path_factory)
    yield s
    s.cleanup()


class Operator:
    """One operator's session at the console: follows nothing by itself, so every redirect can be checked."""

    def __init__(self, server, name="ada", language=None, token=TOKEN):
        self.server = server
        self.token = token
        self.base = server.admin_base + "/console"
        self.http = requests.Session()
        if language:
            self.http.headers["Accept-Language"] = language
        self.name = name
        self.csrf = None

    def sign_in(self, token=None, next_path=""):
        r = self.http.post(self.base + "/sign-in", data={"name": self.name, "token": token or self.token, "next": next_path},
                           allow_redirects=False, timeout=10)
        return r

    def signed_in(self):
        r = self.sign_in()
        assert r.status_code == 303, r.text
        return self

    def get(self, path, **kw):
        r = self.http.get(self.base + path, allow_redirects=False, timeout=20, **kw)
        found = re.search(r'name="csrf" value="([^"]+)"', r.text)
        if found:
            self.csrf = html.unescape(found.group(1))
        return r

    def post(self, path, data=None, csrf=True):
        data = dict(data or {})
        if csrf:
            data["csrf"] = self.csrf
        return self.http.post(self.base + path, data=data, allow_redirects=False, timeout=20)

    def act(self, path, data=None):
        """A form post from the page just read; returns the page it redirects to."""
        r = self.post(path, data)
        assert r.status_code == 303, (r.status_code, r.text[:500])
        return self.get(r.headers["Location"].removeprefix("/console"))


def text_of(page):
    """The page's visible text, roughly: tags dropped, entities decoded, whitespace folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def user_id(operator, email):
    r = operator.get("/users?q=" + requests.utils.quote(email))
    found = re.search(r'href="/console/users/([^"]+)"', r.text)
    assert found, r.text
    return found.group(1)
