#!/usr/bin/env python3
"""A web app that signs its users in through Latchkey, configured with nothing but the issuer URL, a client id and a
secret: discovery, the authorization code flow with PKCE, ID token validation, userinfo, refresh and sign-out, all
done by Authlib, an unmodified OpenID client library. docs/openid.md walks through it.

    pip install Authlib requests      # Authlib brings joserfc
    python3 examples/oidc-webapp/app.py        # then open http://127.0.0.1:8000

Settings (environment): LATCHKEY_ISSUER (http://localhost:8080), CLIENT_ID and CLIENT_SECRET_FILE (the dev
configuration's web client), APP_PORT (8000)."""
import html
import http.server
import os
import secrets
import threading
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlencode, urlparse

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oidc.core import CodeIDToken
from joserfc import jwt  # Authlib's own JOSE library (authlib.jose is deprecated in its favour)
from joserfc.jwk import KeySet


class WebApp:
    def __init__(self, issuer, client_id, client_secret, port, scope="openid profile email offline_access"):
        self.issuer, self.client_id, self.client_secret, self.scope = issuer.rstrip("/"), client_id, client_secret, scope
        self.base = f"http://127.0.0.1:{port}"
        self.metadata = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=10).json()
        self.sessions = {}  # this app's own session cookie -> what it knows about the visitor
        self.lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), self.handler())

    def client(self):
        return OAuth2Session(self.client_id, self.client_secret, scope=self.scope, redirect_uri=self.base + "/callback",
                             code_challenge_method="S256")

    def keys(self):
        return KeySet.import_key_set(requests.get(self.metadata["jwks_uri"], timeout=10).json())

    def login_url(self, session, **extra):
        session["verifier"], session["nonce"] = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
        url, session["state"] = self.client().create_authorization_url(
            self.metadata["authorization_endpoint"], code_verifier=session["verifier"], nonce=session["nonce"], **extra)
        return url

    def callback(self, session, url):
        query = parse_qs(urlparse(url).query)
        if "error" in query:
            session["error"] = query["error"][0]
            return
        assert query.get("state", [None])[0] == session.pop("state", None), "state mismatch"
        assert query.get("iss", [None])[0] == self.metadata["issuer"], "iss mismatch (RFC 9207)"
        token = self.client().fetch_token(self.metadata["token_endpoint"], authorization_response=url,
                                          code_verifier=session.pop("verifier"))
        # The signature (by kid, against the published keys), then the ID token's rules for the code flow: iss, aud, exp,
        # iat, the nonce this visit sent, and at_hash binding the access token.
        decoded = jwt.decode(token["id_token"], self.keys(), algorithms=self.metadata["id_token_signing_alg_values_supported"])
        claims = CodeIDToken(decoded.claims, decoded.header, options={"iss": {"essential": True, "value": self.metadata["issuer"]}},
                             params={"nonce": session.pop("nonce"), "client_id": self.client_id, "access_token": token["access_token"]})
        claims.validate(leeway=5)
        session.update(token=dict(token), claims=dict(claims), error=None)

    def userinfo(self, session):
        client = self.client()
        client.token = session["token"]
        return client.get(self.metadata["userinfo_endpoint"], timeout=10).json()

    def refresh(self, session):
        client = self.client()
        session["token"] = dict(client.refresh_token(self.metadata["token_endpoint"], refresh_token=session["token"]["refresh_token"]))
        return session["token"]

    def logout_url(self, session):
        hint = session.get("token", {}).get("id_token")
        session.clear()
        return self.metadata["end_session_endpoint"] + "?" + urlencode(
            {"id_token_hint": hint or "", "post_logout_redirect_uri": self.base + "/", "state": secrets.token_urlsafe(8)})

    def handler(self):
        app = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                cookie = SimpleCookie(self.headers.get("Cookie", "")).get("app_session")
                key = cookie.value if cookie else secrets.token_urlsafe(16)
                with app.lock:
                    session = app.sessions.setdefault(key, {})
                path = urlparse(self.path).path
                try:
                    if path == "/login":
                        return self.redirect(app.login_url(session), key)
                    if path == "/callback":
                        app.callback(session, app.base + self.path)
                        return self.redirect(app.base + "/", key)
                    if path == "/logout":
                        return self.redirect(app.logout_url(session), key)
                    claims = session.get("claims")
                    body = (f"<h1>Signed in as {html.escape(claims.get('email', claims['sub']))}</h1><a href='/logout'>Sign out</a>"
                            if claims else f"<h1>Signed out</h1><p>{html.escape(session.get('error') or '')}</p><a href='/login'>Sign in</a>")
                    self.send(200, body, key)
                except Exception as error:  # shown to the developer running the example
                    self.send(500, f"<h1>Error</h1><pre>{html.escape(repr(error))}</pre>", key)

            def redirect(self, location, key):
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Set-Cookie", f"app_session={key}; Path=/; HttpOnly; SameSite=Lax")
                self.end_headers()

            def send(self, status, body, key):
                data = f"<!doctype html><title>Example app</title>{body}".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Set-Cookie", f"app_session={key}; Path=/; HttpOnly; SameSite=Lax")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


if __name__ == "__main__":
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    secret_file = os.environ.get("CLIENT_SECRET_FILE", os.path.join(root, "config", "dev-web-client.secret"))
    with open(secret_file) as f:
        secret = f.read().strip()
    app = WebApp(os.environ.get("LATCHKEY_ISSUER", "http://localhost:8080"),
                 os.environ.get("CLIENT_ID", "33333333-3333-3333-3333-333333333333"), secret, int(os.environ.get("APP_PORT", "8000")))
    print(f"example app on {app.base}: open it in a browser and sign in")
    app.server.serve_forever()
