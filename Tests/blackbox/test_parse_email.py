"""The Parse dialect's mailed links: email verification and password reset, over HTTP and in headless Chromium."""
import json
import re
import time
import uuid

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from harness import Server
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, ok
from test_hosted_pages_browser import browser  # noqa: F401 (the module's headless Chromium fixture)

PASSWORD = "correct horse 9"
NEW_PASSWORD = "battery staple 10"
APPS = [{"id": APP_ID, "master_key": MASTER_KEY, "verify_user_emails": True, "prevent_login_with_unverified_email": True},
        {"id": "plainApp"}]


@pytest.fixture(scope="module")
def server():
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(APPS)}).start()
    yield s
    s.cleanup()


def new_user():
    username = "u" + uuid.uuid4().hex[:10]
    return username, f"{username}@example.com"


def link(s, address, page, previous=0):
    """The newest link to `page` mailed to `address`, once more than `previous` mails arrived."""
    deadline = time.time() + 10
    while time.time() < deadline:
        mails = s.mails(address)
        if len(mails) > previous:
            m = re.search(r"(http\S+/parse/apps/" + APP_ID + "/" + page + r"\?token=([0-9a-f]{88}))", mails[-1]["text"])
            assert m and m.group(1) in mails[-1]["html"], mails[-1]["text"]
            return m.group(1)
        time.sleep(0.05)
    raise AssertionError(f"no mail to {address}")


def verify(url):
    """A verification link as a person follows it: the GET shows a button and changes nothing; the button posts."""
    page = requests.get(url, allow_redirects=False, timeout=10)
    if page.status_code == 302:
        return page
    assert page.status_code == 200 and "<form method=\"post\"" in page.text, (page.status_code, page.text)
    token = re.search(r'name="token" value="([^"]+)"', page.text).group(1)
    action = re.search(r'<form method="post" action="([^"]+)"', page.text).group(1)
    return requests.post(url.split("/parse/")[0] + action, data={"token": token}, allow_redirects=False, timeout=10)


def location(r):
    assert r.status_code == 302, (r.status_code, r.text)
    assert r.headers["Cache-Control"] == "no-store"
    return r.headers["Location"]


def test_sign_up_mails_a_verification_link_and_login_waits_for_it(server):
    s, c = server, ParseClient(server)
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    # As Parse Server: an app that keeps unverified users out answers the sign-up without a session.
    assert set(created) == {"objectId", "createdAt"}, created
    verify_link = link(s, address, "verify_email")
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD}), 205, "User email is not verified.")
    # Another app of the same server that does not verify emails lets the user in.
    ok(ParseClient(s, app_id="plainApp").call("POST", "/login", {"username": username, "password": PASSWORD}))

    error(c.call("POST", "/verificationEmailRequest", {"email": "nobody-" + address}), 205, f"No user found with email nobody-{address}.")
    error(c.call("POST", "/verificationEmailRequest", {}), 204)
    error(c.call("POST", "/verificationEmailRequest", {"email": 7}), 125)
    assert ok(c.call("POST", "/verificationEmailRequest", {"email": address})) == {}
    resent = link(s, address, "verify_email", previous=1)
    assert resent != verify_link
    # A resend replaces the older link.
    assert location(verify(verify_link)) == "/parse/apps/invalid_verification_link.html"
    assert location(verify(resent)) == "/parse/apps/verify_email_success.html"
    assert location(verify(resent)) == "/parse/apps/invalid_verification_link.html"  # single use
    page = requests.get(s.base + "/parse/apps/verify_email_success.html")
    assert page.status_code == 200 and "Email address verified" in page.text and page.headers["Content-Security-Policy"]
    assert location(requests.get(s.base + f"/parse/apps/{APP_ID}/verify_email", allow_redirects=False)) == "/parse/apps/invalid_link.html"
    assert location(requests.get(s.base + f"/parse/apps/{APP_ID}/verify_email?token=abc", allow_redirects=False)) \
        == "/parse/apps/invalid_verification_link.html"

    logged = ok(c.call("POST", "/login", {"username": username, "password": PASSWORD}))
    assert logged["emailVerified"] is True
    error(c.call("POST", "/verificationEmailRequest", {"email": address}), -1, f"Email {address} is already verified.")
    # A changed email is unverified again and mailed a new link.
    other = "new-" + address
    ok(c.call("PUT", f"/users/{logged['objectId']}", {"email": other}, session_token=logged["sessionToken"]))
    link(s, other, "verify_email")
    # This app keeps unverified users out: the session stops working until the new address is verified.
    error(c.call("GET", "/users/me", session_token=logged["sessionToken"]), 205, "User email is not verified.")


def test_master_sign_up_sets_email_verified(server):
    c = ParseClient(server)
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address, "emailVerified": True}, master=True), 201)
    assert ok(c.call("GET", "/users/me", session_token=created["sessionToken"]))["emailVerified"] is True
    assert server.mails(address) == [], "no verification mail for an address the master key vouched for"


def test_password_reset_link_over_http(server):
    s, c = server, ParseClient(server)
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address, "emailVerified": True}, master=True), 201)
    assert ok(c.call("POST", "/requestPasswordReset", {"email": "nobody-" + address})) == {}
    error(c.call("POST", "/requestPasswordReset", {}), 204)
    error(c.call("POST", "/requestPasswordReset", {"email": ["x"]}), 125)
    assert ok(c.call("POST", "/requestPasswordReset", {"email": address.upper()})) == {}
    reset = link(s, address, "request_password_reset")
    assert s.mails("nobody-" + address) == []

    form = location(requests.get(reset, allow_redirects=False))
    assert form.startswith(f"/parse/apps/choose_password?") and f"id={APP_ID}" in form
    page = requests.get(s.base + form)
    assert page.status_code == 200 and f'action="/parse/apps/{APP_ID}/request_password_reset"' in page.text
    assert 'name="new_password"' in page.text and page.headers["Referrer-Policy"] == "no-referrer"
    token = reset.split("token=")[1]
    post = s.base + f"/parse/apps/{APP_ID}/request_password_reset"
    weak = location(requests.post(post, data={"token": token, "new_password": "password123"}, allow_redirects=False))
    assert weak.startswith("/parse/apps/choose_password?") and "error=banned" in weak and "token=" + token in weak
    assert "too common" in requests.get(s.base + weak).text

    xhr = {"X-Requested-With": "XMLHttpRequest"}
    r = requests.post(post, data={"new_password": NEW_PASSWORD}, headers=xhr)
    assert r.status_code == 400 and r.json() == {"code": -1, "error": "Missing token"}
    r = requests.post(post, data={"token": token}, headers=xhr)
    assert r.status_code == 400 and r.json() == {"code": 201, "error": "Missing password"}
    r = requests.post(post, data={"token": token, "new_password": NEW_PASSWORD}, headers=xhr)
    assert r.status_code == 200 and r.json() == "Password successfully reset"
    # Every session ended; the link is used up.
    error(c.call("GET", "/users/me", session_token=created["sessionToken"]), 209)
    ok(c.call("POST", "/login", {"username": username, "password": NEW_PASSWORD}))
    assert location(requests.get(reset, allow_redirects=False)) == "/parse/apps/invalid_link.html"
    r = requests.post(post, data={"token": token, "new_password": "another good one 11"}, headers=xhr)
    assert r.status_code == 400 and r.json()["code"] == -1
    assert location(requests.post(post, data={"token": token, "new_password": "another good one 11"}, allow_redirects=False)) \
        == "/parse/apps/invalid_link.html"


def test_verify_and_reset_pages_in_a_browser(server, browser, tmp_path):  # noqa: F811
    s, c = server, ParseClient(server)
    username, address = new_user()
    ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    browser.get(link(s, address, "verify_email"))
    # The link's page changes nothing until its button is pressed (mail scanners open links).
    assert c.call("POST", "/login", {"username": username, "password": PASSWORD}).json()["code"] == 205
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: "<h1>Email address verified</h1>" in b.page_source)
    assert browser.current_url.endswith("/parse/apps/verify_email_success.html")

    ok(c.call("POST", "/requestPasswordReset", {"email": address}))
    browser.get(link(s, address, "request_password_reset", previous=1))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Choose a new password"
    browser.find_element(By.NAME, "new_password").send_keys("password123")
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: "too common" in b.page_source)
    browser.find_element(By.NAME, "new_password").send_keys(NEW_PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 5).until(lambda b: "<h1>Password changed</h1>" in b.page_source)
    assert browser.current_url.endswith("/parse/apps/password_reset_success.html")
    ok(c.call("POST", "/login", {"username": username, "password": NEW_PASSWORD}))


def test_the_choose_password_page_shows_only_its_own_messages(server):
    s = server
    spoof = "Your account is suspended. Call +1-555-0100 now"
    page = requests.get(s.base + "/parse/apps/choose_password", params={"id": APP_ID, "token": "a" * 88, "error": spoof}, timeout=10)
    assert page.status_code == 200 and "suspended" not in page.text and "555-0100" not in page.text
    page = requests.get(s.base + "/parse/apps/choose_password", params={"id": APP_ID, "token": "a" * 88, "error": "banned"}, timeout=10)
    assert "too common" in page.text
