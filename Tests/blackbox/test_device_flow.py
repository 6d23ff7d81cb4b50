"""The device authorization grant (RFC 8628): a device without a browser asks for a pair of codes, the person types
the user code at /ui/device on another device, signs in and confirms, and the device's polls get its tokens. MSAL for
Python's own device flow against Latchkey over TLS; then every refusal: a poll too soon, a code expired, used twice,
denied, typed wrong until the limit, and a client not registered for the grant."""
import os
import subprocess
import time
import uuid

import jwt
import msal
import pytest
import requests
from selenium.webdriver.common.by import By

import strict
from browser_support import chromium, fill, wait_heading
from conftest import sign_up
from harness import BINARY, Server
from openid_support import Pages
from postgres import fresh_database

DEVICE = "d0000000-0000-4000-8000-00000000000d"
STRICT_DEVICE = "d0000000-0000-4000-8000-00000000000f"
WEB = "d0000000-0000-4000-8000-00000000000e"
GRANT = "urn:ietf:params:oauth:grant-type:device_code"
PASSWORD = "correct horse battery"
CONFIG = f"""
clients:
  - {{id: 11111111-1111-1111-1111-111111111111, name: native}}
  - {{id: {DEVICE}, name: TV app, grant_types: [device_code, refresh_token]}}
  - {{id: {WEB}, name: Web app, redirect_uris: ["http://127.0.0.1/callback"]}}
  - {{id: {STRICT_DEVICE}, name: Bank TV, grant_types: [device_code], mfa: required}}
mfa:
  methods: [email, totp]
"""


@pytest.fixture(scope="module")
def device_server():
    # Test mode, for its clock: polls and expiry are checked without waiting.
    s = Server(config_text=CONFIG, args=("serve", "--testing")).start()
    yield s
    s.cleanup()


def account(server):
    email = f"tv-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(server, email, PASSWORD)
    return email


def start(server, client=DEVICE, scope="openid profile offline_access"):
    return requests.post(server.base + "/oauth2/v2.0/devicecode", data={"client_id": client, "scope": scope}, timeout=10)


def poll(server, device_code, client=DEVICE):
    return requests.post(server.base + "/oauth2/v2.0/token", data={"grant_type": GRANT, "device_code": device_code, "client_id": client},
                         timeout=10)


def refused(answer, error, status):
    """An OAuth error body (RFC 6749 §5.2): the status, the code, and words that say why."""
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert body["error"] == error and body["error_description"], body
    assert answer.headers.get("Cache-Control") == "no-store", answer.headers


def approve(server, user_code, email, decision="allow"):
    """The person's side through the pages' forms: the code, the sign-in, the confirmation. Returns the last answer."""
    pages = Pages(server)
    page = pages.get("/ui/device")
    assert page.status_code == 200 and 'name="user_code"' in page.text
    sign_in = pages.submit(page, "/ui/device", user_code=user_code.lower().replace("-", " "))
    assert sign_in.status_code == 200 and 'action="/ui/sign-in"' in sign_in.text, sign_in.text
    consent = pages.submit(sign_in, "/ui/sign-in", email=email, password=PASSWORD, method="password")
    assert consent.status_code == 200 and "TV app" in consent.text and user_code in consent.text, consent.text
    done = pages.submit(consent, "/ui/consent", decision=decision)
    assert done.status_code == 303
    return pages, pages.get(done.headers["Location"])


def test_discovery_names_the_device_endpoint_and_rfc_8414_serves_the_same_metadata(device_server):
    openid = requests.get(device_server.base + "/.well-known/openid-configuration", timeout=10).json()
    oauth = requests.get(device_server.base + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert oauth == openid and oauth["issuer"] == device_server.base
    assert oauth["device_authorization_endpoint"] == device_server.base + "/oauth2/v2.0/devicecode" and GRANT in oauth["grant_types_supported"]
    tenant = requests.get(device_server.base + "/.well-known/oauth-authorization-server/contoso", timeout=10).json()
    assert tenant["device_authorization_endpoint"] == device_server.base + "/contoso/oauth2/v2.0/devicecode"


def test_the_operator_sees_which_clients_use_the_device_grant(device_server):
    token = requests.get(device_server.base + "/testing/v1/config", timeout=10).json()["admin_token"]
    clients = requests.get(device_server.admin_base + "/admin/v1/clients", headers={"Authorization": "Bearer " + token}, timeout=10).json()
    grants = {c["id"]: c["grant_types"] for c in clients["clients"]}
    assert grants[DEVICE] == ["refresh_token", GRANT] and GRANT not in grants[WEB]


def test_a_device_signs_in_with_the_code_typed_in_a_browser(device_server):
    email = account(device_server)
    answer = start(device_server)
    assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-store"
    device = answer.json()
    assert device["verification_uri"] == device_server.base + "/ui/device" and device["expires_in"] == 600 and device["interval"] == 5
    assert len(device["user_code"]) == 9 and device["user_code"][4] == "-"
    assert device["verification_uri_complete"].endswith("user_code=" + device["user_code"])
    refused(poll(device_server, device["device_code"]), "authorization_pending", 400)
    # The complete URI fills the code in, and only fills it in: nothing is approved until the person goes on.
    prefilled = Pages(device_server).get(device["verification_uri_complete"])
    assert f'value="{device["user_code"]}"' in prefilled.text
    _, done = approve(device_server, device["user_code"], email)
    assert done.status_code == 200 and "Your device is signed in" in done.text
    device_server.advance_clock(6)
    tokens = strict.ok(poll(device_server, device["device_code"]), "device token")
    assert {"access_token", "id_token", "refresh_token"} <= tokens.keys()
    userinfo = requests.get(device_server.base + "/oidc/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert userinfo.json()["email"] == email
    # Used once: a second poll is refused, and the tokens it gave are revoked with it.
    refused(poll(device_server, device["device_code"]), "invalid_grant", 400)
    refreshed = requests.post(device_server.base + "/oauth2/v2.0/token", timeout=10, data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": DEVICE})
    assert refreshed.status_code == 400


def test_a_replica_on_postgresql_serves_the_same_grant():
    s = Server(config_text=CONFIG, postgres_url=fresh_database()).start()
    try:
        email = account(s)
        device = start(s).json()
        refused(poll(s, device["device_code"]), "authorization_pending", 400)
        refused(poll(s, device["device_code"]), "slow_down", 400)
        _, done = approve(s, device["user_code"], email)
        assert "Your device is signed in" in done.text
        tokens = strict.ok(poll(s, device["device_code"]), "device token")
        assert tokens["refresh_token"]
        refused(poll(s, device["device_code"]), "invalid_grant", 400)
    finally:
        s.cleanup()


def test_a_client_that_needs_a_second_factor_gets_one_before_the_device_is_approved(device_server):
    email = account(device_server)
    device = start(device_server, client=STRICT_DEVICE, scope="openid").json()
    pages = Pages(device_server)
    sign_in = pages.submit(pages.get("/ui/device"), "/ui/device", user_code=device["user_code"])
    step = pages.submit(sign_in, "/ui/sign-in", email=email, password=PASSWORD, method="password")
    # No second factor yet: the pages ask for one to be enrolled, and nothing reaches the device meanwhile.
    assert step.status_code == 200 and 'action="/ui/second-factor/enrol"' in step.text, step.text
    refused(poll(device_server, device["device_code"], client=STRICT_DEVICE), "authorization_pending", 400)
    before = len(device_server.mails(email))
    code_page = pages.submit(step, "/ui/second-factor/enrol", channel="email", target=email)
    assert code_page.status_code == 200, code_page.text
    done = pages.submit(code_page, "/ui/second-factor/enrol/code", code=device_server.wait_for_code(email, before))
    while done.status_code == 200 and 'action="/ui/second-factor/done"' in done.text:  # recovery codes shown once
        done = pages.submit(done, "/ui/second-factor/done")
    assert done.status_code == 200 and "Bank TV" in done.text and device["user_code"] in done.text, done.text
    approved = pages.submit(done, "/ui/consent", decision="allow")
    assert approved.status_code == 303 and approved.headers["Location"].endswith("result=approved")
    device_server.advance_clock(6)
    tokens = strict.ok(poll(device_server, device["device_code"], client=STRICT_DEVICE), "device token")
    claims = jwt.decode(tokens["id_token"], options={"verify_signature": False})
    assert claims["acr"] == "2" and "mfa" in claims["amr"], claims


def test_polling_too_soon_is_slow_down_and_the_interval_grows(device_server):
    device = start(device_server).json()
    refused(poll(device_server, device["device_code"]), "authorization_pending", 400)
    refused(poll(device_server, device["device_code"]), "slow_down", 400)
    device_server.advance_clock(6)  # the old interval (5 s) has passed, the new one (10 s) has not
    refused(poll(device_server, device["device_code"]), "slow_down", 400)
    device_server.advance_clock(16)
    refused(poll(device_server, device["device_code"]), "authorization_pending", 400)


def test_an_expired_code_is_expired_token_and_cannot_be_typed(device_server):
    device = start(device_server).json()
    device_server.advance_clock(601)
    refused(poll(device_server, device["device_code"]), "expired_token", 400)
    pages = Pages(device_server)
    page = pages.submit(pages.get("/ui/device"), "/ui/device", user_code=device["user_code"])
    assert page.status_code == 400 and "not valid, has expired or was already used" in page.text


def test_a_denied_sign_in_is_access_denied_and_the_code_is_spent(device_server):
    email = account(device_server)
    device = start(device_server).json()
    _, done = approve(device_server, device["user_code"], email, decision="deny")
    assert "The device was not signed in" in done.text
    refused(poll(device_server, device["device_code"]), "access_denied", 400)
    pages = Pages(device_server)
    again = pages.submit(pages.get("/ui/device"), "/ui/device", user_code=device["user_code"])
    assert again.status_code == 400


def test_clients_and_codes_that_do_not_belong_are_refused(device_server):
    refused(start(device_server, client=WEB), "unauthorized_client", 400)
    # An unknown client is answered as at the token endpoint, in the words the native SDKs know.
    unknown = start(device_server, client=str(uuid.uuid4()))
    assert unknown.status_code == 400 and unknown.json()["error"] == "unauthorized_client", unknown.text
    refused(start(device_server, scope="openid payroll"), "invalid_scope", 400)
    device = start(device_server).json()
    refused(poll(device_server, device["device_code"], client=WEB), "unauthorized_client", 400)
    refused(poll(device_server, "not-a-device-code"), "invalid_grant", 400)
    refused(poll(device_server, ""), "invalid_request", 400)
    pages = Pages(device_server)
    for typed in ("", "AAAA-AAAA", "x" * 5000, "BCDF-GHJ"):
        page = pages.submit(pages.get("/ui/device"), "/ui/device", user_code=typed)
        assert page.status_code == 400 and 'name="user_code"' in page.text
    forged = requests.post(device_server.base + "/ui/device", data={"user_code": device["user_code"]}, allow_redirects=False, timeout=10)
    assert forged.status_code == 403


def test_guessing_user_codes_meets_the_limit():
    s = Server(config_text=CONFIG, env={"LATCHKEY_LIMITS_ENABLED": "true"}).start()
    try:
        device = start(s).json()
        pages = Pages(s)
        form = pages.get("/ui/device")
        for _ in range(10):
            assert pages.submit(form, "/ui/device", user_code="BBBB-BBBB").status_code == 400
        # The right code now waits as well: the limit counts every code typed from this network.
        limited = pages.submit(form, "/ui/device", user_code=device["user_code"])
        assert limited.status_code == 429 and "Too many" in limited.text
    finally:
        s.cleanup()


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("device-tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    s = Server(config_text=CONFIG, env={"LATCHKEY_SERVER_TLS_CERTIFICATE": str(cert), "LATCHKEY_SERVER_TLS_KEY": str(key)})
    s.base = s.base.replace("http://", "https://")
    s.env["LATCHKEY_SERVER_PUBLIC_URL"] = s.base
    s.log = open(s.log_path, "ab")
    s.proc = subprocess.Popen([BINARY, *s.args], cwd=s.dir, env=s.env, stdout=s.log, stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while True:
        try:
            if requests.get(s.base + "/health/ready", verify=str(cert), timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            assert time.time() < deadline, s.read_log()
            time.sleep(0.1)
    s.cert = str(cert)
    yield s
    s.cleanup()


def test_msal_for_python_completes_a_device_sign_in(tls_server):
    s = tls_server
    os.environ["REQUESTS_CA_BUNDLE"] = s.cert  # the harness's mailbox reads go through requests too
    try:
        email = account(s)
        # MSAL wants an authority with a tenant segment; the issuer's scheme and host are what it checks.
        app = msal.PublicClientApplication(DEVICE, oidc_authority=s.base + "/latchkey", verify=s.cert)
        flow = app.initiate_device_flow(scopes=["email"])
        assert "user_code" in flow, flow
        assert flow["verification_uri"] == s.base + "/ui/device"
        pending = app.acquire_token_by_device_flow(flow, exit_condition=lambda flow: True)
        assert pending.get("error") == "authorization_pending", pending
        browser = chromium(javascript=False, flags=("--ignore-certificate-errors",))
        try:
            browser.get(flow["verification_uri"])
            wait_heading(browser, "Sign in on a device")
            fill(browser, user_code=flow["user_code"])
            browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            wait_heading(browser, "Sign in")
            fill(browser, email=email, password=PASSWORD)
            browser.find_element(By.CSS_SELECTOR, "button[value=password]").click()
            wait_heading(browser, "Allow access?")
            assert flow["user_code"] in browser.find_element(By.ID, "device-confirm").text
            browser.find_element(By.CSS_SELECTOR, "button[value=allow]").click()
            wait_heading(browser, "Device signed in")
        finally:
            browser.quit()
        result = app.acquire_token_by_device_flow(flow)
        assert "access_token" in result, result
        assert result["id_token_claims"]["email"] == email
        [signed_in] = app.get_accounts()
        again = app.acquire_token_silent(["email"], account=signed_in, force_refresh=True)
        assert again and "access_token" in again and again["access_token"] != result["access_token"], again
    finally:
        del os.environ["REQUESTS_CA_BUNDLE"]
