"""Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document), as MCP clients register: a client_id
that is a URL is fetched from a real loopback HTTP server and checked. A good document signs a user in with consent that
names the document's host; one whose client_id is not its URL, one past the size cap, one that never answers, one that
redirects to a private address or to another host, one on a denied host, and any while the feature is off are refused
with a page that says why, and never redirect."""
import html
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import sign_up
from harness import Server
from openid_support import Pages
from test_openid import authorize_url, exchange, query

PASSWORD = "correct horse battery"
REDIRECT = "http://127.0.0.1:5310/callback"


class Documents:
    """A loopback web server publishing metadata documents, counting what it serves."""

    def __init__(self):
        self.stall = threading.Event()
        self.fetches = {}
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.jwk = {**json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.key.public_key())), "kid": "k1", "use": "sig", "alg": "ES256"}
        documents = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                documents.fetches[self.path] = documents.fetches.get(self.path, 0) + 1
                status, headers, body = documents.answer(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.http.server_port}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def url(self, name):
        return f"{self.base}/clients/{name}.json"

    def document(self, name, **fields):
        return {"client_id": self.url(name), "client_name": "Totally Official Bank", "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "none", **fields}

    def answer(self, path):
        name = path.removeprefix("/clients/").removesuffix(".json")
        cached = {"Content-Type": "application/json", "Cache-Control": "max-age=600"}
        if name == "good":
            return 200, cached, json.dumps(self.document("good")).encode()
        if name == "same-host-redirect":
            return 302, {"Location": "/clients/moved.json"}, b""
        if name == "moved":
            return 200, cached, json.dumps(self.document("same-host-redirect")).encode()
        if name == "mismatch":
            return 200, cached, json.dumps(self.document("good")).encode()
        if name == "big":
            return 200, cached, json.dumps(self.document("big", software_id="x" * 6000)).encode()
        if name == "stalls":
            self.stall.wait(30)  # held until the test ends, never answered in time
            return 200, cached, b"{}"
        if name == "to-private":
            return 302, {"Location": "http://10.20.30.40/clients/good.json"}, b""
        if name == "to-metadata-service":
            return 302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""
        if name == "secret":
            return 200, cached, json.dumps(self.document("secret", client_secret="s3cr3t")).encode()
        if name == "basic-auth":
            return 200, cached, json.dumps(self.document("basic-auth", token_endpoint_auth_method="client_secret_basic")).encode()
        if name == "signed":
            return 200, cached, json.dumps(self.document("signed", token_endpoint_auth_method="private_key_jwt",
                                                         jwks_uri=f"{self.base}/clients/signed-keys.json")).encode()
        if name == "signed-keys":
            return 200, cached, json.dumps({"keys": [self.jwk]}).encode()
        if name == "signed-without-keys":
            return 200, cached, json.dumps(self.document("signed-without-keys", token_endpoint_auth_method="private_key_jwt")).encode()
        if name == "not-json":
            return 200, cached, b"<html>hello</html>"
        return 404, {}, b""

    def close(self):
        self.stall.set()
        self.http.shutdown()


@pytest.fixture(scope="module")
def documents():
    d = Documents()
    yield d
    d.close()


@pytest.fixture(scope="module")
def server(documents):
    s = Server(args=("serve", "--testing"), env={"LATCHKEY_OPENID_METADATA_DOCUMENTS_ENABLED": "true",
                    "LATCHKEY_OPENID_METADATA_DOCUMENT_DEVELOPMENT_HOSTS": "127.0.0.1",
                    "LATCHKEY_OPENID_METADATA_DOCUMENT_DENIED_HOSTS": "*.blocked.example,blocked.example"}).start()
    yield s
    s.cleanup()


def listed_clients(server):
    admin = requests.get(server.base + "/testing/v1/config", timeout=10).json()["admin_token"]
    answer = requests.get(server.admin_base + "/admin/v1/clients", headers={"Authorization": "Bearer " + admin}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["clients"]


def refusal(server, client_id):
    """The error page `/authorize` shows for this client_id: never a redirect, the cause in words."""
    url, _ = authorize_url(server, client=client_id, redirect=REDIRECT)
    page = requests.get(url, allow_redirects=False, timeout=30)
    assert page.status_code == 400 and "Location" not in page.headers, (page.status_code, page.text)
    return html.unescape(page.text)


def test_a_metadata_document_client_signs_a_user_in_with_consent_naming_its_host(server, documents):
    metadata = requests.get(server.base + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert metadata["client_id_metadata_document_supported"] is True and metadata["code_challenge_methods_supported"] == ["S256"]
    email = f"cimd-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(server, email, PASSWORD)
    client_id = documents.url("good")
    url, verifier = authorize_url(server, client=client_id, redirect=REDIRECT)
    pages = Pages(server)
    consent = pages.sign_in(url, email)
    text = html.unescape(consent.text)
    # Third-party: asked, with the name it gives itself and, plainly, the host it really comes from.
    assert consent.status_code == 200 and 'action="/ui/consent"' in consent.text, consent.text
    assert "Totally Official Bank" in text and 'id="consent-client-host"' in consent.text and "127.0.0.1" in text, text
    back = pages.submit(consent, "/ui/consent", decision="allow")
    assert back.status_code == 303, back.text
    tokens = exchange(server, query(back)["code"], verifier, client=client_id, secret=None, redirect=REDIRECT)
    assert tokens.status_code == 200 and {"access_token", "id_token", "refresh_token"} <= tokens.json().keys(), tokens.text
    refreshed = requests.post(server.base + "/oauth2/v2.0/token", timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"], "client_id": client_id})
    assert refreshed.status_code == 200, refreshed.text
    # Never the native API's grants, which would skip consent.
    native = requests.post(server.base + "/oauth2/v2.0/token", timeout=30, data={
        "grant_type": "password", "client_id": client_id, "username": email, "password": PASSWORD, "scope": "openid"})
    assert native.status_code in (400, 401) and native.json()["error"] in ("unauthorized_client", "invalid_client"), native.text
    # Fetched once: the stored copy serves the next visit while its max-age lasts.
    again, _ = authorize_url(server, client=client_id, redirect=REDIRECT)
    assert requests.get(again, allow_redirects=False, timeout=30).status_code in (200, 303)
    assert documents.fetches["/clients/good.json"] == 1
    # The operator sees where it came from.
    entry = next(c for c in listed_clients(server) if c["id"] == client_id)
    assert entry["source"] == "metadata_document" and entry["first_party"] is False and entry["confidential"] is False, entry

    # Deleted by the operator, it comes back at its next sign-in under the same id, but what it held does not.
    admin = requests.get(server.base + "/testing/v1/config", timeout=10).json()["admin_token"]
    deleted = requests.delete(server.admin_base + "/admin/v1/clients/" + quote(client_id, safe=""),
                              headers={"Authorization": "Bearer " + admin}, timeout=10)
    assert deleted.status_code == 204, deleted.text
    assert client_id not in [c["id"] for c in listed_clients(server)]
    again, _ = authorize_url(server, client=client_id, redirect=REDIRECT)
    assert requests.get(again, allow_redirects=False, timeout=30).status_code in (200, 303)
    assert documents.fetches["/clients/good.json"] == 2
    stale = requests.post(server.base + "/oauth2/v2.0/token", timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": refreshed.json()["refresh_token"], "client_id": client_id})
    assert stale.status_code == 400 and stale.json()["error"] == "invalid_grant", stale.text


def test_a_redirect_on_the_same_host_is_followed(server, documents):
    url, _ = authorize_url(server, client=documents.url("same-host-redirect"), redirect=REDIRECT)
    page = requests.get(url, allow_redirects=False, timeout=30)
    assert page.status_code == 200 and "/ui/sign-in" in page.text, page.text


@pytest.mark.parametrize("name, cause", [
    ("mismatch", "names another client_id than its own address"),
    ("big", "larger than 5 KB"),
    ("stalls", "did not answer in time"),
    ("to-private", "10.20.30.40, a private, loopback or link-local address"),
    ("to-metadata-service", "169.254.169.254, a private, loopback or link-local address"),
    ("secret", "cannot carry a secret"),
    ("basic-auth", "token_endpoint_auth_method none or private_key_jwt"),
    ("signed-without-keys", "private_key_jwt without a jwks_uri"),
    ("not-json", "is not one JSON object"),
    ("missing", "answered HTTP 404"),
])
def test_a_bad_document_is_refused_with_its_cause(server, documents, name, cause):
    text = refusal(server, documents.url(name))
    assert cause in text, text
    assert documents.url(name) not in [c["id"] for c in listed_clients(server)]


@pytest.mark.parametrize("client_id, cause", [
    ("https://10.1.2.3/client.json", "10.1.2.3, a private, loopback or link-local address"),
    ("https://[::1]/client.json", "a private, loopback or link-local address"),
    ("http://localhost:9/client.json", "must be an https URL"),
    ("https://tools.blocked.example/client.json", "a host this server does not accept"),
    ("https://example.com/", "with a path"),
    ("https://example.com/a/../client.json", "dot segments"),
])
def test_a_document_url_the_policy_keeps_out_is_never_fetched(server, client_id, cause):
    text = refusal(server, client_id)
    assert cause in text, text


def test_documents_are_refused_while_the_feature_is_off(documents):
    s = Server().start()
    try:
        metadata = requests.get(s.base + "/.well-known/oauth-authorization-server", timeout=10).json()
        assert metadata["client_id_metadata_document_supported"] is False
        text = refusal(s, documents.url("good"))
        assert "not registered" in text, text
    finally:
        s.cleanup()


def test_the_console_shows_where_a_document_came_from_and_deletes_it(tmp_path_factory, documents):
    from console_support import Operator, console_server, text_of
    s = console_server(tmp_path_factory, LATCHKEY_OPENID_METADATA_DOCUMENTS_ENABLED="true",
                       LATCHKEY_OPENID_METADATA_DOCUMENT_DEVELOPMENT_HOSTS="127.0.0.1")
    try:
        client_id = documents.url("good")
        url, _ = authorize_url(s, client=client_id, redirect=REDIRECT)
        assert requests.get(url, allow_redirects=False, timeout=30).status_code == 200
        operator = Operator(s).signed_in()
        page = operator.get("/clients")
        assert client_id in html.unescape(page.text) and "metadata document from 127.0.0.1" in text_of(page.text), page.text
        actions = re.findall(r'action="/console(/clients/([^"/]+)/delete)"', page.text)
        delete = next(path for path, segment in actions if unquote(segment) == client_id)
        assert "The client is deleted." in text_of(operator.act(delete).text)
        assert client_id not in html.unescape(operator.get("/clients").text)
    finally:
        s.cleanup()


def test_a_client_with_published_keys_authenticates_with_a_signed_assertion_used_once(server, documents):
    """private_key_jwt (RFC 7523): the document names its jwks_uri; the token request carries a client_assertion."""
    metadata = requests.get(server.base + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert "private_key_jwt" in metadata["token_endpoint_auth_methods_supported"]
    assert "ES256" in metadata["token_endpoint_auth_signing_alg_values_supported"]
    email = f"pkjwt-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(server, email, PASSWORD)
    client_id = documents.url("signed")
    token_endpoint = server.base + "/oauth2/v2.0/token"

    def assertion(key=None, kid="k1", **claims):
        now = int(time.time())
        body = {"iss": client_id, "sub": client_id, "aud": token_endpoint, "iat": now, "exp": now + 120,
                "jti": uuid.uuid4().hex, **claims}
        return jwt.encode(body, key or documents.key, algorithm="ES256", headers={"kid": kid})

    def code():
        url, verifier = authorize_url(server, client=client_id, redirect=REDIRECT)
        pages = Pages(server)
        consent = pages.sign_in(url, email)
        back = pages.submit(consent, "/ui/consent", decision="allow") if 'action="/ui/consent"' in consent.text else consent
        assert back.status_code == 303, back.text
        return query(back)["code"], verifier

    def redeem(code_and_verifier, **auth):
        code_value, verifier = code_and_verifier
        return requests.post(token_endpoint, timeout=30, data={
            "grant_type": "authorization_code", "code": code_value, "code_verifier": verifier, "redirect_uri": REDIRECT, **auth})

    signed = {"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
    # Without its assertion the client is refused, as a confidential client without its secret is.
    refused = redeem(code(), client_id=client_id)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client", refused.text
    first = assertion()
    tokens = redeem(code(), client_assertion=first, **signed)
    assert tokens.status_code == 200 and "refresh_token" in tokens.json(), tokens.text
    # Used once; and never with another audience, another key, a lifetime past ten minutes or another type.
    other = ec.generate_private_key(ec.SECP256R1())
    for bad, cause in [(first, "used already"), (assertion(aud="https://elsewhere.example/token"), "aud"),
                       (assertion(key=other), "signature"), (assertion(kid="k2"), "do not hold the key"),
                       (assertion(exp=int(time.time()) + 3600), "ten minutes"), (assertion(sub="someone-else"), "sub")]:
        answer = redeem(code(), client_assertion=bad, **signed)
        assert answer.status_code == 401 and answer.json()["error"] == "invalid_client", (cause, answer.text)
        assert cause in answer.json()["error_description"], (cause, answer.text)
    wrong_type = redeem(code(), client_assertion=assertion(), client_assertion_type="urn:example:other")
    assert wrong_type.status_code == 401 and "client_assertion_type" in wrong_type.json()["error_description"], wrong_type.text
    # Its refresh needs an assertion too.
    refreshed = requests.post(token_endpoint, timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"], "client_assertion": assertion(), **signed})
    assert refreshed.status_code == 200, refreshed.text
    bare = requests.post(token_endpoint, timeout=30, data={
        "grant_type": "refresh_token", "refresh_token": refreshed.json()["refresh_token"], "client_id": client_id})
    assert bare.status_code == 401 and bare.json()["error"] == "invalid_client", bare.text
    assert documents.fetches["/clients/signed-keys.json"] == 1
