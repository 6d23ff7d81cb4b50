"""The OpenID provider's pages and the operator's clients: CSRF and the browser binding, what a failed sign-in says,
sign-out, the lockout shared with the APIs, languages, clients made by the operator, and the sign-up schema."""
import secrets
import uuid

import requests

import strict
from conftest import password_sign_in as native_password_sign_in
from harness import Server
from jwks import verify as verify_es256
from openid_support import CALLBACK, PASSWORD, SECRET, WEB, Pages, oidc, provider_config  # noqa: F401
from test_openid import authorize_url, exchange, new_user, query


def test_forms_need_their_csrf_token_and_the_browser_that_started(oidc):
    server, _ = oidc
    pages = Pages(server)
    page = pages.get(authorize_url(server)[0])
    fields = pages.form(page, "/ui/sign-in")
    no_token = pages.http.post(server.base + "/ui/sign-in", data={**fields, "csrf": "", "email": "a@example.com"},
                               allow_redirects=False, timeout=10)
    assert no_token.status_code == 403 and "Location" not in no_token.headers
    # Another browser (no cookie of its own, or another one) cannot use this page's form.
    stranger = requests.post(server.base + "/ui/sign-in", data={**fields, "email": "a@example.com"}, allow_redirects=False, timeout=10)
    assert stranger.status_code == 403
    other = Pages(server)
    other.get(authorize_url(server)[0])
    assert other.http.post(server.base + "/ui/sign-in", data=fields, allow_redirects=False, timeout=10).status_code == 403


def test_a_wrong_password_and_an_unknown_address_read_the_same(oidc):
    server, _ = oidc
    pages, email, _ = new_user(server, Pages(server))
    fresh = Pages(server)
    wrong = fresh.sign_in(authorize_url(server)[0], email, "not the password at all")
    unknown = fresh.sign_in(authorize_url(server)[0], "nobody-" + email, "not the password at all")
    assert wrong.status_code == unknown.status_code == 400
    assert "email address or password is wrong" in wrong.text and "email address or password is wrong" in unknown.text
    ok = fresh.sign_in(authorize_url(server)[0], email)
    assert ok.status_code == 303 and "code" in query(ok)


def test_logout_checks_its_return_address_and_asks_without_a_hint(oidc):
    server, apps = oidc
    pages, _, tokens = new_user(server)
    bad = pages.get("/oauth2/v2.0/logout", params={"id_token_hint": tokens["id_token"], "post_logout_redirect_uri": "https://evil.example/"})
    assert bad.status_code == 400 and "Location" not in bad.headers
    forged = pages.get("/oauth2/v2.0/logout", params={"id_token_hint": tokens["id_token"][:-4] + "AAAA"})
    assert forged.status_code == 400
    ask = pages.get("/oauth2/v2.0/logout", params={"client_id": WEB})
    assert ask.status_code == 200 and "sign out" in ask.text.lower()
    # Still signed in until the user confirms.
    assert "code" in query(pages.get(authorize_url(server, prompt="none")[0]))
    back = f"http://127.0.0.1:{apps[0].server.server_address[1]}/"
    confirm = pages.http.post(server.base + "/oauth2/v2.0/logout", allow_redirects=False, timeout=10,
                              data={**pages.form(ask, "/oauth2/v2.0/logout"), "confirm": "yes", "post_logout_redirect_uri": back,
                                    "state": "bye"})
    assert confirm.status_code == 303 and confirm.headers["Location"] == back + "?state=bye"
    assert query(pages.get(authorize_url(server, prompt="none")[0]))["error"] == "login_required"
    r = requests.post(server.base + "/oauth2/v2.0/token", auth=(WEB, SECRET), timeout=10,
                      data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert r.status_code == 400  # single logout: the tokens of the session are gone too


def test_an_access_token_is_no_id_token_hint(oidc):
    """U's review, Low: access and ID tokens were not typed apart, and an access token passed as `id_token_hint`. Access
    tokens are typed `at+jwt` (RFC 9068) now, and the sign-out refuses one as a hint."""
    server, apps = oidc
    pages, _, tokens = new_user(server)
    assert strict.b64url_json(tokens["access_token"].split(".")[0])["typ"] == "at+jwt"
    assert strict.b64url_json(tokens["id_token"].split(".")[0])["typ"] == "JWT"
    back = f"http://127.0.0.1:{apps[0].server.server_address[1]}/"
    refused = pages.get("/oauth2/v2.0/logout", params={"id_token_hint": tokens["access_token"], "post_logout_redirect_uri": back})
    assert refused.status_code == 400 and "Location" not in refused.headers and "ID token" in refused.text
    # A resource server that checks signatures against the JWKS still verifies the access token.
    assert verify_es256(tokens["access_token"], requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json())["sub"]
    asked = pages.get("/oauth2/v2.0/logout", params={"id_token_hint": tokens["id_token"], "post_logout_redirect_uri": back})
    assert asked.status_code in (200, 303), asked.text


def test_wrong_passwords_at_the_pages_lock_the_account_everywhere(tmp_path):
    """The pages count against the same lockout as the APIs: five wrong passwords here, and the native API refuses too.
    The pages themselves say of a locked account what they say of any failed sign-in (test_page_enumeration.py)."""
    secret_file = tmp_path / "client.secret"
    secret_file.write_text(SECRET)
    server = Server(config_text=provider_config(secret_file, [4999]), env={"LATCHKEY_LIMITS_ENABLED": "true"}).start()
    try:
        pages, email, _ = new_user(server)
        stranger = Pages(server)
        for attempt in range(5):
            r = stranger.sign_in(authorize_url(server)[0], email, "wrong wrong wrong")
            assert r.status_code == 400, (attempt, r.text[-600:])
        locked = stranger.sign_in(authorize_url(server)[0], email)
        assert locked.status_code == 400 and "The email address or password is wrong." in locked.text
        native = native_password_sign_in(server, email, PASSWORD)
        assert native.status_code == 429 and native.json()["error"] == "slow_down", native.text
    finally:
        server.cleanup()


def test_the_pages_are_localized(oidc):
    server, _ = oidc
    page = Pages(server).get(authorize_url(server, ui_locales="de-CH en")[0])
    assert 'lang="de"' in page.text and "Anmelden" in page.text
    page = Pages(server).get(authorize_url(server)[0], headers={"Accept-Language": "de;q=0.9"})
    assert "Anmelden" in page.text
    css = requests.get(server.base + "/ui/style.css", timeout=10)
    assert css.status_code == 200 and css.headers["Content-Type"].startswith("text/css")


def test_the_operator_makes_clients_and_sees_and_ends_sessions_and_consents(tmp_path):
    """The admin API: a client made at run time signs users in (with consent), its secret rotates, it is deleted; a
    user's browser sessions and consents are listed and ended."""
    secret_file, token_file = tmp_path / "client.secret", tmp_path / "admin.token"
    secret_file.write_text(SECRET)
    token_file.write_text("admin-token-" + secrets.token_hex(16))
    server = Server(config_text=provider_config(secret_file, [4999]), env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    admin = lambda method, path, **kw: requests.request(method, server.admin_base + "/admin/v1" + path, timeout=10,
                                                         headers={"Authorization": "Bearer " + token_file.read_text()}, **kw)
    try:
        made = admin("POST", "/clients", json={"name": "Ops tool", "redirect_uris": [CALLBACK], "first_party": False})
        assert made.status_code == 201, made.text
        client, secret = made.json()["id"], made.json()["client_secret"]
        assert made.json()["source"] == "admin" and made.json()["confidential"] is True
        assert admin("POST", "/clients", json={"name": "x", "redirect_uris": ["javascript:alert(1)"]}).status_code == 400
        listed = {c["id"]: c for c in admin("GET", "/clients").json()["clients"]}
        assert listed[client]["source"] == "admin" and listed[WEB]["source"] == "configuration" and "client_secret" not in listed[WEB]

        pages, email = Pages(server), f"ops-{uuid.uuid4().hex[:8]}@example.com"
        url, verifier = authorize_url(server, client=client)
        consent = pages.sign_up(url, email)
        assert consent.status_code == 200 and "Ops tool" in consent.text
        back = pages.submit(consent, "/ui/consent", decision="allow")
        tokens = exchange(server, query(back)["code"], verifier, client=client, secret=secret).json()

        sessions = admin("GET", f"/users/{email}/browser-sessions").json()["browser_sessions"]
        assert len(sessions) == 1 and sessions[0]["amr"] == ["otp"] and sessions[0]["ip"] == "127.0.0.1"
        assert admin("GET", f"/users/{email}/consents").json()["consents"][0]["client_id"] == client
        assert admin("DELETE", f"/users/{email}/consents/{client}").status_code == 204
        assert admin("DELETE", f"/users/{email}/consents/{client}").status_code == 404
        refresh = requests.post(server.base + "/oauth2/v2.0/token", auth=(client, secret), timeout=10,
                                data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
        assert refresh.status_code == 400  # the consent went with the tokens it allowed

        rotated = admin("POST", f"/clients/{client}/secret").json()["client_secret"]
        old = requests.post(server.base + "/oidc/introspect", data={"token": "x"}, auth=(client, secret), timeout=10)
        new = requests.post(server.base + "/oidc/introspect", data={"token": "x"}, auth=(client, rotated), timeout=10)
        assert old.status_code == 401 and new.json() == {"active": False}

        assert admin("DELETE", f"/clients/{WEB}").status_code == 409
        assert admin("DELETE", f"/clients/{client}").status_code == 204
        gone = requests.get(authorize_url(server, client=client)[0], allow_redirects=False, timeout=10)
        assert gone.status_code == 400 and "Location" not in gone.headers

        assert admin("DELETE", f"/users/{email}/browser-sessions/{sessions[0]['id']}").status_code == 204
        assert query(pages.get(authorize_url(server, prompt="none")[0]))["error"] == "login_required"
        assert admin("DELETE", f"/users/{email}/browser-sessions/{sessions[0]['id']}").status_code == 404
        audit = admin("GET", "/audit", params={"kind": "admin.client_created"}).json()["events"]
        assert audit and client in audit[-1]["detail"]
    finally:
        server.cleanup()


def test_sign_up_at_the_pages_asks_for_the_schemas_attributes(tmp_path):
    secret_file = tmp_path / "client.secret"
    secret_file.write_text(SECRET)
    server = Server(config_text=provider_config(secret_file, [4999], extra="""
attributes:
  - { name: displayName, type: string, required: false }
  - { name: postalCode, type: string, required: true, regex: "^[1-9][0-9]*$" }
  - { name: newsletter, type: boolean, required: true }
""")).start()
    try:
        pages, email = Pages(server), f"attrs-{uuid.uuid4().hex[:8]}@example.com"
        first = pages.get(authorize_url(server)[0])
        page = pages.get("/ui/sign-up", params={"interaction": pages.form(first, "/ui/sign-in")["interaction"]})
        assert 'name="attr.postalCode" type="text"' in page.text and 'name="attr.newsletter" type="checkbox"' in page.text
        refused = pages.submit(page, "/ui/sign-up", email=email, password=PASSWORD, **{"attr.postalCode": "0abc"})
        assert refused.status_code == 400 and "postalCode" in refused.text and "Create your account" in refused.text
        before = len(server.mails(email))
        page = pages.submit(refused, "/ui/sign-up", email=email, password=PASSWORD, **{"attr.postalCode": "90210"})
        back = pages.submit(page, "/ui/sign-up/code", code=server.wait_for_code(email, before))
        assert back.status_code == 303 and "code" in query(back)
    finally:
        server.cleanup()
