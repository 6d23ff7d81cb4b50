"""Passkeys over the wire under /ui/passkeys (docs/passkeys.md), with soft-webauthn as the authenticator and Duo's
`webauthn` verifying the very objects Latchkey accepted: registering on a signed-in browser, signing in with no
address typed (a discoverable credential) and the visit going on to the app with `amr` [hwk, mfa] and `acr` 2; and
every relying-party check refused with the bad value sent."""
import base64
import html
import json
import re
import subprocess
import uuid
from urllib.parse import parse_qs, urlparse

import pytest
import requests
import webauthn
from fido2 import cbor
from fido2.cose import ES256

from console_support import Operator, text_of, user_id
from harness import BINARY, Server
from openid_support import PASSWORD, PUBLIC, STRICT, THIRD, Pages, provider_config
from passkey_support import (VerifyingDevice, authentication_json, b64, creation_options, registration_json, request_options,
                             unb64)
from soft_webauthn import SoftWebauthnDevice
from test_openid import authorize_url, exchange, query

CALLBACK = "http://127.0.0.1:4999/callback"
ADMIN_TOKEN = "a" * 48


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("passkeys")
    secret = folder / "client.secret"
    secret.write_text("s" * 64 + "\n")
    token = folder / "admin.token"
    token.write_text(ADMIN_TOKEN)
    s = Server(config_text=provider_config(str(secret), [4999]),
               env={"LATCHKEY_PASSKEYS_RP_ID": "localhost", "LATCHKEY_ADMIN_TOKEN_FILE": str(token)})
    s.origin = f"http://localhost:{s.port}"
    s.env["LATCHKEY_PASSKEYS_ORIGINS"] = s.origin
    s.start()
    yield s
    s.cleanup()


class Browser:
    """One browser at the hosted pages: its cookies, the visit's sealed interaction and its CSRF token."""

    def __init__(self, server, client=PUBLIC):
        self.server, self.pages = server, Pages(server)
        url, self.verifier = authorize_url(server, client=client, redirect=CALLBACK)
        first = self.pages.get(url)
        assert first.status_code == 200, first.text
        form = self.pages.form(first, "/ui/sign-in")
        self.url, self.first, self.csrf, self.interaction = url, first, form["csrf"], form["interaction"]

    def call(self, path, body=None, csrf=True, interaction=False, **params):
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        if interaction:
            headers["X-Latchkey-Interaction"] = self.interaction
        return self.pages.http.post(self.server.base + path, json=body or {}, headers=headers, params=params, timeout=30)

    def sign_up(self):
        email = f"pk-{uuid.uuid4().hex[:10]}@example.com"
        page = self.pages.get("/ui/sign-up", params={"interaction": self.interaction})
        before = len(self.server.mails(email))
        page = self.pages.submit(page, "/ui/sign-up", email=email, password="correct horse battery")
        back = self.pages.submit(page, "/ui/sign-up/code", code=self.server.wait_for_code(email, before))
        # Signed in, no passkey yet: the offer comes before the app.
        assert back.status_code == 200 and "Sign in faster next time" in back.text, back.text
        self.email = email
        return email


def refused(r, status, words):
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["error"] and words in body["error_description"], body
    return body


def register(server, device=None, origin=None):
    """A new account signed in at a browser, and a passkey registered for it: (browser, device, options, answer)."""
    browser, device = Browser(server), device or VerifyingDevice()
    browser.sign_up()
    options = browser.call("/ui/passkeys/registration/options")
    assert options.status_code == 200, options.text
    options = options.json()
    credential = registration_json(device.create(creation_options(options), origin or server.origin))
    return browser, device, options, credential


def sign_in(server, device):
    """A fresh browser signs in with the device's passkey, no address typed: (answer, assertion, options)."""
    browser = Browser(server)
    options = browser.call("/ui/passkeys/authentication/options").json()
    assert options["allowCredentials"] == [] and options["userVerification"] == "required" and options["rpId"] == "localhost"
    assertion = authentication_json(device.get(request_options(options), server.origin))
    return browser, browser.call("/ui/passkeys/authentication", assertion, interaction=True), assertion, options


def test_a_passkey_registers_signs_in_without_an_address_and_the_visit_goes_on(server):
    browser, device, options, credential = register(server)
    assert options["rp"] == {"id": "localhost", "name": "Latchkey"} and options["attestation"] == "none"
    assert options["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True, "userVerification": "required"}
    assert [p["alg"] for p in options["pubKeyCredParams"]] == [-7, -8, -257]
    handle = unb64(options["user"]["id"])
    assert len(handle) == 32 and browser.email.encode() not in handle and options["user"]["name"] == browser.email  # opaque handle
    added = browser.call("/ui/passkeys/registration", credential, name="Test key")
    assert added.status_code == 200, added.text
    assert added.json()["name"] == "Test key" and added.json()["backup_eligible"] is False
    server.wait_for_subject(browser.email, "A passkey was added to your")  # the owner is told
    # Duo's verifier accepts the same registration.
    duo = webauthn.verify_registration_response(credential=credential, expected_challenge=unb64(options["challenge"]),
                                                expected_origin=server.origin, expected_rp_id="localhost", require_user_verification=True)
    assert duo.credential_id == unb64(credential["rawId"])

    visitor, answer, assertion, request = sign_in(server, device)
    assert answer.status_code == 200, answer.text
    location = answer.json()["location"]
    assert location.startswith(CALLBACK) and "latchkey_session" in answer.headers.get("Set-Cookie", "")
    webauthn.verify_authentication_response(credential=assertion, expected_challenge=unb64(request["challenge"]),
                                            expected_origin=server.origin, expected_rp_id="localhost",
                                            credential_public_key=duo.credential_public_key, credential_current_sign_count=0,
                                            require_user_verification=True)
    tokens = exchange(server, parse_qs(urlparse(location).query)["code"][0], visitor.verifier, client=PUBLIC, secret=None, redirect=CALLBACK)
    assert tokens.status_code == 200, tokens.text
    claims = _claims(tokens.json()["id_token"])
    assert claims["amr"] == ["hwk", "mfa"] and claims["acr"] == "2"
    # The browser session SSOs into the next visit.
    again = visitor.pages.get(authorize_url(server, client=PUBLIC, redirect=CALLBACK)[0])
    assert again.status_code == 303 and again.headers["Location"].startswith(CALLBACK)


def test_a_passkey_sign_in_for_a_third_party_app_asks_consent_before_any_code(server):
    """The code is written with the sign-in only when the visit goes straight back; a third-party app's consent comes first."""
    browser, device, _, credential = register(server)
    assert browser.call("/ui/passkeys/registration", credential).status_code == 200
    visitor = Browser(server, client=THIRD)
    options = visitor.call("/ui/passkeys/authentication/options").json()
    answer = visitor.call("/ui/passkeys/authentication", authentication_json(device.get(request_options(options), server.origin)),
                          interaction=True)
    assert answer.status_code == 200, answer.text
    location = answer.json()["location"]
    assert location.startswith("/ui/continue?") and "code=" not in location, location
    consent = visitor.pages.get(location)
    assert consent.status_code == 200 and "Partner tool" in consent.text, consent.text
    back = visitor.pages.submit(consent, "/ui/consent", decision="allow")
    assert back.status_code == 303 and back.headers["Location"].startswith(CALLBACK) and "code" in query(back), back.text


def test_the_relying_party_refuses_each_bad_value(server):
    browser, device, options, credential = register(server)
    # Wrong origin.
    b2, _, _, elsewhere = register(server, origin="http://localhost:1")
    refused(b2.call("/ui/passkeys/registration", elsewhere), 400, "origin http://localhost:1 is not one of")
    # UV missing: soft-webauthn's own authenticator checks presence only.
    b3, _, _, presence_only = register(server, device=SoftWebauthnDevice())
    refused(b3.call("/ui/passkeys/registration", presence_only), 400, "user verification (UV) missing")
    # Wrong RP id: the authenticator signed for another site.
    b4 = Browser(server)
    b4.sign_up()
    other = b4.call("/ui/passkeys/registration/options").json()
    other["rp"]["id"] = "example.com"
    refused(b4.call("/ui/passkeys/registration", registration_json(VerifyingDevice().create(creation_options(other), server.origin))),
            400, "rpIdHash")
    # Malformed CBOR: an indefinite-length array.
    b5 = Browser(server)
    b5.sign_up()
    fresh = b5.call("/ui/passkeys/registration/options").json()
    bad = registration_json(VerifyingDevice().create(creation_options(fresh), server.origin))
    bad["response"]["attestationObject"] = b64(b"\x9f\x01\xff")
    refused(b5.call("/ui/passkeys/registration", bad), 400, "malformed CBOR: indefinite lengths are not accepted")
    # An algorithm outside ES256, EdDSA, RS256 (the key says ES384).
    b6 = Browser(server)
    b6.sign_up()
    fresh = b6.call("/ui/passkeys/registration/options").json()
    es384 = registration_json(VerifyingDevice().create(creation_options(fresh), server.origin))
    es384["response"]["attestationObject"] = b64(_with_algorithm(unb64(es384["response"]["attestationObject"]), -35))
    refused(b6.call("/ui/passkeys/registration", es384), 400, "COSE algorithm -35 is not accepted")

    # The good one registers; the same credential id for a second account is refused.
    assert browser.call("/ui/passkeys/registration", credential).status_code == 200
    b7 = Browser(server)
    b7.sign_up()
    refused(b7.call("/ui/passkeys/registration", registration_json(_same_credential(device, b7, server))), 400, "registered already")

    # A replayed assertion: its challenge was taken by the first use.
    _, first, assertion, _ = sign_in(server, device)
    assert first.status_code == 200, first.text
    visitor = Browser(server)
    refused(visitor.call("/ui/passkeys/authentication", assertion, interaction=True), 400, "challenge")
    # A challenge is bound to the visit it was handed to: another browser cannot use it.
    owner = Browser(server)
    handed = owner.call("/ui/passkeys/authentication/options").json()
    stolen = authentication_json(device.get(request_options(handed), server.origin))
    refused(Browser(server).call("/ui/passkeys/authentication", stolen, interaction=True), 400, "challenge")
    # ... and spent by that refusal: its own visit cannot use it afterwards either.
    refused(owner.call("/ui/passkeys/authentication", stolen, interaction=True), 400, "challenge")
    # A refused signature spends the challenge too: the good assertion for it comes too late.
    signer = Browser(server)
    good = authentication_json(device.get(request_options(signer.call("/ui/passkeys/authentication/options").json()), server.origin))
    forged = dict(good, response=dict(good["response"], signature=b64(b"\x30\x06\x02\x01\x01\x02\x01\x01")))
    refused(signer.call("/ui/passkeys/authentication", forged, interaction=True), 400, "the signature does not verify")
    refused(signer.call("/ui/passkeys/authentication", good, interaction=True), 400, "challenge")
    # Without the visit's CSRF token.
    refused(visitor.call("/ui/passkeys/authentication/options", csrf=False), 403, "X-CSRF-Token is missing")
    # Without the visit, a sign-in has nowhere to go on to.
    refused(visitor.call("/ui/passkeys/authentication", assertion), 400, "X-Latchkey-Interaction is missing")
    # Registration needs a browser signed in.
    refused(visitor.call("/ui/passkeys/registration/options"), 400, "sign in first")


def test_a_counter_that_goes_back_refuses_the_sign_in_and_flags_the_passkey(server):
    browser, device, _, credential = register(server)
    assert browser.call("/ui/passkeys/registration", credential).status_code == 200
    device.sign_count = 10
    _, ok, _, _ = sign_in(server, device)
    assert ok.status_code == 200, ok.text
    device.sign_count = 3  # a clone that has not seen the last sign-ins
    _, cloned, _, _ = sign_in(server, device)
    refused(cloned, 400, "not above 11: a cloned authenticator")
    server.wait_for_subject(browser.email, "may have been copied")
    events = requests.get(f"{server.admin_base}/admin/v1/audit", params={"kind": "passkey_clone_suspected"},
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
    assert events.status_code == 200 and len(events.json()["events"]) == 1


def test_a_passkey_passes_the_second_step_after_a_password(server):
    """Under `mfa: required` an account whose only second factor is a passkey is asked for it after its password."""
    owner, device, _, credential = register(server)
    assert owner.call("/ui/passkeys/registration", credential).status_code == 200
    strict = Browser(server, client=STRICT)
    page = strict.pages.submit(strict.first, "/ui/sign-in", email=owner.email, password=PASSWORD, method="password")
    assert page.status_code == 200 and "Use your passkey" in page.text, page.text
    strict.csrf = re.search(r'id="passkey-csrf" value="([^"]+)"', page.text).group(1)
    strict.interaction = html.unescape(re.search(r'id="passkey-interaction" value="([^"]+)"', page.text).group(1))
    # Another account's passkey does not pass this account's second step.
    stranger, other_device, _, other = register(server)
    assert stranger.call("/ui/passkeys/registration", other).status_code == 200
    options = strict.call("/ui/passkeys/authentication/options").json()
    refused(strict.call("/ui/passkeys/authentication", authentication_json(other_device.get(request_options(options), server.origin)),
                        interaction=True), 400, "belongs to another account")
    options = strict.call("/ui/passkeys/authentication/options").json()
    answer = strict.call("/ui/passkeys/authentication", authentication_json(device.get(request_options(options), server.origin)),
                         interaction=True)
    assert answer.status_code == 200, answer.text
    location = answer.json()["location"]
    assert location.startswith(CALLBACK)
    tokens = exchange(server, parse_qs(urlparse(location).query)["code"][0], strict.verifier, client=STRICT, secret="s" * 64, redirect=CALLBACK)
    assert tokens.status_code == 200, tokens.text
    claims = _claims(tokens.json()["id_token"])
    assert claims["amr"] == ["pwd", "hwk", "mfa"] and claims["acr"] == "2"


def _claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def _with_algorithm(attestation_object, alg):
    """The attestation object with its COSE key's `alg` replaced (the rest, the key itself included, unchanged)."""
    attestation = cbor.decode(attestation_object)
    data = attestation["authData"]
    length = int.from_bytes(data[53:55], "big")
    start = 55 + length
    key = cbor.decode(data[start:])
    key[3] = alg
    attestation["authData"] = data[:start] + cbor.encode(key)
    return cbor.encode(attestation)


def _same_credential(device, browser, server):
    """A registration for `browser`'s account that names `device`'s credential id and key again (another
    authenticator made for the purpose, so `device` keeps its own)."""
    options = browser.call("/ui/passkeys/registration/options").json()
    copy = VerifyingDevice()
    credential = copy.create(creation_options(options), server.origin)
    attestation = cbor.decode(credential["response"]["attestationObject"])
    data = attestation["authData"]
    cose = cbor.encode(ES256.from_cryptography_key(device.private_key.public_key()))
    attestation["authData"] = data[:53] + len(device.credential_id).to_bytes(2, "big") + device.credential_id + cose
    credential["response"]["attestationObject"] = cbor.encode(attestation)
    credential["rawId"] = device.credential_id
    return credential




def test_the_operator_lists_and_removes_passkeys_by_api_cli_and_console(server):
    browser, device, _, credential = register(server)
    assert browser.call("/ui/passkeys/registration", credential, name="Work laptop").status_code == 200
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    listed = requests.get(f"{server.admin_base}/admin/v1/users/{browser.email}/passkeys", headers=admin, timeout=10)
    assert listed.status_code == 200, listed.text
    [passkey] = listed.json()["passkeys"]
    assert passkey["name"] == "Work laptop" and passkey["backup_eligible"] is False and "last_used_at" not in passkey
    assert not {"public_key", "credential_id"} & set(passkey)  # never the key
    cli = subprocess.run([BINARY, *server.args[1:], "users", "passkeys", browser.email], env=server.env, cwd=server.dir,
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and f"{passkey['id']}\tWork laptop\t" in cli.stdout and "device-bound" in cli.stdout, cli.stderr
    missing = requests.delete(f"{server.admin_base}/admin/v1/users/{browser.email}/passkeys/nope", headers=admin, timeout=10)
    assert missing.status_code == 404 and missing.json()["error"] == "passkey_not_found"
    # The console's user page lists it, then removes it.
    operator = Operator(server, token=ADMIN_TOKEN).signed_in()
    page = operator.get(f"/users/{user_id(operator, browser.email)}")
    assert "Work laptop" in text_of(page.text) and "Device-bound" in text_of(page.text)
    done = operator.act(f"/users/{user_id(operator, browser.email)}/passkeys/{passkey['id']}/remove")
    assert "The passkey is removed." in text_of(done.text)
    assert "Passkeys None" in text_of(done.text)  # the section now lists none (the audit still names it)
    assert requests.get(f"{server.admin_base}/admin/v1/users/{browser.email}/passkeys", headers=admin, timeout=10).json()["passkeys"] == []
    _, refused_now, _, _ = sign_in(server, device)
    refused(refused_now, 400, "not registered here")


def test_export_and_import_carry_passkeys_that_still_sign_in(server, tmp_path):
    browser, device, _, credential = register(server)
    assert browser.call("/ui/passkeys/registration", credential, name="Carried").status_code == 200
    export = tmp_path / "users.jsonl"
    done = subprocess.run([BINARY, *server.args[1:], "export", str(export)], env=server.env, cwd=server.dir, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(text) for text in export.read_text().splitlines() if json.loads(text).get("email") == browser.email]
    [carried] = line["passkeys"]
    assert carried["name"] == "Carried" and carried["credential_id"] == credential["rawId"] and "private" not in json.dumps(carried)
    # Another deployment under the same relying party id takes them in, and the passkey signs in there.
    secret = tmp_path / "client.secret"
    secret.write_text("s" * 64 + "\n")
    other = Server(config_text=provider_config(str(secret), [4999]),
                   env={"LATCHKEY_PASSKEYS_RP_ID": "localhost", "LATCHKEY_PASSKEYS_ORIGINS": server.origin}).start()
    try:
        imported = subprocess.run([BINARY, *other.args[1:], "import", "--format", "jsonl", str(export)], env=other.env, cwd=other.dir,
                                  capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0 and "passkeys" in imported.stdout + imported.stderr, imported.stdout + imported.stderr
        visitor = Browser(other)
        options = visitor.call("/ui/passkeys/authentication/options").json()
        answer = visitor.call("/ui/passkeys/authentication", authentication_json(device.get(request_options(options), server.origin)),
                              interaction=True)
        assert answer.status_code == 200 and answer.json()["location"].startswith(CALLBACK), answer.text
    finally:
        other.cleanup()
