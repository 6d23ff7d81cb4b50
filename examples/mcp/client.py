"""The MCP Python SDK's own OAuth client calling the example server's tool, signing in through Latchkey.

It finds Latchkey from the server's protected-resource metadata, registers itself (RFC 7591), sends the person to
Latchkey's sign-in pages, and keeps its registration and tokens in a file, so a second run signs in with neither.

    python examples/mcp/client.py http://127.0.0.1:8931/mcp
"""
import asyncio
import json
import sys
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

CALLBACK = "http://127.0.0.1:33418/callback"


class FileStorage(TokenStorage):
    """The registration and tokens, kept between runs in one JSON file."""

    def __init__(self, path):
        self.path = Path(path)

    def _read(self):
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def _write(self, key, model):
        saved = self._read()
        saved[key] = model.model_dump(mode="json", exclude_none=True)
        self.path.write_text(json.dumps(saved))

    async def get_tokens(self):
        saved = self._read().get("tokens")
        return OAuthToken.model_validate(saved) if saved else None

    async def set_tokens(self, tokens):
        self._write("tokens", tokens)

    async def get_client_info(self):
        saved = self._read().get("client")
        return OAuthClientInformationFull.model_validate(saved) if saved else None

    async def set_client_info(self, client_info):
        self._write("client", client_info)


def provider(server_url, storage, redirect_handler, callback_handler, redirect_uri=CALLBACK):
    metadata = OAuthClientMetadata(client_name="whoami example", redirect_uris=[redirect_uri], response_types=["code"],
                                   grant_types=["authorization_code", "refresh_token"], token_endpoint_auth_method="none")
    return OAuthClientProvider(server_url=server_url, client_metadata=metadata, storage=storage,
                               redirect_handler=redirect_handler, callback_handler=callback_handler)


async def whoami(server_url, auth):
    """Calls the tool; the provider signs in (or refreshes) when the server asks."""
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        async with streamable_http_client(server_url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("whoami", {})
                return result.content[0].text


def browser_handlers():
    """Opens the sign-in page in a browser and waits for Latchkey's redirect on the loopback callback."""
    arrived = {}
    done = threading.Event()

    class Callback(BaseHTTPRequestHandler):
        def do_GET(self):
            arrived.update({k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()})
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"Signed in: you can close this tab.")
            done.set()

        def log_message(self, *args):
            pass

    async def redirect(url):
        server = HTTPServer(("127.0.0.1", urlparse(CALLBACK).port), Callback)
        threading.Thread(target=server.handle_request, daemon=True).start()
        print("Opening", url)
        webbrowser.open(url)

    async def callback():
        await asyncio.to_thread(done.wait)
        return AuthorizationCodeResult(code=arrived["code"], state=arrived.get("state"), iss=arrived.get("iss"))

    return redirect, callback


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8931/mcp"
    redirect, callback = browser_handlers()
    print(asyncio.run(whoami(url, provider(url, FileStorage("mcp-client.json"), redirect, callback))))
