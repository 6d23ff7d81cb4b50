"""Who holds an address: a mailed link works only for the address it went to, a changed address tells the old one,
verifying never re-enables a disabled account, an app that keeps unverified users out does so on every path, and a
username can never stand for somebody else's address."""
import json
import re
import time
import uuid

import pytest
import requests

from harness import ALL_TYPES, Server
from parse_client import APP_ID, MASTER_KEY, ParseClient, error, ok
from test_parse_email import link, new_user, verify

PASSWORD = "correct horse 9"
NEW_PASSWORD = "battery staple 10"
ADMIN_TOKEN = "0123456789abcdef0123456789abcdef-admin"
APPS = [{"id": APP_ID, "master_key": MASTER_KEY, "verify_user_emails": True, "prevent_login_with_unverified_email": True},
        {"id": "plainApp"}]
AS_APPS = [{"id": "auto-app", "confirmation": {"mode": "auto"}}]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    token_file = tmp_path_factory.mktemp("admin") / "admin.token"
    token_file.write_text(ADMIN_TOKEN)
    s = Server(env={"LATCHKEY_PARSE_APPS": json.dumps(APPS), "LATCHKEY_APP_SERVICES_APPS": json.dumps(AS_APPS),
                    "LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    yield s
    s.cleanup()


def redirect(url):
    r = verify(url) if "/verify_email?" in url else requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 302, (r.status_code, r.text)
    return r.headers["Location"]


def admin(s, method, path):
    return requests.request(method, s.admin_base + "/admin/v1" + path, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)


def verified_session(s, c, username, address):
    """Sign up on the verifying app, open the link, log in: a verified user with a live session."""
    ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    assert redirect(link(s, address, "verify_email")).endswith("verify_email_success.html")
    return ok(c.call("POST", "/login", {"username": username, "password": PASSWORD}))


def test_a_verification_link_dies_when_the_address_changes_and_never_verifies_the_new_one(server):
    s, verifying, plain = server, ParseClient(server), ParseClient(server, app_id="plainApp")
    username, mine = new_user()
    victim = "victim-" + mine
    created = ok(verifying.call("POST", "/users", {"username": username, "password": PASSWORD, "email": mine}), 201)
    assert "sessionToken" not in created  # the app keeps unverified users out
    l1 = link(s, mine, "verify_email")
    session = ok(plain.call("POST", "/login", {"username": username, "password": PASSWORD}))["sessionToken"]
    ok(plain.call("PUT", f"/users/{created['objectId']}", {"email": victim}, session_token=session))

    assert redirect(l1) == "/parse/apps/invalid_verification_link.html"
    me = ok(plain.call("GET", "/users/me", session_token=session))
    assert me["email"] == victim and me["emailVerified"] is False
    # The previous address is told, with the new one masked.
    subjects = s.wait_for_subject(mine, "account was changed")
    notice = [m for m in s.mails(mine) if "account was changed" in m["subject"]][-1]
    assert victim not in notice["text"] and "v***" in notice["text"] and re.search(r"\d{4}-\d{2}-\d{2}T", notice["text"]), notice
    assert len(subjects) == 2


def test_a_reset_link_dies_when_the_address_changes(server):
    s, c = server, ParseClient(server)
    username, address = new_user()
    logged = verified_session(s, c, username, address)
    ok(c.call("POST", "/requestPasswordReset", {"email": address}))
    reset = link(s, address, "request_password_reset", previous=1)
    ok(c.call("PUT", f"/users/{logged['objectId']}", {"email": "moved-" + address}, master=True))
    assert redirect(reset) == "/parse/apps/invalid_link.html"
    token = reset.split("token=")[1]
    r = requests.post(s.base + f"/parse/apps/{APP_ID}/request_password_reset", data={"token": token, "new_password": NEW_PASSWORD},
                      headers={"X-Requested-With": "XMLHttpRequest"}, timeout=10)
    assert r.status_code == 400 and r.json()["code"] == -1


def test_email_and_password_changed_by_a_session_are_reported_to_the_old_address(server):
    s, c = server, ParseClient(server, app_id="plainApp")
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    new_address = "new-" + address
    answer = ok(c.call("PUT", f"/users/{created['objectId']}", {"email": new_address, "password": NEW_PASSWORD},
                       session_token=created["sessionToken"]))
    assert "sessionToken" in answer
    subjects = s.wait_for_subject(address, "password was changed")
    assert any("account was changed" in subject for subject in subjects), subjects
    assert any("password was changed" in m["subject"] for m in s.mails(new_address))
    # A password change alone tells the (unchanged) address too.
    ok(c.call("PUT", f"/users/{created['objectId']}", {"password": PASSWORD}, session_token=answer["sessionToken"]))
    deadline = time.time() + 10
    while len([m for m in s.mails(new_address) if "password was changed" in m["subject"]]) < 2:
        assert time.time() < deadline, s.mails(new_address)
        time.sleep(0.05)


def test_verifying_never_re_enables_a_disabled_account(server):
    s, c = server, ParseClient(server)
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    verify = link(s, address, "verify_email")
    disabled = admin(s, "POST", f"/users/{created['objectId']}/disable")
    assert disabled.status_code == 200 and disabled.json()["status"] == "disabled", disabled.text
    assert redirect(verify) == "/parse/apps/invalid_verification_link.html"
    assert admin(s, "GET", f"/users/{created['objectId']}").json()["status"] == "disabled"
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD}), 101)
    error(ParseClient(s, app_id="plainApp").call("POST", "/login", {"username": username, "password": PASSWORD}), 101)


def test_an_app_that_keeps_unverified_users_out_does_so_on_every_path(server):
    s, c = server, ParseClient(server)
    username, address = new_user()
    created = ok(c.call("POST", "/users", {"username": username, "password": PASSWORD, "email": address}), 201)
    assert set(created) == {"objectId", "createdAt"}
    error(c.call("POST", "/login", {"username": username, "password": PASSWORD}), 205, "User email is not verified.")

    # become: a session from before the address changed stops working once the new one is unverified.
    other, other_address = new_user()
    logged = verified_session(s, c, other, other_address)
    ok(c.call("GET", "/users/me", session_token=logged["sessionToken"]))
    changed = ok(c.call("PUT", f"/users/{logged['objectId']}", {"email": "next-" + other_address, "password": NEW_PASSWORD},
                        session_token=logged["sessionToken"]))
    assert "sessionToken" not in changed  # a password change opens no session for an unverified user here
    error(c.call("GET", "/users/me", session_token=logged["sessionToken"]), 209)
    error(c.call("POST", "/login", {"username": other, "password": NEW_PASSWORD}), 205)
    # The master key's loginAs stays exempt, as from every sign-in check.
    as_master = ok(c.call("POST", "/loginAs", {"userId": logged["objectId"]}, master=True))
    ok(c.call("GET", "/users/me", session_token=as_master["sessionToken"]))

    # A user who signed up through another dialect, unverified, is kept out the same way.
    _, app_address = new_user()
    r = requests.post(s.base + "/api/client/v2.0/app/auto-app/auth/providers/local-userpass/register",
                      json={"email": app_address, "password": PASSWORD}, timeout=10)
    assert r.status_code == 201, r.text
    error(c.call("POST", "/login", {"username": app_address, "password": PASSWORD}), 205)
    ok(ParseClient(s, app_id="plainApp").call("POST", "/login", {"username": app_address, "password": PASSWORD}))


@pytest.mark.parametrize("email_first", [True, False])
def test_a_username_never_stands_for_another_accounts_address(server, email_first):
    s, c = server, ParseClient(server, app_id="plainApp")
    owner_name, address = new_user()
    squatter = "s" + uuid.uuid4().hex[:10]
    if email_first:
        ok(c.call("POST", "/users", {"username": owner_name, "password": PASSWORD, "email": address}), 201)
        error(c.call("POST", "/users", {"username": address, "password": NEW_PASSWORD}), 202)
        error(c.call("POST", "/users", {"username": address.upper(), "password": NEW_PASSWORD}), 202)
        mine = ok(c.call("POST", "/users", {"username": squatter, "password": NEW_PASSWORD}), 201)
        error(c.call("PUT", f"/users/{mine['objectId']}", {"username": address}, session_token=mine["sessionToken"]), 202)
    else:
        ok(c.call("POST", "/users", {"username": address, "password": NEW_PASSWORD}), 201)
        error(c.call("POST", "/users", {"username": owner_name, "password": PASSWORD, "email": address}), 203)
        # Native sign-up of that address is refused too: the name is somebody's already.
        r = s.post("/signup/v1.0/start", {"username": address, "password": PASSWORD, "challenge_type": ALL_TYPES})
        assert r.status_code == 400 and r.json()["error"] == "user_already_exists", r.text
        other = ok(c.call("POST", "/users", {"username": owner_name, "password": PASSWORD}), 201)
        error(c.call("PUT", f"/users/{other['objectId']}", {"email": address}, session_token=other["sessionToken"]), 203)
        return
    # The address's owner signs in with it, whatever the order.
    logged = ok(c.call("POST", "/login", {"username": address, "password": PASSWORD}))
    assert logged["username"] == owner_name
