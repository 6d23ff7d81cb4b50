"""The OpenID provider as relying parties see it, without a browser: discovery, client authentication, codes bound to
client, redirect URI and PKCE, replay and expiry, prompts, consent, CSRF, introspection, revocation and logout.
Authlib (an unmodified OpenID client library) plays the relying party; the hosted pages' forms are posted with
requests. test_openid_browser.py drives the same pages in Chromium."""
import base64
import hashlib
import secrets
import sqlite3
import subprocess
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet
from authlib.oidc.core import CodeIDToken

import strict
from conftest import password_sign_in as native_password_sign_in
from harness import BINARY, Server, free_port
from openid_support import CALLBACK, PASSWORD, PUBLIC, SECRET, THIRD, WEB, Pages, oidc, provider_config  # noqa: F401


def query(response):
    return {k: v[0] for k, v in parse_qs(urlparse(response.headers["Location"]).query).items()}


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(server, client=WEB, redirect=CALLBACK.replace("127.0.0.1", "127.0.0.1:4999"), **extra):
    verifier, challenge = pkce()
    params = {"client_id": client, "redirect_uri": redirect, "response_type": "code", "scope": "openid email offline_access",
              "state": "st-" + secrets.token_hex(4), "nonce": "nn", "code_challenge": challenge, "code_challenge_method": "S256", **extra}
    return server.base + "/oauth2/v2.0/authorize?" + urlencode({k: v for k, v in params.items() if v is not None}), verifier


def exchange(server, code, verifier, client=WEB, secret=SECRET, redirect=CALLBACK.replace("127.0.0.1", "127.0.0.1:4999")):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect}
    if verifier is not None:
        form["code_verifier"] = verifier
    return requests.post(server.base + "/oauth2/v2.0/token", data=form, auth=(client, secret) if secret else None,
                         timeout=30) if secret else requests.post(server.base + "/oauth2/v2.0/token", data={**form, "client_id": client},
                                                                  timeout=30)


def new_user(server, pages=None):
    """An account made through the sign-up page; its first code is exchanged. Returns (pages, email, tokens)."""
    pages, email = pages or Pages(server), f"rp-{uuid.uuid4().hex[:10]}@example.com"
    url, verifier = authorize_url(server)
    back = pages.sign_up(url, email)
    assert back.status_code == 303, back.text
    tokens = exchange(server, query(back)["code"], verifier)
    assert tokens.status_code == 200, tokens.text
    return pages, email, tokens.json()


def test_discovery_lists_what_is_served_and_each_endpoint_answers(oidc):
    server, _ = oidc
    doc = requests.get(server.base + "/.well-known/openid-configuration", timeout=10).json()
    assert doc["response_types_supported"] == ["code"] and doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["response_modes_supported"] == ["query"] and doc["authorization_response_iss_parameter_supported"] is True
    assert set(doc["token_endpoint_auth_methods_supported"]) == {"none", "client_secret_basic", "client_secret_post", "private_key_jwt"}
    assert doc["request_uri_parameter_supported"] is False and set(doc["ui_locales_supported"]) == {"en", "de"}
    for key in ("authorization_endpoint", "end_session_endpoint", "introspection_endpoint", "revocation_endpoint", "userinfo_endpoint"):
        r = requests.get(doc[key], allow_redirects=False, timeout=10)
        assert r.status_code != 404, (key, r.status_code)
    for grant in ("authorization_code", "refresh_token"):
        assert grant in doc["grant_types_supported"]


def test_a_relying_party_library_completes_the_flow(oidc):
    """Authlib end to end: code with PKCE, ID token validation (signature, iss, aud, nonce, at_hash), userinfo,
    refresh, introspection and revocation."""
    server, _ = oidc
    doc = requests.get(server.base + "/.well-known/openid-configuration", timeout=10).json()
    redirect = "http://127.0.0.1:4999/callback"
    client = OAuth2Session(WEB, SECRET, scope="openid profile email offline_access", redirect_uri=redirect, code_challenge_method="S256")
    verifier = secrets.token_urlsafe(48)
    url, state = client.create_authorization_url(doc["authorization_endpoint"], code_verifier=verifier, nonce="n-42")
    email = f"lib-{uuid.uuid4().hex[:8]}@example.com"
    back = Pages(server).sign_up(url, email)
    assert back.status_code == 303 and back.headers["Location"].startswith(redirect + "?")
    assert query(back)["state"] == state and query(back)["iss"] == doc["issuer"]
    token = client.fetch_token(doc["token_endpoint"], authorization_response=back.headers["Location"], code_verifier=verifier)
    keys = KeySet.import_key_set(requests.get(doc["jwks_uri"], timeout=10).json())
    decoded = jwt.decode(token["id_token"], keys, algorithms=["ES256"])
    claims = CodeIDToken(decoded.claims, decoded.header,
                         params={"nonce": "n-42", "client_id": WEB, "access_token": token["access_token"]})
    claims.validate()
    assert claims["iss"] == doc["issuer"] and claims["email"] == email and claims["amr"] == ["otp"] and claims["acr"] == "1"
    assert abs(claims["auth_time"] - time.time()) < 120
    assert client.get(doc["userinfo_endpoint"]).json()["email"] == email
    refreshed = client.refresh_token(doc["token_endpoint"], refresh_token=token["refresh_token"])
    assert refreshed["refresh_token"] != token["refresh_token"]
    active = client.introspect_token(doc["introspection_endpoint"], token=refreshed["refresh_token"]).json()
    assert active["active"] is True and active["client_id"] == WEB and active["sub"] == claims["sub"]
    assert client.introspect_token(doc["introspection_endpoint"], token=refreshed["access_token"]).json()["active"] is True
    assert client.revoke_token(doc["revocation_endpoint"], token=refreshed["refresh_token"]).status_code == 200
    assert client.introspect_token(doc["introspection_endpoint"], token=refreshed["refresh_token"]).json() == {"active": False}
    with pytest.raises(OAuthError):
        client.refresh_token(doc["token_endpoint"], refresh_token=refreshed["refresh_token"])


def test_pyoidc_reads_userinfo_with_the_token_in_the_body(oidc):
    """pyoidc (`oic`) as the relying party: its userinfo request sends the access token in a form body by default
    (RFC 6750 §2.2); a request with no token gets a bare challenge (§3.1), a token in both places a 400."""
    from oic.oic import Client
    from oic.oic.message import AuthorizationResponse, RegistrationResponse
    from oic.utils.authn.client import CLIENT_AUTHN_METHOD

    server, _ = oidc
    redirect = "http://127.0.0.1:4998/callback"
    client = Client(client_id=WEB, client_authn_method=CLIENT_AUTHN_METHOD)
    client.provider_config(server.base)
    client.store_registration_info(RegistrationResponse(client_id=WEB, client_secret=SECRET, redirect_uris=[redirect]))
    state, nonce = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    request = client.construct_AuthorizationRequest(request_args={
        "client_id": WEB, "response_type": "code", "scope": ["openid", "email"], "nonce": nonce, "redirect_uri": redirect, "state": state})
    email = f"pyoidc-{uuid.uuid4().hex[:8]}@example.com"
    back = Pages(server).sign_up(request.request(client.authorization_endpoint), email)
    answer = client.parse_response(AuthorizationResponse, info=urlparse(back.headers["Location"]).query, sformat="urlencoded")
    client.do_access_token_request(state=answer["state"], request_args={"code": answer["code"], "redirect_uri": redirect},
                                   authn_method="client_secret_basic")
    info = client.do_user_info_request(state=answer["state"])  # method POST, token in the body: pyoidc's defaults
    assert info["email"] == email
    access = client.get_token(state=answer["state"]).access_token
    bare = requests.get(server.base + "/oidc/userinfo", timeout=10)
    assert bare.status_code == 401 and bare.headers["WWW-Authenticate"] == "Bearer", bare.headers
    both = requests.post(server.base + "/oidc/userinfo", data={"access_token": access}, headers={"Authorization": f"Bearer {access}"},
                         timeout=10)
    assert both.status_code == 400 and both.json()["error"] == "invalid_request", both.text
    wrong = requests.post(server.base + "/oidc/userinfo", data={"access_token": "nope"}, timeout=10)
    assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]


@pytest.mark.parametrize("change", [{"client_id": "not-a-client"}, {"redirect_uri": "https://evil.example/callback"},
                                    {"redirect_uri": "http://127.0.0.1:4999/callback/../evil"}, {"redirect_uri": None},
                                    {"client_id": None}])
def test_an_unregistered_client_or_redirect_is_an_error_page_never_a_redirect(oidc, change):
    server, _ = oidc
    url, _ = authorize_url(server, **change) if "client_id" not in change else authorize_url(server, client=change["client_id"])
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 400 and "Location" not in r.headers and r.headers["Content-Type"].startswith("text/html")
    assert "evil" not in r.text and "not-a-client" not in r.text  # never reflects what was sent
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]


@pytest.mark.parametrize("change, error", [({"response_type": "token"}, "unsupported_response_type"),
                                           ({"code_challenge_method": "plain"}, "invalid_request"),
                                           ({"prompt": "none login"}, "invalid_request"),
                                           ({"scope": "openid admin"}, "invalid_request"),
                                           ({"request_uri": "https://x.example/r"}, "invalid_request")])
def test_other_mistakes_go_back_to_the_client_with_state_and_iss(oidc, change, error):
    server, _ = oidc
    url, _ = authorize_url(server, **change)
    r = requests.get(url, allow_redirects=False, timeout=10)
    assert r.status_code == 303 and query(r)["error"] == error and query(r)["state"].startswith("st-")
    assert query(r)["iss"] == server.base


def test_a_public_client_must_use_pkce_and_sends_no_secret(oidc):
    server, _ = oidc
    r = requests.get(authorize_url(server, client=PUBLIC, code_challenge=None, code_challenge_method=None)[0], allow_redirects=False,
                     timeout=10)
    assert query(r)["error"] == "invalid_request" and "PKCE" in query(r)["error_description"]
    pages, email, _ = new_user(server)
    url, verifier = authorize_url(server, client=PUBLIC, redirect="com.example.app:/oauth", prompt="none")
    back = pages.get(url)
    assert back.headers["Location"].startswith("com.example.app:/oauth?code=")
    wrong = requests.post(server.base + "/oauth2/v2.0/token", timeout=10, data={
        "grant_type": "authorization_code", "code": query(back)["code"], "redirect_uri": "com.example.app:/oauth",
        "code_verifier": verifier, "client_id": PUBLIC, "client_secret": "guess-guess-guess-guess-guess-guess"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    ok = exchange(server, query(back)["code"], verifier, client=PUBLIC, secret=None, redirect="com.example.app:/oauth")
    assert ok.status_code == 200 and ok.json()["id_token"]


def test_pkce_verifier_missing_or_wrong_and_a_replayed_code(oidc):
    server, _ = oidc
    pages, _, first = new_user(server)
    for verifier in (None, secrets.token_urlsafe(48)):
        url, _ = authorize_url(server, prompt="none")
        r = exchange(server, query(pages.get(url))["code"], verifier)
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant", r.text
    url, verifier = authorize_url(server, prompt="none")
    code = query(pages.get(url))["code"]
    tokens = exchange(server, code, verifier).json()
    replay = exchange(server, code, verifier)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    # The replay revoked what the first exchange gave.
    r = requests.post(server.base + "/oauth2/v2.0/token", auth=(WEB, SECRET), timeout=10,
                      data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
    # A code is the client's own: another client's secret cannot redeem it.
    url, verifier = authorize_url(server, prompt="none")
    stolen = exchange(server, query(pages.get(url))["code"], verifier, client=THIRD)
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"


def test_a_failed_code_redemption_is_audited_as_what_it_was(oidc):
    """U's review, Low: a code whose first redemption failed (a wrong verifier) gave no tokens, yet its replay was
    audited as "reuse, tokens revoked"."""
    server, _ = oidc
    pages, _, _ = new_user(server)
    url, verifier = authorize_url(server, prompt="none")
    code = query(pages.get(url))["code"]
    assert exchange(server, code, secrets.token_urlsafe(48)).status_code == 400
    assert exchange(server, code, verifier).status_code == 400
    url, verifier = authorize_url(server, prompt="none")
    code = query(pages.get(url))["code"]
    assert exchange(server, code, verifier).status_code == 200
    assert exchange(server, code, verifier).status_code == 400
    db = sqlite3.connect(server.db_path)
    try:
        details = [row[0] for row in db.execute("SELECT detail FROM audit_events WHERE kind = 'authorization_code_reuse' ORDER BY id DESC LIMIT 2")]
    finally:
        db.close()
    assert details == ["tokens revoked", "no tokens had been issued"], details


def test_an_expired_code_is_refused(tmp_path):
    secret_file = tmp_path / "client.secret"
    secret_file.write_text(SECRET + "\n")
    server = Server(config_text=provider_config(str(secret_file), [free_port() for _ in range(4)]),
                    env={"LATCHKEY_TESTING_ENABLED": "true"}).start()
    try:
        pages, _, _ = new_user(server)
        url, verifier = authorize_url(server, prompt="none")
        code = query(pages.get(url))["code"]
        server.advance_clock(61)  # past openid.code_seconds, 60 by default
        r = exchange(server, code, verifier)
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant" and "expired" in r.json()["error_description"]
    finally:
        server.cleanup()


def test_client_authentication_failures_are_401_invalid_client(oidc):
    server, _ = oidc
    form = {"grant_type": "refresh_token", "refresh_token": "x"}
    wrong = requests.post(server.base + "/oauth2/v2.0/token", data=form, auth=(WEB, "wrong" * 8), timeout=10)
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client" and "Basic" in wrong.headers["WWW-Authenticate"]
    missing = requests.post(server.base + "/oauth2/v2.0/token", data={**form, "client_id": WEB}, timeout=10)
    assert missing.status_code == 401 and missing.json()["error"] == "invalid_client"
    both = requests.post(server.base + "/oauth2/v2.0/token", data={**form, "client_secret": SECRET}, auth=(WEB, SECRET), timeout=10)
    assert both.status_code == 400 and both.json()["error"] == "invalid_request"
    garbled = requests.post(server.base + "/oauth2/v2.0/token", data=form, headers={"Authorization": "Basic !!!"}, timeout=10)
    assert garbled.status_code == 401
    public = requests.post(server.base + "/oidc/introspect", data={"token": "x", "client_id": PUBLIC}, timeout=10)
    assert public.status_code == 400 and public.json()["error"] == "unauthorized_client"
    for form in ({"token": "x"}, {"token": "x", "client_id": "nobody"}):
        anonymous = requests.post(server.base + "/oidc/introspect", data=form, timeout=10)
        assert anonymous.status_code == 401 and anonymous.json()["error"] == "invalid_client"


def test_another_clients_tokens_are_inactive_and_not_revoked(oidc):
    server, _ = oidc
    _, _, tokens = new_user(server)
    seen = requests.post(server.base + "/oidc/introspect", data={"token": tokens["refresh_token"]}, auth=(THIRD, SECRET), timeout=10)
    assert seen.json() == {"active": False}
    assert requests.post(server.base + "/oidc/revoke", data={"token": tokens["refresh_token"]}, auth=(THIRD, SECRET),
                         timeout=10).status_code == 200
    mine = requests.post(server.base + "/oidc/introspect", data={"token": tokens["refresh_token"]}, auth=(WEB, SECRET), timeout=10)
    assert mine.json()["active"] is True


def test_prompt_none_without_a_session_and_a_third_party_without_consent(oidc):
    server, _ = oidc
    r = requests.get(authorize_url(server, prompt="none")[0], allow_redirects=False, timeout=10)
    assert query(r)["error"] == "login_required"
    pages, _, _ = new_user(server)
    r = pages.get(authorize_url(server, client=THIRD, prompt="none")[0])
    assert query(r)["error"] == "consent_required"
    page = pages.get(authorize_url(server, client=THIRD)[0])
    assert page.status_code == 200 and "Partner tool" in page.text and "email" in page.text
    denied = pages.submit(page, "/ui/consent", decision="deny")
    assert query(denied)["error"] == "access_denied"
    page = pages.get(authorize_url(server, client=THIRD)[0])
    allowed = pages.submit(page, "/ui/consent", decision="allow")
    assert "code" in query(allowed)
    # Remembered: the same scopes again need no page; prompt=consent asks again.
    assert "code" in query(pages.get(authorize_url(server, client=THIRD, prompt="none")[0]))
    assert pages.get(authorize_url(server, client=THIRD, prompt="consent")[0]).status_code == 200


def test_id_tokens_carry_only_the_claims_of_the_granted_scope(oidc):
    """U's review, Medium: `email`, `email_verified`, `preferred_username` and `name` were in every ID token once
    `openid` was granted; userinfo filtered by scope, the ID token did not. A third-party client gets what its user
    consented to; a first-party one `email` along with `profile`."""
    server, _ = oidc
    pages, email, first_party = new_user(server)
    claims = strict.b64url_json(first_party["id_token"].split(".")[1])
    assert claims["email"] == email  # WEB asked for `openid email offline_access`
    verifier, challenge = pkce()
    url = server.base + "/oauth2/v2.0/authorize?" + urlencode({
        "client_id": THIRD, "redirect_uri": CALLBACK.replace("127.0.0.1", "127.0.0.1:4999"), "response_type": "code", "scope": "openid",
        "state": "s", "nonce": "n", "code_challenge": challenge, "code_challenge_method": "S256"})
    allowed = pages.submit(pages.get(url), "/ui/consent", decision="allow")
    tokens = exchange(server, query(allowed)["code"], verifier, client=THIRD)
    assert tokens.status_code == 200, tokens.text
    id_claims = strict.b64url_json(tokens.json()["id_token"].split(".")[1])
    assert not {"email", "email_verified", "preferred_username", "name"} & set(id_claims), id_claims
    info = requests.get(server.base + "/oidc/userinfo", headers={"Authorization": f"Bearer {tokens.json()['access_token']}"}, timeout=10)
    assert set(info.json()) == {"sub"}, info.json()


def test_clients_get_only_their_grants(oidc):
    """U's review, Medium: a third-party client (or any web client) could run the native API's initiate -> challenge ->
    token grant_type=password and get tokens with no consent shown or recorded (RFC 9700 §2.4). Each client now gets
    only its grants: a browser client the authorization code, a native one the native grants."""
    server, _ = oidc
    _, email, _ = new_user(server)
    for client in (THIRD, WEB):
        started = requests.post(server.base + "/oauth2/v2.0/initiate", data={"client_id": client, "username": email,
                                                                           "challenge_type": "password oob redirect"}, timeout=10)
        assert started.status_code == 400 and started.json()["error"] == "unauthorized_client", (client, started.text)
        assert "grant" in started.json()["error_description"]
        refreshed = requests.post(server.base + "/oauth2/v2.0/token", data={"grant_type": "password", "username": email, "password": PASSWORD,
                                                                          "continuation_token": "x"}, auth=(client, SECRET), timeout=10)
        assert refreshed.status_code == 400 and refreshed.json()["error"] == "unauthorized_client", (client, refreshed.text)
    # The native client keeps its grants; it has no authorization code.
    strict.tokens(native_password_sign_in(server, email, PASSWORD))
    page = requests.get(authorize_url(server, client="11111111-1111-1111-1111-111111111111")[0], allow_redirects=False, timeout=10)
    assert page.status_code == 400 and "text/html" in page.headers["Content-Type"]


def test_a_third_party_client_registered_for_the_password_grant_is_refused_at_start(tmp_path):
    secret = tmp_path / "s"
    secret.write_text(SECRET)
    config = f"""clients:
  - {{id: {THIRD}, name: Partner, redirect_uris: ["{CALLBACK}"], secret_file: "{secret}", first_party: false, grant_types: [authorization_code, password]}}
"""
    s = Server(config_text=config)
    out = subprocess.run([BINARY, *s.args], env=s.env, cwd=s.dir, capture_output=True, timeout=60)
    s.cleanup()
    assert out.returncode == 78 and b"clients[0].grant_types" in out.stderr and b"password" in out.stderr, out.stderr
