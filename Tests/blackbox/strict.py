"""Strict checks of native-auth responses, mirroring what the MSAL native-auth SDK demands
(docs/native-auth.md): status rules, exact enum values, integer types, required fields per endpoint."""
import base64
import datetime
import json
import re

CHALLENGE_TYPES = {"oob", "password", "redirect"}
POLL_STATUSES = {"in_progress", "succeeded", "failed", "not_started"}
INT_FIELDS = {"code_length", "interval", "expires_in", "poll_interval", "ext_expires_in"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def b64url_json(part):
    raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    value = json.loads(raw.decode("utf-8"))
    assert isinstance(value, dict), "JWT part is not a JSON object"
    return value


def body_of(resp):
    assert resp.headers.get("Content-Type", "").startswith("application/json"), resp.headers
    body = resp.json()
    assert isinstance(body, dict)
    return body


def ok(resp, endpoint):
    """A 200 the SDK can decode for `endpoint` (e.g. 'signup/challenge'). Returns the body."""
    assert resp.status_code == 200, f"{endpoint}: {resp.status_code} {resp.text}"
    body = body_of(resp)
    assert "error" not in body
    # A correlation_id in a 200 must be a UUID or the SDK's decode fails; we never send one.
    assert "correlation_id" not in body
    for field in INT_FIELDS & body.keys():
        assert is_int(body[field]), f"{endpoint}: {field} must be a JSON integer, got {body[field]!r}"
    ct = body.get("challenge_type")
    if ct is not None:
        # `preverified` exists on register/challenge only (MSAL's JIT fast path).
        allowed = CHALLENGE_TYPES | ({"preverified"} if endpoint == "register/challenge" else set())
        assert ct in allowed, f"{endpoint}: challenge_type {ct!r}"
    if ct == "redirect":
        return body
    # MSAL.js refuses a 2xx without a continuation token on every step but /token.
    if endpoint in ("oauth2/introspect", "register/introspect", "register/challenge", "register/continue"):
        assert isinstance(body.get("continuation_token"), str) and body["continuation_token"], f"{endpoint}: continuation_token"
    if endpoint == "register/challenge" and ct == "oob":
        for field in ("challenge_target", "challenge_channel"):
            assert isinstance(body.get(field), str) and body[field], f"{endpoint}: {field} required for oob (iOS)"
        assert is_int(body.get("code_length"))
    if endpoint in ("signup/start", "oauth2/initiate", "resetpassword/start", "resetpassword/continue"):
        assert isinstance(body.get("continuation_token"), str) and body["continuation_token"]
    if endpoint in ("signup/challenge", "oauth2/challenge", "resetpassword/challenge"):
        assert ct in ("oob", "password"), f"{endpoint}: challenge_type is required"
        assert isinstance(body.get("continuation_token"), str) and body["continuation_token"]
        if ct == "oob":
            for field in ("challenge_target_label", "challenge_channel"):
                assert isinstance(body.get(field), str) and body[field], f"{endpoint}: {field} required for oob"
            assert is_int(body.get("code_length"))
            assert body.get("binding_method") == "prompt"
    if endpoint == "resetpassword/submit":
        assert isinstance(body.get("continuation_token"), str) and is_int(body.get("poll_interval"))
    if endpoint == "resetpassword/poll_completion":
        assert body.get("status") in POLL_STATUSES
    return body


def error(resp, error_value, suberror=None, code=None):
    """A 400 error body the SDK decodes: `error` string, `error_codes` ints, nested arrays of the right shape."""
    assert resp.status_code == 400, f"expected 400 {error_value}, got {resp.status_code} {resp.text}"
    body = body_of(resp)
    assert body.get("error") == error_value, body
    assert isinstance(body.get("error_description"), str)
    codes = body.get("error_codes")
    assert isinstance(codes, list) and codes and all(is_int(c) for c in codes), body
    if code is not None:
        assert codes[0] == code, body
    # The error's time: ISO 8601 in UTC to the second, and now (the clock of this machine, give or take).
    stamp = body.get("timestamp")
    assert isinstance(stamp, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", stamp), body
    when = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 300, stamp
    if suberror is not None:
        assert body.get("suberror") == suberror, body
    if "required_attributes" in body:
        for item in body["required_attributes"]:
            assert isinstance(item["name"], str) and isinstance(item["type"], str) and isinstance(item["required"], bool)
            if "options" in item:
                assert isinstance(item["options"].get("regex"), str)
    if "invalid_attributes" in body:
        assert body["invalid_attributes"] and all(isinstance(i["name"], str) for i in body["invalid_attributes"])
    return body


def tokens(resp, offline=True):
    """A token response MSAL turns into an account: Bearer, integer expiries, client_info, decodable id_token."""
    body = ok(resp, "oauth2/token")
    assert resp.headers.get("Cache-Control") == "no-store"
    assert body["token_type"] == "Bearer"
    assert is_int(body["expires_in"]) and body["expires_in"] > 0
    assert is_int(body["ext_expires_in"])
    assert isinstance(body["scope"], str)
    assert isinstance(body["access_token"], str) and body["access_token"]
    info = b64url_json(body["client_info"])
    assert isinstance(info["uid"], str) and isinstance(info["utid"], str)
    header, claims = b64url_json(body["id_token"].split(".")[0]), b64url_json(body["id_token"].split(".")[1])
    assert header["alg"] == "ES256" and "kid" in header
    for claim in ("iss", "sub", "oid", "tid", "aud", "preferred_username", "email"):
        assert isinstance(claims[claim], str) and claims[claim], claim
    assert claims["ver"] == "2.0"
    assert is_int(claims["iat"]) and is_int(claims["exp"]) and claims["exp"] > claims["iat"]
    assert info["uid"] == claims["oid"] and info["utid"] == claims["tid"]
    if offline:
        assert isinstance(body["refresh_token"], str) and body["refresh_token"]
    else:
        assert "refresh_token" not in body
    return body
