"""examples/mcp/: the MCP Python SDK's server, protected by Latchkey, and the SDK's own OAuthClientProvider, unmodified:
it finds Latchkey from the server's RFC 9728 metadata, registers itself, signs a user in through the hosted pages
(consent included), calls the tool, reuses its stored registration and tokens on a second run, and refreshes by
itself once its access token has expired."""
import asyncio
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from unittest import mock
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
import requests

from conftest import sign_up
from harness import ROOT, Server, free_port
from openid_support import Pages

PASSWORD = "correct horse battery"
EXAMPLE = os.path.join(ROOT, "examples", "mcp")


def load(name):
    spec = importlib.util.spec_from_file_location(f"mcp_example_{name}", os.path.join(EXAMPLE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    latchkey = Server(config_text=f"""
openid:
  registration_enabled: true
resources:
  - {{url: "{resource}", scopes: [tools], access_token_seconds: 300}}
""").start()
    log = open(tmp_path_factory.mktemp("mcp") / "server.log", "w")
    mcp_server = subprocess.Popen([sys.executable, os.path.join(EXAMPLE, "server.py"), "--issuer", latchkey.base, "--port", str(port)],
                                  stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert mcp_server.poll() is None and time.monotonic() < deadline, open(log.name).read()
            time.sleep(0.1)
    yield latchkey, resource
    mcp_server.terminate()
    mcp_server.wait(10)
    latchkey.cleanup()


class HostedPages:
    """What a person does in the browser the SDK opens: sign in, allow, and Latchkey redirects to the callback."""

    def __init__(self, server, email):
        self.pages, self.email, self.redirect = Pages(server), email, None
        self.opened = 0

    async def open(self, url):
        self.opened += 1
        consent = self.pages.sign_in(url, self.email)
        assert consent.status_code == 200 and 'action="/ui/consent"' in consent.text, consent.text
        assert "whoami example" in consent.text and 'id="consent-resource"' in consent.text
        back = self.pages.submit(consent, "/ui/consent", decision="allow")
        assert back.status_code == 303, back.text
        self.redirect = {k: v[0] for k, v in parse_qs(urlparse(back.headers["Location"]).query).items()}

    async def callback(self):
        from mcp.client.auth import AuthorizationCodeResult
        return AuthorizationCodeResult(code=self.redirect["code"], state=self.redirect.get("state"), iss=self.redirect.get("iss"))


def test_the_sdk_client_signs_in_calls_the_tool_reuses_its_registration_and_refreshes(stack, tmp_path):
    latchkey, resource = stack
    client = load("client")
    email = f"mcp-{uuid.uuid4().hex[:10]}@example.com"
    sign_up(latchkey, email, PASSWORD)
    storage_path = tmp_path / "mcp-client.json"
    browser = HostedPages(latchkey, email)

    def provider():
        return client.provider(resource, client.FileStorage(storage_path), browser.open, browser.callback,
                               redirect_uri="http://127.0.0.1:33418/callback")

    from mcp.client.auth import oauth2
    from mcp.shared import auth_utils
    first = {}

    async def first_run():
        auth = provider()
        first["answer"] = await client.whoami(resource, auth)
        first["saved"] = json.loads(storage_path.read_text())
        # An hour on, by the SDK's clock (the clock its expiry checks read): its access token has expired and it
        # refreshes by itself, without the pages.
        later = mock.Mock(time=lambda: time.time() + 3600)
        with mock.patch.object(oauth2, "time", later), mock.patch.object(auth_utils, "time", later):
            first["later"] = await client.whoami(resource, auth)

    asyncio.run(first_run())
    answer, saved = first["answer"], first["saved"]
    access = jwt.decode(saved["tokens"]["access_token"], options={"verify_signature": False})
    assert access["aud"] == resource and access["azp"] == saved["client"]["client_id"], access
    assert answer == f"You are {access.get('preferred_username') or access.get('email') or access['sub']} ({access['sub']}).", answer
    assert saved["tokens"].get("refresh_token"), saved
    refreshed = json.loads(storage_path.read_text())
    assert first["later"] == answer and browser.opened == 1
    assert refreshed["tokens"]["access_token"] != saved["tokens"]["access_token"]
    assert refreshed["tokens"]["refresh_token"] != saved["tokens"]["refresh_token"]
    assert jwt.decode(refreshed["tokens"]["access_token"], options={"verify_signature": False})["aud"] == resource

    # A second run: the stored registration and tokens, no sign-in, no new registration.
    assert asyncio.run(client.whoami(resource, provider())) == answer and browser.opened == 1
    again = json.loads(storage_path.read_text())
    assert again["client"]["client_id"] == saved["client"]["client_id"] and again["tokens"] == refreshed["tokens"]

    # The server's metadata names Latchkey, and a token for another audience is refused there.
    metadata = requests.get(resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"), timeout=10).json()
    assert metadata["authorization_servers"] in ([latchkey.base], [latchkey.base + "/"]) and metadata["resource"] == resource, metadata
    assert metadata["scopes_supported"] == ["tools"], metadata
    refused = requests.post(resource, headers={"Authorization": "Bearer " + saved["tokens"]["access_token"] + "x",
                                               "Accept": "application/json, text/event-stream"}, json={}, timeout=10)
    assert refused.status_code == 401 and "resource_metadata" in refused.headers.get("WWW-Authenticate", ""), refused.headers
