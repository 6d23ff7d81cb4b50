"""The hosted confirm and reset pages in a real headless Chromium (Debian's chromium + chromedriver, Selenium)."""
import json
import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import chromium, wait_heading
from harness import Server
from test_app_services import APPS, NEW_PW, PW, call, link_pair, login, no_body, provider


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def pages_server():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS)}).start()
    yield s
    s.cleanup()


def test_confirm_link_opened_in_a_browser(browser, pages_server, email, tmp_path):
    s = pages_server
    no_body(call(s, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 201)
    base, token, token_id = link_pair(s, email)
    browser.get(f"{base}?token={token}&tokenId={token_id}")
    wait_heading(browser, "Confirm your email address")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_heading(browser, "Email address confirmed")
    browser.save_screenshot(os.environ.get("LATCHKEY_SCREENSHOTS", str(tmp_path)) + "/confirm.png")
    assert login(s, "email-app", email, PW).status_code == 200


def test_reset_form_weak_then_good_password(browser, pages_server, email, tmp_path):
    s = pages_server
    no_body(call(s, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    no_body(call(s, "POST", provider("email-app", "reset/send"), {"email": email}))
    base, token, token_id = link_pair(s, email)
    browser.get(f"{base}?token={token}&tokenId={token_id}")
    assert token not in browser.find_element(By.TAG_NAME, "body").text
    field = browser.find_element(By.NAME, "password")
    # The browser's own minlength check would stop a short password; a common one passes it and the server refuses it.
    field.send_keys("password123")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: "too common" in b.page_source)
    assert "too common" in browser.find_element(By.CLASS_NAME, "error").text
    browser.save_screenshot(os.environ.get("LATCHKEY_SCREENSHOTS", str(tmp_path)) + "/reset-weak.png")
    browser.find_element(By.NAME, "password").send_keys(NEW_PW)
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The click returns before the next page has loaded: wait for it rather than read the old one.
    WebDriverWait(browser, 5).until(lambda b: "<h1>Password changed</h1>" in b.page_source)
    assert login(s, "auto-app", email, NEW_PW).status_code == 200
