"""Resource indicators (RFC 8707): tokens asked for one of the operator's APIs carry its URL, and only that, as `aud`;
the resource server of docs/openid.md (PyJWT, run as the docs print it) accepts them and another resource refuses
them; unknown or wider resources are `invalid_target` on every request that names one; consent names the resource."""
import os
import re
import uuid

import jwt
import pytest
import requests

from conftest import sign_up
from harness import ROOT, Server
from openid_support import Pages
from test_openid import authorize_url, exchange, query

WEB = "e0000000-0000-4000-8000-000000000001"
THIRD = "e0000000-0000-4000-8000-000000000002"
DEVICE = "e0000000-0000-4000-8000-000000000003"
FILES = "https://files.example.com/api"
MCP = "https://mcp.example.com/mcp"
PASSWORD = "correct horse battery"
REDIRECT = "http://127.0.0.1:4999/callback"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    secret = tmp_path_factory.mktemp("resources") / "client.secret"
    secret.write_text("s" * 40 + "\n")
    config = f"""
clients:
  - {{id: 11111111-1111-1111-1111-111111111111, name: native}}
  - {{id: {WEB}, name: Web app, redirect_uris: ["http://127.0.0.1/callback"], secret_file: "{secret}"}}
  - {{id: {THIRD}, name: Partner tool, redirect_uris: ["http://127.0.0.1/callback"], secret_file: "{secret}", first_party: false}}
  - {{id: {DEVICE}, name: TV app, grant_types: [device_code, refresh_token]}}
resources:
  - {{url: "{FILES}", scopes: [files.read]}}
  - {{url: "{MCP}", scopes: [tools], access_token_seconds: 120, first_party_consent: false}}
"""
    s = Server(config_text=config).start()
    s.secret = "s" * 40
    yield s
    s.cleanup()


def resource_server(server, resource):
    """docs/openid.md's Python resource server, as printed, for this issuer and resource."""
    with open(os.path.join(ROOT, "docs/openid.md")) as f:
        section = f.read().split("## Tokens for your APIs")[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = code.replace('"https://id.example.com"', repr(server.base)).replace('"https://files.example.com/api"', repr(resource))
    namespace = {}
    exec(compile(code, "docs/openid.md", "exec"), namespace)
    return namespace["caller"]


def account(server):
    email = f"rs-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(server, email, PASSWORD)
    return email


def claims(token):
    return jwt.decode(token, options={"verify_signature": False})


def refused(answer, error, status=400):
    assert answer.status_code == status, (answer.status_code, answer.text)
    assert answer.json()["error"] == error and answer.json()["error_description"], answer.text
    return answer.json()["error_description"]


def token_request(server, client, **form):
    return requests.post(server.base + "/oauth2/v2.0/token", data=form, auth=(client, server.secret), timeout=10)


def signed_in(server, client, resource, scope, email, consent=None):
    """/authorize with `resource` through the pages; the code's redirect and the PKCE verifier."""
    url, verifier = authorize_url(server, client=client, redirect=REDIRECT, scope=scope, resource=resource)
    pages = Pages(server)
    page = pages.sign_in(url, email)
    if consent is not None:
        assert page.status_code == 200 and 'action="/ui/consent"' in page.text, page.text
        consent(page)
        page = pages.submit(page, "/ui/consent", decision="allow")
    assert page.status_code == 303 and "code" in query(page), page.text
    return query(page)["code"], verifier


def test_discovery_says_resource_indicators_and_lists_their_scopes(server):
    for path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
        document = requests.get(server.base + path, timeout=10).json()
        assert document["resource_indicators_supported"] is True
        assert {"openid", "files.read", "tools"} <= set(document["scopes_supported"])


def test_a_token_for_one_resource_is_accepted_there_and_refused_by_another(server):
    email = account(server)
    code, verifier = signed_in(server, WEB, FILES, "openid files.read offline_access", email)
    answer = exchange(server, code, verifier, client=WEB, secret=server.secret, redirect=REDIRECT)
    assert answer.status_code == 200, answer.text
    tokens = answer.json()
    access = claims(tokens["access_token"])
    assert access["aud"] == FILES and access["azp"] == WEB and "files.read" in access["scp"].split()
    assert claims(tokens["id_token"])["aud"] == WEB
    # The resource's own check (the docs' code) lets it in; the other resource's refuses it.
    assert resource_server(server, FILES)("Bearer " + tokens["access_token"], "files.read")["sub"] == access["sub"]
    with pytest.raises(jwt.InvalidAudienceError):
        resource_server(server, MCP)("Bearer " + tokens["access_token"], "tools")
    with pytest.raises(PermissionError):
        resource_server(server, FILES)("Bearer " + tokens["access_token"], "files.write")
    # This server's own userinfo is another resource too.
    assert requests.get(server.base + "/oidc/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]},
                        timeout=10).status_code == 401
    introspected = requests.post(server.base + "/oidc/introspect", data={"token": tokens["access_token"]}, auth=(WEB, server.secret),
                                 timeout=10).json()
    assert introspected["active"] is True and introspected["aud"] == FILES and introspected["client_id"] == WEB
    refresh = requests.post(server.base + "/oidc/introspect", data={"token": tokens["refresh_token"]}, auth=(WEB, server.secret),
                            timeout=10).json()
    assert refresh["active"] is True and refresh["aud"] == FILES

    # A refresh keeps the resource; naming another is wider, and refused before the token rotates.
    assert "cannot ask for another" in refused(
        token_request(server, WEB, grant_type="refresh_token", refresh_token=tokens["refresh_token"], resource=MCP), "invalid_target")
    same = token_request(server, WEB, grant_type="refresh_token", refresh_token=tokens["refresh_token"], resource=FILES)
    assert same.status_code == 200 and claims(same.json()["access_token"])["aud"] == FILES, same.text
    unnamed = token_request(server, WEB, grant_type="refresh_token", refresh_token=same.json()["refresh_token"])
    assert unnamed.status_code == 200 and claims(unnamed.json()["access_token"])["aud"] == FILES, unnamed.text


def test_a_token_without_a_resource_is_the_clients_and_cannot_widen_to_one(server):
    email = account(server)
    code, verifier = signed_in(server, WEB, None, "openid offline_access", email)
    tokens = exchange(server, code, verifier, client=WEB, secret=server.secret, redirect=REDIRECT).json()
    assert claims(tokens["access_token"])["aud"] == WEB
    refused(token_request(server, WEB, grant_type="refresh_token", refresh_token=tokens["refresh_token"], resource=FILES),
            "invalid_target")


def test_unknown_repeated_or_other_resources_are_invalid_target(server):
    email = account(server)
    pages = Pages(server)
    url, _ = authorize_url(server, client=WEB, redirect=REDIRECT, resource="https://unknown.example.com/")
    answer = pages.get(url)
    assert answer.status_code == 303 and query(answer)["error"] == "invalid_target" and query(answer)["iss"] == server.base
    assert query(answer)["state"].startswith("st-")
    url, _ = authorize_url(server, client=WEB, redirect=REDIRECT, resource=FILES)
    assert query(pages.get(url + "&resource=" + requests.utils.quote(MCP, safe="")))["error"] == "invalid_target"
    # A resource's scopes come with that resource only.
    url, _ = authorize_url(server, client=WEB, redirect=REDIRECT, resource=FILES, scope="openid tools")
    assert query(pages.get(url))["error"] == "invalid_request"
    # The token request may repeat the code's resource, never name another; the code is spent by the attempt.
    code, verifier = signed_in(server, WEB, FILES, "openid files.read", email)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier}
    refused(token_request(server, WEB, resource=MCP, **form), "invalid_target")
    refused(token_request(server, WEB, resource=FILES, **form), "invalid_grant")
    refused(requests.post(server.base + "/oauth2/v2.0/devicecode", data={"client_id": DEVICE, "resource": "https://x.example/"},
                          timeout=10), "invalid_target")


def test_consent_names_the_resource_and_is_asked_once_for_it(server):
    email = account(server)

    def names_mcp(page):
        assert "Web app" in page.text and MCP in page.text and 'id="consent-resource"' in page.text, page.text

    # first_party_consent: false: the operator's own app asks too, once.
    code, verifier = signed_in(server, WEB, MCP, "openid tools", email, consent=names_mcp)
    tokens = exchange(server, code, verifier, client=WEB, secret=server.secret, redirect=REDIRECT).json()
    access = claims(tokens["access_token"])
    assert access["aud"] == MCP and access["exp"] - access["iat"] == 120 and tokens["expires_in"] == 120
    assert claims(tokens["id_token"])["exp"] - claims(tokens["id_token"])["iat"] != 120
    signed_in(server, WEB, MCP, "openid tools", email)

    # A third-party client's consent without a resource does not cover one.
    signed_in(server, THIRD, None, "openid", email, consent=lambda page: None)

    def names_files(page):
        assert "Partner tool" in page.text and FILES in page.text, page.text

    code, verifier = signed_in(server, THIRD, FILES, "openid", email, consent=names_files)
    tokens = exchange(server, code, verifier, client=THIRD, secret=server.secret, redirect=REDIRECT).json()
    assert claims(tokens["access_token"])["aud"] == FILES


def test_a_device_asks_for_a_resource(server):
    email = account(server)
    device = requests.post(server.base + "/oauth2/v2.0/devicecode",
                           data={"client_id": DEVICE, "scope": "openid files.read offline_access", "resource": FILES}, timeout=10).json()
    pages = Pages(server)
    page = pages.submit(pages.get("/ui/device"), "/ui/device", user_code=device["user_code"])
    consent = pages.submit(page, "/ui/sign-in", email=email, password=PASSWORD, method="password")
    assert consent.status_code == 200 and FILES in consent.text, consent.text
    assert pages.submit(consent, "/ui/consent", decision="allow").status_code == 303
    poll = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device["device_code"], "client_id": DEVICE}
    tokens = requests.post(server.base + "/oauth2/v2.0/token", data=poll, timeout=10)
    assert tokens.status_code == 200 and claims(tokens.json()["access_token"])["aud"] == FILES, tokens.text
