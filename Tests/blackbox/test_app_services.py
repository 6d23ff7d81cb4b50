"""App Services email/password dialect (docs/app-services.md): register, confirm by link, reset by link,
login, sessions, profile — same users as the native API."""
import json
import re
import time
import uuid

import pytest
import requests

import jwks
import strict
from conftest import password_sign_in
from harness import Server

APPS = [{"id": "email-app"}, {"id": "auto-app", "confirmation": {"mode": "auto"}},
        {"id": "url-app", "confirmation": {"mode": "email", "url": "https://app.example.com/confirm"},
         "reset": {"mode": "email", "url": "https://app.example.com/reset?from=mail"}}]
BASE = "/api/client/v2.0"
PW, NEW_PW = "correct horse battery", "another staple battery"


@pytest.fixture(scope="module")
def app_server():
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(APPS)}).start()
    yield s
    s.cleanup()


def call(s, method, path, body=None, token=None):
    headers = {"Accept": "application/json", "Content-Type": "application/json;charset=utf-8"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.request(method, s.base + BASE + path, data=b"" if body is None else json.dumps(body), headers=headers, timeout=30)


def provider(app, step):
    return f"/app/{app}/auth/providers/local-userpass/{step}"


def app_error(resp, status, code, text=None):
    assert resp.status_code == status, (resp.status_code, resp.text)
    assert resp.headers["Content-Type"] == "application/json"  # realm-core compares it exactly
    body = resp.json()
    assert body["error_code"] == code and isinstance(body["error"], str), body
    if text:
        assert text in body["error"], body
    return body


def no_body(resp, status=200):
    assert resp.status_code == status, resp.text
    assert resp.content == b"" and "Content-Type" not in resp.headers


def link_pair(s, email, previous=0):
    deadline = time.time() + 10
    while time.time() < deadline:
        mails = s.mails(email)
        if len(mails) > previous:
            text = mails[-1]["text"]
            m = re.search(r"(\S+)[?&]token=([0-9a-f]+)&tokenId=([0-9a-f]+)", text)
            assert m and m.group(3) in mails[-1]["html"], text
            return m.group(1), m.group(2), m.group(3)
        time.sleep(0.05)
    raise AssertionError("no link mail")


def login(s, app, email, password):
    return call(s, "POST", provider(app, "login"), {"provider": "local-userpass", "username": email, "password": password,
                                                    "options": {"device": {"platform": "test", "sdkVersion": "1"}}})


def test_location_and_unknown_app(app_server):
    body = call(app_server, "GET", "/app/email-app/location").json()
    assert body["hostname"] == app_server.base and body["ws_hostname"] == app_server.base.replace("http://", "ws://")
    app_error(call(app_server, "GET", "/app/nope/location"), 404, "AppNotFound", "cannot find app")
    app_error(call(app_server, "POST", provider("nope", "register"), {"email": "a@example.com", "password": PW}), 404, "AppNotFound")


def test_auto_confirm_login_profile_refresh_logout(app_server, email):
    no_body(call(app_server, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    r = login(app_server, "auto-app", email, PW)
    assert r.status_code == 200
    body = r.json()
    assert all(isinstance(body[k], str) and body[k] for k in ("access_token", "refresh_token", "user_id", "device_id"))
    claims = jwks.verify(body["access_token"], app_server.get("/discovery/v2.0/keys").json())
    assert strict.is_int(claims["exp"]) and strict.is_int(claims["iat"]) and claims["exp"] - claims["iat"] == 1800
    assert claims["sub"] == body["user_id"]
    profile = call(app_server, "GET", "/auth/profile", token=body["access_token"]).json()
    assert profile["type"] == "normal" and profile["data"] == {"email": email} and profile["user_id"] == body["user_id"]
    assert profile["identities"][0]["provider_type"] == "local-userpass" and profile["identities"][0]["id"] != body["user_id"]
    refreshed = call(app_server, "POST", "/auth/session", token=body["refresh_token"])
    assert refreshed.status_code == 200 and set(refreshed.json()) == {"access_token"}
    assert call(app_server, "DELETE", "/auth/session", token=body["refresh_token"]).status_code == 204
    app_error(call(app_server, "POST", "/auth/session", token=body["refresh_token"]), 401, "InvalidSession")
    app_error(call(app_server, "GET", "/auth/profile", token="garbage"), 401, "InvalidSession")
    app_error(call(app_server, "POST", "/auth/session"), 401, "InvalidSession")


def test_email_confirmation_by_link(app_server, email):
    no_body(call(app_server, "POST", provider("url-app", "register"), {"email": email, "password": PW}), 201)
    app_error(login(app_server, "url-app", email, PW), 401, "AuthError", "confirmation required")
    base, token, token_id = link_pair(app_server, email)
    assert base == "https://app.example.com/confirm" and len(token) == 64 and len(token_id) == 24
    # Resend: a new pair, the old one stops working.
    no_body(call(app_server, "POST", provider("url-app", "confirm/send"), {"email": email}))
    _, token2, token_id2 = link_pair(app_server, email, 1)
    app_error(call(app_server, "POST", provider("url-app", "confirm"), {"token": token, "tokenId": token_id}), 400, "UserpassTokenInvalid")
    app_error(call(app_server, "POST", provider("url-app", "confirm"), {"token": "abc", "tokenId": "123"}), 400, "BadRequest",
              "invalid token data")
    no_body(call(app_server, "POST", provider("url-app", "confirm"), {"token": token2, "tokenId": token_id2}))
    app_error(call(app_server, "POST", provider("url-app", "confirm"), {"token": token2, "tokenId": token_id2}), 400,
              "UserpassTokenInvalid")
    assert login(app_server, "url-app", email, PW).status_code == 200
    app_error(call(app_server, "POST", provider("url-app", "confirm/send"), {"email": email}), 400, "UserAlreadyConfirmed")
    app_error(call(app_server, "POST", provider("url-app", "confirm/send"), {"email": "nobody-" + email}), 404, "UserNotFound")
    # The spec: Swift surfaces this one as .unknown, so the code must not be BadRequest.
    app_error(call(app_server, "POST", provider("auto-app", "confirm/call"), {"email": email}), 400, "InvalidConfiguration",
              "automatic confirmation is enabled")


def test_reset_by_link_revokes_sessions(app_server, email):
    no_body(call(app_server, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    session = login(app_server, "auto-app", email, PW).json()
    no_body(call(app_server, "POST", provider("url-app", "reset/send"), {"email": email}))
    base, token, token_id = link_pair(app_server, email)
    assert base == "https://app.example.com/reset?from=mail"
    app_error(call(app_server, "POST", provider("url-app", "reset"), {"token": token, "tokenId": token_id, "password": "short"}),
              400, "BadRequest", "password")
    app_error(call(app_server, "POST", provider("url-app", "reset"), {"token": "e30=", "tokenId": "123", "password": NEW_PW}),
              400, "BadRequest", "invalid token data")
    no_body(call(app_server, "POST", provider("url-app", "reset"), {"token": token, "tokenId": token_id, "password": NEW_PW}))
    app_error(call(app_server, "POST", provider("url-app", "reset"), {"token": token, "tokenId": token_id, "password": NEW_PW}),
              400, "UserpassTokenInvalid")
    app_error(login(app_server, "auto-app", email, PW), 401, "InvalidPassword")
    assert login(app_server, "auto-app", email, NEW_PW).status_code == 200
    app_error(call(app_server, "POST", "/auth/session", token=session["refresh_token"]), 401, "InvalidSession")
    app_error(call(app_server, "POST", provider("url-app", "reset/send"), {"email": "ghost-" + email}), 404, "UserNotFound")
    app_error(call(app_server, "POST", provider("url-app", "reset/call"), {"email": email, "password": NEW_PW, "arguments": []}),
              400, "InvalidConfiguration", "no reset function is configured")


def test_one_account_per_address_across_dialects(app_server, email):
    no_body(call(app_server, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    app_error(call(app_server, "POST", provider("auto-app", "register"), {"email": email.upper(), "password": PW}), 409,
              "AccountNameInUse", "name already in use")
    # Registered here, signs in through the native API; and the other way round.
    strict.tokens(password_sign_in(app_server, email, PW))
    native = f"native-{uuid.uuid4().hex[:8]}@example.com"
    from conftest import sign_up
    sign_up(app_server, native, password=PW)
    assert login(app_server, "email-app", native.upper(), PW).status_code == 200


def test_bad_input(app_server, email):
    app_error(call(app_server, "POST", provider("auto-app", "register"), {"email": "", "password": PW}), 400, "BadRequest", "email invalid")
    app_error(call(app_server, "POST", provider("auto-app", "register"), {"email": email, "password": "x"}), 400, "BadRequest")
    r = requests.post(app_server.base + BASE + provider("auto-app", "register"), data=b"{not json", timeout=10)
    app_error(r, 400, "BadRequest")
    app_error(call(app_server, "POST", "/app/auto-app/auth/providers/anon-user/login", {}), 404, "AuthProviderNotFound")
    app_error(login(app_server, "auto-app", "ghost-" + email, PW), 401, "InvalidPassword")
    app_error(call(app_server, "POST", provider("auto-app", "login"), {}), 401, "InvalidPassword")
    r = requests.post(app_server.base + BASE + provider("auto-app", "register"), data=b"x" * (100 * 1024), timeout=10)
    assert r.status_code == 413


def page_headers_ok(resp):
    assert resp.headers["Content-Type"] == "text/html; charset=utf-8"
    assert resp.headers["Cache-Control"] == "no-store" and resp.headers["Referrer-Policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]


def test_hosted_confirmation_page(app_server, email):
    no_body(call(app_server, "POST", provider("email-app", "register"), {"email": email, "password": PW}), 201)
    base, token, token_id = link_pair(app_server, email)
    assert base == app_server.base + "/confirm"
    # U's review: a GET (a mail scanner opening the link) only shows the button; the button's POST confirms.
    r = requests.get(f"{base}?token={token}&tokenId={token_id}", timeout=10)
    assert r.status_code == 200 and 'method="post" action="confirm"' in r.text and r.text.count(token) == 1
    page_headers_ok(r)
    app_error(login(app_server, "email-app", email, PW), 401, "AuthError")
    r = requests.post(base, data={"token": token, "tokenId": token_id}, timeout=10)
    assert r.status_code == 200 and "confirmed" in r.text and token not in r.text
    assert login(app_server, "email-app", email, PW).status_code == 200
    r = requests.get(f"{base}?token={token}&tokenId={token_id}", timeout=10)
    assert r.status_code == 400 and "expired or was already used" in r.text
    assert requests.post(base, data={"token": token, "tokenId": token_id}, timeout=10).status_code == 400
    assert requests.get(f"{base}?token=zz", timeout=10).status_code == 400


def test_hosted_reset_page(app_server, email):
    no_body(call(app_server, "POST", provider("auto-app", "register"), {"email": email, "password": PW}), 201)
    no_body(call(app_server, "POST", provider("email-app", "reset/send"), {"email": email}))
    base, token, token_id = link_pair(app_server, email)
    assert base == app_server.base + "/reset-password"
    form = requests.get(f"{base}?token={token}&tokenId={token_id}", timeout=10)
    assert form.status_code == 200 and "<script" not in form.text
    page_headers_ok(form)
    assert f'name="token" value="{token}"' in form.text and form.text.count(token) == 1  # only in the hidden field
    bad = requests.post(base, data={"token": token, "tokenId": token_id, "password": "short"}, timeout=10)
    assert bad.status_code == 400 and "too short" in bad.text and 'type="password"' in bad.text
    ok = requests.post(base, data={"token": token, "tokenId": token_id, "password": NEW_PW}, timeout=10)
    assert ok.status_code == 200 and "Password changed" in ok.text
    assert login(app_server, "auto-app", email, NEW_PW).status_code == 200
    again = requests.post(base, data={"token": token, "tokenId": token_id, "password": "yet another passphrase"}, timeout=10)
    assert again.status_code == 400 and "expired or was already used" in again.text
