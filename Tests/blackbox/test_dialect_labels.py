"""Every sign-in is recorded as the surface that served it: the native API, App Services, Parse, the OpenID provider
(a web app's code exchange and refreshes) and the console, in the audit, the metrics, the console's table and the
account page's list of app sessions ("web app", "native app")."""
import json
import uuid

import pytest
import requests

import strict
from conftest import password_sign_in, sign_up
from console_support import TOKEN, Operator, text_of
from harness import Server
from openid_support import PASSWORD, WEB, Pages, provider_config
from parse_client import ENV as PARSE_ENV
from parse_client import ParseClient, ok
from test_openid import SECRET, authorize_url, exchange, query
from test_operations import metric, metrics

APP = "labels-app"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels")
    (folder / "client.secret").write_text(SECRET + "\n")
    (folder / "admin.token").write_text(TOKEN + "\n")
    env = {**PARSE_ENV, "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": APP, "confirmation": {"mode": "auto"}}]),
           "LATCHKEY_ADMIN_TOKEN_FILE": str(folder / "admin.token")}
    s = Server(config_text=provider_config(str(folder / "client.secret"), [4999]), env=env).start()
    yield s
    s.cleanup()


def events(server, kind, user_id=None):
    r = requests.get(server.admin_base + "/admin/v1/audit", params={"kind": kind, "limit": 1000},
                     headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert r.status_code == 200, r.text
    return [e for e in r.json()["events"] if user_id is None or e.get("user_id") == user_id]


def fresh(tag):
    return f"dl-{tag}-{uuid.uuid4().hex[:8]}@example.com"


def test_each_surface_records_its_own_dialect(server):
    before, _ = metrics(server)
    address = fresh("native")
    sign_up(server, address)
    native = strict.tokens(password_sign_in(server, address, "correct horse battery"))
    assert native["access_token"]

    address = fresh("realm")
    url = f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass"
    assert requests.post(url + "/register", json={"email": address, "password": PASSWORD}, timeout=10).status_code == 201
    assert requests.post(url + "/login", json={"username": address, "password": PASSWORD}, timeout=10).status_code == 200

    address = fresh("parse")
    parse = ParseClient(server)
    ok(parse.call("POST", "/users", {"username": address, "email": address, "password": PASSWORD}), 201)
    assert ok(parse.call("POST", "/login", {"username": address, "password": PASSWORD}))["username"] == address

    # The web app: its user signs up at the hosted pages, the app redeems the code and later refreshes.
    address, pages = fresh("web"), Pages(server)
    link, verifier = authorize_url(server)
    back = pages.sign_up(link, address)
    assert back.status_code == 303, back.text
    tokens = exchange(server, query(back)["code"], verifier)
    assert tokens.status_code == 200, tokens.text
    refreshed = requests.post(server.base + "/oauth2/v2.0/token", auth=(WEB, SECRET), timeout=10,
                              data={"grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"]})
    assert refreshed.status_code == 200, refreshed.text
    signed_in = [e for e in events(server, "sign_in") if e["dialect"] in ("native", "app_services", "parse", "openid")]
    assert {e["dialect"] for e in signed_in} == {"native", "app_services", "parse", "openid"}, signed_in
    issued = [e for e in events(server, "token_issued") if "authorization_code" in (e.get("detail") or "")]
    assert issued and {e["dialect"] for e in issued} == {"openid"}, issued  # it was "native" before

    after, _ = metrics(server)
    for dialect in ("native", "app_services", "parse", "openid"):
        grew = metric(after, "latchkey_sign_ins_total", dialect=dialect, outcome="success") \
            - metric(before, "latchkey_sign_ins_total", dialect=dialect, outcome="success")
        assert grew >= 1, (dialect, grew)

    # The console: its sign-in and what its operators do are the console's, not the admin API's.
    operator = Operator(server, "Grace").signed_in()
    console = [e for e in events(server, "admin.console_signed_in") if e.get("actor") == "console:Grace"]
    assert console and console[-1]["dialect"] == "console", console
    page = operator.get("/")
    table = text_of(page.text)
    for words in ("Native API", "App Services", "Parse", "OpenID provider (web apps)"):
        assert words in table, table


def test_the_account_page_names_a_web_app_and_a_native_app(server):
    address, pages = fresh("acct"), Pages(server)
    link, verifier = authorize_url(server)
    back = pages.sign_up(link, address)
    assert exchange(server, query(back)["code"], verifier).status_code == 200
    page = pages.get("/ui/account")
    assert page.status_code == 200, page.text[:500]
    sessions = page.text[page.text.find('id="sessions"'):]
    assert "Web app (web app)" in sessions and "(native app)" not in sessions, sessions[:1500]
