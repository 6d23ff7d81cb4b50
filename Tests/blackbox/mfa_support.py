"""Shared pieces of the second-factor suites: a server with every factor on (text messages through a signed webhook
that records each code), native clients per policy, Parse apps per policy, and the native steps as MSAL drives them
(docs/native-auth.md, "Second factors")."""
import json
import re
import time
import uuid

import pytest

import strict
from harness import ALL_TYPES, Server
from parse_client import MASTER_KEY
from webhook import SignedWebhook

REQUIRED = "22222222-2222-2222-2222-222222222222"
OPTIONAL = "33333333-3333-3333-3333-333333333333"
OFF = "11111111-1111-1111-1111-111111111111"
CAPABILITIES = "mfa_required registration_required"
PASSWORD = "correct horse battery"
SCOPE = "openid profile offline_access"


class TextMessages:
    """The operator's `send_sms` function: a signed webhook that keeps every message and can be told to fail."""

    def __init__(self):
        self.failing = False
        self.hook = SignedWebhook(self.decide)

    def decide(self, body, valid):
        assert valid, "the function call must be signed"
        return {"status": "fail", "message": "carrier down"} if self.failing else {"status": "success"}

    def codes(self, number):
        return [m["body"][0]["code"] for m in self.hook.received if m["body"][0]["to"] == number]

    def wait_for_code(self, number, previous=0, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            codes = self.codes(number)
            if len(codes) > previous:
                return codes[-1]
            time.sleep(0.05)
        raise AssertionError(f"no text message to {number}")


def config(sms, extra=""):
    return f"""
mfa:
  methods: [email, totp, sms]
  totp: {{issuer: Latchkey Test}}
  sms: {{function: send_sms}}
functions:
  send_sms: {{kind: webhook, url: "{sms.hook.url}", secret: "{sms.hook.secret}", timeout_seconds: 2}}
clients:
  - {{id: {OFF}, name: plain}}
  - {{id: {REQUIRED}, name: strict, mfa: required}}
  - {{id: {OPTIONAL}, name: relaxed, mfa: optional}}
parse:
  apps:
    - {{id: mfaApp, master_key: "{MASTER_KEY}", mfa: optional}}
    - {{id: strictApp, master_key: "{MASTER_KEY}", mfa: required}}
    - {{id: plainApp, master_key: "{MASTER_KEY}"}}
{extra}"""


@pytest.fixture(scope="module")
def sms():
    texts = TextMessages()
    yield texts
    texts.hook.shutdown()


@pytest.fixture(scope="module")
def mfa_server(sms):
    s = Server(config_text=config(sms)).start()
    yield s
    s.cleanup()


def new_email():
    return f"mfa-{uuid.uuid4().hex[:12]}@example.com"


class Native:
    """One native client, sending what MSAL sends: client_id on every call, capabilities on the first step only."""

    def __init__(self, server, client_id, capabilities=CAPABILITIES, types=ALL_TYPES):
        self.server, self.client_id, self.capabilities, self.types = server, client_id, capabilities, types

    def post(self, path, data):
        return self.server.post(path, {"client_id": self.client_id, **data})

    def sign_up(self, email, password=PASSWORD):
        """start (with capabilities) -> challenge -> continue(oob); the completed continuation token."""
        start = strict.ok(self.post("/signup/v1.0/start", {"username": email, "password": password, "challenge_type": self.types,
                                                           "capabilities": self.capabilities}), "signup/start")
        before = len(self.server.mails(email))
        ch = strict.ok(self.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                             "challenge_type": self.types}), "signup/challenge")
        code = self.server.wait_for_code(email, before)
        done = strict.ok(self.post("/signup/v1.0/continue", {"continuation_token": ch["continuation_token"], "grant_type": "oob",
                                                              "oob": code}), "signup/continue")
        return done["continuation_token"]

    def token_after(self, ct, email=None):
        return self.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": ct, "username": email,
                                                "scope": SCOPE, "client_info": "true"})

    def password_token(self, email, password=PASSWORD):
        """initiate (with capabilities) -> challenge -> token(password): the /token response."""
        init = strict.ok(self.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": self.types,
                                                             "capabilities": self.capabilities}), "oauth2/initiate")
        ch = strict.ok(self.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                            "challenge_type": self.types}), "oauth2/challenge")
        assert ch["challenge_type"] == "password"
        return self.post("/oauth2/v2.0/token", {"grant_type": "password", "username": email, "password": password,
                                                "continuation_token": ch["continuation_token"], "scope": SCOPE, "client_info": "true"})

    def introspect(self, ct):
        body = strict.ok(self.post("/oauth2/v2.0/introspect", {"continuation_token": ct}), "oauth2/introspect")
        assert isinstance(body["continuation_token"], str) and body["continuation_token"]
        methods = body["methods"]
        assert methods, "iOS and Android refuse an empty method list"
        for m in methods:
            assert set(m) == {"id", "challenge_type", "challenge_channel", "login_hint"}, m
            assert m["challenge_type"] == "oob" and isinstance(m["login_hint"], str)
        return body

    def challenge(self, ct, method_id):
        return self.post("/oauth2/v2.0/challenge", {"continuation_token": ct, "challenge_type": self.types, "id": method_id})

    def submit(self, ct, code, grant="mfa_oob"):
        return self.post("/oauth2/v2.0/token", {"continuation_token": ct, "grant_type": grant, "oob": code, "scope": SCOPE,
                                                "client_info": "true"})

    def register_introspect(self, ct):
        body = strict.ok(self.post("/register/v1.0/introspect", {"continuation_token": ct}), "register/introspect")
        assert body["continuation_token"] and body["methods"]
        return body

    def register_challenge(self, ct, method, contact):
        return self.post("/register/v1.0/challenge", {"continuation_token": ct, "challenge_type": method["challenge_type"],
                                                      "challenge_target": contact, "challenge_channel": method["challenge_channel"]})

    def register_continue(self, ct, code=None):
        data = {"continuation_token": ct, "grant_type": "oob" if code is not None else "continuation_token"}
        if code is not None:
            data["oob"] = code
        return self.post("/register/v1.0/continue", data)


def suberror(resp, value):
    """`invalid_grant` with `suberror` and a top-level continuation token (iOS requires all three)."""
    body = strict.error(resp, "invalid_grant", suberror=value)
    assert isinstance(body.get("continuation_token"), str) and body["continuation_token"], body
    assert body["error_codes"][0] != 50126, "Android reads 50126 first as wrong credentials"
    return body["continuation_token"]


def redirect(resp, reason_fragment):
    body = strict.ok(resp, "oauth2/token")
    assert body == {"challenge_type": "redirect", "redirect_reason": body["redirect_reason"]}, body
    assert reason_fragment in body["redirect_reason"], body
    return body


def code_challenge(resp, channel, target_label=None):
    """A second-factor challenge as MSAL.js reads it: oob, an integer code length, the channel and masked target."""
    body = strict.ok(resp, "oauth2/challenge")
    assert body["challenge_type"] == "oob" and body["challenge_channel"] == channel, body
    if target_label is not None:
        assert body["challenge_target_label"] == target_label, body
    return body


def mask_check(label, address):
    """A masked address shows no more than its first and last letters around the @."""
    assert label != address and "*" in label, label
    assert re.sub(r"[^@.]", "", label).count("@") == 1
