"""The last review's nine findings, each as the attack it described, against the real binary: a password alone at the
account page and the passkey wire, single sign-on past a passkey, the native API treating a passkey as no factor, a
planted address verified by a mail scanner, test mode reaching a deployment, the testing API taken cross-site, a
cloned passkey signing in again, an assertion without its account, and App Services access tokens typed as ID tokens.
Each fails on the release before the assurance rule (docs/security.md, "Assurance") and passes after."""
import base64
import json
import os
import sqlite3
import subprocess
import uuid

import pytest
import requests

from harness import BINARY, Server
from mfa_support import CAPABILITIES, Native, redirect
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, ok
from test_parse_email import link, verify
from test_openid import authorize_url
from test_passkeys import Browser, refused, register, sign_in

PASSWORD = "correct horse battery"
WEB = "a0000000-0000-4000-8000-000000000001"        # mfa: off
OPTIONAL_WEB = "a0000000-0000-4000-8000-000000000006"  # mfa: optional
PUBLIC = "a0000000-0000-4000-8000-000000000003"
NATIVE_REQUIRED = "22222222-2222-2222-2222-222222222222"
NATIVE_OPTIONAL = "33333333-3333-3333-3333-333333333333"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    secret = tmp_path_factory.mktemp("assurance") / "client.secret"
    secret.write_text("s" * 64 + "\n")
    s = Server(config_text=f"""
clients:
  - {{id: {WEB}, name: Web app, redirect_uris: ["http://127.0.0.1/callback"], secret_file: "{secret}"}}
  - {{id: {OPTIONAL_WEB}, name: Careful app, redirect_uris: ["http://127.0.0.1/callback"], secret_file: "{secret}", mfa: optional}}
  - {{id: {PUBLIC}, name: Native app, redirect_uris: ["http://127.0.0.1/callback"]}}
  - {{id: {NATIVE_REQUIRED}, name: Bank, mfa: required}}
  - {{id: {NATIVE_OPTIONAL}, name: Shop, mfa: optional}}
mfa:
  methods: [email, totp]
""", env={"LATCHKEY_PASSKEYS_RP_ID": "localhost"})
    s.origin = f"http://localhost:{s.port}"
    s.env["LATCHKEY_PASSKEYS_ORIGINS"] = s.origin
    s.start()
    yield s
    s.cleanup()


def owner_with_passkey(server):
    """An account whose second factor is a passkey: its owner's browser and authenticator."""
    owner, device, _, credential = register(server)
    added = owner.call("/ui/passkeys/registration", credential)
    assert added.status_code == 200, added.text
    owner.passkey_id = added.json()["id"]
    return owner, device


def signed_in_with_password(server, email, client=WEB):
    """The attacker: the password alone, at an app whose client asks for no second factor."""
    visit = Browser(server, client=client)
    back = visit.pages.submit(visit.first, "/ui/sign-in", email=email, password=PASSWORD, method="password")
    assert back.status_code in (302, 303) and "code=" in back.headers["location"], (back.status_code, back.text[:500])
    return visit


# 1. High: a password alone takes the account at the account page.
def test_a_password_session_neither_reaches_the_account_page_nor_adds_a_passkey(server):
    owner, _ = owner_with_passkey(server)
    attacker = signed_in_with_password(server, owner.email)
    page = attacker.pages.get("/ui/account")
    assert page.status_code in (302, 303) and "/authorize" in page.headers["location"], (page.status_code, page.text[:300])
    refused(attacker.call("/ui/passkeys/registration/options"), 401, "second factor or passkey")
    # Nor any change posted straight to the page's forms: each sends the browser to sign in again.
    removal = attacker.pages.http.post(server.base + "/ui/account/factors/remove", data={"csrf": attacker.csrf, "kind": "totp"},
                                       allow_redirects=False, timeout=10)
    assert removal.status_code in (302, 303) and "/authorize" in removal.headers["location"], removal.text[:300]


# 5. Medium: single sign-on skips a passkey second factor.
def test_a_password_session_does_not_sign_in_by_sso_where_the_passkey_is_due(server):
    owner, _ = owner_with_passkey(server)
    attacker = signed_in_with_password(server, owner.email)
    careful = attacker.pages.get(authorize_url(server, client=OPTIONAL_WEB, redirect="http://127.0.0.1:4999/callback")[0])
    assert careful.status_code == 200 and "/ui/sign-in" in careful.text, (careful.status_code, careful.headers.get("location"))


# 3. High: the native API treats an account whose second factor is a passkey as having none.
@pytest.mark.parametrize("client", [NATIVE_REQUIRED, NATIVE_OPTIONAL])
def test_the_native_api_sends_a_passkey_account_to_the_browser(server, client):
    owner, _ = owner_with_passkey(server)
    answer = Native(server, client, capabilities=CAPABILITIES).password_token(owner.email)
    redirect(answer, "needs the browser")


# 7. Low: a passkey flagged as a suspected clone signs in again with the next higher counter.
def test_a_flagged_passkey_signs_in_no_more_until_its_owner_clears_it(server):
    owner, device = owner_with_passkey(server)
    device.sign_count = 10
    assert sign_in(server, device)[1].status_code == 200
    device.sign_count = 3
    refused(sign_in(server, device)[1], 400, "cloned")
    device.sign_count = 50  # the next higher counter
    refused(sign_in(server, device)[1], 400, "suspected of being cloned")
    # The owner, signed in with the passkey's own kind of proof plus more, clears it: "it was me".
    holder = Browser(server, client=PUBLIC)
    page = holder.pages.submit(holder.first, "/ui/sign-in", email=owner.email, password=PASSWORD, method="password")
    assert page.status_code in (302, 303)  # PUBLIC asks for no second factor: a password session, too little to clear it
    cleared = holder.pages.http.post(server.base + "/ui/account/passkeys/clear-flag", data={"csrf": holder.csrf, "id": "x"},
                                     allow_redirects=False, timeout=10)
    assert cleared.status_code in (302, 303) and "/authorize" in cleared.headers["location"]
    device.sign_count = 51
    refused(sign_in(server, device)[1], 400, "suspected of being cloned")
    # In the browser that added it (its session counts the passkey, and is recent), the owner says "it was me"...
    cleared = owner.pages.http.post(server.base + "/ui/account/passkeys/clear-flag", data={"csrf": owner.csrf, "id": owner.passkey_id},
                                    allow_redirects=False, timeout=10)
    assert cleared.status_code == 303 and "done=passkey_flag_cleared" in cleared.headers["location"], (cleared.status_code, cleared.text[:300])
    # ...and the passkey signs in again, from its next counter on.
    device.sign_count = 52
    assert sign_in(server, device)[1].status_code == 200


# 8. Info: a usernameless assertion without userHandle is accepted.
def test_an_assertion_without_its_user_handle_is_refused(server):
    _, device = owner_with_passkey(server)
    visitor = Browser(server)
    options = visitor.call("/ui/passkeys/authentication/options").json()
    from passkey_support import authentication_json, request_options
    assertion = authentication_json(device.get(request_options(options), server.origin))
    del assertion["response"]["userHandle"]
    refused(visitor.call("/ui/passkeys/authentication", assertion, interaction=True), 400, "no userHandle")


# 2. High: Parse's verify_email link verifies a planted address and keeps the planter's ways in.
def test_a_planted_address_is_not_verified_by_opening_the_link_and_its_proof_ends_the_planter(tmp_path):
    apps = [{"id": APP_ID, "master_key": MASTER_KEY, "verify_user_emails": True}]
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(apps)}).start()
    try:
        c = ParseClient(s)
        planter = "p" + uuid.uuid4().hex[:10]
        victim = f"victim-{uuid.uuid4().hex[:8]}@example.com"
        created = ok(c.call("POST", "/users", {"username": planter, "password": PASSWORD}), 201)
        ok(c.call("PUT", f"/users/{created['objectId']}", {"email": victim}, session_token=created["sessionToken"]))
        url = link(s, victim, "verify_email")
        scanned = requests.get(url, allow_redirects=False, timeout=10)  # the victim's mail scanner opens the link
        assert scanned.status_code == 200 and "<button" in scanned.text
        me = ok(c.call("GET", "/users/me", session_token=created["sessionToken"]))
        assert me["emailVerified"] is False  # opening changed nothing
        assert verify(url).headers["Location"].endswith("verify_email_success.html")  # the victim presses the button
        error(c.call("POST", "/login", {"username": planter, "password": PASSWORD}), 101)
        error(c.call("GET", "/users/me", session_token=created["sessionToken"]), 209)
        s.wait_for_subject(victim, "account is yours alone now")  # the owner is told what went
    finally:
        s.cleanup()


# 4. Medium: test mode turns on in production with one environment variable.
def test_test_mode_refuses_a_configured_database_a_public_url_and_a_proxy(tmp_path):
    base = Server(args=("serve", "--testing"))
    for extra, words in (({"LATCHKEY_DATABASE_PATH": str(tmp_path / "prod.sqlite")}, "database.path"),
                         ({"LATCHKEY_SERVER_PUBLIC_URL": "https://id.example.com"}, "server.public_url"),
                         ({"LATCHKEY_SERVER_PUBLIC_URL": "http://id.example.com"}, "server.public_url: test mode"),
                         ({"LATCHKEY_SERVER_TRUSTED_PROXIES": "127.0.0.1"}, "server.trusted_proxies")):
        out = subprocess.run([BINARY, *base.args], env={**base.env, **extra}, capture_output=True, text=True, timeout=30)
        assert out.returncode == 78 and words in out.stderr, (extra, out.stderr)
    assert not (tmp_path / "prod.sqlite").exists()
    base.cleanup()


def test_a_production_start_refuses_a_database_test_mode_made(tmp_path):
    s = Server(args=("serve", "--testing"), env={"TMPDIR": str(tmp_path)}).start()
    made = [os.path.join(root, f) for root, _, files in os.walk(tmp_path) for f in files if f == "latchkey.sqlite"]
    assert len(made) == 1
    copy = tmp_path / "copied.sqlite"  # a copy taken while it runs, as `latchkey copy` or a file copy would
    with sqlite3.connect(made[0]) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    s.stop()
    prod = Server(env={"LATCHKEY_DATABASE_PATH": str(copy)})
    out = subprocess.run([BINARY, "serve"], env=prod.env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 78 and "made by test mode" in out.stderr, out.stderr
    prod.cleanup()
    s.cleanup()


def test_the_stand_in_issuers_sign_only_for_the_test_audiences(tmp_path):
    config = tmp_path / "latchkey.yaml"
    config.write_text("identities:\n  providers:\n    google: {audiences: [prod-audience.apps.googleusercontent.com]}\n")
    s = Server(args=("serve", "--testing", "--config", str(config))).start()
    try:
        token = requests.post(s.base + "/testing/v1/issuer/google/id-token", timeout=10,
                              json={"sub": "g-1", "email": "someone@example.com", "aud": "prod-audience.apps.googleusercontent.com"})
        if token.status_code == 200:
            answer = requests.post(s.base + "/api/client/v2.0/app/test-app/auth/providers/oauth2-google/login",
                                   json={"id_token": token.json()["id_token"]}, timeout=10)
            assert answer.status_code != 200, answer.text
        else:
            assert token.status_code == 400, token.text
    finally:
        s.cleanup()


# 6. Low: the testing API takes cross-site requests and any Host.
def test_the_testing_api_takes_no_cross_site_form_and_no_foreign_host():
    s = Server(args=("serve", "--testing")).start()
    try:
        plain = requests.post(s.base + "/testing/v1/clock", data='{"advance_seconds": 86400}', timeout=10,
                              headers={"Content-Type": "text/plain", "Origin": "https://evil.example"})
        assert plain.status_code == 415, plain.text
        assert requests.get(s.base + "/testing/v1/clock", timeout=10).json()["offset_seconds"] == 0
        rebound = requests.get(s.base + "/testing/v1/codes", params={"to": "a@example.com"}, headers={"Host": "evil.example"}, timeout=10)
        assert rebound.status_code == 421 and rebound.json()["error"] == "invalid_request", rebound.text
        assert requests.get(s.base + "/testing/v1/config", headers={"Host": f"localhost:{s.port}"}, timeout=10).status_code == 200
        # The stand-in issuers are the testing API too: no token minted for a rebound Host, nor for a bodiless post.
        minted = requests.post(s.base + "/testing/v1/issuer/apple/id-token", json={"sub": "x"}, headers={"Host": "evil.example"}, timeout=10)
        assert minted.status_code == 421, minted.text
        assert requests.post(s.base + "/testing/v1/issuer/apple/id-token", timeout=10).status_code == 415
        # The JSON the suites send still works.
        assert requests.post(s.base + "/testing/v1/clock", json={"advance_seconds": 1}, timeout=10).status_code == 200

        # 9. Info: App Services access tokens are typed `at+jwt` (RFC 9068), not `JWT`.
        email = f"tm-{uuid.uuid4().hex[:8]}@example.com"
        assert requests.post(s.base + "/testing/v1/users", json={"email": email, "password": PASSWORD}, timeout=10).status_code == 201
        login = requests.post(s.base + "/api/client/v2.0/app/test-app/auth/providers/local-userpass/login",
                              json={"username": email, "password": PASSWORD}, timeout=10)
        assert login.status_code == 200, login.text
        header = json.loads(base64.urlsafe_b64decode(login.json()["access_token"].split(".")[0] + "=="))
        assert header["typ"] == "at+jwt", header
    finally:
        s.cleanup()
