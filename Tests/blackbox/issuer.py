"""A loopback OpenID issuer that signs ID tokens the way Apple (RS256, `email_verified` as the string "true") and
Google (RS256, two issuer spellings, `email_verified` a boolean) do, and serves its keys as a JWKS with a
Cache-Control max-age. It counts key fetches, can rotate to a new key, and can go down."""
import json
import ssl
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from harness import free_port, send_json

APPLE_ISSUER = "https://appleid.apple.com"
GOOGLE_ISSUER = "https://accounts.google.com"


class Issuer:
    def __init__(self, iss, audience, algorithm="RS256", max_age=3600, tls=None):
        """`tls`: (certificate, key) files to serve the keys over HTTPS, as a private issuer does."""
        self.iss, self.audience, self.algorithm, self.max_age = iss, audience, algorithm, max_age
        self.keys = []  # (kid, private key), newest last; all published
        self.fetches = 0
        self.down = False
        # Authorization codes this issuer will exchange (code -> subject), and the client secret it expects.
        self.codes, self.client_secret = {}, "issuer-client-secret"
        self.rotate()
        self.port = free_port()
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if issuer.down:
                    self.send_response(503)
                    self.end_headers()
                    return
                issuer.fetches += 1
                body = json.dumps(issuer.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", f"public, max-age={issuer.max_age}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                from urllib.parse import parse_qs
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
                sub = issuer.codes.pop(form.get("code"), None)
                good = form.get("grant_type") == "authorization_code" and form.get("client_secret") == issuer.client_secret
                status, body = (200, {"id_token": issuer.token(sub, aud=form["client_id"]), "access_token": "x"}) if sub and good \
                    else (400, {"error": "invalid_grant"})
                send_json(self, status, json.dumps(body).encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.scheme = "http"
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def jwks_url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}/keys"

    @property
    def token_url(self):
        return f"http://127.0.0.1:{self.port}/token"

    def code_for(self, sub):
        code = "4/" + uuid.uuid4().hex
        self.codes[code] = sub
        return code

    def rotate(self):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if self.algorithm == "RS256" \
            else ec.generate_private_key(ec.SECP256R1())
        kid = uuid.uuid4().hex[:10]
        self.keys.append((kid, key))
        return kid

    def jwks(self):
        out = []
        for kid, key in self.keys:
            algorithm = RSAAlgorithm if self.algorithm == "RS256" else ECAlgorithm
            jwk = json.loads(algorithm.to_jwk(key.public_key()))
            jwk.update({"kid": kid, "use": "sig", "alg": self.algorithm})
            out.append(jwk)
        return {"keys": out}

    def token(self, sub, email=None, verified=True, aud=None, iss=None, exp_in=600, iat_offset=0, kid=None, key=None,
              algorithm=None, nonce=None, **claims):
        now = int(time.time())
        body = {"iss": iss or self.iss, "aud": aud or self.audience, "sub": sub, "iat": now + iat_offset, "exp": now + exp_in,
                **claims}
        if email:
            body["email"] = email
            # Apple writes the flag as a string, Google as a boolean.
            body["email_verified"] = ("true" if verified else "false") if self.iss == APPLE_ISSUER else verified
        if nonce:
            body["nonce"] = nonce
        kid = kid or self.keys[-1][0]
        signing_key = key if key is not None else dict(self.keys)[kid]
        return jwt.encode(body, signing_key, algorithm=algorithm or self.algorithm, headers={"kid": kid})

    def close(self):
        self.server.shutdown()
        self.server.server_close()
