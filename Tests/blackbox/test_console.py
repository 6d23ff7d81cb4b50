"""The operator console over real sockets: who may see it, its session and CSRF token, each action reaching the
engine (and the audit trail under the operator's name), the outbox, keys, audit export, clients, bad input."""
import json
import re
import time
import uuid

import requests

import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from console_support import TOKEN, Operator, console_server, server, text_of, user_id  # noqa: F401
from harness import ALL_TYPES, Server, free_port
from openid_support import SECRET, THIRD, WEB, Pages, provider_config
from test_openid import authorize_url
from smtp_relay import Relay, make_certificate
from test_smtp import smtp_env, start_sign_up

PASSWORD = "correct horse battery"
PAGES = ["/", "/users", "/users?q=a%40b", "/users/nobody", "/mail", "/mail?status=sent", "/keys", "/audit", "/audit/export", "/clients"]


def new_user(server, tag="u"):
    address = f"{tag}-{uuid.uuid4().hex[:10]}@example.com"
    tokens = strict.tokens(token_after_sign_up(server, address, sign_up(server, address, PASSWORD)))
    return address, tokens


def can_sign_in(server, address, password=PASSWORD):
    """Whether a native password sign-in gets tokens (a disabled account is refused at its first step)."""
    if server.post("/oauth2/v2.0/initiate", {"username": address, "challenge_type": ALL_TYPES}).status_code != 200:
        return False
    return password_sign_in(server, address, password).status_code == 200


def audit(server, kind):
    r = requests.get(server.admin_base + "/admin/v1/audit", params={"kind": kind, "limit": 1000},
                     headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["events"]


def test_every_page_without_a_session_redirects_to_sign_in_and_a_post_changes_nothing(server):
    for path in PAGES:
        r = requests.get(server.admin_base + "/console" + path, allow_redirects=False, timeout=10)
        assert r.status_code == 303, (path, r.status_code)
        assert r.headers["Location"].startswith("/console/sign-in?next=/console/"), (path, r.headers["Location"])
    address, _ = new_user(server, "nosession")
    r = requests.post(server.admin_base + f"/console/users/{address}/disable", data={"csrf": "x"}, allow_redirects=False, timeout=10)
    assert r.status_code == 303 and r.headers["Location"] == "/console/sign-in"
    assert can_sign_in(server, address)  # still enabled


def test_sign_in_needs_the_admin_token_and_a_name_and_sets_a_strict_http_only_cookie(server):
    operator = Operator(server, "grace")
    wrong = operator.sign_in(token="not-the-token")
    assert wrong.status_code == 401 and "That is not the admin token." in text_of(wrong.text) and "set-cookie" not in wrong.headers
    nameless = Operator(server, "<b>").sign_in()
    assert nameless.status_code == 400 and "Give your name" in text_of(nameless.text)
    r = operator.sign_in(next_path="/console/keys")
    assert r.status_code == 303 and r.headers["Location"] == "/console/keys"
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("latchkey_console=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP on loopback; over TLS it is __Host- and Secure (below)
    # A return address off the console is ignored: no open redirect.
    for evil in ("//evil.example/", "https://evil.example/", "/console/..//evil.example"):
        assert Operator(server, "grace").sign_in(next_path=evil).headers["Location"] == "/console/"
    page = operator.get("/keys")
    assert page.status_code == 200
    csp = page.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp and "script-src" not in csp
    assert page.headers["X-Frame-Options"] == "DENY" and page.headers["Cache-Control"] == "no-store"
    assert "<script" not in page.text
    signed_in = [e for e in audit(server, "admin.console_signed_in") if e["actor"] == "console:grace"]
    assert signed_in and signed_in[-1]["client_ip"] == "127.0.0.1"
    # Signing out ends the session in this browser.
    out = operator.post("/sign-out")
    assert out.status_code == 303 and "Max-Age=0" in out.headers["Set-Cookie"]
    operator.http.cookies.clear()
    assert operator.get("/keys").status_code == 303


def test_a_form_without_its_token_or_with_another_sessions_is_refused(server):
    address, _ = new_user(server, "csrf")
    ada, eve = Operator(server, "ada").signed_in(), Operator(server, "eve").signed_in()
    uid = user_id(ada, address)
    ada.get(f"/users/{uid}")
    eve.get("/users")
    for data, csrf in (({}, False), ({"csrf": eve.csrf}, False), ({"csrf": ""}, False)):
        r = ada.post(f"/users/{uid}/disable", data, csrf=csrf)
        assert r.status_code == 403 and "not sent by this console session" in text_of(r.text), r.text
    assert can_sign_in(server, address)
    page = ada.act(f"/users/{uid}/disable")
    assert "The account is disabled and signed out everywhere." in text_of(page.text)
    assert not can_sign_in(server, address)


def test_an_idle_session_ends(tmp_path_factory):
    s = console_server(tmp_path_factory, LATCHKEY_ADMIN_CONSOLE_IDLE_SECONDS="60", LATCHKEY_TESTING_ENABLED="true")
    try:
        operator = Operator(s).signed_in()
        assert operator.get("/users").status_code == 200
        s.advance_clock(40)
        assert operator.get("/users").status_code == 200  # each request restarts the idle clock
        s.advance_clock(40)
        assert operator.get("/users").status_code == 200
        s.advance_clock(61)
        r = operator.get("/users")
        assert r.status_code == 303 and r.headers["Location"] == "/console/sign-in?next=/console/users"
        # The sign-in page clears the stale cookie.
        assert "Max-Age=0" in operator.get("/sign-in").headers.get("Set-Cookie", "")
    finally:
        s.cleanup()


def test_a_locked_out_user_is_found_and_unlocked(tmp_path_factory):
    # The lockout is one of the limits the functional suites turn off.
    server = console_server(tmp_path_factory, LATCHKEY_LIMITS_ENABLED="true", LATCHKEY_LIMITS_CREDENTIAL_PER_IP_REQUESTS="1000")
    try:
        locked_out_user_is_found_and_unlocked(server)
    finally:
        server.cleanup()


def locked_out_user_is_found_and_unlocked(server):
    address, _ = new_user(server, "locked")
    for _ in range(5):
        assert password_sign_in(server, address, "a wrong password!").status_code == 400
    assert password_sign_in(server, address, PASSWORD).status_code == 429
    operator = Operator(server, "Ada Lovelace").signed_in()
    found = operator.get("/users?q=" + address[:12])
    assert found.status_code == 200 and address in found.text and "locked" in text_of(found.text)
    uid = user_id(operator, address)
    page = operator.get(f"/users/{uid}")
    assert "Locked until" in text_of(page.text) and "5 failed attempts" in text_of(page.text)
    page = operator.act(f"/users/{uid}/unlock")
    assert "The account is unlocked." in text_of(page.text) and "Locked until" not in text_of(page.text)
    strict.tokens(password_sign_in(server, address, PASSWORD))
    events = [e for e in audit(server, "admin.user_unlocked") if e["user_id"] == uid]
    assert len(events) == 1 and events[0]["actor"] == "console:Ada Lovelace" and events[0]["dialect"] == "console"
    # The user's page lists the lockout and the failures in its recent events, with their dialect.
    page = operator.get(f"/users/{uid}")
    assert "lockout" in page.text and "sign_in_failed" in page.text and "native" in page.text


def test_each_user_action_reaches_the_engine(server):
    operator = Operator(server).signed_in()
    address, tokens = new_user(server, "actions")
    uid = user_id(operator, address)
    page = operator.get(f"/users/{uid}")
    assert "In apps" in text_of(page.text) and "native" in page.text  # the session from the sign-up
    page = operator.act(f"/users/{uid}/revoke-sessions")
    assert "The user is signed out everywhere." in text_of(page.text) and "Not signed in anywhere." in text_of(page.text)
    refreshed = server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                                                   "scope": "openid offline_access"})
    assert refreshed.status_code == 400
    operator.act(f"/users/{uid}/disable")
    assert not can_sign_in(server, address)
    page = operator.act(f"/users/{uid}/enable")
    assert "The account is enabled." in text_of(page.text)
    strict.tokens(password_sign_in(server, address, PASSWORD))
    before = len(server.mails(address))
    page = operator.act(f"/users/{uid}/send-password-reset")
    assert "A password-reset link is on its way." in text_of(page.text)
    deadline = time.time() + 10
    while len(server.mails(address)) == before and time.time() < deadline:
        time.sleep(0.1)
    assert len(server.mails(address)) == before + 1 and "/reset-password?token=" in server.mails(address)[-1]["text"]
    # Delete needs the address typed: a wrong one deletes nothing.
    wrong = operator.post(f"/users/{uid}/delete", {"confirm": "someone@else.example"})
    assert wrong.status_code == 400 and "nothing was deleted" in text_of(wrong.text)
    assert operator.get(f"/users/{uid}").status_code == 200
    operator.get(f"/users/{uid}")
    gone = operator.act(f"/users/{uid}/delete", {"confirm": address})
    assert "The account is deleted." in text_of(gone.text)
    assert operator.get(f"/users/{uid}").status_code == 404
    kinds = {e["kind"] for e in audit(server, "admin.user_deleted") + audit(server, "admin.sessions_revoked")
             + audit(server, "admin.reset_mail_sent") if e["user_id"] == uid}
    assert kinds == {"admin.user_deleted", "admin.sessions_revoked", "admin.reset_mail_sent"}


def test_keys_rotate_and_a_revocation_needs_its_box_ticked(server):
    operator = Operator(server).signed_in()
    before = {k["kid"] for k in requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json()["keys"]}
    operator.get("/keys")
    page = operator.act("/keys/rotate")
    assert "A new key signs from now on." in text_of(page.text)
    after = {k["kid"] for k in requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json()["keys"]}
    new = after - before
    assert len(new) == 1
    old = sorted(before)[0]
    assert operator.post(f"/keys/{old}/revoke").status_code == 400
    page = operator.act(f"/keys/{old}/revoke", {"understood": "yes"})
    assert "The key is revoked." in text_of(page.text)
    assert old not in {k["kid"] for k in requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json()["keys"]}
    assert operator.post("/keys/no-such-kid/revoke", {"understood": "yes"}).status_code == 404


def test_the_audit_trail_filters_and_exports_as_json_lines(server):
    address, _ = new_user(server, "audited")
    operator = Operator(server, "auditor").signed_in()
    uid = user_id(operator, address)
    page = operator.get(f"/audit?kind=sign_up&user={address}")
    assert page.status_code == 200 and text_of(page.text).count("sign_up") >= 1 and "sign_in" not in text_of(page.text).replace("sign_in_", "")
    assert "No events match." in text_of(operator.get("/audit?ip=192.0.2.99").text)
    export = operator.get(f"/audit/export?user={uid}")
    assert export.status_code == 200 and export.headers["Content-Type"].startswith("application/x-ndjson")
    assert "attachment" in export.headers["Content-Disposition"]
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert lines and all(event["user_id"] == uid for event in lines)
    assert [e["id"] for e in lines] == sorted(e["id"] for e in lines)
    assert {"sign_up", "sign_in"} <= {e["kind"] for e in lines}
    bad = operator.get("/audit?since=yesterday")
    assert bad.status_code == 400 and "2026-11-26T18:30" in text_of(bad.text)
    assert operator.get("/audit?user=nobody-at-all").status_code == 404


def test_clients_and_apps_show_no_secret_but_a_new_one_once(server):
    operator = Operator(server).signed_in()
    page = operator.get("/clients")
    assert page.status_code == 200 and "in the configuration file" in text_of(page.text)
    created = operator.post("/clients", {"name": "console-made", "redirect_uris": "https://app.example/callback\n",
                                         "mfa": "off", "confidential": "yes", "first_party": "yes"})
    assert created.status_code == 201
    secret = re.search(r'<code class="secret">([^<]+)</code>', created.text).group(1)
    client_id = re.search(r"New client <code>([^<]+)</code>", created.text).group(1)
    page = operator.get("/clients")
    assert client_id in page.text and secret not in page.text
    # The secret works at the token endpoint's client authentication (a wrong one does not).
    r = requests.post(server.base + "/oidc/introspect", data={"token": "x"}, auth=(client_id, secret), timeout=10)
    assert r.status_code == 200, r.text
    operator.get("/clients")
    assert "The client is deleted." in text_of(operator.act(f"/clients/{client_id}/delete").text)
    refused = operator.post("/clients", {"name": "", "mfa": "off"})
    assert refused.status_code == 400 and "A client needs a name." in text_of(refused.text)


def test_the_overview_counts_sign_ins_by_outcome_and_dialect(server):
    address, _ = new_user(server, "overview")
    password_sign_in(server, address, "not the password")
    operator = Operator(server).signed_in()
    page = operator.get("/")
    assert page.status_code == 200
    text = text_of(page.text)
    day = re.search(r"Sign-ins succeeded (\d+) failed (\d+)", text)
    assert day and int(day.group(1)) >= 1 and int(day.group(2)) >= 1, text
    assert "<svg" in page.text and "<rect" in page.text and "answering" in text
    assert re.search(r"<td>Native API</td><td>\d+</td><td>[1-9]\d*</td>", page.text)


def test_the_console_speaks_german(server):
    operator = Operator(server, language="de-DE,de;q=0.9").signed_in()
    page = operator.get("/users")
    assert 'lang="de"' in page.text and "Benutzer finden" in page.text and "Abmelden" in page.text
    assert "Diese Konsolenseite gibt es nicht." in text_of(operator.get("/nope").text)


def test_bad_input_gets_a_page_naming_the_cause(server):
    operator = Operator(server).signed_in()
    cases = [("/users?cursor=garbage", 400, "not one the console made"), ("/users?q=" + "a" * 400, 400, "too long"),
             ("/mail?status=lost", 400, "waiting, failed or sent"), ("/users/no-such-user", 404, "No user has that id"),
             ("/no-such-page", 404, "no such console page")]
    for path, status, words in cases:
        r = operator.get(path)
        assert r.status_code == status and words in text_of(r.text), (path, r.status_code, text_of(r.text)[:300])
    operator.get("/mail")
    assert operator.post("/mail/abc/retry").status_code == 400
    assert operator.post("/mail/999999/retry").status_code == 400
    r = operator.http.post(operator.base + "/keys/rotate", data=b"csrf=%zz", allow_redirects=False, timeout=10,
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and "could not be read" in text_of(r.text)
    r = operator.http.post(operator.base + "/keys/rotate", json={"csrf": operator.csrf}, allow_redirects=False, timeout=10)
    assert r.status_code == 415
    # The account sign-in's return: a forged or stale state, and the provider's own refusal.
    r = requests.get(server.admin_base + "/console/callback?code=forged&state=forged", allow_redirects=False, timeout=10)
    assert r.status_code == 400 and "stale or was used already" in text_of(r.text)
    r = requests.get(server.admin_base + "/console/callback?error=access_denied&state=x", allow_redirects=False, timeout=10)
    assert r.status_code == 400 and "did not finish" in text_of(r.text)
    start = requests.get(server.admin_base + "/console/sign-in/account?next=//evil.example/", allow_redirects=False, timeout=10)
    assert start.status_code == 303 and start.headers["Location"].startswith(server.base + "/oauth2/v2.0/authorize?")
    assert "client_id=latchkey-console" in start.headers["Location"] and "code_challenge_method=S256" in start.headers["Location"]
    assert "SameSite=Lax" in start.headers["Set-Cookie"] and "HttpOnly" in start.headers["Set-Cookie"]


def test_failed_mail_shows_the_relays_answer_masked_and_can_be_sent_again(tmp_path_factory):
    cert, key = make_certificate(str(tmp_path_factory.mktemp("relay")))
    relay = Relay(free_port(), cert, key).start()
    token_file = tmp_path_factory.mktemp("admin") / "admin.token"
    token_file.write_text(TOKEN)
    s = Server(env={**smtp_env(relay.port, cert), "LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    try:
        address = f"reject-{uuid.uuid4().hex[:8]}@example.com"
        start_sign_up(s, address)
        operator = Operator(s).signed_in()
        deadline = time.time() + 20
        while time.time() < deadline:
            page = operator.get("/mail?status=failed")
            if "550" in page.text:
                break
            time.sleep(0.2)
        text = text_of(page.text)
        assert "550 5.1.1 No such user here" in text and address not in page.text, text
        mail_id = re.search(r'open=(\d+)">show', page.text).group(1)
        assert address in operator.get(f"/mail?status=failed&open={mail_id}").text
        page = operator.act(f"/mail/{mail_id}/retry")
        assert "The mail is queued again." in text_of(page.text)
        assert [e for e in audit(s, "admin.mail_retried") if e["detail"] == f"mail {mail_id}" and e["actor"] == "console:ada"]
    finally:
        s.cleanup()
        relay.stop()


def test_the_console_is_not_served_without_an_admin_token():
    s = Server().start()
    try:
        r = requests.get(s.admin_base + "/console/", allow_redirects=False, timeout=10)
        assert r.status_code == 404 and r.json()["error"] == "not_found"
    finally:
        s.cleanup()


def test_over_tls_the_cookie_is_host_prefixed_and_secure(tmp_path_factory):
    cert, key = make_certificate(str(tmp_path_factory.mktemp("tls")))
    s = console_server(tmp_path_factory, LATCHKEY_ADMIN_TLS_CERTIFICATE=cert, LATCHKEY_ADMIN_TLS_KEY=key)
    try:
        r = requests.post(f"https://127.0.0.1:{s.admin_port}/console/sign-in", data={"name": "ada", "token": TOKEN},
                          verify=cert, allow_redirects=False, timeout=10)
        assert r.status_code == 303
        cookie = r.headers["Set-Cookie"]
        assert cookie.startswith("__Host-latchkey_console=") and "; Secure" in cookie and "Path=/;" in cookie and "Domain" not in cookie
        page = requests.get(f"https://127.0.0.1:{s.admin_port}/console/users", verify=cert, allow_redirects=False, timeout=10,
                            cookies={"__Host-latchkey_console": r.cookies["__Host-latchkey_console"]})
        assert page.status_code == 200 and "Find a user" in page.text
    finally:
        s.cleanup()


def test_a_browser_session_and_a_consent_are_ended_from_the_console(tmp_path):
    secret_file, token_file = tmp_path / "client.secret", tmp_path / "admin.token"
    secret_file.write_text(SECRET)
    token_file.write_text(TOKEN)
    s = Server(config_text=provider_config(secret_file, [4999]), env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    try:
        pages, address = Pages(s), f"browser-{uuid.uuid4().hex[:8]}@example.com"
        url, _ = authorize_url(s, client=THIRD)
        consent = pages.sign_up(url, address)
        pages.submit(consent, "/ui/consent", decision="allow")
        operator = Operator(s).signed_in()
        uid = user_id(operator, address)
        page = operator.get(f"/users/{uid}")
        assert "In the browser (hosted pages)" in text_of(page.text) and THIRD in page.text
        session = re.search(r'/browser-sessions/([^/]+)/end', page.text).group(1)
        page = operator.act(f"/users/{uid}/consents/{THIRD}/revoke")
        assert "The consent is withdrawn." in text_of(page.text)
        page = operator.act(f"/users/{uid}/browser-sessions/{session}/end")
        assert "The browser session is ended." in text_of(page.text) and "/browser-sessions/" not in page.text
        assert operator.post(f"/users/{uid}/browser-sessions/{session}/end").status_code == 404
        # Without its session the browser is asked to sign in again.
        again = pages.http.get(authorize_url(s, client=WEB)[0], allow_redirects=False, timeout=10)
        assert again.status_code == 200 and "/ui/sign-in" in again.text
    finally:
        s.cleanup()
