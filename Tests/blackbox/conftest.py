import json
import sqlite3
import uuid

import pytest

import strict
from harness import ALL_TYPES, CLIENT_ID, Server

ATTRIBUTES = json.dumps([
    {"name": "displayName", "type": "string", "required": False},
    {"name": "postalCode", "type": "string", "required": True, "regex": "^[1-9][0-9]*$"},
])


@pytest.fixture(scope="session")
def server():
    s = Server().start()
    yield s
    s.cleanup()


@pytest.fixture(scope="session")
def attr_server():
    s = Server(env={"LATCHKEY_ATTRIBUTES": ATTRIBUTES}).start()
    yield s
    s.cleanup()


@pytest.fixture
def email():
    return f"user-{uuid.uuid4().hex[:12]}@example.com"


def sign_up(server, email, password="correct horse battery", types=ALL_TYPES, attributes=None):
    """Password up front: start -> challenge -> continue(oob). Returns the completed continuation token."""
    start = strict.ok(server.post("/signup/v1.0/start", {"username": email, "password": password, "challenge_type": types,
                                                         "attributes": attributes}), "signup/start")
    before = len(server.mails(email))
    challenge = strict.ok(server.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                                 "challenge_type": types}), "signup/challenge")
    assert challenge["challenge_type"] == "oob"
    code = server.wait_for_code(email, before)
    done = strict.ok(server.post("/signup/v1.0/continue", {"continuation_token": challenge["continuation_token"],
                                                           "grant_type": "oob", "oob": code}), "signup/continue")
    return done["continuation_token"]


def token_after_sign_up(server, email, ct, scope="openid profile offline_access"):
    return server.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": ct,
                                              "username": email, "scope": scope, "challenge_type": ALL_TYPES,
                                              "client_info": "true"})


def password_sign_in(server, email, password, scope="openid profile offline_access"):
    """initiate -> challenge(password) -> token(password); returns the token response."""
    init = strict.ok(server.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}), "oauth2/initiate")
    ch = strict.ok(server.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                          "challenge_type": ALL_TYPES}), "oauth2/challenge")
    assert ch["challenge_type"] == "password"
    return server.post("/oauth2/v2.0/token", {"grant_type": "password", "username": email, "password": password,
                                              "continuation_token": ch["continuation_token"], "scope": scope,
                                              "challenge_type": ALL_TYPES, "client_info": "true"})


# Shared by the capability files that grew out of the review suite --------------------------------------------

REVIEW_APPS = [{"id": "email-app"}, {"id": "auto-app", "confirmation": {"mode": "auto"}}]


def fresh(tag="u"):
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.com"


def audit_count(s, kind, email):
    db = sqlite3.connect(s.db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM audit_events WHERE kind = ? AND email = ?", (kind, email)).fetchone()[0]
    finally:
        db.close()


@pytest.fixture(scope="session")
def apps():
    """Two App Services apps (email confirmation, auto confirmation) and a client with its own scope."""
    s = Server(env={"LATCHKEY_APP_SERVICES_APPS": json.dumps(REVIEW_APPS),
                    "LATCHKEY_CLIENTS": json.dumps([{"id": CLIENT_ID, "name": "dev", "scopes": ["orders.read"]}])}).start()
    yield s
    s.cleanup()
