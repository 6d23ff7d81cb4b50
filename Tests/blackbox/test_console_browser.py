"""The console in headless Chromium with JavaScript off, as an operator uses it: signed out to signed in, a user
found and acted on (the effect checked through the native API), a key rotated, each action read back from the
audit page; a locked-out user unlocked by someone who never read the docs; keyboard, labels, a phone's width.
Screenshots go to $LATCHKEY_SCREENSHOTS (CI keeps them), else the test's temporary folder."""
import subprocess
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

import strict
from browser_support import browser, chromium, fill, heading, screenshots, wait_heading  # noqa: F401
from conftest import password_sign_in, sign_up, token_after_sign_up
from console_support import TOKEN, console_server
from harness import BINARY
from test_console import PASSWORD, can_sign_in

LIMITS = {"LATCHKEY_LIMITS_ENABLED": "true", **{f"LATCHKEY_LIMITS_{rule}_REQUESTS": "10000" for rule in
                                                 ("SIGNUP_PER_IP", "SIGNIN_PER_IP", "CREDENTIAL_PER_IP", "MAIL_PER_IP")}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = console_server(tmp_path_factory, **LIMITS)
    yield s
    s.cleanup()


@pytest.fixture
def shot(browser, tmp_path):
    return screenshots(browser, tmp_path, "console")


def notice(browser):
    return browser.find_element(By.CSS_SELECTOR, "[role=status]").text


def gone(element):
    """Waits until `element`'s page is replaced (Chromium reports a replaced node as stale or as not in the document)."""
    def replaced(_):
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True
    return replaced


def press(browser, label):
    """Clicks the button with this text (the first, in page order) and waits until its page is replaced."""
    button = browser.find_element(By.XPATH, f"//button[normalize-space()='{label}']")
    button.click()
    WebDriverWait(browser, 10).until(gone(button))


def follow(browser, text):
    """Follows the link with this text and waits until its page is replaced."""
    link = browser.find_element(By.LINK_TEXT, text)
    link.click()
    WebDriverWait(browser, 10).until(gone(link))


def sign_in(browser, server, path="/console/", name="Ada"):
    browser.delete_all_cookies()
    browser.get(server.admin_base + path)
    assert "/console/sign-in" in browser.current_url and heading(browser) == "Sign in to the console"
    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    press(browser, "Sign in")


def open_user(browser, server, address):
    browser.get(server.admin_base + "/console/users")
    search = browser.find_element(By.ID, "q")
    search.send_keys(address)
    search.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(gone(search))
    follow(browser, address)
    assert heading(browser) == address


def new_user(server, tag):
    address = f"{tag}-{uuid.uuid4().hex[:8]}@example.com"
    return address, strict.tokens(token_after_sign_up(server, address, sign_up(server, address, PASSWORD)))


def test_an_operator_finds_a_user_acts_rotates_a_key_and_reads_each_action_in_the_audit(browser, server, shot):
    address, tokens = new_user(server, "browser")
    sign_in(browser, server, "/console/users")
    shot("users")
    assert browser.current_url.endswith("/console/users") and heading(browser) == "Users"
    open_user(browser, server, address)
    shot("user")

    press(browser, "Disable")
    assert notice(browser) == "The account is disabled and signed out everywhere."
    assert not can_sign_in(server, address)
    press(browser, "Enable")
    assert notice(browser) == "The account is enabled."
    assert can_sign_in(server, address)
    press(browser, "Sign out everywhere")
    assert notice(browser) == "The user is signed out everywhere."
    refreshed = server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                                                   "scope": "openid offline_access"})
    assert refreshed.status_code == 400

    follow(browser, "Keys")
    kids_before = {k["kid"] for k in requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json()["keys"]}
    press(browser, "Rotate: make a new signing key")
    assert notice(browser) == "A new key signs from now on."
    kids_after = {k["kid"] for k in requests.get(server.base + "/discovery/v2.0/keys", timeout=10).json()["keys"]}
    assert len(kids_after - kids_before) == 1
    shot("keys")

    follow(browser, "Audit")
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "tbody tr")]
    for kind in ("admin.user_disabled", "admin.user_enabled", "admin.sessions_revoked", "admin.signing_key_rotated"):
        assert any(kind in row and "console:Ada" in row for row in rows), (kind, rows[:10])
    shot("audit")
    for section, name in (("Overview", "overview"), ("Mail", "mail"), ("Clients and apps", "clients")):
        follow(browser, section)
        assert heading(browser) == section
        shot(name)


def test_a_locked_out_user_is_unlocked_from_the_console(browser, server, shot):
    address, _ = new_user(server, "locked")
    for _ in range(5):
        assert password_sign_in(server, address, "not my password").status_code == 400
    assert password_sign_in(server, address, PASSWORD).status_code == 429
    sign_in(browser, server)
    follow(browser, "Users")
    open_user(browser, server, address)
    assert "Locked until" in browser.find_element(By.CSS_SELECTOR, "[role=alert]").text
    shot("locked")
    press(browser, "Unlock")
    assert notice(browser) == "The account is unlocked."
    strict.tokens(password_sign_in(server, address, PASSWORD))


def test_a_form_from_an_old_session_is_refused_and_signing_out_ends_the_session(browser, server):
    address, _ = new_user(server, "stale")
    sign_in(browser, server)
    open_user(browser, server, address)
    page = browser.current_url
    # Signing in again makes a new session: the page's forms still carry the old one's token.
    cookie = browser.get_cookie("latchkey_console")
    sign_in(browser, server)
    browser.delete_cookie("latchkey_console")
    browser.add_cookie({**cookie, "name": "latchkey_console"})
    browser.get(page)
    press(browser, "Sign out")
    assert "/console/sign-in" in browser.current_url and notice(browser) == "You are signed out."
    browser.get(page)
    assert "/console/sign-in" in browser.current_url


def test_keyboard_labels_and_a_phones_width(server, tmp_path):
    driver = chromium(javascript=True)  # only to measure the page; the page itself has no script
    try:
        driver.set_window_size(390, 844)
        sign_in(driver, server, "/console/users")
        address, _ = new_user(server, "phone")
        open_user(driver, server, address)
        screenshots(driver, tmp_path, "console")("user-phone")
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
        # Every field has a label; every button says what it does.
        for field in driver.find_elements(By.CSS_SELECTOR, "input:not([type=hidden]), select, textarea"):
            field_id = field.get_attribute("id")
            assert field_id and driver.find_elements(By.CSS_SELECTOR, f"label[for='{field_id}']"), field.get_attribute("name")
        assert all(button.text.strip() for button in driver.find_elements(By.TAG_NAME, "button"))
        # Tab starts at the skip link, then the sections in reading order.
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
        order = []
        for _ in range(7):
            order.append(driver.switch_to.active_element.text)
            driver.switch_to.active_element.send_keys(Keys.TAB)
        assert order == ["Skip to content", "Overview", "Users", "Mail", "Keys", "Audit", "Clients and apps"], order
    finally:
        driver.quit()


def test_charts_users_and_clients_read_at_a_phones_width(server, tmp_path):
    """At 390 px: chart labels in the page's type (not shrunk with the drawing), legends above their charts, user and
    client rows as cards that fit the screen, and each client's scopes shown."""
    new_user(server, "chart")
    driver = chromium(javascript=True)  # only to measure the page; the page itself has no script
    try:
        driver.set_window_size(390, 844)
        sign_in(driver, server, "/console/")
        shot = screenshots(driver, tmp_path, "console")
        shot("overview-phone")
        for figure in driver.find_elements(By.TAG_NAME, "figure"):
            legend, chart = figure.find_element(By.CLASS_NAME, "legend"), figure.find_element(By.TAG_NAME, "svg")
            assert legend.rect["y"] + legend.rect["height"] <= chart.rect["y"] + 1, figure.text  # no legend over the bars
            for label in figure.find_elements(By.CSS_SELECTOR, ".axis span, .peak"):
                assert float(label.value_of_css_property("font-size").removesuffix("px")) >= 12, label.text
            first, last = (span.text for span in figure.find_elements(By.CSS_SELECTOR, ".axis span"))
            assert first and last and first != last
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
        for page in ("/console/users", "/console/clients"):
            driver.get(server.admin_base + page)
            shot(page.rsplit("/", 1)[1] + "-phone")
            cells = driver.find_elements(By.CSS_SELECTOR, "table.cards td")
            assert cells and all(cell.rect["x"] + cell.rect["width"] <= 390 for cell in cells), page
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 390, page
        scopes = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label='Scopes']")]
        assert scopes and all(text.startswith("openid profile email offline_access") for text in scopes), scopes
    finally:
        driver.quit()


def cli(server, *args):
    done = subprocess.run([BINARY, *args], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def account_sign_in(browser, server, email, enrol):
    """From the console's sign-in page through the hosted pages (password, then the second factor) and back."""
    browser.delete_all_cookies()
    browser.get(server.admin_base + "/console/keys")
    follow(browser, "Sign in with your account")
    wait_heading(browser, "Sign in")
    fill(browser, email=email, password=PASSWORD)
    press(browser, "Sign in")
    before = len(server.mails(email))
    if enrol:  # the console's client requires a second factor: the first time, one is added
        wait_heading(browser, "Add a second step")
        fill(browser, target=email)
        press(browser, "Send code")
    else:
        wait_heading(browser, "Confirm it is you")
        browser.find_element(By.CSS_SELECTOR, "button[name=method]").click()
    wait_heading(browser, "Enter your code")
    fill(browser, code=server.wait_for_code(email, before))
    press(browser, "Continue")


def test_an_operator_signs_in_with_an_account_and_its_second_factor(browser, server, shot):
    address, _ = new_user(server, "operator")
    assert "has the role operator" in cli(server, "users", "grant", address, "operator")
    account_sign_in(browser, server, address, enrol=True)
    wait_heading(browser, "Keys")  # back where the operator was going
    assert browser.find_element(By.CSS_SELECTOR, ".signout span").text == address
    shot("account")
    press(browser, "Rotate: make a new signing key")
    assert notice(browser) == "A new key signs from now on."
    events = requests.get(server.admin_base + "/admin/v1/audit", params={"kind": "admin.signing_key_rotated"}, timeout=10,
                          headers={"Authorization": f"Bearer {TOKEN}"}).json()["events"]
    assert events[-1]["actor"] == f"operator:{address}"

    # Taking the role away ends the session at its next request.
    cli(server, "users", "revoke", address, "operator")
    browser.get(server.admin_base + "/console/users")
    assert "/console/sign-in" in browser.current_url

    # An account without the role signs in at the pages but gets no console.
    other, _ = new_user(server, "not-operator")
    account_sign_in(browser, server, other, enrol=True)
    wait_heading(browser, "Sign in to the console")
    assert "not an operator" in browser.find_element(By.CSS_SELECTOR, "[role=alert]").text
    browser.get(server.admin_base + "/console/users")
    assert "/console/sign-in" in browser.current_url
