"""Headless Chromium for the page suites (Debian's chromium and chromedriver, driven by Selenium)."""
import os

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def chromium(javascript=True, flags=()):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", *flags):
        options.add_argument(flag)
    if not javascript:  # the pages must work without it
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


@pytest.fixture(scope="module")
def browser():
    """One Chromium with JavaScript off for a test module: the pages must work without it."""
    driver = chromium(javascript=False)
    yield driver
    driver.quit()


def screenshots(browser, tmp_path, prefix):
    """Saves `<prefix>-<name>.png` in $LATCHKEY_SCREENSHOTS (CI keeps them), else in the test's temporary folder."""
    folder = os.environ.get("LATCHKEY_SCREENSHOTS", str(tmp_path))
    return lambda name: browser.save_screenshot(os.path.join(folder, f"{prefix}-{name}.png"))


def heading(browser):
    return browser.find_element(By.TAG_NAME, "h1").text


def wait_heading(browser, text):
    # A page replaced while it is read (a chain of redirects) leaves stale or detached elements: read again.
    WebDriverWait(browser, 10, ignored_exceptions=(WebDriverException,)).until(lambda b: text in heading(b))


def fill(browser, **fields):
    """Types each value into the field of that name, replacing what it held."""
    for name, value in fields.items():
        field = browser.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)


def create_account(browser, server, email, password):
    """From a sign-in page: "Create an account", the form, and the code mailed to `email` (read from `server`)."""
    wait_heading(browser, "Sign in")
    browser.find_element(By.XPATH, "//a[normalize-space()='Create an account']").click()
    wait_heading(browser, "Create your account")
    fill(browser, email=email, password=password)
    browser.find_element(By.XPATH, "//button[normalize-space()='Create account']").click()
    wait_heading(browser, "Enter your code")
    fill(browser, code=server.wait_for_code(email))
    browser.find_element(By.XPATH, "//button[normalize-space()='Continue']").click()
