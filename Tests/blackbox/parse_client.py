"""Talks to the Parse dialect the way ParseSwift does (docs/parse.md) and decodes as strictly: every call
sends Content-Type: application/json (GET included), an installation id, a client version and a request id on POST;
success bodies must not carry a top-level string `error`/`message`; dates must be exactly yyyy-MM-ddTHH:mm:ss.SSSZ;
errors must be {"code": int, "error": str} with Parse Server's statuses."""
import re
import time
import uuid

import requests

APP_ID = "myAppId"
MASTER_KEY = "0123456789abcdef-master"
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")
OBJECT_ID = re.compile(r"^[A-Za-z0-9]{10}$")
SESSION_TOKEN = re.compile(r"^r:[0-9a-f]{32}$")
ENV = {"LATCHKEY_PARSE_APPS": f'[{{"id": "{APP_ID}", "master_key": "{MASTER_KEY}"}}]'}


class ParseClient:
    def __init__(self, server, app_id=APP_ID, installation_id=None):
        self.server = server
        self.app_id = app_id
        self.installation_id = installation_id or str(uuid.uuid4())
        self.session_token = None

    def call(self, method, path, body=None, session_token=None, master=False, params=None):
        headers = {"X-Parse-Application-Id": self.app_id, "Content-Type": "application/json",
                   "X-Parse-Client-Version": "swift6.1.0", "X-Parse-Installation-Id": self.installation_id}
        if method not in ("GET", "DELETE"):
            headers["X-Parse-Request-Id"] = str(uuid.uuid4())
        token = session_token or self.session_token
        if token:
            headers["X-Parse-Session-Token"] = token
        if master:
            headers["X-Parse-Master-Key"] = MASTER_KEY
        # As ParseSwift: 429 and 503 are retried with the same request id after Retry-After (5 attempts in all).
        for _ in range(5):
            r = requests.request(method, self.server.base + "/parse" + path, headers=headers, params=params,
                                 json=body if body is not None else None, timeout=30)
            if r.status_code not in (429, 503):
                break
            time.sleep(max(1, int(r.headers.get("Retry-After", "1"))))
        assert r.headers.get("Cache-Control") == "no-store", r.headers
        return r


def ok(r, status=200):
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert isinstance(body, dict)
    for key in ("error", "message"):
        assert not isinstance(body.get(key), str), f"a success body with a string {key!r} is an error to ParseSwift: {body}"
    for key in ("createdAt", "updatedAt"):
        if key in body:
            assert DATE.match(body[key]), body[key]
    return body


def error(r, code, message=None):
    status = 500 if code == 1 else 404 if code == 101 else 429 if code == 100 else 400
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"code", "error"} and body["code"] == code and isinstance(body["error"], str), body
    if message is not None:
        assert body["error"] == message, body
    return body


def login_signup_response(body):
    """ParseSwift's LoginSignupResponse: objectId, createdAt and sessionToken are required."""
    assert OBJECT_ID.match(body["objectId"]), body
    assert DATE.match(body["createdAt"]), body
    assert SESSION_TOKEN.match(body["sessionToken"]), body
    return body
