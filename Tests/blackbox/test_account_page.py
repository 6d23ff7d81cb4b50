"""The account page over HTTP (docs/account.md): reached through the hosted pages as the built-in client, each change
with its audit event (actor `self`) and mail, the refusals in the page's own words, a step-up when the sign-in is
older than `mfa.recent_sign_in_seconds`, linking an upstream issuer by redirect, the data download and deletion."""
import time
import uuid

import pyotp
import pytest
import requests

from account_support import ACCOUNT, Account, account_server, upstream  # noqa: F401 (the fixture)
from mfa_support import TextMessages
from openid_support import PASSWORD, PUBLIC, THIRD, Pages
from test_openid import authorize_url, query

ADMIN = "a" * 48


@pytest.fixture(scope="module")
def server(upstream, tmp_path_factory):
    token = tmp_path_factory.mktemp("account-admin") / "admin.token"
    token.write_text(ADMIN)
    s = account_server(upstream, {"LATCHKEY_ADMIN_TOKEN_FILE": str(token)})
    yield s
    s.cleanup()


def new_email(prefix="acct"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def events(server, email):
    user = requests.get(f"{server.admin_base}/admin/v1/users/{email}", headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert user.status_code == 200, user.text
    r = requests.get(f"{server.admin_base}/admin/v1/audit", params={"user_id": user.json()["id"], "limit": 200},
                     headers={"Authorization": f"Bearer {ADMIN}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["events"]


def test_a_visitor_signs_up_through_the_pages_and_lands_on_the_account_page(server):
    account, email = Account(server), new_email()
    start = account.get(ACCOUNT)
    assert start.status_code == 303
    assert "client_id=latchkey-account" in start.headers["location"]
    page = account.sign_up_here(email)
    assert page.status_code == 200 and "<h1>Your account</h1>" in page.text, page.text[:800]
    assert email in page.text
    # The discovery document names the page for apps to link to.
    assert server.get("/.well-known/openid-configuration").json()["account_url"] == server.base + ACCOUNT


def test_profile_password_and_address_change(server):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    page = account.act("/ui/account/profile", **{"attr.displayName": "Ada L."})
    assert "Your profile is saved." in page.text and 'value="Ada L."' in page.text

    page = account.act("/ui/account/password", current_password=PASSWORD, password="a whole new passphrase")
    assert "Your password is changed." in page.text, page.text[:1500]
    assert "Your account" in page.text  # this browser stays signed in
    assert Account(server).sign_in_here(email, "a whole new passphrase").status_code == 200
    server.wait_for_subject(email, "password")

    # The sign-up proved the old mailbox only: giving it up asks for the password too (typed here, or a sign-in).
    moved = new_email("moved")
    again = account.act("/ui/account/email", email=moved)
    assert "<h1>Sign in</h1>" in again.text and "to continue to Your account" in again.text, again.text[:1500]
    wrong = account.act("/ui/account/email", email=moved, current_password="not the password")
    assert wrong.status_code in (400, 401) and "The current password is wrong." in wrong.text and not server.mails(moved), wrong.status_code
    page = account.act("/ui/account/email", email=moved, current_password="a whole new passphrase")
    assert "Enter your code" in page.text and "m****" in page.text, page.text[:3000]
    wrong = account.act("/ui/account/email/code", page=page, code="000000")
    assert wrong.status_code == 400 and "The code is wrong" in wrong.text
    page = account.act("/ui/account/email/code", page=wrong, code=server.wait_for_code(moved))
    assert "Your email address is changed." in page.text and moved in page.text
    server.wait_for_subject(email, "changed")  # the old address is told
    kinds = [(e["kind"], e.get("actor")) for e in events(server, moved)]
    assert ("profile_updated", "self") in kinds and ("email_changed", "self") in kinds, kinds


def test_second_factors_authenticator_email_recovery_and_removal(server):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    offer = account.act("/ui/account/factors/authenticator")
    assert "data:image/svg+xml;base64," in offer.text
    secret = offer.text.split('id="secret">')[1].split("<")[0]
    wrong = account.act("/ui/account/factors/authenticator/code", page=offer, code="000000")
    assert wrong.status_code == 400 and "The code is wrong" in wrong.text
    codes_page = account.act("/ui/account/factors/authenticator/code", page=wrong, code=pyotp.TOTP(secret).now())
    assert codes_page.text.count("<li><code>") == 10
    server.wait_for_subject(email, "second")
    page = account.get(ACCOUNT)
    assert "Authenticator app" in page.text and "Recovery codes left: 10" in page.text
    again = account.act("/ui/account/factors/recovery")
    assert again.text.count("<li><code>") == 10

    factor_mail = new_email("factor")
    code_page = account.act("/ui/account/factors/code", kind="email", target=factor_mail)
    page = account.act("/ui/account/factors/code/confirm", page=code_page, code=server.wait_for_code(factor_mail))
    assert "The second factor is added." in page.text

    page = account.act("/ui/account/factors/remove", containing='value="totp"')
    assert "The second factor is removed." in page.text and "Recovery codes left" not in page.text
    assert "mfa_removed" in [e["kind"] for e in events(server, email)]


def test_sessions_consents_and_the_data_download(server):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    other = Account(server)
    other.sign_in_here(email)
    # A third-party app asks for consent once; the page lists it.
    third = Account(server)
    url, _ = authorize_url(server, client=THIRD)
    consent = third.follow(third.sign_in(url, email))
    assert consent.status_code == 200 and "Allow access?" in consent.text, consent.text[:500]
    assert third.submit(consent, "/ui/consent", decision="allow").status_code == 303
    # An app's session (a native app's refresh token, by single sign-on in the other browser), listed with where its
    # token request came from.
    url, verifier = authorize_url(server, client=PUBLIC)
    code = query(other.get(url))["code"]
    app = requests.post(server.base + "/oauth2/v2.0/token", timeout=30, headers={"User-Agent": "ExampleApp/1.0 (iPhone; iOS 18)"},
                        data={"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "client_id": PUBLIC,
                              "redirect_uri": "http://127.0.0.1:4999/callback"})
    page = account.get(ACCOUNT)
    assert page.text.count('action="/ui/account/sessions/end"') == 3 and "this browser" in page.text
    assert "Partner tool" in page.text
    assert app.status_code == 200, app.text
    assert "(native app) · iOS · 127.0.0.1" in page.text, page.text[page.text.find('id="sessions"'):][:1500]

    page = account.act("/ui/account/consents/withdraw", containing=THIRD)
    assert "The app no longer has access." in page.text and "Partner tool" not in page.text
    page = account.act("/ui/account/sessions/end-others")
    assert "Every other session is ended." in page.text
    assert page.text.count('action="/ui/account/sessions/end"') == 1
    assert other.get(ACCOUNT).status_code == 303  # that browser is signed out

    download = account.get("/ui/account/download")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    data = download.json()
    assert data["profile"]["email"] == email and data["profile"]["hasPassword"] is True
    assert any(e["kind"] == "consent_revoked" for e in data["auditEvents"])
    text = download.text
    for secret in ("$scrypt", "passwordHash", "publicKey", "tokenHash", "secret"):
        assert secret not in text


def test_linking_and_unlinking_an_upstream_issuer(server, upstream):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    page = account.get(ACCOUNT)
    assert "Continue with Corp" in page.text
    to_issuer = account.http.post(server.base + "/ui/account/identities/link", allow_redirects=False, timeout=30,
                                  data={**account.form(page, "/ui/account/identities/link")})
    assert to_issuer.status_code == 303 and to_issuer.headers["location"].startswith(upstream.base)
    # At the issuer: an account made there, then its answer comes back to the callback and links.
    there = Pages(upstream)
    first = there.get(to_issuer.headers["location"])
    interaction = there.form(first, "/ui/sign-in")["interaction"]
    signup = there.submit(there.get("/ui/sign-up", params={"interaction": interaction}), "/ui/sign-up", email=email, password=PASSWORD)
    back = there.submit(signup, "/ui/sign-up/code", code=upstream.wait_for_code(email))
    assert back.status_code == 303 and "/ui/upstream/callback/corp" in back.headers["location"]
    page = account.follow(account.get(back.headers["location"]))
    assert "The sign-in is linked." in page.text and "Corp" in page.text
    server.wait_for_subject(email, "new way to sign in")
    page = account.act("/ui/account/identities/unlink", provider="corp")
    assert "The sign-in is removed." in page.text


def test_refusals_in_the_pages_words(server):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    page = account.get(ACCOUNT)
    # No CSRF token: refused, nothing changed.
    r = account.http.post(server.base + "/ui/account/delete", data={"confirm": email}, allow_redirects=False, timeout=30)
    assert r.status_code == 403 and "The form expired" in r.text
    wrong = account.act("/ui/account/delete", confirm="someone@else.example")
    assert wrong.status_code == 400 and "Type your email address exactly" in wrong.text
    bad = account.post_form("/ui/account/passkeys/rename", id="nope", name="x")
    assert bad.status_code == 400 and "no longer part of your account" in bad.text
    unnamed = account.post_form("/ui/account/passkeys/rename", id="nope", name="   ")
    assert unnamed.status_code == 400 and "1 to 64 characters" in unnamed.text
    foreign = account.post_form("/ui/account/sessions/end", id="not-a-session")
    assert foreign.status_code == 400
    taken = account.act("/ui/account/email", email=email, current_password=PASSWORD)
    assert taken.status_code == 409 or "exists already" in taken.text
    bad_mail = account.act("/ui/account/email", email="not an address", current_password=PASSWORD)
    assert bad_mail.status_code == 400 and "not a valid email address" in bad_mail.text
    for kind in ("recovery", "nope", "totp"):
        assert account.post_form("/ui/account/factors/remove", kind=kind).status_code == 400
    assert account.post_form("/ui/account/factors/code", kind="sms", target="+1 555 0100").status_code == 400  # not enabled here
    expired = account.post_form("/ui/account/factors/authenticator/code", offer="forged", code="123456")
    assert expired.status_code == 400 and "took too long" in expired.text
    # German when the browser asks for it.
    de = account.get(ACCOUNT, headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert "<h1>Ihr Konto</h1>" in de.text


def test_deleting_the_account_ends_everything(server):
    account, email = Account(server), new_email()
    account.sign_up_here(email)
    page = account.act("/ui/account/delete", confirm=email.upper())
    assert "Your account is deleted" in page.text
    server.wait_for_subject(email, "deleted")
    assert account.get(ACCOUNT).status_code == 303
    again = Pages(server)
    url, _ = authorize_url(server)
    assert "The email address or password is wrong" in again.sign_in(url, email).text


def test_a_second_factor_by_text_message(upstream):
    sms = TextMessages()
    server = account_server(upstream, {"LATCHKEY_MFA_METHODS": "email,totp,sms", "LATCHKEY_MFA_SMS_FUNCTION": "send_sms"}, extra=f"""
functions:
  send_sms: {{kind: webhook, url: "{sms.hook.url}", secret: "{sms.hook.secret}", timeout_seconds: 2}}
""")
    try:
        account = Account(server)
        account.sign_up_here(new_email())
        page = account.act("/ui/account/factors/code", containing='value="sms"', target="+1 (555) 010-0123")
        assert "Enter your code" in page.text and "*********23" in page.text, page.text[:2000]
        number = account.form(page, "/ui/account/factors/code/confirm")["target"]
        page = account.act("/ui/account/factors/code/confirm", page=page, code=sms.wait_for_code(number))
        assert "The second factor is added." in page.text and "Code by text message to" in page.text
        sms.failing = True
        refused = account.act("/ui/account/factors/code", containing='value="sms"', target="+1 555 010 0199")
        assert refused.status_code >= 400 and "could not be sent" in refused.text
    finally:
        server.cleanup()


def test_a_change_to_a_way_in_asks_to_sign_in_again_when_the_sign_in_is_old(upstream):
    server = account_server(upstream, {"LATCHKEY_MFA_RECENT_SIGN_IN_SECONDS": "300", "LATCHKEY_TESTING_ENABLED": "true"})
    try:
        account, email = Account(server), new_email()
        account.sign_up_here(email)
        server.advance_clock(301)  # the sign-in is now older than the window
        page = account.get(ACCOUNT)
        assert "Changing how you sign in needs a recent sign-in." in page.text
        form = account.form(page, "/ui/account/factors/authenticator")
        r = account.http.post(server.base + "/ui/account/factors/authenticator", data=form, allow_redirects=False, timeout=30)
        assert r.status_code == 303 and "client_id=latchkey-account" in r.headers["location"]
        assert "prompt=login" in r.headers["location"]
        login = account.get(r.headers["location"])
        assert "<h1>Sign in</h1>" in login.text  # asked again despite the live session
        back = account.follow(account.submit(login, "/ui/sign-in", email=email, password=PASSWORD, method="password"))
        assert back.url.endswith(ACCOUNT + "#factors") and "<h1>Your account</h1>" in back.text
        offer = account.act("/ui/account/factors/authenticator", page=back)
        assert "data:image/svg+xml" in offer.text
    finally:
        server.cleanup()


def test_a_pages_folder_copied_before_the_account_page_still_gets_it(upstream, tmp_path):
    """An operator's `app_services.pages` folder without the account page's templates and words: the built-in ones
    fill in, key by key, and the server starts."""
    import os
    import shutil
    from harness import ROOT
    folder = tmp_path / "pages"
    shutil.copytree(os.path.join(ROOT, "config", "pages"), folder)
    for name in os.listdir(folder):
        if name.startswith("account") or name == "passkey_offer.mustache":
            os.remove(folder / name)
    for language in ("en", "de"):
        path = folder / f"{language}.strings"
        path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                                if not line.startswith(("account_", "dialect_", "passkey_offer"))))
    server = account_server(upstream, {"LATCHKEY_APP_SERVICES_PAGES": str(folder)})
    try:
        page = Account(server).sign_up_here(new_email())
        assert "<h1>Your account</h1>" in page.text and "Download your data (JSON)" in page.text
    finally:
        server.cleanup()
