"""The account page in headless Chromium (docs/account.md). With JavaScript off, every item end to end: sign-up
through the pages as the built-in client and back, the profile, a new address proven by its code, the password, an
authenticator app from the QR code drawn on the server (read back by a real decoder, zxing-cpp), recovery codes, a
second factor by mail and its removal, an upstream issuer linked by redirect and unlinked, sessions and consents,
the data download and deletion. With JavaScript and Chromium's virtual authenticator: a passkey added, renamed,
used to sign in again without an address, single sign-on into another app, and removed. Screenshots go to
$LATCHKEY_SCREENSHOTS."""
import io
import threading
import uuid

import pyotp
import pytest
import requests
import zxingcpp
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

from account_support import ACCOUNT, account_server, upstream  # noqa: F401 (the fixture)
from browser_support import chromium, create_account, fill, screenshots, wait_heading
from openid_support import PASSWORD, PUBLIC, THIRD
from test_openid import authorize_url

CALLBACK = "http://127.0.0.1:4999/callback"


@pytest.fixture(scope="module")
def server(upstream):
    s = account_server(upstream)
    yield s
    s.cleanup()


def click(driver, text):
    driver.find_element(By.XPATH, f"//button[normalize-space()='{text}']").click()


def submit_in(driver, section, text):
    driver.find_element(By.XPATH, f"//section[@id='{section}']//button[normalize-space()='{text}']").click()


def wait_notice(driver, text):
    """Waits for the account page's note of what was just done (the page after the post may still be loading)."""
    def shown(d):
        return any(n.text.startswith(text) for n in d.find_elements(By.CSS_SELECTOR, "p.notice"))
    WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(shown)


def test_every_item_without_javascript(server, upstream, tmp_path):
    driver = chromium(javascript=False)
    driver.set_window_size(1000, 1600)
    shot = screenshots(driver, tmp_path, "account")
    try:
        email = f"acb-{uuid.uuid4().hex[:10]}@example.com"
        driver.get(server.base + ACCOUNT)
        create_account(driver, server, email, PASSWORD)
        wait_heading(driver, "Sign in faster next time")  # no passkey button without JavaScript: "Not now"
        driver.find_element(By.ID, "passkey-later").click()
        wait_heading(driver, "Your account")
        assert not driver.find_element(By.ID, "passkey-add").is_displayed()
        shot("page")

        fill(driver, **{"attr.displayName": "Grace H."})
        submit_in(driver, "profile", "Save")
        wait_notice(driver, "Your profile is saved.")

        # The authenticator: the QR code drawn on the server holds the otpauth URI; the page's key is the same secret.
        submit_in(driver, "factors", "Add an authenticator app")
        wait_heading(driver, "Set up your authenticator app")
        shot("authenticator")
        image = Image.open(io.BytesIO(driver.find_element(By.CSS_SELECTOR, "img.qr").screenshot_as_png))
        found = zxingcpp.read_barcodes(image)
        assert found and found[0].format == zxingcpp.BarcodeFormat.QRCode, found
        uri = found[0].text
        secret = driver.find_element(By.ID, "secret").text
        assert uri.startswith("otpauth://totp/") and f"secret={secret}" in uri
        fill(driver, code=pyotp.parse_uri(uri).now())
        click(driver, "Continue")
        wait_heading(driver, "Keep your recovery codes")
        assert len(driver.find_elements(By.CSS_SELECTOR, "ul.codes li")) == 10
        shot("recovery-codes")
        driver.find_element(By.LINK_TEXT, "Back to your account").click()
        wait_heading(driver, "Your account")
        assert "Recovery codes left: 10" in driver.page_source

        # A second factor by mail, then the authenticator removed.
        second = f"second-{uuid.uuid4().hex[:8]}@example.com"
        fill(driver, target=second)
        driver.find_element(By.XPATH, "//input[@id='factor-email']/following-sibling::button").click()
        wait_heading(driver, "Enter your code")
        fill(driver, code=server.wait_for_code(second))
        click(driver, "Continue")
        wait_heading(driver, "Your account")
        wait_notice(driver, "The second factor is added.")
        driver.find_element(By.XPATH, "//button[@aria-label='Remove Authenticator app']").click()
        wait_notice(driver, "The second factor is removed.")

        # The password, with the current one.
        fill(driver, current_password=PASSWORD, password="another long passphrase")
        submit_in(driver, "password", "Change password")
        wait_notice(driver, "Your password is changed.")

        # An upstream issuer linked by redirect (an account made at the issuer's own pages), then unlinked.
        submit_in(driver, "identities", "Continue with Corp")
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(upstream.base))
        create_account(driver, upstream, email, PASSWORD)
        wait_heading(driver, "Your account")
        wait_notice(driver, "The sign-in is linked.")
        shot("linked")
        driver.find_element(By.XPATH, "//button[@aria-label='Remove Corp']").click()
        wait_notice(driver, "The sign-in is removed.")

        # A third-party app allowed in this browser, listed, withdrawn.
        driver.get(authorize_url(server, client=THIRD, redirect=CALLBACK)[0])
        wait_heading(driver, "Allow access?")
        click(driver, "Allow")
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
        driver.get(server.base + ACCOUNT)
        wait_heading(driver, "Your account")
        driver.find_element(By.XPATH, "//button[@aria-label='Withdraw Partner tool']").click()
        wait_notice(driver, "The app no longer has access.")
        submit_in(driver, "sessions", "Sign out everywhere else")
        wait_notice(driver, "Every other session is ended.")

        # The address, proven by the code mailed to the new one.
        moved = f"moved-{uuid.uuid4().hex[:8]}@example.com"
        fill(driver, email=moved)
        submit_in(driver, "email", "Send a code")
        wait_heading(driver, "Enter your code")
        fill(driver, code=server.wait_for_code(moved))
        click(driver, "Continue")
        wait_heading(driver, "Your account")
        wait_notice(driver, "Your email address is changed.")
        assert moved in driver.page_source

        # The data download (a link the browser saves; fetched here with the browser's cookies).
        href = driver.find_element(By.LINK_TEXT, "Download your data (JSON)").get_attribute("href")
        jar = {c["name"]: c["value"] for c in driver.get_cookies()}
        data = requests.get(href, cookies=jar, timeout=10).json()
        assert data["profile"]["email"] == moved and data["profile"]["attributes"]["displayName"] == "Grace H."

        # Deleting: the address typed again.
        fill(driver, confirm=moved)
        submit_in(driver, "delete", "Delete account")
        WebDriverWait(driver, 10, ignored_exceptions=(WebDriverException,)).until(lambda d: "Your account is deleted" in d.page_source)
        shot("deleted")
        driver.get(server.base + ACCOUNT)
        wait_heading(driver, "Sign in")
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def local_server(upstream):
    """The same deployment published at `localhost` (WebAuthn needs a domain name; the account page's built-in
    client comes back to the public URL)."""
    s = account_server(upstream, public_host="localhost")
    yield s
    s.cleanup()


def test_a_passkey_added_renamed_used_and_removed(local_server, tmp_path):
    server = local_server
    driver = chromium(javascript=True)
    options = VirtualAuthenticatorOptions()
    options.protocol, options.transport = Protocol.CTAP2, Transport.INTERNAL
    options.has_resident_key = options.has_user_verification = options.is_user_verified = options.is_user_consenting = True
    driver.add_virtual_authenticator(options)
    shot = screenshots(driver, tmp_path, "account-passkeys")
    local = server.base.replace("127.0.0.1", "localhost")
    try:
        email = f"acp-{uuid.uuid4().hex[:10]}@example.com"
        driver.get(local + ACCOUNT)
        create_account(driver, server, email, PASSWORD)
        wait_heading(driver, "Sign in faster next time")
        driver.find_element(By.ID, "passkey-later").click()
        wait_heading(driver, "Your account")
        add = driver.find_element(By.ID, "passkey-add")
        WebDriverWait(driver, 10).until(lambda d: add.is_displayed())
        add.click()
        WebDriverWait(driver, 10).until(lambda d: "done=passkey_added" in d.current_url)
        wait_notice(driver, "The passkey is added.")
        field = driver.find_element(By.CSS_SELECTOR, "#passkeys input[name='name']")
        field.clear()
        field.send_keys("Work laptop")
        submit_in(driver, "passkeys", "Rename")
        wait_notice(driver, "The passkey is renamed.")
        assert driver.find_element(By.CSS_SELECTOR, "#passkeys input[name='name']").get_attribute("value") == "Work laptop"
        shot("passkey")

        # Signed out; the account page sends the browser to sign in, and the passkey (autofill) signs in with no address.
        driver.get(local + "/ui/style.css")
        driver.delete_all_cookies()
        driver.get(local + ACCOUNT)
        wait_heading(driver, "Your account")
        assert "last used 20" in driver.page_source
        # Single sign-on: another app signs in without asking (its loopback callback answers the browser).
        app = ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
        threading.Thread(target=app.serve_forever, daemon=True).start()
        callback = f"http://127.0.0.1:{app.server_address[1]}/callback"
        try:
            driver.get(authorize_url(server, client=PUBLIC, redirect=callback)[0].replace("127.0.0.1:" + str(server.port),
                                                                                          "localhost:" + str(server.port)))
            WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback + "?code="))
        finally:
            app.shutdown()
        # Signed in by the passkey alone, removing it asks for the password too (and then the passkey, the account's
        # second factor), and comes back to the passkeys.
        driver.get(local + ACCOUNT)
        wait_heading(driver, "Your account")
        driver.find_element(By.XPATH, "//button[@aria-label='Remove Work laptop']").click()
        wait_heading(driver, "Sign in")
        fill(driver, email=email, password=PASSWORD)
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
        wait_heading(driver, "Confirm it is you")
        use = driver.find_element(By.ID, "passkey-sign-in")
        WebDriverWait(driver, 10).until(lambda d: use.is_displayed())
        use.click()
        wait_heading(driver, "Your account")
        assert driver.current_url.endswith("#passkeys"), driver.current_url
        driver.find_element(By.XPATH, "//button[@aria-label='Remove Work laptop']").click()
        wait_notice(driver, "The passkey is removed.")
        assert "No passkeys yet." in driver.page_source
        server.wait_for_subject(email, "passkey was removed")
    finally:
        driver.quit()
