"""Passkeys in headless Chromium with its virtual authenticator (resident keys, user verification): sign up at the
hosted pages, add the passkey the next page offers through the browser's own WebAuthn, sign out, and sign in by the
address field's autofill and by "Sign in with a passkey" without typing an address; with JavaScript off no passkey
control shows, "Not now" goes on, and the password signs in as before without the offer again. Screenshots go to $LATCHKEY_SCREENSHOTS."""
import json
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import chromium, create_account, fill, screenshots, wait_heading
from openid_support import PASSWORD, PUBLIC, STRICT
from test_openid import authorize_url
from test_passkeys import ADMIN_TOKEN, CALLBACK, server  # noqa: F401 (the fixture)

SECOND_STEP = "Confirm it is you"

@pytest.fixture
def driver():
    d = chromium(javascript=True)
    options = VirtualAuthenticatorOptions()
    options.protocol, options.transport = Protocol.CTAP2, Transport.INTERNAL
    options.has_resident_key = options.has_user_verification = options.is_user_verified = options.is_user_consenting = True
    d.add_virtual_authenticator(options)
    yield d
    d.quit()


def local(server, url):
    """The page on `localhost`: WebAuthn needs a domain name, and the relying party id is localhost."""
    return url.replace(f"127.0.0.1:{server.port}", f"localhost:{server.port}")


def sign_out(driver, server):
    """A new browser session at the pages: their cookies gone (cookies are deleted for the page shown, so one of theirs)."""
    driver.get(local(server, server.base + "/ui/style.css"))
    driver.delete_all_cookies()


def test_add_a_passkey_then_sign_in_with_it_without_an_address(driver, server, tmp_path):
    shot = screenshots(driver, tmp_path, "passkeys")
    email = f"pkb-{uuid.uuid4().hex[:10]}@example.com"
    url = local(server, authorize_url(server, client=PUBLIC, redirect=CALLBACK)[0])
    driver.get(url)
    wait_heading(driver, "Sign in")
    assert driver.find_element(By.ID, "email").get_attribute("autocomplete") == "username webauthn"
    create_account(driver, server, email, PASSWORD)

    # Signed up, no passkey yet: the offer. The browser's own WebAuthn makes one on the virtual authenticator.
    wait_heading(driver, "Sign in faster next time")
    add = driver.find_element(By.ID, "passkey-add")
    WebDriverWait(driver, 10).until(lambda d: add.is_displayed())
    shot("offer")
    add.click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
    assert [c.is_resident_credential for c in driver.get_credentials()] == [True]

    # Signed out (a new browser session), back at the sign-in page: the address field's autofill offers the passkey
    # (conditional mediation; the virtual authenticator answers it at once) and the visit goes on, no address typed.
    sign_out(driver, server)
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
    # Again with autofill switched off in the page: the "Sign in with a passkey" button.
    sign_out(driver, server)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": "if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = undefined;"})
    driver.get(url)
    wait_heading(driver, "Sign in")
    button = driver.find_element(By.ID, "passkey-sign-in")
    WebDriverWait(driver, 10).until(lambda d: button.is_displayed())
    shot("sign-in")
    button.click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
    events = requests.get(f"{server.admin_base}/admin/v1/audit", params={"kind": "sign_in", "limit": 1000},
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10).json()["events"]
    passkey_sign_ins = [e for e in events if e["detail"].startswith("passkey Chrome on Linux; amr [hwk mfa]") and e["email"] == email]
    assert len(passkey_sign_ins) == 2, json.dumps(events[-3:])

    # An app that requires a second factor: the password, then the passkey as the second step.
    sign_out(driver, server)
    driver.get(local(server, authorize_url(server, client=STRICT, redirect=CALLBACK)[0]))
    wait_heading(driver, "Sign in")
    fill(driver, email=email, password=PASSWORD)
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    wait_heading(driver, SECOND_STEP)
    use = driver.find_element(By.ID, "passkey-sign-in")
    WebDriverWait(driver, 10).until(lambda d: use.is_displayed())
    shot("second-step")
    use.click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))


def test_without_javascript_no_passkey_control_shows_and_the_password_still_works(server, tmp_path):
    driver = chromium(javascript=False)
    try:
        email = f"pkn-{uuid.uuid4().hex[:10]}@example.com"
        url = local(server, authorize_url(server, client=PUBLIC, redirect=CALLBACK)[0])
        driver.get(url)
        wait_heading(driver, "Sign in")
        assert not driver.find_element(By.ID, "passkey-sign-in").is_displayed()
        screenshots(driver, tmp_path, "passkeys")("sign-in-without-javascript")
        create_account(driver, server, email, PASSWORD)
        # The offer shows no passkey button without JavaScript; "Not now" goes on, and this browser is not asked again.
        wait_heading(driver, "Sign in faster next time")
        assert not driver.find_element(By.ID, "passkey-add").is_displayed()
        driver.find_element(By.ID, "passkey-later").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
        driver.get(local(server, server.base + "/ui/style.css"))
        driver.delete_cookie("latchkey_session")
        driver.get(url)
        wait_heading(driver, "Sign in")
        fill(driver, email=email, password=PASSWORD)
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
    finally:
        driver.quit()
