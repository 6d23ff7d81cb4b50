"""The hosted pages help a person recover, in headless Chromium with JavaScript off: the password rule is on the
page before any error and the error names it; after a refusal focus is on the field in error, tied to the words by
aria-describedby; every code page offers a new code; the account page says what went wrong beside the form that was
sent and gives password managers the account's name; signing out asks once, can be cancelled, and ends with a link."""
import uuid

import pytest
from selenium.webdriver.common.by import By

from browser_support import chromium, fill, screenshots, wait_heading
from harness import Server, free_port
from openid_support import PASSWORD, provider_config

COMMON = "qwertyuiop"  # long enough for the browser's own minlength check, refused by the server's list
RULE = "At least 8 characters."


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recovery")
    (folder / "client.secret").write_text("r" * 64 + "\n")
    s = Server(config_text=provider_config(str(folder / "client.secret"), [free_port()])).start()
    yield s
    s.cleanup()


@pytest.fixture
def driver():
    d = chromium(javascript=False)
    d.set_window_size(1000, 1600)
    yield d
    d.quit()


def click(driver, text):
    driver.find_element(By.XPATH, f"//button[normalize-space()='{text}'] | //a[normalize-space()='{text}']").click()


def focused(driver):
    return driver.switch_to.active_element.get_attribute("id")


def described_by(driver, field_id):
    return (driver.find_element(By.ID, field_id).get_attribute("aria-describedby") or "").split()


def test_sign_up_states_the_rule_focuses_the_field_in_error_and_resends_the_code(driver, server, tmp_path):
    shot = screenshots(driver, tmp_path, "recovery-sign-up")
    email = f"rec-{uuid.uuid4().hex[:10]}@example.com"
    driver.get(server.base + "/ui/account")
    wait_heading(driver, "Sign in")
    click(driver, "Create an account")
    wait_heading(driver, "Create your account")
    assert driver.find_element(By.ID, "password-rule").text == RULE  # before any error
    assert "password-rule" in described_by(driver, "password") and focused(driver) == "email"
    fill(driver, email=email, password=COMMON)
    click(driver, "Create account")
    wait_heading(driver, "Create your account")
    shot("refused")
    assert driver.find_element(By.ID, "form-error").text == "This password is too common or too easy to guess."
    assert focused(driver) == "password" and "form-error" in described_by(driver, "password")
    assert driver.find_element(By.ID, "password").get_attribute("aria-invalid") == "true"
    assert driver.find_element(By.ID, "email").get_attribute("aria-invalid") is None

    fill(driver, email=email, password=PASSWORD)
    click(driver, "Create account")
    wait_heading(driver, "Enter your code")
    server.wait_for_code(email)
    click(driver, "Send a new code")
    wait_heading(driver, "Enter your code")
    fill(driver, code=server.wait_for_code(email, 1))
    assert len(server.mails(email)) == 2
    click(driver, "Continue")
    wait_heading(driver, "Your account")  # passkeys are not configured here: no offer in between

    # The account page: the refusal beside the password form, focus on its field, the account's name for managers.
    manager = driver.find_element(By.CSS_SELECTOR, "section#password input[autocomplete=username]")
    assert manager.get_attribute("value") == email and manager.get_attribute("name") in (None, "")
    assert driver.find_element(By.ID, "new-password-rule").text == RULE
    fill(driver, password=COMMON)
    driver.find_element(By.XPATH, "//section[@id='password']//button").click()
    wait_heading(driver, "Your account")
    shot("account-refused")
    error = driver.find_element(By.ID, "password-error")
    assert error.text == "This password is too common or too easy to guess." and error.find_element(By.XPATH, "ancestor::section").get_attribute("id") == "password"
    assert focused(driver) == "new-password" and "password-error" in described_by(driver, "new-password")
    assert not driver.find_elements(By.CSS_SELECTOR, "main > p.error")  # not at the top, far from the form

    # Signing out asks once; "Stay signed in" goes back signed in; confirmed, the last page has a way back.
    sign_out = "//p[@class='links']/a[normalize-space()='Sign out']"  # the page's own link, not a session's button
    driver.find_element(By.XPATH, sign_out).click()
    wait_heading(driver, "Sign out")
    click(driver, "Stay signed in")
    wait_heading(driver, "Your account")
    driver.find_element(By.XPATH, sign_out).click()
    wait_heading(driver, "Sign out")
    driver.find_element(By.XPATH, "//form[@action='/oauth2/v2.0/logout']//button").click()
    wait_heading(driver, "Signed out")
    shot("signed-out")
    click(driver, "Sign in again")
    wait_heading(driver, "Sign in")


def test_reset_resends_its_code_and_a_decoy_resends_nothing(driver, server, tmp_path):
    email = f"rst-{uuid.uuid4().hex[:10]}@example.com"
    driver.get(server.base + "/ui/account")
    click(driver, "Create an account")
    wait_heading(driver, "Create your account")
    fill(driver, email=email, password=PASSWORD)
    click(driver, "Create account")
    wait_heading(driver, "Enter your code")
    fill(driver, code=server.wait_for_code(email))
    click(driver, "Continue")
    wait_heading(driver, "Your account")

    for address, real in ((email, True), (f"nobody-{uuid.uuid4().hex[:8]}@example.com", False)):
        driver.delete_all_cookies()
        driver.get(server.base + "/ui/account")
        wait_heading(driver, "Sign in")
        click(driver, "Forgot your password?")
        wait_heading(driver, "Reset your password")
        fill(driver, email=address)
        driver.find_element(By.XPATH, "//form[@action='/ui/reset']//button").click()
        wait_heading(driver, "Enter your code")
        assert driver.find_element(By.ID, "password-rule").text == RULE
        before = len(server.mails(address))
        click(driver, "Send a new code")
        wait_heading(driver, "Enter your code")
        if not real:
            assert server.mails(address) == [] and "Send a new code" in driver.page_source  # the same page, nothing sent
            continue
        code = server.wait_for_code(address, before)
        assert len(server.mails(address)) == before + 1
        fill(driver, code=code, password="a new horse battery staple")
        click(driver, "Continue")
        wait_heading(driver, "Your account")  # the new password set, signed in
