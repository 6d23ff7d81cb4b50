"""Tokens carry only the scopes a client may have, and each dialect's tokens open only its own endpoints."""
import strict
from conftest import fresh, password_sign_in, sign_up, token_after_sign_up
from test_app_services import app_error, call, login, no_body, provider

PW = "correct horse battery"


def test_unknown_scopes_are_refused_and_client_scopes_allowed(apps):
    email = fresh()
    ct = sign_up(apps, email)
    strict.error(token_after_sign_up(apps, email, ct, scope="openid admin orders.write"), "invalid_scope")
    body = strict.tokens(token_after_sign_up(apps, email, ct, scope="openid offline_access orders.read"))
    assert "orders.read" in strict.b64url_json(body["access_token"].split(".")[1])["scp"].split()
    strict.error(password_sign_in(apps, email, PW, scope="openid admin"), "invalid_scope")
    # The refused scope cost no password attempt: the right password still signs in at once.
    strict.tokens(password_sign_in(apps, email, PW))


def test_tokens_open_only_their_own_dialect(apps):
    email = fresh("typed")
    no_body(call(apps, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    app_tokens = login(apps, "auto-app", email, PW).json()
    native = strict.tokens(password_sign_in(apps, email, PW))
    assert call(apps, "GET", "/auth/profile", token=app_tokens["access_token"]).status_code == 200
    app_error(call(apps, "GET", "/auth/profile", token=native["access_token"]), 401, "InvalidSession")
    app_error(call(apps, "GET", "/auth/profile", token=native["id_token"]), 401, "InvalidSession")
    r = apps.get("/oidc/userinfo", headers={"Authorization": "Bearer " + app_tokens["access_token"]})
    assert r.status_code == 401 and r.json()["error"] == "invalid_token"
    # A session refresh repeats the login's device id.
    refreshed = call(apps, "POST", "/auth/session", token=app_tokens["refresh_token"]).json()
    assert strict.b64url_json(refreshed["access_token"].split(".")[1])["baas_device_id"] == app_tokens["device_id"]
