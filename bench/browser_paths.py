"""The suite's rows for the provider's browser-born paths, each on a server configured as a provider (clients with
redirect URIs, passkeys on localhost):

- the code exchange: codes are made beforehand through the SSO session (`/authorize` with the cookie answers 303
  with a code), all with one PKCE verifier; wrk then redeems them from 16 connections (a confidential client over
  HTTP Basic, an access, ID and refresh token), stopping before the pool runs dry;
- a passkey sign-in: soft-webauthn signs, one browser at a time; the server's CPU is read around each of the three
  requests (the visit, the request options, the assertion), so the authenticator's own signing is not counted.
"""
import base64
import hashlib
import os
import secrets
import tempfile
import threading
from urllib.parse import parse_qs, urlparse

import harness
import openid_support
from proc_cpu import cpu_seconds
from test_openid import CALLBACK, authorize_url, new_user, query

VERIFIER = secrets.token_urlsafe(48)
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
REDIRECT = CALLBACK.replace("127.0.0.1", "127.0.0.1:4999")

# Codes are single-use: each request takes one from the pool; a thread stops while enough remain for the requests
# still in flight, so no request goes out without a fresh code.
CODE_LUA = """
local pool = {}
for line in io.lines(os.getenv("BENCH_CODES")) do pool[#pool + 1] = line end
local connections = tonumber(os.getenv("BENCH_CONNECTIONS"))
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = os.getenv("BENCH_BASIC")
request = function()
  local code = table.remove(pool)
  return wrk.format(nil, nil, nil, "grant_type=authorization_code&redirect_uri=" .. os.getenv("BENCH_REDIRECT")
    .. "&code_verifier=" .. os.getenv("BENCH_VERIFIER") .. "&code=" .. code)
end
response = function(status, headers, body)
  if #pool <= connections then wrk.thread:stop() end
end
"""


def start_provider(postgres_url=None):
    folder = tempfile.mkdtemp(prefix="latchkey-bench-")
    secret = os.path.join(folder, "client.secret")
    with open(secret, "w") as f:
        f.write(openid_support.SECRET)
    s = harness.Server(config_text=openid_support.provider_config(secret, [4999]), postgres_url=postgres_url,
                       env={"LATCHKEY_LOG_LEVEL": "info", "LATCHKEY_LIMITS_ENABLED": "false", "LATCHKEY_PASSKEYS_RP_ID": "localhost"})
    s.origin = f"http://localhost:{s.port}"
    s.env["LATCHKEY_PASSKEYS_ORIGINS"] = s.origin
    for key in ("LATCHKEY_PASSWORDS_COMMON_LIST", "LATCHKEY_MAIL_TEMPLATES", "LATCHKEY_APP_SERVICES_PAGES"):
        s.env.pop(key, None)
    return s.start()


def make_codes(s, pages, count, threads=4):
    """`count` codes from the SSO session, all bound to VERIFIER."""
    codes, lock = [], threading.Lock()

    def work(n):
        http = harness.requests.Session()
        http.cookies.update(pages.http.cookies)
        for _ in range(n):
            url, _ = authorize_url(s, prompt="none", code_challenge=CHALLENGE)
            answer = http.get(url, allow_redirects=False, timeout=10)
            code = query(answer)["code"]
            with lock:
                codes.append(code)

    workers = [threading.Thread(target=work, args=(count // threads,)) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return codes


def code_exchange_row(s, wrk, connections, count):
    pages, _, _ = new_user(s)
    codes = make_codes(s, pages, count)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(codes) + "\n")
    basic = "Basic " + base64.b64encode(f"{openid_support.WEB}:{openid_support.SECRET}".encode()).decode()
    try:
        # Seconds are the upper bound: the pool ends the run first.
        return wrk(s.base, "/oauth2/v2.0/token", 60, connections, lua=CODE_LUA, pid=s.proc.pid,
                   env={"BENCH_CODES": f.name, "BENCH_CONNECTIONS": str(connections), "BENCH_BASIC": basic,
                        "BENCH_REDIRECT": REDIRECT, "BENCH_VERIFIER": VERIFIER})
    finally:
        os.unlink(f.name)


def passkey_rows(s, rounds, round_trips=None):
    """Server CPU per request of a passkey sign-in's three requests, and of the whole sign-in; with a round-trip
    counter, the statements a sign-in sends."""
    from test_passkeys import Browser, register
    from passkey_support import authentication_json, request_options

    browser, device, _, credential = register(s)
    assert browser.call("/ui/passkeys/registration", credential).status_code == 200
    pid, spent = s.proc.pid, {"visit": 0.0, "options": 0.0, "assertion": 0.0}

    def timed(step, call):
        before = cpu_seconds(pid)
        result = call()
        spent[step] += cpu_seconds(pid) - before
        return result

    for round_ in range(rounds + rounds // 10):
        if round_ == rounds // 10:
            spent = dict.fromkeys(spent, 0.0)  # the first tenth warms up
            if round_trips:
                round_trips.reset()
        visitor = timed("visit", lambda: Browser(s))
        options = timed("options", lambda: visitor.call("/ui/passkeys/authentication/options")).json()
        assertion = authentication_json(device.get(request_options(options), s.origin))
        answer = timed("assertion", lambda: visitor.call("/ui/passkeys/authentication", assertion, interaction=True))
        assert answer.status_code == 200 and "code" in parse_qs(urlparse(answer.json()["location"]).query), answer.text
    rows = {f"passkey sign-in: {step}": {"cpu_us_per_request": spent[step] * 1e6 / rounds, "requests": rounds} for step in spent}
    rows["passkey sign-in (the three requests)"] = {"cpu_us_per_request": sum(spent.values()) * 1e6 / rounds, "requests": rounds}
    if round_trips:
        rows["passkey sign-in (the three requests)"]["round_trips"] = round_trips.count() / rounds
    return rows
