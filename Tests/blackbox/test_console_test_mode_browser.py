"""The operator console in test mode, in headless Chromium with JavaScript off: on the admin listener with test
mode's own token (named in /testing/v1/config), a page of the codes and links sent and the clock, which moves
forward from there and goes back, as the testing API's clock does."""
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By

from browser_support import chromium, heading, screenshots, wait_heading
from harness import Server
from mfa_support import Native

NATIVE = "11111111-1111-1111-1111-111111111111"


@pytest.fixture(scope="module")
def server():
    s = Server(args=("serve", "--testing")).start()
    yield s
    s.cleanup()


def test_the_console_shows_what_test_mode_captured_and_moves_its_clock(server, tmp_path):
    config = server.get("/testing/v1/config").json()
    assert config["console_url"] == server.admin_base + "/console/" and config["admin_token"].startswith("test-admin-token-")
    email = f"ctm-{uuid.uuid4().hex[:8]}@example.com"
    native = Native(server, NATIVE)
    started = native.post("/signup/v1.0/start", {"username": email, "challenge_type": "oob redirect"}).json()
    native.post("/signup/v1.0/challenge", {"continuation_token": started["continuation_token"], "challenge_type": "oob redirect"})
    code = server.get("/testing/v1/codes", params={"to": email}).json()["codes"][0]["code"]

    driver = chromium(javascript=False)
    shot = screenshots(driver, tmp_path, "console-test-mode")
    try:
        driver.get(config["console_url"])
        wait_heading(driver, "Sign in to the console")
        driver.find_element(By.ID, "name").send_keys("Tess")
        driver.find_element(By.ID, "token").send_keys(config["admin_token"])
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
        wait_heading(driver, "Overview")
        driver.find_element(By.LINK_TEXT, "Test mode").click()
        wait_heading(driver, "Test mode")
        shot("page")
        row = driver.find_element(By.XPATH, f"//tr[td[normalize-space()='{email}']]")
        assert code in row.text and "sign_up (email)" in row.text and "not yet used" not in row.text and "not used yet" in row.text, row.text
        # An hour forward: the code has expired, as every dialect would now say.
        minutes = driver.find_element(By.ID, "minutes")
        minutes.clear()
        minutes.send_keys("60")
        driver.find_element(By.XPATH, "//button[normalize-space()='Move the clock forward']").click()
        wait_heading(driver, "Test mode")
        assert "The clock moved forward" in driver.page_source and "moved +1 h" in driver.find_element(By.ID, "clock-h").find_element(By.XPATH, "..").text
        assert "expired" in driver.find_element(By.XPATH, f"//tr[td[normalize-space()='{email}']]").text
        assert server.get("/testing/v1/clock").json()["offset_seconds"] == 3600
        driver.find_element(By.XPATH, "//button[normalize-space()='Back to real time']").click()
        wait_heading(driver, "Test mode")
        assert server.get("/testing/v1/clock").json()["offset_seconds"] == 0
        # Only the codes to one address.
        search = driver.find_element(By.ID, "to")
        search.send_keys("nobody@example.com")
        driver.find_element(By.XPATH, "//form[@role='search']//button").click()
        wait_heading(driver, "Test mode")
        assert email not in driver.page_source and "None yet." in driver.page_source
        assert heading(driver) == "Test mode"
    finally:
        driver.quit()
    # Without a console session the page sends the browser to sign in, as every console page does.
    r = requests.get(server.admin_base + "/console/testing", allow_redirects=False, timeout=10)
    assert r.status_code == 303 and "/console/sign-in" in r.headers["Location"], (r.status_code, r.headers)
