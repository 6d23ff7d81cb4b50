"""U's security review, High: account pre-hijacking. Someone puts a victim's unproven address on an account they
control (a Parse anonymous account's `PUT /users/:id {"email"}`, an App Services registration under
`confirmation: auto`), adds ways in of their own, and waits. When the mailbox's owner proves the address (a native
sign-in by emailed code, a reset by mailed link), every way in added before that proof goes, every session ends
(App Services access tokens with them), and the owner is told what was removed. And a reset by the owner ends the
account's API keys (`accounts.reset_revokes_api_keys`)."""
import json
import re
import time
import uuid

import pytest
import requests

import strict
from harness import Server
from identity_support import APPLE_AUD, GOOGLE_AUD, identity_env
from issuer import APPLE_ISSUER, GOOGLE_ISSUER, Issuer
from parse_client import APP_ID, MASTER_KEY, ParseClient, ok

AS = "/api/client/v2.0"
APPS = [{"id": "auto-app", "confirmation": {"mode": "auto"}, "providers": ["local-userpass", "anon-user", "api-key"]},
        {"id": "mail-app", "providers": ["local-userpass", "api-key"]}]
PARSE = [{"id": "parseApp", "master_key": MASTER_KEY}]
PW = "correct horse battery"
CODE_TYPES = "oob redirect"


@pytest.fixture(scope="module")
def server():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS), "LATCHKEY_PARSE_APPS": json.dumps(PARSE)}).start()
    yield s
    s.cleanup()


def victim():
    return f"victim-{uuid.uuid4().hex[:10]}@example.com"


def parse(s):
    return ParseClient(s, app_id="parseApp")


def app_login(s, app, provider, body):
    return requests.post(f"{s.base}{AS}/app/{app}/auth/providers/{provider}/login", json={"provider": provider, **body}, timeout=10)


def code_sign_in(s, address):
    """The mailbox's owner signs in by emailed code (native API)."""
    init = strict.ok(s.post("/oauth2/v2.0/initiate", {"username": address, "challenge_type": CODE_TYPES}), "initiate")
    before = len(s.mails(address))
    ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": CODE_TYPES}),
                   "challenge")
    assert ch["challenge_type"] == "oob", ch
    return strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "oob", "continuation_token": ch["continuation_token"],
                                                      "oob": s.wait_for_code(address, before), "scope": "openid offline_access"}))


def mailed_link(s, address, before):
    """token and tokenId of the first link mailed to `address` after the first `before` mails."""
    deadline = time.time() + 10
    while time.time() < deadline:
        mails = s.mails(address)
        if len(mails) > before:
            return re.search(r"token=([0-9a-f]+)&tokenId=([0-9a-f]+)", mails[before]["text"]).groups()
        time.sleep(0.05)
    raise AssertionError(f"no link mailed to {address}")


def mail_of_kind(s, address, kind):
    deadline = time.time() + 10
    while time.time() < deadline:
        found = [m for m in s.mails(address) if m["kind"] == kind]
        if found:
            return found[-1]["text"]
        time.sleep(0.05)
    raise AssertionError(f"no {kind} mail to {address}: {[m['subject'] for m in s.mails(address)]}")


def removal_notice(s, address):
    return mail_of_kind(s, address, "access_removed")


def test_a_parse_anonymous_account_holding_the_victims_address_is_not_the_attackers_once_proven(server):
    address, device = victim(), str(uuid.uuid4())
    anonymous = {"authData": {"anonymous": {"id": device}}}
    attacker = ok(parse(server).call("POST", "/users", anonymous), 201)
    ok(parse(server).call("PUT", f"/users/{attacker['objectId']}", {"email": address}, session_token=attacker["sessionToken"]))
    code_sign_in(server, address)
    # The attacker's anonymous login no longer lands in the victim's account, and their session is over.
    again = ok(parse(server).call("POST", "/users", anonymous), 201)  # a new anonymous account
    assert again["objectId"] != attacker["objectId"] and "email" not in again, again
    stale = parse(server).call("GET", "/users/me", session_token=attacker["sessionToken"])
    assert stale.status_code in (400, 401, 404) and stale.json()["code"] == 209, stale.text
    assert "anonymous" in removal_notice(server, address)


def test_an_auto_confirmed_registration_keeps_nothing_of_its_registrant_once_the_owner_proves_the_address(server):
    address = victim()
    assert requests.post(f"{server.base}{AS}/app/auto-app/auth/providers/local-userpass/register",
                         json={"email": address, "password": PW}, timeout=10).status_code == 201
    session = app_login(server, "auto-app", "local-userpass", {"username": address, "password": PW}).json()
    bearer = {"Authorization": f"Bearer {session['refresh_token']}"}
    key = requests.post(f"{server.base}{AS}/auth/api_keys", json={"name": "spare key"}, headers=bearer, timeout=10).json()["key"]
    code_sign_in(server, address)
    # The registrant's password, API key, refresh token and access token are all refused now.
    assert app_login(server, "auto-app", "local-userpass", {"username": address, "password": PW}).status_code == 401
    assert app_login(server, "auto-app", "api-key", {"key": key}).status_code == 401
    assert requests.post(f"{server.base}{AS}/auth/session", headers=bearer, timeout=10).status_code == 401
    access = {"Authorization": f"Bearer {session['access_token']}"}
    assert requests.get(f"{server.base}{AS}/auth/profile", headers=access, timeout=10).status_code == 401
    linked = app_login(server, "auto-app", "anon-user", {})
    assert requests.post(f"{server.base}{AS}/app/auto-app/auth/providers/anon-user/login?link=true", json={"provider": "anon-user"},
                         headers=access, timeout=10).status_code == 401, linked.text
    notice = removal_notice(server, address)
    assert "the password" in notice and '"spare key"' in notice


def test_a_reset_by_the_mailbox_owner_ends_the_api_keys(server):
    address = victim()
    assert requests.post(f"{server.base}{AS}/app/mail-app/auth/providers/local-userpass/register",
                         json={"email": address, "password": PW}, timeout=10).status_code == 201
    token, token_id = mailed_link(server, address, 0)
    assert requests.post(f"{server.base}{AS}/app/mail-app/auth/providers/local-userpass/confirm", json={"token": token, "tokenId": token_id},
                         timeout=10).status_code == 200
    session = app_login(server, "mail-app", "local-userpass", {"username": address, "password": PW}).json()
    key = requests.post(f"{server.base}{AS}/auth/api_keys", json={"name": "ci key"},
                        headers={"Authorization": f"Bearer {session['refresh_token']}"}, timeout=10).json()["key"]
    assert app_login(server, "mail-app", "api-key", {"key": key}).status_code == 200
    before = len(server.mails(address))
    assert requests.post(f"{server.base}{AS}/app/mail-app/auth/providers/local-userpass/reset/send", json={"email": address},
                         timeout=10).status_code == 200
    token, token_id = mailed_link(server, address, before)
    assert requests.post(f"{server.base}{AS}/app/mail-app/auth/providers/local-userpass/reset",
                         json={"password": "another staple battery", "token": token, "tokenId": token_id}, timeout=10).status_code == 200
    assert app_login(server, "mail-app", "api-key", {"key": key}).status_code == 401
    changed = mail_of_kind(server, address, "password_changed")
    assert '"ci key"' in changed


def test_an_identity_whose_issuer_verified_the_address_may_stay_when_the_owner_proves_it(tmp_path):
    """`accounts.keep_identities_verifying_the_address`: the owner proving the address keeps the Google sign-in Google
    said was for that very address (linked before the proof); an Apple sign-in for another address goes either way,
    and without the setting both go."""
    apple, google = Issuer(APPLE_ISSUER, APPLE_AUD), Issuer(GOOGLE_ISSUER, GOOGLE_AUD)
    token_file = tmp_path / "admin.token"
    token_file.write_text("0123456789abcdef0123456789abcdef-admin")
    try:
        for keep in (True, False):
            s = Server(env={**identity_env(apple, google), "LATCHKEY_ADMIN_TOKEN_FILE": str(token_file),
                            "LATCHKEY_ACCOUNTS_KEEP_IDENTITIES_VERIFYING_THE_ADDRESS": str(keep).lower()}).start()
            try:
                address = victim()
                client = ParseClient(s, app_id=APP_ID)
                user = ok(client.call("POST", "/users", {"username": address, "email": address, "password": PW}), 201)
                for provider, issuer, email in (("google", google, address), ("apple", apple, "someone-else@example.com")):
                    sub = uuid.uuid4().hex
                    field = "id_token" if provider == "google" else "token"
                    ok(client.call("PUT", f"/users/{user['objectId']}", {"authData": {provider: {"id": sub, field: issuer.token(sub, email=email)}}},
                                   session_token=user["sessionToken"]))
                code_sign_in(s, address)
                held = requests.get(f"{s.admin_base}/admin/v1/users/{address}/identities", timeout=10,
                                    headers={"Authorization": "Bearer " + token_file.read_text()}).json()["identities"]
                assert sorted(i["provider"] for i in held) == (["google"] if keep else []), (keep, held)
                assert "the apple sign-in" in removal_notice(s, address)
            finally:
                s.cleanup()
    finally:
        apple.close(), google.close()
