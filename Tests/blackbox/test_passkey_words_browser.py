"""What a person sees when a passkey prompt does not end in a sign-in, in headless Chromium with its virtual
authenticator: the page's own words, never the browser's W3C sentence. A cancelled prompt on the offer shows nothing
and the offer stays; a second "Add a passkey" on the same device says the device already has one; a refused user
verification at sign-in says to try again or use the password; the sign-in page says nothing on load."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import create_account, screenshots, wait_heading
from openid_support import PASSWORD, PUBLIC
from test_openid import authorize_url
from test_passkeys import CALLBACK, server  # noqa: F401 (the fixture)
from test_passkeys_browser import driver, local, sign_out  # noqa: F401 (the fixture)

ALREADY = "This device already has a passkey for this account."
NOT_USED = "The passkey was not used. Try again, or use your password."


# What Chromium does when the person presses Cancel on its passkey prompt (the virtual authenticator can only wait
# for a touch that never comes): the promise rejects with NotAllowedError and the W3C sentence. Reproduced as it reaches
# the page; the page's script, the thing under test, runs unchanged.
CANCEL = """
    if (navigator.credentials) {
      const refuse = () => Promise.reject(new DOMException("The operation either timed out or was not allowed. See: "
        + "https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.", "NotAllowedError"));
      navigator.credentials.create = refuse;
    }"""


def settled(driver, button_id):
    """Clicks the button and waits until its prompt has ended (the script marks it aria-busy while open)."""
    button = driver.find_element(By.ID, button_id)
    WebDriverWait(driver, 10).until(lambda d: button.is_displayed() and button.is_enabled())
    button.click()
    WebDriverWait(driver, 10).until(lambda d: button.get_attribute("aria-busy") == "false" or not d.current_url.startswith("http://localhost"))
    return driver.find_element(By.ID, "passkey-status")


def new_account(driver, server):
    email = f"pkw-{uuid.uuid4().hex[:10]}@example.com"
    url = local(server, authorize_url(server, client=PUBLIC, redirect=CALLBACK)[0])
    driver.get(url)
    wait_heading(driver, "Sign in")
    create_account(driver, server, email, PASSWORD)
    wait_heading(driver, "Sign in faster next time")
    return email, url


def test_a_cancelled_prompt_on_the_offer_shows_nothing_and_the_offer_stays(driver, server, tmp_path):
    cancelling = driver
    cancelling.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CANCEL})
    shot = screenshots(cancelling, tmp_path, "passkey-cancel")
    new_account(cancelling, server)
    status = settled(cancelling, "passkey-add")
    shot("cancelled")
    assert not status.is_displayed() and status.text == "", status.text
    assert "Sign in faster next time" in cancelling.page_source and cancelling.get_credentials() == []
    assert cancelling.find_element(By.ID, "passkey-later").is_displayed()


def test_a_second_passkey_on_one_device_and_a_refused_verification_are_said_in_words(driver, server, tmp_path):
    shot = screenshots(driver, tmp_path, "passkey-words")
    email, url = new_account(driver, server)
    add = driver.find_element(By.ID, "passkey-add")
    WebDriverWait(driver, 10).until(lambda d: add.is_displayed())
    add.click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK))
    assert len(driver.get_credentials()) == 1

    # The account page, signed in moments ago: adding again on this device is refused by the authenticator itself.
    driver.get(local(server, server.base + "/ui/account"))
    wait_heading(driver, "Your account")
    status = settled(driver, "passkey-add")
    shot("already")
    assert status.is_displayed() and status.text == ALREADY, status.text
    assert len(driver.get_credentials()) == 1

    # Signed out; at sign-in the device cannot verify the person (a wrong PIN, a finger it does not know).
    sign_out(driver, server)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                           {"source": "if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = undefined;"})
    driver.set_user_verified(False)
    driver.get(url)
    wait_heading(driver, "Sign in")
    assert not driver.find_element(By.ID, "passkey-status").is_displayed()
    status = settled(driver, "passkey-sign-in")
    shot("refused")
    assert status.is_displayed() and status.text == NOT_USED, status.text
    assert "w3.org" not in driver.page_source


def test_the_sign_in_page_says_nothing_on_load_with_no_passkey_for_the_site(driver, server):
    # A platform authenticator with no passkey for the site turns the page's autofill request down at once, in the
    # browser's words; that refusal is the browser's, reproduced here as it reaches the page.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        if (navigator.credentials) {
          const get = navigator.credentials.get.bind(navigator.credentials);
          navigator.credentials.get = (options) => {
            if (options.mediation !== "conditional") return get(options);
            window.autofillRefused = true;
            return Promise.reject(new DOMException("The operation either timed out or was not allowed. See: "
              + "https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.", "NotAllowedError"));
          };
        }"""})
    driver.get(local(server, authorize_url(server, client=PUBLIC, redirect=CALLBACK)[0]))
    wait_heading(driver, "Sign in")
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return window.autofillRefused === true"))
    driver.execute_async_script("var done = arguments[0]; setTimeout(done, 0);")  # one turn: the refusal's handler has run
    status = driver.find_element(By.ID, "passkey-status")
    assert not status.is_displayed() and status.text == "", status.text
