"""The review's first finding as its attacker ran it, in Chromium: the password alone, signed in at an app that asks
for no second factor, then the account page and the passkey wire from that browser. The owner's account has a
passkey as its second factor; the attacker's browser has no authenticator of the owner's. The browser stays on the
public_url's host, where the account page signs in."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import chromium, fill, wait_heading
from test_assurance_attacks import PASSWORD, WEB, owner_with_passkey, server  # noqa: F401 (the fixture)
from test_openid import authorize_url

CALLBACK = "http://127.0.0.1:4999/callback"


def test_a_password_in_a_browser_reaches_neither_the_account_page_nor_the_passkey_wire(server):
    owner, _ = owner_with_passkey(server)
    driver = chromium(javascript=True)
    try:
        # The password alone signs in at the app whose client asks for no second factor...
        driver.get(authorize_url(server, client=WEB, redirect=CALLBACK)[0])
        wait_heading(driver, "Sign in")
        fill(driver, email=owner.email, password=PASSWORD)
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(CALLBACK + "?code="))

        # ...but the account page signs in afresh...
        driver.get(server.base + "/ui/account")
        wait_heading(driver, "Sign in")
        assert "Signed in as" not in driver.page_source

        # ...and the passkey wire, called with that password session and this page's form token, adds nothing.
        answer = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const token = document.querySelector('input[name="csrf"]').value;
            fetch("/ui/passkeys/registration/options", {method: "POST", headers: {"X-CSRF-Token": token}})
              .then(r => r.json().then(body => done([r.status, body.error, body.error_description])));
        """)
        assert answer[0] == 401 and answer[1] == "sign_in_again" and "second factor or passkey" in answer[2], answer

        # The password again at the account page's sign-in: it asks for the passkey, which this browser does not have.
        fill(driver, email=owner.email, password=PASSWORD)
        driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
        wait_heading(driver, "Confirm it is you")

        # Nor does a form of the account page posted from here: it sends the browser to sign in again.
        driver.execute_script("""
            const form = document.createElement("form");
            form.method = "post"; form.action = "/ui/account/passkeys/remove";
            for (const [name, value] of [["csrf", document.querySelector('input[name="csrf"], #passkey-csrf').value], ["id", "any"]]) {
                const input = document.createElement("input"); input.name = name; input.value = value; form.appendChild(input);
            }
            document.body.appendChild(form); form.submit();
        """)
        WebDriverWait(driver, 10).until(lambda d: "Sign in" in d.find_element(By.TAG_NAME, "h1").text
                                        or "Confirm it is you" in d.find_element(By.TAG_NAME, "h1").text)
        assert "Signed in as" not in driver.page_source
    finally:
        driver.quit()
