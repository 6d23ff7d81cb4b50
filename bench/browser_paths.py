"""The suite's rows for the provider's browser-born paths, each on a server configured as a provider (clients with
redirect URIs, passkeys on localhost):

- the code exchange: codes are made beforehand through the SSO session (`/authorize` with the cookie answers 303
  with a code), all with one PKCE verifier; wrk then redeems them from 16 connections (a confidential client over
  HTTP Basic, an access, ID and refresh token), stopping before the pool runs dry;
- a passkey sign-in: soft-webauthn signs, eight browsers at once (processes), each with its own passkey; the server's
  CPU is read around the visits and request options (the assertions signed meanwhile, client side), then around the
  assertions alone, sent once all are ready.
"""
import base64
import hashlib
import html
import multiprocessing
import os
import re
import secrets
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


def passkey_rows(s, rounds, round_trips=None, threads=8):
    """Server CPU of a passkey sign-in from `threads` browsers at once (processes), each with its own account and
    passkey (one passkey's counter cannot be shared), read from /proc in two phases: first each browser's visits and
    request options (and its assertions signed, client side), then, after all are ready, the assertions alone. With a
    round-trip counter, the statements of the whole sign-in."""
    from test_passkeys import Browser, register
    from passkey_support import authentication_json, request_options

    devices = []
    for _ in range(threads):
        browser, device, _, credential = register(s)
        assert browser.call("/ui/passkeys/registration", credential).status_code == 200
        devices.append(device)
    pid = s.proc.pid

    def run(per_thread):
        # Processes, not threads: the client's own Python work under one interpreter lock fed the server too slowly
        # to load it as the other rows' 16 connections do.
        context = multiprocessing.get_context("fork")
        ready, go = context.Barrier(threads + 1, timeout=300), context.Barrier(threads + 1, timeout=300)

        def work(device):
            visits, connection = [], harness.requests.Session()
            for _ in range(per_thread):
                visitor = Browser(s)
                options = visitor.call("/ui/passkeys/authentication/options").json()
                assertion = authentication_json(device.get(request_options(options), s.origin))
                # The visit's cookies and tokens kept, its browser dropped: a browser waiting holds no connection
                # (the server caps them per address).
                visits.append((visitor.pages.http.cookies, visitor.csrf, visitor.interaction, assertion))
            ready.wait()
            go.wait()
            for cookies, csrf, interaction, assertion in visits:
                # One connection for this process's assertions, each with its own browser's cookies.
                connection.cookies = cookies
                answer = connection.post(s.base + "/ui/passkeys/authentication", json=assertion, timeout=30,
                                         headers={"X-CSRF-Token": csrf, "X-Latchkey-Interaction": interaction})
                assert answer.status_code == 200 and "code" in parse_qs(urlparse(answer.json()["location"]).query), answer.text

        workers = [context.Process(target=work, args=(device,)) for device in devices]
        started = cpu_seconds(pid)
        for w in workers:
            w.start()
        ready.wait()
        prepared = cpu_seconds(pid)
        go.wait()
        for w in workers:
            w.join()
        assert all(w.exitcode == 0 for w in workers), "a passkey sign-in failed (its traceback is above)"
        for device in devices:  # each process signed with its own copy of the device: move the counter on here too
            device.sign_count += per_thread
        count = per_thread * threads
        return (prepared - started) * 1e6 / count, (cpu_seconds(pid) - prepared) * 1e6 / count

    per_thread = max(rounds // threads, 1)
    run(max(per_thread // 10, 1))  # warm-up
    if round_trips:
        round_trips.reset()
    steps, assertion = run(per_thread)
    count = per_thread * threads
    rows = {"passkey sign-in: visit and options": {"cpu_us_per_request": steps / 2, "requests": count * 2},
            "passkey sign-in: assertion": {"cpu_us_per_request": assertion, "requests": count},
            "passkey sign-in (the three requests)": {"cpu_us_per_request": steps + assertion, "requests": count}}
    if round_trips:
        rows["passkey sign-in (the three requests)"]["round_trips"] = round_trips.count() / count
    return rows
