"""Native authentication (MSAL's wire): sign up with the mailed code, and the code refused once it expired."""
import requests

from conftest import BASE, PASSWORD, advance, latest_code

TYPES = "oob password redirect"


def post(path, client, **fields):
    return requests.post(BASE + path, data={"client_id": client, **fields}, timeout=10)


def sign_up_until_the_code(client, email):
    start = post("/signup/v1.0/start", client, username=email, password=PASSWORD, challenge_type=TYPES).json()
    return post("/signup/v1.0/challenge", client, continuation_token=start["continuation_token"], challenge_type=TYPES).json()


def test_sign_up_with_the_mailed_code(config, email):
    client = config["native_client_id"]
    sent = sign_up_until_the_code(client, email)
    done = post("/signup/v1.0/continue", client, continuation_token=sent["continuation_token"], grant_type="oob",
                oob=latest_code(email, "sign_up")["code"])
    assert done.status_code == 200 and done.json()["continuation_token"]


def test_an_expired_code_is_refused_in_msals_words(config, email):
    client = config["native_client_id"]
    sent = sign_up_until_the_code(client, email)
    advance(2 * 3600)
    late = post("/signup/v1.0/continue", client, continuation_token=sent["continuation_token"], grant_type="oob",
                oob=latest_code(email, "sign_up")["code"])
    assert late.status_code == 400 and late.json()["error"] == "expired_token"
