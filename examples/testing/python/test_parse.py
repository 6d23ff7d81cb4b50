"""Parse (ParseSwift's wire): sign up, verify the address by its link, log in; an expired link shows Parse's page;
log in with Apple through authData."""
import requests

from conftest import BASE, PASSWORD, advance, apple_token, latest_code


def headers(config):
    return {"X-Parse-Application-Id": config["parse_app_id"]}


def test_sign_up_verify_and_log_in(config, email):
    made = requests.post(config["parse_server_url"] + "/users", headers=headers(config), json={"username": email, "email": email, "password": PASSWORD},
                         timeout=10)
    assert made.status_code == 201
    sent = latest_code(email, "confirmation")
    # The link shows a button and changes nothing (a mail scanner's prefetch verifies nobody); the button posts.
    page = requests.get(sent["link"], allow_redirects=False, timeout=10)
    assert page.status_code == 200 and '<form method="post"' in page.text
    verified = requests.post(sent["link"].split("?")[0], data={"token": sent["token"]}, allow_redirects=False, timeout=10)
    assert verified.headers["location"].endswith("/apps/verify_email_success.html")
    login = requests.post(config["parse_server_url"] + "/login", headers=headers(config), json={"username": email, "password": PASSWORD}, timeout=10)
    assert login.status_code == 200 and login.json()["sessionToken"].startswith("r:")


def test_an_expired_verification_link_shows_parses_page(config, email):
    requests.post(config["parse_server_url"] + "/users", headers=headers(config), json={"username": email, "email": email, "password": PASSWORD},
                  timeout=10)
    link = latest_code(email, "confirmation")["link"]
    advance(7 * 86400)
    late = requests.get(link, allow_redirects=False, timeout=10)
    assert late.headers["location"].endswith("/apps/invalid_verification_link.html")


def test_log_in_with_apple(config):
    made = requests.post(config["parse_server_url"] + "/users", headers=headers(config), timeout=10,
                         json={"authData": {"apple": {"id": "apple-user-2", "token": apple_token("apple-user-2")}}})
    assert made.status_code in (200, 201) and made.json()["sessionToken"]
