"""An app team's integration tests against `latchkey serve --testing` (docs/testing.md): each test starts from a
wiped server on real time. LATCHKEY_URL says where the server is (http://127.0.0.1:8080 by default)."""
import os
import uuid

import pytest
import requests

BASE = os.environ.get("LATCHKEY_URL", "http://127.0.0.1:8080")
PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def clean_server():
    requests.delete(BASE + "/testing/v1/data", timeout=10).raise_for_status()
    requests.delete(BASE + "/testing/v1/clock", timeout=10).raise_for_status()


@pytest.fixture
def config():
    return requests.get(BASE + "/testing/v1/config", timeout=10).json()


@pytest.fixture
def email():
    return f"user-{uuid.uuid4().hex[:8]}@example.com"


def latest_code(to, purpose):
    """The newest code or link of `purpose` sent to `to`, as data."""
    codes = requests.get(BASE + "/testing/v1/codes", params={"to": to}, timeout=10).json()["codes"]
    return next(c for c in codes if c["purpose"] == purpose)


def advance(seconds):
    requests.post(BASE + "/testing/v1/clock", json={"advance_seconds": seconds}, timeout=10).raise_for_status()


def apple_token(sub, email=None):
    claims = {"sub": sub, **({"email": email, "email_verified": True} if email else {})}
    return requests.post(BASE + "/testing/v1/issuer/apple/id-token", json=claims, timeout=10).json()["id_token"]
