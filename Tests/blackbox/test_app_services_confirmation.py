"""App Services confirmation: auto-confirmation proves nothing about the mailbox, and a code-verified sign-up replaces
a pending registration (how long one holds its address: ExpiryTests, on the injected clock)."""
import strict
from conftest import fresh, password_sign_in, sign_up, token_after_sign_up
from test_app_services import app_error, call, link_pair, login, no_body, provider

PW = "correct horse battery"
APPS = [{"id": "email-app"}, {"id": "auto-app", "confirmation": {"mode": "auto"}}]


def test_auto_confirmation_keeps_email_unverified_until_a_code_sign_in(apps):
    email = fresh("auto")
    no_body(call(apps, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    body = strict.tokens(password_sign_in(apps, email, PW))
    assert strict.b64url_json(body["id_token"].split(".")[1])["email_verified"] is False
    info = apps.get("/oidc/userinfo", headers={"Authorization": "Bearer " + body["access_token"]}).json()
    assert info["email_verified"] is False
    # The real owner signs in by emailed code: verified now, and the registrant's password and sessions are gone.
    init = strict.ok(apps.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": "oob redirect"}), "oauth2/initiate")
    before = len(apps.mails(email))
    ch = strict.ok(apps.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                        "challenge_type": "oob redirect"}), "oauth2/challenge")
    code = apps.wait_for_code(email, before)
    owner = strict.tokens(apps.post("/oauth2/v2.0/token", {"grant_type": "oob", "oob": code, "scope": "openid offline_access",
                                                           "continuation_token": ch["continuation_token"]}))
    assert strict.b64url_json(owner["id_token"].split(".")[1])["email_verified"] is True
    app_error(login(apps, "auto-app", email, PW), 401, "InvalidPassword")
    strict.error(apps.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": body["refresh_token"]}),
                 "invalid_grant")


def test_code_verified_sign_up_replaces_a_pending_registration(apps):
    email = fresh("pending")
    no_body(call(apps, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 201)
    _, token, token_id = link_pair(apps, email)
    ct = sign_up(apps, email, password="owner's own passphrase")
    strict.tokens(token_after_sign_up(apps, email, ct))
    # The registrant's link no longer confirms anything, and their password opens nothing.
    app_error(call(apps, "POST", provider("email-app", "confirm"), {"token": token, "tokenId": token_id}), 400, "UserpassTokenInvalid")
    app_error(login(apps, "email-app", email, PW), 401, "InvalidPassword")
    assert login(apps, "email-app", email, "owner's own passphrase").status_code == 200
