"""The hosted sign-in pages in headless Chromium with JavaScript switched off (the pages need none), the example web
app of docs/openid.md as the relying party: sign-up, single sign-on into a second app, single logout, a second factor
enrolled and then asked for, a password reset, consent, and the pages' accessibility basics. Screenshots of each page
go to $LATCHKEY_SCREENSHOTS."""
import threading
import time
import uuid

import pyotp

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import browser, create_account, fill, heading, screenshots, wait_heading  # noqa: F401
from harness import Server, free_port
from openid_support import PASSWORD, SECRET, WEB, WebApp, oidc, provider_config, signed_in_session  # noqa: F401


@pytest.fixture
def shot(browser, tmp_path):
    return screenshots(browser, tmp_path, "openid")


def click(browser, text):
    browser.find_element(By.XPATH, f"//button[normalize-space()='{text}'] | //a[normalize-space()='{text}']").click()


def sign_up(browser, server, app, email):
    """From the app's "Sign in" through the sign-up page and the mailed code, back in the app."""
    browser.get(app.base + "/login")
    create_account(browser, server, email, PASSWORD)


def sign_in_again(browser, app, email):
    """Signs out of the app (and Latchkey), then in again with the password."""
    browser.get(app.base + "/logout")
    wait_heading(browser, "Signed out")
    browser.get(app.base + "/login")
    fill(browser, email=email, password=PASSWORD)
    click(browser, "Sign in")


def test_sign_up_sign_on_to_a_second_app_and_sign_out_of_both(browser, oidc, shot):
    server, (first, second, *_) = oidc
    browser.delete_all_cookies()
    email = f"web-{uuid.uuid4().hex[:8]}@example.com"
    browser.get(first.base + "/login")
    assert heading(browser) == "Sign in" and "Web app" in browser.page_source
    shot("sign-in")
    click(browser, "Create an account")
    wait_heading(browser, "Create your account")
    fill(browser, email=email, password=PASSWORD)
    shot("sign-up")
    click(browser, "Create account")
    wait_heading(browser, "Enter your code")
    fill(browser, code=server.wait_for_code(email))
    shot("code")
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    assert browser.current_url == first.base + "/"
    session = signed_in_session(first, email)
    assert first.userinfo(session)["email"] == email and first.refresh(session)["access_token"]

    # Single sign-on: the second app gets in without a page.
    browser.get(second.base + "/login")
    wait_heading(browser, "Signed in as " + email)
    other = signed_in_session(second, email)
    assert other["claims"]["sub"] == session["claims"]["sub"] and other["claims"]["auth_time"] == session["claims"]["auth_time"]

    # Single logout: signing out of the first ends the second's tokens and the SSO session.
    browser.get(first.base + "/logout")
    wait_heading(browser, "Signed out")
    assert browser.current_url.startswith(first.base + "/?state=")
    with pytest.raises(Exception):
        second.refresh(other)
    browser.get(second.base + "/login")
    wait_heading(browser, "Sign in")
    shot("signed-out")


def test_a_second_factor_is_enrolled_then_asked_for(browser, oidc, shot):
    server, (first, _, strict, _) = oidc
    browser.delete_all_cookies()
    email = f"mfa-{uuid.uuid4().hex[:8]}@example.com"
    # An account made in the first app (no second factor asked there)...
    sign_up(browser, server, first, email)
    wait_heading(browser, "Signed in as " + email)
    assert signed_in_session(first, email)["claims"]["amr"] == ["otp"]
    # ...signs into the bank app, which requires one: the session is not enough, enrolment comes first.
    browser.get(strict.base + "/login")
    wait_heading(browser, "Sign in")
    fill(browser, email=email, password=PASSWORD)
    click(browser, "Sign in")
    wait_heading(browser, "Add a second step")
    shot("enrol")
    before = len(server.mails(email))
    fill(browser, target=email)
    click(browser, "Send code")
    wait_heading(browser, "Enter your code")
    server.wait_for_code(email, before)
    # The code did not come: "Send a new code" mails another to the address being enrolled; the newest one counts.
    click(browser, "Send a new code")
    wait_heading(browser, "Enter your code")
    fresh_code = server.wait_for_code(email, before + 1)
    assert len(server.mails(email)) == before + 2 and fresh_code
    fill(browser, code=fresh_code)
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    claims = signed_in_session(strict, email)["claims"]
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["acr"] == "2"

    # Next time the factor is asked for.
    sign_in_again(browser, strict, email)
    wait_heading(browser, "Confirm it is you")
    shot("second-factor")
    before = len(server.mails(email))
    browser.find_element(By.CSS_SELECTOR, "button[name=method]").click()
    wait_heading(browser, "Enter your code")
    server.wait_for_code(email, before)
    click(browser, "Send a new code")  # to the factor chosen, again
    wait_heading(browser, "Enter your code")
    fill(browser, code=server.wait_for_code(email, before + 1))
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)


def test_an_authenticator_app_is_enrolled_in_the_browser_then_asked_for(browser, oidc, shot):
    server, (first, _, strict, _) = oidc
    browser.delete_all_cookies()
    email = f"totp-{uuid.uuid4().hex[:8]}@example.com"
    sign_up(browser, server, strict, email)
    wait_heading(browser, "Add a second step")
    click(browser, "Use an authenticator app instead")
    wait_heading(browser, "Set up your authenticator app")
    secret = browser.find_element(By.ID, "secret").text
    assert browser.find_element(By.PARTIAL_LINK_TEXT, "authenticator app").get_attribute("href").startswith("otpauth://totp/")
    shot("authenticator")
    fill(browser, code="000000" if pyotp.TOTP(secret).now() != "000000" else "111111")
    click(browser, "Continue")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CLASS_NAME, "error"))
    fill(browser, code=pyotp.TOTP(secret).now())
    click(browser, "Continue")
    wait_heading(browser, "Keep your recovery codes")
    codes = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "ul.codes code")]
    assert len(codes) == 10 and len(set(codes)) == 10
    shot("recovery-codes")
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    assert signed_in_session(strict, email)["claims"]["amr"] == ["otp", "mfa"]
    # Next time the authenticator is asked for (the code of the next time step: the enrolling one is spent).
    sign_in_again(browser, strict, email)
    wait_heading(browser, "Confirm it is you")
    click(browser, "Authenticator app")
    wait_heading(browser, "Enter your code")
    fill(browser, code=pyotp.TOTP(secret).at(time.time() + 30))
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    assert signed_in_session(strict, email)["claims"]["acr"] == "2"


def test_a_forgotten_password_is_reset_by_code(browser, oidc, shot):
    server, (first, *_) = oidc
    browser.delete_all_cookies()
    email = f"reset-{uuid.uuid4().hex[:8]}@example.com"
    sign_up(browser, server, first, email)
    wait_heading(browser, "Signed in as " + email)
    browser.get(first.base + "/logout")
    browser.get(first.base + "/login")
    click(browser, "Forgot your password?")
    wait_heading(browser, "Reset your password")
    before = len(server.mails(email))
    fill(browser, email=email)
    click(browser, "Send code")
    wait_heading(browser, "Enter your code")
    fill(browser, code=server.wait_for_code(email, before), password="password")
    click(browser, "Continue")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CLASS_NAME, "error"))
    assert "too common" in browser.find_element(By.CLASS_NAME, "error").text
    shot("reset-weak")
    # The code was not spent on a refused password: the same one, with a good password, signs in.
    fill(browser, code=server.wait_for_code(email, before), password="a much better passphrase")
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)


def test_consent_the_sign_out_question_errors_and_german_in_the_browser(browser, oidc, shot):
    server, (first, _, _, partner) = oidc
    browser.delete_all_cookies()
    email = f"consent-{uuid.uuid4().hex[:8]}@example.com"
    sign_up(browser, server, first, email)
    wait_heading(browser, "Signed in as " + email)
    # A third-party app asks first; a refusal goes back to it as access_denied.
    browser.get(partner.base + "/login")
    wait_heading(browser, "Allow access?")
    assert "Partner tool" in browser.page_source and email in browser.page_source
    shot("consent")
    click(browser, "Deny")
    wait_heading(browser, "Signed out")
    assert "access_denied" in browser.page_source
    browser.get(partner.base + "/login")
    wait_heading(browser, "Allow access?")
    click(browser, "Allow")
    wait_heading(browser, "Signed in as " + email)
    browser.get(partner.base + "/login")  # remembered: no question the second time
    wait_heading(browser, "Signed in as " + email)
    # Signing out without an ID token asks first.
    browser.get(server.base + "/oauth2/v2.0/logout")
    wait_heading(browser, "Sign out")
    shot("sign-out-question")
    click(browser, "Sign out")
    wait_heading(browser, "Signed out")
    # An error page, and the pages in German.
    browser.get(server.base + "/oauth2/v2.0/authorize?client_id=unknown&response_type=code")
    wait_heading(browser, "Sign-in cannot continue")
    shot("error")
    browser.get(partner.login_url({}, ui_locales="de"))
    wait_heading(browser, "Anmelden")
    shot("sign-in-de")


def test_a_wrong_code_keeps_the_address_and_labels_come_from_the_schema(browser, oidc, shot):
    server, (first, _, _, partner) = oidc
    browser.delete_all_cookies()
    email = f"label-{uuid.uuid4().hex[:8]}@example.com"
    browser.get(first.base + "/login")
    click(browser, "Create an account")
    wait_heading(browser, "Create your account")
    assert browser.find_element(By.CSS_SELECTOR, "label[for='attr-displayName']").text == "Display name (optional)"
    fill(browser, email=email, password=PASSWORD)
    click(browser, "Create account")
    wait_heading(browser, "Enter your code")
    sent_to = browser.find_element(By.CSS_SELECTOR, "p.note").text
    assert sent_to.startswith("We sent a code to l") and "@e" in sent_to and email not in sent_to  # masked
    code = server.wait_for_code(email)
    fill(browser, code=str((int(code) + 1) % 10**len(code)).zfill(len(code)))
    click(browser, "Continue")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "p.error"))
    assert browser.find_element(By.CSS_SELECTOR, "p.error").text == "The code is wrong or has expired."
    assert browser.find_element(By.CSS_SELECTOR, "p.note").text == sent_to  # still says where the code went
    shot("wrong-code")
    fill(browser, code=code)
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    # The label in the language of the pages (signed out: cookies are per host, not per port).
    browser.delete_all_cookies()
    browser.get(partner.login_url({}, ui_locales="de"))
    wait_heading(browser, "Anmelden")
    browser.get(browser.find_element(By.XPATH, "//a[contains(@href, '/ui/sign-up')]").get_attribute("href"))
    assert browser.find_element(By.CSS_SELECTOR, "label[for='attr-displayName']").text == "Anzeigename (optional)"


def test_the_pages_work_by_keyboard_with_labels_and_readable_contrast(browser, oidc, shot):
    server, (first, *_) = oidc
    browser.delete_all_cookies()
    browser.get(first.base + "/login")
    for page in ("sign-in", "sign-up", "reset"):
        if page != "sign-in":
            browser.get(browser.current_url if page == "sign-in" else
                        browser.find_element(By.XPATH, f"//a[contains(@href, '/ui/{page}')]").get_attribute("href"))
        inputs = [i for i in browser.find_elements(By.TAG_NAME, "input") if i.get_attribute("type") != "hidden"]
        assert inputs
        for field in inputs:
            labels = browser.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")
            assert labels and labels[0].text.strip(), (page, field.get_attribute("name"))
        # The first field has the focus; Tab moves on to the next control.
        assert browser.switch_to.active_element == inputs[0]
        browser.switch_to.active_element.send_keys(Keys.TAB)
        assert browser.switch_to.active_element.tag_name in ("input", "button", "a")
        for element in browser.find_elements(By.CSS_SELECTOR, "h1, label, button, p"):
            if element.is_displayed() and element.text.strip():
                assert contrast(element.value_of_css_property("color"), background(element)) >= 4.5, (page, element.text)
        if page != "sign-in":
            browser.back()
    shot("keyboard")


def background(element):
    node = element
    while node is not None:
        color = node.value_of_css_property("background-color")
        if not color.endswith(", 0)"):
            return color
        parents = node.find_elements(By.XPATH, "..")
        node = parents[0] if parents and node.tag_name != "html" else None
    return "rgba(255, 255, 255, 1)"


def contrast(foreground, behind):
    def luminance(css):
        parts = [float(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
        linear = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    a, b = sorted((luminance(foreground), luminance(behind)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.fixture(scope="module")
def federation(tmp_path_factory):
    """Two Latchkeys: the upstream (on 127.0.0.2, so the two never share cookies) is to the downstream what Google is to
    any site, an OpenID issuer with discovery, JWKS and the code flow; the downstream signs the example app in."""
    folder = tmp_path_factory.mktemp("federation")
    secret_file = folder / "client.secret"
    secret_file.write_text(SECRET)
    upstream_client = "b0000000-0000-4000-8000-000000000001"
    upstream = Server(config_text=f"""
clients:
  - {{id: {upstream_client}, name: Downstream Latchkey, redirect_uris: ["http://127.0.0.1/ui/upstream/callback/corp"], secret_file: "{secret_file}"}}
""", env={"LATCHKEY_SERVER_HOST": "127.0.0.2"})
    upstream.base = upstream.base.replace("127.0.0.1", "127.0.0.2")
    upstream.start()
    port = free_port()
    downstream = Server(config_text=provider_config(secret_file, [port], extra=f"""
identities:
  link_by_verified_email: true
  providers:
    corp:
      issuer: "{upstream.base}"
      jwks_url: "{upstream.base}/discovery/v2.0/keys"
      audiences: [{upstream_client}]
      client_secret_file: "{secret_file}"
      token_url: "{upstream.base}/oauth2/v2.0/token"
      authorization_url: "{upstream.base}/oauth2/v2.0/authorize"
      trust_email: true
""")).start()
    app = WebApp(downstream.base, WEB, SECRET, port)
    threading.Thread(target=app.server.serve_forever, daemon=True).start()
    yield upstream, downstream, app
    app.server.shutdown()
    downstream.cleanup()
    upstream.cleanup()


def test_sign_in_with_an_upstream_openid_provider(browser, federation, shot):
    upstream, downstream, app = federation
    browser.delete_all_cookies()
    email = f"fed-{uuid.uuid4().hex[:8]}@example.com"
    browser.get(app.base + "/login")
    wait_heading(browser, "Sign in")
    shot("upstream-button")
    click(browser, "Continue with Corp")
    # The upstream's own pages: an account made there.
    WebDriverWait(browser, 10).until(lambda b: b.current_url.startswith(upstream.base))
    assert "Downstream Latchkey" in browser.page_source
    click(browser, "Create an account")
    wait_heading(browser, "Create your account")
    fill(browser, email=email, password=PASSWORD)
    click(browser, "Create account")
    wait_heading(browser, "Enter your code")
    fill(browser, code=upstream.wait_for_code(email))
    click(browser, "Continue")
    wait_heading(browser, "Signed in as " + email)
    claims = signed_in_session(app, email)["claims"]
    assert claims["amr"] == ["fed"] and claims["email"] == email
    # The downstream made an account holding the upstream identity; a second visit finds the same account.
    browser.get(app.base + "/logout")
    wait_heading(browser, "Signed out")
    browser.get(app.base + "/login")
    click(browser, "Continue with Corp")  # the upstream session is still there: straight back
    wait_heading(browser, "Signed in as " + email)
    assert signed_in_session(app, email)["claims"]["sub"] == claims["sub"]
    # A refused upstream answer (a forged state) comes back as the sign-in page with the reason, never a crash.
    browser.get(downstream.base + "/ui/upstream/callback?state=forged&code=x")
    assert heading(browser) in ("Sign in", "Sign-in cannot continue")


def test_an_upstream_answer_is_taken_only_from_its_own_issuer(federation):
    """U's review, Low: every issuer shared one callback and the answer's `iss` was not checked (RFC 9207), so one
    issuer's answer could be passed off for another's (a mix-up). The callback is per issuer now, and `iss` must be
    the issuer's own."""
    upstream, downstream, app = federation
    import requests
    from urllib.parse import parse_qs, urlencode, urlparse

    from openid_support import CALLBACK, Pages

    def begin():
        pages = Pages(downstream)
        url = downstream.base + "/oauth2/v2.0/authorize?" + urlencode({
            "client_id": WEB, "redirect_uri": CALLBACK.replace("127.0.0.1", "127.0.0.1:4999"), "response_type": "code",
            "scope": "openid", "state": "s", "nonce": "n", "code_challenge": "x" * 43, "code_challenge_method": "S256"})
        away = pages.submit(pages.get(url), "/ui/upstream", provider="corp")
        assert away.status_code == 303 and away.headers["Location"].startswith(upstream.base), away.text
        sent = parse_qs(urlparse(away.headers["Location"]).query)
        assert sent["redirect_uri"] == [downstream.base + "/ui/upstream/callback/corp"]
        return pages, sent["state"][0]

    for callback, iss in (("/ui/upstream/callback/corp", "https://evil.example"), ("/ui/upstream/callback/other", None)):
        pages, state = begin()
        params = {"state": state, "code": "stolen", **({"iss": iss} if iss else {})}
        answer = pages.get(downstream.base + callback, params=params)
        assert answer.status_code in (200, 400) and "text/html" in answer.headers["Content-Type"], answer.status_code
        assert "The sign-in with that provider did not succeed" in answer.text, answer.text[:2000]
    assert requests.get(downstream.base + "/health/ready", timeout=10).status_code == 200
