"""Test mode (`latchkey serve --testing`, docs/testing.md) over real sockets: the ready apps answer in every dialect,
the clock moves forward and a code expires in the dialect's own words, accounts are made in the state a test needs,
the data is wiped; the testing API is absent outside test mode; test mode refuses to listen off loopback and to open
a database with accounts made outside it; its temporary database goes at exit."""
import os
import re
import subprocess
import uuid

import pytest
import requests

from harness import ALL_TYPES, BINARY, Server

NATIVE = "11111111-1111-1111-1111-111111111111"
APP = "/api/client/v2.0/app/test-app"
PARSE = {"X-Parse-Application-Id": "testAppId"}
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server():
    s = Server(args=("serve", "--testing")).start()
    yield s
    s.cleanup()


def new_email():
    return f"tm-{uuid.uuid4().hex[:10]}@example.com"


def app_login(server, email, password=PASSWORD):
    return requests.post(server.base + APP + "/auth/providers/local-userpass/login", json={"username": email, "password": password}, timeout=10)


def test_the_ready_apps_and_the_banner(server):
    config = server.get("/testing/v1/config").json()
    assert config["native_client_id"] == NATIVE and config["native_mfa_client_id"].startswith("22222222")
    assert (config["app_services_app_id"], config["parse_app_id"], config["parse_master_key"]) == ("test-app", "testAppId", "test-master-key")
    assert (config["web_client_id"], config["web_client_secret"]) == ("test-web", "test-web-secret")
    # A hosted page says test mode.
    page = server.get("/oauth2/v2.0/authorize", params={"client_id": "test-web", "redirect_uri": "http://127.0.0.1:5555/callback",
                                                         "response_type": "code", "scope": "openid", "code_challenge": "x" * 43,
                                                         "code_challenge_method": "S256"})
    assert page.status_code == 200 and "Test mode: this server is for automated tests." in page.text


def test_an_account_made_directly_signs_in_everywhere_and_takes_its_states(server):
    email = new_email()
    made = requests.post(server.base + "/testing/v1/users", json={"email": email, "password": PASSWORD, "roles": []}, timeout=10)
    assert made.status_code == 201 and set(made.json()) == {"id", "object_id"}, made.text
    assert app_login(server, email).status_code == 200
    parse = requests.post(server.base + "/parse/login", headers=PARSE, json={"username": email, "password": PASSWORD}, timeout=10)
    assert parse.status_code == 200 and parse.json()["objectId"] == made.json()["object_id"], parse.text
    locked = requests.post(f"{server.base}/testing/v1/users/{email}/lock", json={}, timeout=10)
    assert locked.status_code == 200 and locked.json()["locked"] is True
    assert app_login(server, email).status_code != 200
    assert requests.post(f"{server.base}/testing/v1/users/{email}/unlock", json={}, timeout=10).json()["locked"] is False
    assert requests.post(f"{server.base}/testing/v1/users/{email}/disable", json={}, timeout=10).json()["status"] == "disabled"
    assert app_login(server, email).status_code != 200
    assert requests.post(f"{server.base}/testing/v1/users/{email}/enable", json={}, timeout=10).json()["status"] == "active"
    assert app_login(server, email).status_code == 200
    # Refusals, in the API's shape.
    assert requests.post(f"{server.base}/testing/v1/users/{email}/explode", json={}, timeout=10).status_code == 404
    assert requests.post(f"{server.base}/testing/v1/users/nobody@example.com/lock", json={}, timeout=10).status_code == 404
    again = requests.post(server.base + "/testing/v1/users", json={"email": email}, timeout=10)
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    bad = requests.post(server.base + "/testing/v1/users", json=[{"email": new_email()}, {"email": 7}], timeout=10)
    assert bad.status_code == 400 and bad.json()["error_description"] == "[1] email must be a string"
    assert requests.post(server.base + "/testing/v1/users", data="not json", timeout=10).status_code == 415
    assert requests.post(server.base + "/testing/v1/users", data="not json", headers={"Content-Type": "application/json"},
                         timeout=10).status_code == 400
    secret = requests.post(server.base + "/testing/v1/users", json={"email": new_email(), "second_factors": [{"kind": "totp", "secret": "!!"}]},
                           timeout=10)
    assert secret.status_code == 400 and "Base32" in secret.json()["error_description"]
    address = requests.post(server.base + "/testing/v1/users", json={"email": "bad"}, timeout=10)
    assert address.status_code == 400 and address.json()["error_description"].startswith("email is not a valid address")


def test_an_authenticator_the_test_holds_the_secret_of(server):
    import pyotp
    email, secret = new_email(), pyotp.random_base32()
    made = requests.post(server.base + "/testing/v1/users", timeout=10, json={
        "email": email, "password": PASSWORD, "second_factors": [{"kind": "totp", "secret": secret}]})
    assert made.status_code == 201, made.text
    # Parse asks for the second factor, and the test computes it.
    parse = requests.post(server.base + "/parse/login", headers=PARSE, timeout=10,
                          json={"username": email, "password": PASSWORD, "authData": {"mfa": {"token": pyotp.TOTP(secret).now()}}})
    assert parse.status_code == 200, parse.text


def test_the_clock_moves_forward_and_a_code_expires_in_the_dialects_words(server):
    email = new_email()
    start = server.post("/signup/v1.0/start", {"username": email, "password": PASSWORD, "challenge_type": ALL_TYPES})
    challenge = server.post("/signup/v1.0/challenge", {"continuation_token": start.json()["continuation_token"], "challenge_type": ALL_TYPES})
    code = server.wait_for_code(email)
    before = server.get("/testing/v1/clock").json()
    moved = requests.post(server.base + "/testing/v1/clock", json={"advance_seconds": 7200}, timeout=10).json()
    assert moved["offset_seconds"] == before["offset_seconds"] + 7200
    late = server.post("/signup/v1.0/continue", {"continuation_token": challenge.json()["continuation_token"], "grant_type": "oob", "oob": code})
    assert late.status_code == 400 and late.json()["error"] == "expired_token", late.text
    assert requests.post(server.base + "/testing/v1/clock", json={"advance_seconds": -5}, timeout=10).status_code == 400
    back = requests.delete(server.base + "/testing/v1/clock", timeout=10).json()
    assert back["offset_seconds"] == 0


def test_wiping_keeps_accounts_when_asked_and_otherwise_everything_goes(server):
    email = new_email()
    requests.post(server.base + "/testing/v1/users", json={"email": email, "password": PASSWORD}, timeout=10)
    session = app_login(server, email).json()
    kept = requests.delete(server.base + "/testing/v1/data", params={"keep_accounts": "true"}, timeout=10)
    assert kept.status_code == 200 and kept.json()["wiped"] == "sessions and flows"
    refresh = requests.post(server.base + "/api/client/v2.0/auth/session", headers={"Authorization": "Bearer " + session["refresh_token"]}, timeout=10)
    assert refresh.status_code == 401  # the session ended
    assert app_login(server, email).status_code == 200  # the account stayed
    many = requests.post(server.base + "/testing/v1/users", json=[{"email": new_email()} for _ in range(50)], timeout=30)
    assert many.status_code == 201 and len(many.json()) == 50
    gone = requests.delete(server.base + "/testing/v1/data", timeout=10)
    assert gone.status_code == 200 and gone.json()["wiped"] == "everything"
    assert app_login(server, email).status_code == 401
    assert server.mails(email) == []


def test_without_test_mode_the_testing_api_is_absent():
    s = Server().start()
    try:
        for path in ("/testing/v1/config", "/testing/v1/clock"):
            assert s.get(path).status_code == 404
        assert requests.delete(s.base + "/testing/v1/data", timeout=10).status_code in (404, 405)
    finally:
        s.cleanup()


def test_test_mode_refuses_off_loopback_and_a_configured_database(tmp_path):
    off = Server(args=("serve", "--testing"), env={"LATCHKEY_SERVER_HOST": "0.0.0.0"})
    out = subprocess.run([BINARY, *off.args], env=off.env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 78 and "test mode listens on loopback only" in out.stderr, out.stderr
    remote = Server(args=("serve", "--testing"), env={"LATCHKEY_SERVER_HOST": "0.0.0.0", "LATCHKEY_TESTING_ALLOW_REMOTE": "true"})
    remote.start()
    remote.cleanup()
    # A configured database is refused, whatever it holds: test mode runs only on one it makes (tests/test_assurance_attacks.py).
    real = Server().start()
    real.stop()
    refused = subprocess.run([BINARY, "serve", "--testing"], env=real.env, capture_output=True, text=True, timeout=30)
    assert refused.returncode == 78 and "database.path" in refused.stderr and "LATCHKEY_DATABASE_PATH" in refused.stderr, refused.stderr
    real.cleanup()


def test_the_temporary_database_goes_at_exit():
    """Test mode chosen by the environment, as the image runs it (LATCHKEY_TESTING_ENABLED=true)."""
    s = Server(env={"LATCHKEY_TESTING_ENABLED": "true"})
    s.start()
    path = re.search(r"database (\S+latchkey-test-mode-\S+/latchkey\.sqlite)", s.read_log()).group(1)
    assert os.path.exists(path) and s.get("/testing/v1/config").status_code == 200
    s.stop()
    assert not os.path.exists(os.path.dirname(path))
    s.cleanup()


def test_codes_and_links_as_data_and_text_messages_captured(server):
    from mfa_support import Native, suberror
    email = new_email()
    native = Native(server, NATIVE)
    native.sign_up(email)
    codes = server.get("/testing/v1/codes", params={"to": email}).json()["codes"]
    assert codes[0]["purpose"] == "sign_up" and codes[0]["channel"] == "email" and re.fullmatch(r"\d{8}", codes[0]["code"])
    assert codes[0]["used"] is True and codes[0]["expires_at"] > codes[0]["sent_at"]  # the sign-up took it
    assert (codes[0]["dialect"], codes[0]["client_id"]) == ("native", NATIVE)
    # A confirmation link of the App Services app: its token and token id as data.
    linked = new_email()
    assert requests.post(server.base + APP + "/auth/providers/local-userpass/register", json={"email": linked, "password": PASSWORD},
                         timeout=10).status_code == 201
    link = server.get("/testing/v1/codes", params={"to": linked}).json()["codes"][0]
    assert link["purpose"] == "confirmation" and link["used"] is False and link["token"] and link["token_id"] and link["token"] in link["link"]
    assert (link["dialect"], link["client_id"]) == ("app_services", "test-app")
    confirmed = requests.post(server.base + APP + "/auth/providers/local-userpass/confirm", json={"token": link["token"], "tokenId": link["token_id"]},
                              timeout=10)
    assert confirmed.status_code == 200, confirmed.text
    assert server.get("/testing/v1/codes", params={"to": linked}).json()["codes"][0]["used"] is True
    # A second factor by text message (test mode's own sender: nothing is sent), read back as data.
    phone = f"+1555{uuid.uuid4().int % 10_000_000:07d}"
    strict_client = Native(server, "22222222-2222-2222-2222-222222222222")
    reg = strict_client.register_introspect(suberror(strict_client.password_token(email), "registration_required"))
    method = next(m for m in reg["methods"] if m["challenge_channel"] == "sms")
    sent = strict_client.register_challenge(reg["continuation_token"], method, phone).json()
    texts = server.get("/testing/v1/sms", params={"to": phone}).json()["messages"]
    assert len(texts) == 1 and texts[0]["purpose"] == "second_factor" and texts[0]["channel"] == "sms"
    done = strict_client.register_continue(sent["continuation_token"], texts[0]["code"])
    assert done.status_code == 200, done.text
    # Without to=: everything sent, newest first, in pages that follow each other without a gap or a repeat.
    everything = server.get("/testing/v1/codes", params={"limit": 1000}).json()
    newest = everything["codes"]
    assert newest[0]["to"] == phone and {linked, email} <= {c["to"] for c in newest}
    first = server.get("/testing/v1/codes", params={"limit": 2}).json()
    assert first["codes"] == newest[:2] and isinstance(first["next"], int)
    second = server.get("/testing/v1/codes", params={"limit": 2, "before": first["next"]}).json()
    assert second["codes"] == newest[2:4]
    assert everything["next"] is None or len(newest) == 1000
    for bad in ({"limit": 0}, {"limit": "ten"}, {"before": "x"}, {"before": 0}):
        r = server.get("/testing/v1/codes", params=bad)
        assert r.status_code == 400 and r.json()["error"] == "invalid_request", (bad, r.text)


def test_the_stand_in_apple_signs_in_to_every_dialect_and_the_pages(server):
    sub, email = "apple-" + uuid.uuid4().hex[:8], new_email()
    config = server.get("/testing/v1/config").json()["apple"]
    discovery = server.get("/testing/v1/issuer/apple/.well-known/openid-configuration").json()
    assert discovery["issuer"] == config["issuer"] and discovery["jwks_uri"].endswith("/testing/v1/issuer/apple/jwks")
    token = requests.post(server.base + "/testing/v1/issuer/apple/id-token", json={"sub": sub, "email": email, "email_verified": True},
                          timeout=10).json()["id_token"]
    # App Services' "Sign in with Apple", and Parse's authData.apple, with the token signed for any claims.
    login = requests.post(server.base + APP + "/auth/providers/oauth2-apple/login", json={"id_token": token}, timeout=10)
    assert login.status_code == 200, login.text
    parse = requests.post(server.base + "/parse/users", headers=PARSE, timeout=10, json={"authData": {"apple": {"id": sub, "token": token}}})
    assert parse.status_code in (200, 201), parse.text
    # The hosted pages: "Continue with Apple" goes to the stand-in's page, whose form says who signs in.
    http = requests.Session()
    callback = "http://127.0.0.1:5555/callback"
    page = http.get(server.base + "/oauth2/v2.0/authorize", timeout=10, params={
        "client_id": "test-web", "redirect_uri": callback, "response_type": "code", "scope": "openid email", "state": "s",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"})
    assert "Continue with Apple" in page.text
    fields = dict(re.findall(r'name="(csrf|interaction)" value="([^"]*)"', page.text))
    to_apple = http.post(server.base + "/ui/upstream", data={**fields, "provider": "apple"}, allow_redirects=False, timeout=10)
    assert to_apple.status_code == 303 and "/testing/v1/issuer/apple/authorize" in to_apple.headers["location"]
    form = http.get(to_apple.headers["location"], timeout=10)
    assert form.status_code == 200 and "Test mode" in form.text
    hidden = dict(re.findall(r'name="(client_id|redirect_uri|state|nonce)" value="([^"]*)"', form.text))
    back = http.post(server.base + "/testing/v1/issuer/apple/authorize", allow_redirects=False, timeout=10,
                     data={**{k: v.replace("&amp;", "&") for k, v in hidden.items()}, "sub": sub, "email": email, "email_verified": "on"})
    assert back.status_code == 303 and "/ui/upstream/callback/apple" in back.headers["location"]
    done = http.get(back.headers["location"], allow_redirects=False, timeout=10)
    while done.status_code == 200 and 'id="passkey-later"' in done.text:  # the passkey offer: not now
        later = re.search(r'id="passkey-later" href="([^"]+)"', done.text).group(1).replace("&amp;", "&")
        done = http.get(server.base + later, allow_redirects=False, timeout=10)
    assert done.status_code == 303 and done.headers["location"].startswith(callback + "?code="), (done.status_code, done.text[:500])
    assert requests.post(server.base + "/testing/v1/issuer/bad%20name/id-token", json={}, timeout=10).status_code == 404
    assert requests.post(server.base + "/testing/v1/issuer/apple/id-token", data="[1]", timeout=10).status_code == 415
    assert requests.post(server.base + "/testing/v1/issuer/apple/id-token", data="[1]", headers={"Content-Type": "application/json"},
                         timeout=10).status_code == 400


def test_an_account_made_with_an_identity_and_a_mail_factor(server):
    from mfa_support import Native, suberror
    email, sub = new_email(), "apple-" + uuid.uuid4().hex[:8]
    made = requests.post(server.base + "/testing/v1/users", timeout=10, json={
        "email": email, "password": PASSWORD, "identities": [{"provider": "apple", "subject": sub}],
        "second_factors": [{"kind": "email", "target": email}]}).json()
    # The identity is the account's: the stand-in Apple's token for that subject signs in to it.
    token = requests.post(server.base + "/testing/v1/issuer/apple/id-token", json={"sub": sub}, timeout=10).json()["id_token"]
    login = requests.post(server.base + APP + "/auth/providers/oauth2-apple/login", json={"id_token": token}, timeout=10)
    assert login.status_code == 200 and login.json()["user_id"] == made["id"], login.text
    # The mail factor is enrolled: the client that requires a second factor asks for it, by mail.
    strict_client = Native(server, "22222222-2222-2222-2222-222222222222")
    methods = strict_client.introspect(suberror(strict_client.password_token(email), "mfa_required"))["methods"]
    assert [m["challenge_channel"] for m in methods] == ["email"]
