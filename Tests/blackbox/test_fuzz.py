"""A bounded fuzz run over every surface (issues M and V): generated methods, paths, headers, forms, JSON, tokens and
framing, sent over raw sockets to both listeners: the native API and its second factors, App Services with its
identity providers and API keys, Parse and its link pages, the OpenID provider's endpoints and pages, the admin API
with its token and the console with a signed-in session. Fails on any 5xx, any answer slower than a second, any
error outside its surface's shape (`rawhttp.surface_of`, the table written again independently), and a server that
stops answering. Seeded with the cases the first fuzz runs found.
FUZZ_EXAMPLES sets how many requests per strategy (default 4000: 10,000 requests in all, about a minute here);
FUZZ_TALLY names a file the run writes its counts to."""
import base64
import json
import os

import collections
import re

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import rawhttp
from console_support import TOKEN, Operator, console_server
from harness import CLIENT_ID
from parse_client import MASTER_KEY

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "4000"))
APPS = [{"id": "app1", "providers": ["local-userpass", "anon-user", "api-key"]}, {"id": "fn", "confirmation": {"mode": "auto"}}]
AS = "/api/client/v2.0"
NATIVE = ["/signup/v1.0/start", "/signup/v1.0/challenge", "/signup/v1.0/continue", "/oauth2/v2.0/initiate",
          "/oauth2/v2.0/challenge", "/oauth2/v2.0/token", "/resetpassword/v1.0/start", "/resetpassword/v1.0/challenge",
          "/resetpassword/v1.0/continue", "/resetpassword/v1.0/submit", "/resetpassword/v1.0/poll_completion",
          # second factors: MSAL's mfa_required and just-in-time registration, authenticators
          "/oauth2/v2.0/introspect", "/register/v1.0/introspect", "/register/v1.0/challenge", "/register/v1.0/continue",
          "/mfa/v1.0/authenticator"]
PROVIDER = [f"{AS}/app/app1/auth/providers/local-userpass/{step}" for step in
            ("register", "confirm", "confirm/send", "confirm/call", "reset", "reset/send", "reset/call", "login")]
IDENTITIES = [f"{AS}/app/app1/auth/providers/{p}/login" for p in ("anon-user", "api-key", "oauth2-apple", "custom-token", "custom-function")]
IDENTITIES += [f"{AS}/auth/api_keys", f"{AS}/auth/api_keys/0123456789abcdef01234567", f"{AS}/auth/delete"]
PARSE = ["/parse/users", "/parse/login", "/parse/logout", "/parse/users/me", "/parse/users/abc", "/parse/requestPasswordReset",
         "/parse/verificationEmailRequest", "/parse/sessions/me", "/parse/sessions", "/parse/functions/hello", "/parse/loginAs",
         "/parse/upgradeToRevocableSession", "/parse/apps/testAppId/verify_email", "/parse/apps/testAppId/request_password_reset",
         "/parse/apps/testAppId/choose_password"]
OTHER = ["/oidc/userinfo", "/discovery/v2.0/keys", "/.well-known/openid-configuration", "/health/ready", "/health/live",
         "/confirm", "/reset-password", f"{AS}/auth/session", f"{AS}/auth/profile", f"{AS}/app/app1/location",
         f"{AS}/app/nope/location", "/oauth2/v2.0/authorize", "/oauth2/v2.0/logout", "/oidc/introspect", "/oidc/revoke",
         "/ui/sign-in", "/ui/code", "/ui/sign-up", "/ui/reset/code", "/ui/consent", "/ui/upstream/callback", "/ui/style.css",
         "/ui/second-factor/code", "/ui/second-factor/send", "/ui/second-factor/enrol", "/ui/second-factor/enrol/code",
         "/ui/second-factor/authenticator", "/ui/second-factor/authenticator/code", "/ui/second-factor/done", "/ui/reset",
         "/ui/sign-up/code", "/ui/code/resend", "/ui/upstream"]
PATHS = NATIVE + ["/contoso.onmicrosoft.com" + p for p in NATIVE[:3]] + PROVIDER + IDENTITIES + PARSE + OTHER
ADMIN = ["/admin/v1/users", "/admin/v1/users/nobody", "/admin/v1/users/nobody/unlock", "/admin/v1/keys", "/admin/v1/keys/rotate",
         "/admin/v1/audit", "/admin/v1/mail/failed", "/admin/v1/mail/retry", "/admin/v1/clients", "/metrics",
         "/console/", "/console/users", "/console/users/nobody", "/console/users/nobody/disable", "/console/keys",
         "/console/keys/rotate", "/console/keys/x/revoke", "/console/mail", "/console/audit", "/console/clients",
         "/console/sign-in", "/console/sign-out", "/console/style.css"]
# Path variants the router also accepts: repeated slashes, dot segments, an encoded slash, matrix parameters.
VARIANTS = [lambda p: p, lambda p: "/" + p, lambda p: p.replace("/", "//", 2), lambda p: "/x/.." + p, lambda p: p + ";jsessionid=1",
            lambda p: p.replace("/", "%2F", 2).replace("%2F", "/", 1)]
FIELDS = ["client_id", "username", "password", "challenge_type", "continuation_token", "grant_type", "oob", "attributes",
          "scope", "new_password", "refresh_token", "email", "token", "tokenId", "arguments", "client_info", "authData", "key",
          "id_token", "csrf", "name", "next", "confirm", "sessionToken", "access_token"]

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)
scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), text)
json_value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(text, inner, max_size=5)),
                          max_leaves=20)
deep = st.integers(min_value=1, max_value=3000).map(lambda d: "[" * d + "]" * d)


def form_value():
    return st.one_of(text, st.just(CLIENT_ID), st.just("oob password redirect"), st.just("user@example.com"),
                     json_value.map(json.dumps), deep, st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


forms = st.dictionaries(st.sampled_from(FIELDS), form_value(), max_size=6)
bodies = st.one_of(
    forms.map(lambda f: ("application/x-www-form-urlencoded", "&".join(f"{k}={v}" for k, v in f.items()).encode("utf-8", "replace"))),
    st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=6).map(lambda d: ("application/json", json.dumps(d).encode())),
    deep.map(lambda d: ("application/json", ('{"email":' + d + "}").encode())),
    st.binary(max_size=300).map(lambda b: ("application/octet-stream", b)),
    json_value.map(lambda v: ("application/json", json.dumps(v).encode())),
)
bearer = st.one_of(st.none(), text.map(lambda t: "Bearer " + t.encode("latin-1", "replace").decode("latin-1")),
                   deep.map(lambda d: "Bearer " + base64.urlsafe_b64encode(('{"a":' + d + "}").encode()).decode() + ".e30.AA"))
methods = st.sampled_from(["GET", "POST", "POST", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD", "CONNECT", "TRACE", "FOO"])
framings = st.sampled_from(["length", "length", "chunked", "broken-chunk", "bad-te", "short"])


TALLY = collections.Counter()


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    s = console_server(tmp_path_factory, LATCHKEY_APP_SERVICES_APPS=json.dumps(APPS),
                       LATCHKEY_SERVER_CORS_ALLOWED_ORIGINS="[https://app.example.com]", LATCHKEY_PASSWORDS_SCRYPT_LOG_N="10",
                       LATCHKEY_PARSE_APPS=json.dumps([{"id": "testAppId", "master_key": MASTER_KEY}]))
    operator = Operator(s).signed_in()
    operator.get("/")
    s.console_cookie = "; ".join(f"{c.name}={c.value}" for c in operator.http.cookies)
    s.console_csrf = operator.csrf
    yield s
    log = s.read_log()
    s.cleanup()
    assert "Fatal error" not in log and "unhandled" not in log


def build(method, path, content_type, body, auth, framing, origin, extra=None):
    headers = {"Content-Type": content_type, "client-request-id": "11111111-2222-3333-4444-555555555555", **(extra or {})}
    if auth:
        headers["Authorization"] = auth
    if origin:
        headers["Origin"] = origin
    if framing in ("length", "chunked"):
        return rawhttp.request(method, path, body, headers, framing), False
    raw = rawhttp.request(method, path, b"", headers, "none")[:-2]  # open the head again
    if framing == "broken-chunk":
        return raw + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + body, True
    if framing == "bad-te":
        return raw + b"Transfer-Encoding: gzip, xchunked\r\n\r\n" + body, True
    return raw + f"Content-Length: {len(body) + 50}\r\n\r\n".encode() + body, True  # shorter than announced


def check(target, method, path, raw, broken, admin=False):
    answer = rawhttp.send(target.admin_port if admin else target.port, raw, close_write=broken)
    if answer is None:
        assert broken, f"{method} {path}: connection closed without an answer"
        TALLY["closed after broken framing"] += 1
        return
    surface = rawhttp.surface_of(path, "/parse", admin)
    TALLY[f"{surface} {answer.status // 100}xx"] += 1
    assert answer.status < 500, f"{method} {path}: {answer.status} {answer.body[:200]!r}"
    assert answer.seconds < 1.0, f"{method} {path}: {answer.seconds:.2f} s"
    if method == "HEAD":
        return
    reason = rawhttp.check_shape(path, answer, "/parse", admin)
    assert reason is None, f"{method} {path}: {reason}"


@seed(20261124)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)
@given(method=methods, path=st.one_of(st.sampled_from(PATHS), st.sampled_from(PATHS).map(lambda p: p + "/x"), text.map(lambda t: "/" + t)),
       variant=st.sampled_from(VARIANTS), body=bodies, auth=bearer, framing=framings,
       origin=st.sampled_from([None, "https://app.example.com", "https://evil.example"]),
       parse=st.sampled_from([None, "app", "master"]))
def test_fuzz_every_endpoint(target, method, path, variant, body, auth, framing, origin, parse):
    path = variant(escape(path))
    headers = {"X-Parse-Application-Id": "testAppId"} if parse else {}
    if parse == "master":
        headers["X-Parse-Master-Key"] = MASTER_KEY
    raw, broken = build(method, path, body[0], body[1], auth, framing, origin, headers)
    check(target, method, path, raw, broken)


@seed(1)
@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.sampled_from(NATIVE + PROVIDER + IDENTITIES + PARSE + ["/reset-password", "/ui/sign-in", "/ui/code"]), body=bodies,
       framing=framings)
def test_fuzz_posts_to_flows(target, path, body, framing):
    raw, broken = build("POST", path, body[0], body[1], None, framing, None, {"X-Parse-Application-Id": "testAppId"})
    check(target, "POST", path, raw, broken)


@seed(7)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(method=methods, path=st.one_of(st.sampled_from(ADMIN), text.map(lambda t: "/console/" + t), text.map(lambda t: "/admin/v1/" + t)),
       variant=st.sampled_from(VARIANTS), body=bodies, framing=framings, token=st.sampled_from([None, TOKEN, "wrong"]),
       session=st.booleans(), csrf=st.sampled_from([None, "valid", "forged"]))
def test_fuzz_the_admin_listener(target, method, path, variant, body, framing, token, session, csrf):
    """The admin API with and without its token, the console with and without a signed-in session and its CSRF token."""
    path = variant(escape(path))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if session:
        headers["Cookie"] = target.console_cookie
    content_type, payload = body
    if csrf and content_type == "application/x-www-form-urlencoded":
        value = target.console_csrf if csrf == "valid" else "forged"
        payload = (payload + b"&" if payload else b"") + b"csrf=" + value.encode()
    if re.search(r"(rotate|revoke|disable|sign-out|unlock|retry)$", path) and method == "POST" and csrf == "valid":
        method = "GET"  # a valid form would really rotate keys or end the session the rest of the run uses
    raw, broken = build(method, path, content_type, payload, None, framing, None, headers)
    check(target, method, path, raw, broken, admin=True)


def test_server_still_answers_after_the_fuzz(target):
    answer = rawhttp.send(target.port, rawhttp.request("GET", "/health/ready"))
    assert answer.status == 200 and answer.seconds < 1
    total = sum(TALLY.values())
    if os.environ.get("FUZZ_TALLY"):
        with open(os.environ["FUZZ_TALLY"], "w") as f:
            json.dump({"requests": total, "by_surface_and_class": dict(sorted(TALLY.items()))}, f, indent=1)
    # Each strategy ran (a failing example stops its test early, and then that test fails on its own).
    assert total >= EXAMPLES * 5 // 2, TALLY


def escape(path):
    return "/" + "".join(c if 0x21 <= ord(c) < 0x7F else "%%%02X" % (ord(c) & 0xFF) for c in path.lstrip("/"))
