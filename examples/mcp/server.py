"""An MCP server (the MCP Python SDK's MCPServer) whose one tool answers who is signed in, protected by Latchkey.

It publishes RFC 9728 protected-resource metadata naming Latchkey as its authorization server, and accepts only
Latchkey's access tokens for itself: signed by Latchkey's keys, from Latchkey's issuer, with `aud` this server's URL.

    python examples/mcp/server.py --issuer http://localhost:8080 --port 8931
"""
import argparse
import logging

import jwt
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer


class LatchkeyTokens:
    """Checks a bearer token as docs/openid.md's resource server does: Latchkey's keys, issuer and this audience."""

    def __init__(self, issuer, resource):
        self.issuer, self.resource = issuer, resource
        self.keys = jwt.PyJWKClient(issuer + "/discovery/v2.0/keys")  # jwks_uri: kept, fetched again for a new kid

    async def verify_token(self, token):
        try:
            key = self.keys.get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=["ES256"], issuer=self.issuer, audience=self.resource,
                                options={"require": ["exp", "iat", "sub", "aud", "iss"]})
        except jwt.PyJWTError as error:
            logging.getLogger("whoami").warning("bearer token refused: %s", error)
            return None
        return AccessToken(token=token, client_id=claims.get("azp", ""), scopes=claims.get("scp", "").split(),
                           expires_at=claims["exp"], resource=self.resource, subject=claims["sub"], claims=claims)


def build(issuer, port):
    resource = f"http://127.0.0.1:{port}/mcp"
    server = MCPServer("whoami", token_verifier=LatchkeyTokens(issuer, resource),
                       auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=["tools"],
                                         validate_token_resource=True))

    @server.tool()
    def whoami() -> str:
        """Who the caller signed in to Latchkey as."""
        token = get_access_token()
        claims = token.claims or {}
        return f"You are {claims.get('preferred_username') or claims.get('email') or token.subject} ({token.subject})."

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", default="http://localhost:8080")  # the development server's public_url
    parser.add_argument("--port", type=int, default=8931)
    arguments = parser.parse_args()
    build(arguments.issuer, arguments.port).run("streamable-http", host="127.0.0.1", port=arguments.port)
