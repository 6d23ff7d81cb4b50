"""The OpenID provider, as a web app's server drives it: the code flow with PKCE through the hosted pages, signed in
with the stand-in Apple, the code exchanged with the ready web client's secret; the access token expires with the
clock."""
import base64
import hashlib
import html
import re
import secrets

import requests

from conftest import BASE, advance

CALLBACK = "http://127.0.0.1:5555/callback"


def test_continue_with_apple_then_tokens_that_expire(config):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    browser = requests.Session()
    page = browser.get(BASE + "/oauth2/v2.0/authorize", timeout=10, params={
        "client_id": config["web_client_id"], "redirect_uri": CALLBACK, "response_type": "code", "scope": "openid email",
        "state": "s1", "code_challenge": challenge, "code_challenge_method": "S256"})
    fields = dict(re.findall(r'name="(csrf|interaction)" value="([^"]*)"', page.text))
    to_apple = browser.post(BASE + "/ui/upstream", data={**fields, "provider": "apple"}, allow_redirects=False, timeout=10)
    form = browser.get(to_apple.headers["location"], timeout=10)
    hidden = {k: html.unescape(v) for k, v in re.findall(r'name="(client_id|redirect_uri|state|nonce)" value="([^"]*)"', form.text)}
    back = browser.post(BASE + "/testing/v1/issuer/apple/authorize", data={**hidden, "sub": "apple-user-3"}, allow_redirects=False, timeout=10)
    done = browser.get(back.headers["location"], allow_redirects=False, timeout=10)
    code = re.search(r"[?&]code=([^&]+)", done.headers["location"]).group(1)
    tokens = requests.post(BASE + "/oauth2/v2.0/token", auth=(config["web_client_id"], config["web_client_secret"]), timeout=10,
                           data={"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "code_verifier": verifier}).json()
    bearer = {"Authorization": "Bearer " + tokens["access_token"]}
    assert requests.get(BASE + "/oidc/userinfo", headers=bearer, timeout=10).status_code == 200
    advance(2 * 3600)
    assert requests.get(BASE + "/oidc/userinfo", headers=bearer, timeout=10).status_code == 401
