"""App Services (the Realm SDKs' wire): register, confirm with the link's token, sign in; an expired link refused;
"Sign in with Apple" with the stand-in issuer."""
import requests

from conftest import BASE, PASSWORD, advance, apple_token, latest_code


def app(config, path):
    return config["app_services_base_url"] + path


def test_register_confirm_and_log_in(config, email):
    assert requests.post(app(config, "/auth/providers/local-userpass/register"), json={"email": email, "password": PASSWORD}, timeout=10).status_code == 201
    link = latest_code(email, "confirmation")
    confirmed = requests.post(app(config, "/auth/providers/local-userpass/confirm"), json={"token": link["token"], "tokenId": link["token_id"]},
                              timeout=10)
    assert confirmed.status_code == 200
    login = requests.post(app(config, "/auth/providers/local-userpass/login"), json={"username": email, "password": PASSWORD}, timeout=10)
    assert login.status_code == 200 and login.json()["access_token"]


def test_an_expired_confirmation_link_is_refused(config, email):
    requests.post(app(config, "/auth/providers/local-userpass/register"), json={"email": email, "password": PASSWORD}, timeout=10)
    link = latest_code(email, "confirmation")
    advance(3600)
    late = requests.post(app(config, "/auth/providers/local-userpass/confirm"), json={"token": link["token"], "tokenId": link["token_id"]}, timeout=10)
    assert late.status_code == 400 and late.json()["error_code"] == "UserpassTokenInvalid"


def test_sign_in_with_apple(config):
    login = requests.post(app(config, "/auth/providers/oauth2-apple/login"), json={"id_token": apple_token("apple-user-1")}, timeout=10)
    assert login.status_code == 200 and login.json()["user_id"]
