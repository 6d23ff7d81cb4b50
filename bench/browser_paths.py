"""The suite's rows for the provider's browser-born paths, each on a server configured as a provider (clients with
redirect URIs, passkeys on localhost):

- the code exchange: codes are made beforehand through the SSO session (`/authorize` with the cookie answers 303
  with a code), all with one PKCE verifier; wrk then redeems them from 16 connections (a confidential client over
  HTTP Basic, an access, ID and refresh token), stopping before the pool runs dry;
- a passkey sign-in: eight browsers at once (processes), each with its own passkey, make the visits and their request
  options while soft-webauthn signs each visit's assertion, the server's CPU read around that phase; then wrk sends
  the assertions from 16 connections, as the other rows' loads do, stopping before the pool runs dry.
"""
import base64
import hashlib
import html
import json
import multiprocessing
import os
import re
import secrets
import shutil
import tempfile
import threading
from urllib.parse import parse_qs, urlparse

import harness
import openid_support
from proc_cpu import cpu_seconds
from test_openid import CALLBACK, authorize_url, query

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


# Each assertion answers its own visit's challenge once: taken from the pool, each with its visit's cookies, CSRF
# token and sealed interaction (lines of four tab-separated fields); a thread stops while enough remain for the
# requests still in flight.
PASSKEY_LUA = """
local pool = {}
for line in io.lines(os.getenv("BENCH_ASSERTIONS")) do pool[#pool + 1] = line end
local connections = tonumber(os.getenv("BENCH_CONNECTIONS"))
request = function()
  local cookie, csrf, interaction, body = table.remove(pool):match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
  return wrk.format("POST", nil, {["Content-Type"] = "application/json", ["Cookie"] = cookie, ["X-CSRF-Token"] = csrf,
                                  ["X-Latchkey-Interaction"] = interaction}, body)
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


def signed_in_pages(s):
    """A browser signed in at the pages through a new account (the passkey offer after it declined)."""
    pages = openid_support.Pages(s)
    back = pages.sign_up(authorize_url(s)[0], f"bench-{secrets.token_hex(5)}@example.com")
    if back.status_code == 200 and 'id="passkey-later"' in back.text:
        later = html.unescape(re.search(r'id="passkey-later" href="([^"]+)"', back.text).group(1))
        back = pages.http.get(s.base + later, allow_redirects=False, timeout=10)
    assert back.status_code == 303 and "code" in query(back), back.text
    return pages


def code_exchange_row(s, wrk, connections, count):
    pages = signed_in_pages(s)
    codes = make_codes(s, pages, count)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(codes) + "\n")
    basic = "Basic " + base64.b64encode(f"{openid_support.WEB}:{openid_support.SECRET}".encode()).decode()
    try:
        # Two seconds of load: a pool that runs dry first stops its thread, and wrk still counts the whole two seconds,
        # so req/s would read low (the CPU per request stays right); it is flagged in the row.
        row = wrk(s.base, "/oauth2/v2.0/token", 2, connections, lua=CODE_LUA, pid=s.proc.pid,
                  env={"BENCH_CODES": f.name, "BENCH_CONNECTIONS": str(connections), "BENCH_BASIC": basic,
                       "BENCH_REDIRECT": REDIRECT, "BENCH_VERIFIER": VERIFIER})
        row["pool_ran_dry"] = row["requests"] >= len(codes) - connections
        return row
    finally:
        os.unlink(f.name)


def passkey_rows(s, wrk, connections, count, round_trips=None, threads=8):
    """Server CPU of a passkey sign-in. `threads` browsers at once (processes) make `count` visits, each with its
    request options and its assertion signed client side, the server's CPU read around that phase; then wrk sends the
    assertions from `connections` connections, as the other rows' loads do, each with its visit's cookies and tokens.
    Passkeys as the platforms sync them (counter zero), so one passkey's assertions may arrive in any order; one per
    browser process. With a round-trip counter, the statements of the whole sign-in."""
    from test_passkeys import register

    devices = []
    for _ in range(threads):
        browser, device, _, credential = register(s, device=synced_device())
        assert browser.call("/ui/passkeys/registration", credential).status_code == 200
        devices.append(device)
    pid = s.proc.pid
    if round_trips:
        round_trips.reset()
    started = cpu_seconds(pid)
    # Processes, not threads: one interpreter lock made the visits' Python the bottleneck. Forked, so each inherits
    # its device and the server's handle; each writes its lines to a file of its own.
    folder = tempfile.mkdtemp(prefix="latchkey-passkeys-")
    parts = [os.path.join(folder, f"{n}.txt") for n in range(threads)]
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=prepared_assertions, args=(s, d, count // threads, part)) for d, part in zip(devices, parts)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(w.exitcode == 0 for w in workers), "a passkey visit failed (its traceback is above)"
    lines = [line for part in parts for line in open(part).read().splitlines()]
    visits = (cpu_seconds(pid) - started) * 1e6 / len(lines)
    visit_trips = round_trips.count() / len(lines) if round_trips else None
    pool = os.path.join(folder, "all.txt")
    with open(pool, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        assertion = wrk(s.base, "/ui/passkeys/authentication", 2, connections, lua=PASSKEY_LUA, pid=pid,
                        env={"BENCH_ASSERTIONS": pool, "BENCH_CONNECTIONS": str(connections)})
    finally:
        shutil.rmtree(folder)
    assertion["pool_ran_dry"] = assertion["requests"] >= len(lines) - connections
    whole = {"cpu_us_per_request": visits + assertion["cpu_us_per_request"], "requests": assertion["requests"]}
    if round_trips:
        whole["round_trips"] = visit_trips + assertion.get("round_trips", 0)
    return {"passkey sign-in: visit and options": {"cpu_us_per_request": visits / 2, "requests": len(lines) * 2},
            "passkey sign-in: assertion": assertion,
            "passkey sign-in (the three requests)": whole}


def prepared_assertions(s, device, count, path):
    """`count` visits of one browser process, each a line for PASSKEY_LUA in `path`: its cookies, CSRF token, sealed
    interaction and signed assertion. The visit's browser is dropped once read (the server caps connections per
    address)."""
    from test_passkeys import Browser
    from passkey_support import authentication_json, request_options

    lines = []
    for _ in range(count):
        visitor = Browser(s)
        options = visitor.call("/ui/passkeys/authentication/options").json()
        assertion = authentication_json(device.get(request_options(options), s.origin))
        cookies = "; ".join(f"{c.name}={c.value}" for c in visitor.pages.http.cookies)
        lines.append("\t".join([cookies, visitor.csrf, visitor.interaction, json.dumps(assertion, separators=(",", ":"))]))
        visitor.pages.http.close()
    with open(path, "w") as f:
        f.write("\n".join(lines))


def synced_device():
    """soft-webauthn's authenticator (with user verification) whose counter stays at zero, as the platforms' synced
    passkeys report: the server then skips the counter check, so its assertions need not arrive in the order signed."""
    from passkey_support import VerifyingDevice

    class SyncedDevice(VerifyingDevice):
        def get(self, options, origin):
            self.sign_count = -1  # the device adds one before it signs
            return super().get(options, origin)

    return SyncedDevice()
