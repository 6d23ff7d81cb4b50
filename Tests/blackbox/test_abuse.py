"""A hostile suite: every limit on by default, answered with 429 + Retry-After in the native error shape."""
import json
import os
import signal
import socket
import ssl
import subprocess
import threading
import time
import uuid

import pytest
import requests

import strict
from conftest import sign_up
from harness import ALL_TYPES, BINARY, CLIENT_ID, ROOT, Server


def limited(resp, rule=None):
    """429, a positive integer Retry-After, and the native error body; with `rule`, the refusal names that limit."""
    assert resp.status_code == 429, f"expected 429, got {resp.status_code} {resp.text}"
    assert int(resp.headers["Retry-After"]) >= 1
    body = resp.json()
    assert body["error"] == "slow_down" and body["error_codes"] == [50053] and isinstance(body["error_description"], str)
    if rule:
        assert f"(limits.{rule})" in body["error_description"], body["error_description"]
    return body


@pytest.fixture
def proxied():
    """Limits on; 127.0.0.1 is a trusted proxy, so each test can speak for many clients through X-Forwarded-For."""
    s = Server(env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_SERVER_TRUSTED_PROXIES": "[127.0.0.1]"}).start()
    yield s
    s.cleanup()


@pytest.fixture
def direct():
    """Limits on, default settings: no trusted proxies."""
    s = Server(env={"LATCHKEY_LIMITS_ENABLED": "true"}).start()
    yield s
    s.cleanup()


def as_ip(ip):
    return {"X-Forwarded-For": ip}


def test_hundred_wrong_passwords_lock_the_account_and_reset_clears_it(proxied, email):
    s = proxied
    sign_up(s, email, password="correct horse battery")
    init = strict.ok(s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}), "oauth2/initiate")
    ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                     "challenge_type": ALL_TYPES}), "oauth2/challenge")
    form = {"grant_type": "password", "username": email, "continuation_token": ch["continuation_token"], "scope": "openid"}
    statuses = []
    for i in range(100):
        # A botnet: every attempt from another address, so only the per-account defences can stop it.
        r = s.post("/oauth2/v2.0/token", {**form, "password": f"guess-number-{i}"}, headers=as_ip(f"10.1.{i // 250}.{i % 250}"))
        statuses.append(r.status_code)
        if r.status_code == 429:
            limited(r)
        else:
            strict.error(r, "invalid_grant", code=50126)
    assert statuses[:5] == [400] * 5 and set(statuses[5:]) == {429}
    # The lock holds even for the right password.
    limited(s.post("/oauth2/v2.0/token", {**form, "password": "correct horse battery"}, headers=as_ip("10.9.9.9")))
    # A successful reset clears it.
    ip = as_ip("10.8.8.8")
    st = strict.ok(s.post("/resetpassword/v1.0/start", {"username": email, "challenge_type": ALL_TYPES}, headers=ip), "resetpassword/start")
    before = len(s.mails(email))
    rc = strict.ok(s.post("/resetpassword/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                            "challenge_type": ALL_TYPES}, headers=ip), "resetpassword/challenge")
    code = s.wait_for_code(email, before)
    cont = strict.ok(s.post("/resetpassword/v1.0/continue", {"continuation_token": rc["continuation_token"], "grant_type": "oob",
                                                             "oob": code}, headers=ip), "resetpassword/continue")
    strict.ok(s.post("/resetpassword/v1.0/submit", {"continuation_token": cont["continuation_token"],
                                                    "new_password": "fresh battery staple"}, headers=ip), "resetpassword/submit")
    init = strict.ok(s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}, headers=ip), "oauth2/initiate")
    ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                     "challenge_type": ALL_TYPES}, headers=ip), "oauth2/challenge")
    strict.tokens(s.post("/oauth2/v2.0/token", {**form, "continuation_token": ch["continuation_token"],
                                                "password": "fresh battery staple", "scope": "openid offline_access"}, headers=ip))
    s.stop()
    out = subprocess.run([BINARY, "audit", "--since", "1h"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kinds = [line.split("\t")[1] for line in out.stdout.splitlines()]
    assert "lockout" in kinds and "password_reset" in kinds
    assert any("10.1.0." in line for line in out.stdout.splitlines() if "\tsign_in_failed\t" in line)


def test_code_guessing_is_capped_per_account(proxied, email):
    s = proxied
    st = strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                 "challenge_type": ALL_TYPES}), "signup/start")
    ct = strict.ok(s.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                     "challenge_type": ALL_TYPES}), "signup/challenge")["continuation_token"]
    checks, got_429 = 0, False
    for round_ in range(5):
        for i in range(5):
            r = s.post("/signup/v1.0/continue", {"continuation_token": ct, "grant_type": "oob", "oob": f"{round_}{i}000000"[:8]},
                       headers=as_ip(f"10.2.{round_}.{i}"))
            checks += 1
            if r.status_code == 429:
                limited(r)
                got_429 = True
                break
            strict.error(r, "invalid_grant", suberror="invalid_oob_value")
        if got_429:
            break
        ct = strict.ok(s.post("/signup/v1.0/challenge", {"continuation_token": ct, "challenge_type": ALL_TYPES},
                              headers=as_ip(f"10.3.0.{round_}")), "signup/challenge")["continuation_token"]
    assert got_429 and checks == 21, checks  # 20 checks per address per 10 minutes


def test_fifty_resends_hit_the_mail_quota(proxied, email):
    s = proxied
    st = strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                 "challenge_type": ALL_TYPES}), "signup/start")
    ct, answers = st["continuation_token"], []
    for i in range(50):
        r = s.post("/signup/v1.0/challenge", {"continuation_token": ct, "challenge_type": ALL_TYPES}, headers=as_ip(f"10.4.0.{i}"))
        answers.append(r.status_code)
        if r.status_code == 200:
            ct = r.json()["continuation_token"]
        else:
            limited(r, "mail_per_address")
    assert answers[:5] == [200] * 5 and set(answers[5:]) == {429}
    time.sleep(0.5)
    assert len(s.mails(email)) == 5
    s.stop()
    out = subprocess.run([BINARY, "audit", "--since", "10m", "--json"], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
    events = [json.loads(line) for line in out.stdout.splitlines()]
    hits = [e for e in events if e["kind"] == "rate_limited"]
    # Audited once per key per minute, not once per rejected request.
    assert len(hits) == 1 and hits[0]["detail"] == "mail_per_address" and hits[0]["email"] == email
    assert hits[0]["client_ip"] == "10.4.0.5" and hits[0]["user_agent"].startswith("python-requests")


def test_sign_up_flood_from_one_ip_and_spoofed_forwarded_for(direct):
    s = direct
    answers = []
    for i in range(30):
        # X-Forwarded-For is not trusted by default: spoofing it changes nothing.
        r = s.post("/signup/v1.0/start", {"username": f"flood-{i}-{uuid.uuid4().hex[:6]}@example.com",
                                          "challenge_type": ALL_TYPES}, headers=as_ip(f"203.0.113.{i}"))
        answers.append(r.status_code)
        if r.status_code == 429:
            limited(r)
    assert answers[:20] == [200] * 20 and set(answers[20:]) == {429}


def test_trusted_proxy_gives_each_client_its_own_budget(proxied):
    for i in range(30):
        r = proxied.post("/signup/v1.0/start", {"username": f"many-{i}-{uuid.uuid4().hex[:6]}@example.com",
                                                "challenge_type": ALL_TYPES}, headers=as_ip(f"198.51.100.{i}, 127.0.0.1"))
        strict.ok(r, "signup/start")


def test_common_password_list_is_enforced(direct, email):
    with open(os.path.join(ROOT, "config", "common-passwords.txt")) as f:
        common = [line.strip() for line in f if not line.startswith("#")]
    assert len(common) >= 10_000
    candidates = [p for p in common[2000:] if len(p) >= 8 and len(set(p)) >= 3][:3]
    for password in candidates:
        strict.error(direct.post("/signup/v1.0/start", {"username": email, "password": password, "challenge_type": ALL_TYPES}),
                     "invalid_grant", suberror="password_banned")


def test_three_hundred_idle_connections_do_not_stop_service(email):
    # Above the per-address cap (test_connection_limits.py): here every idle connection is admitted and held.
    direct = Server(env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_SERVER_MAX_CONNECTIONS_PER_IP": "1000"}).start()
    idle = []
    try:
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", direct.port), timeout=5)
            idle.append(sock)
        t0 = time.time()
        ct = sign_up(direct, email)
        strict.tokens(direct.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "continuation_token": ct,
                                                         "username": email, "scope": "openid offline_access"}))
        assert time.time() - t0 < 10
    finally:
        for sock in idle:
            sock.close()
        direct.cleanup()


def test_idle_connections_are_closed_after_the_timeout():
    s = Server(env={"LATCHKEY_SERVER_IDLE_TIMEOUT_SECONDS": "1"}).start()
    try:
        sock = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        sock.settimeout(5)
        t0 = time.time()
        assert sock.recv(1) == b""  # the server hangs up on a client that sends nothing
        assert time.time() - t0 < 4
        sock.close()
    finally:
        s.cleanup()


def test_oversized_headers_are_refused(direct):
    r = requests.get(direct.base + "/health/live", headers={"X-Big": "a" * (40 * 1024)})
    assert r.status_code in (400, 431)


def test_sigterm_under_load_exits_fast_and_answers_every_request_it_took(email):
    """Every password check the server processed (it writes an audit event for each) got its answer back;
    the process exits well within Docker's 10 s. Connections the server never read a request from may be
    refused or closed during shutdown, which HTTP clients retry."""
    s = Server(env={"LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "14"}).start()
    sign_up(s, email)
    init = strict.ok(s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES}), "oauth2/initiate")
    ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"],
                                                     "challenge_type": ALL_TYPES}), "oauth2/challenge")
    form = {"grant_type": "password", "username": email, "password": "wrong password!", "continuation_token": ch["continuation_token"]}
    stop = threading.Event()
    answered = []
    lock = threading.Lock()

    def load():
        while not stop.is_set():
            try:
                r = s.post("/oauth2/v2.0/token", form)
                with lock:
                    answered.append(r.status_code)
            except requests.ConnectionError:
                time.sleep(0.01)

    threads = [threading.Thread(target=load) for _ in range(6)]
    [t.start() for t in threads]
    deadline = time.time() + 60
    while len(answered) < 12 and time.time() < deadline:  # under load: every thread has been answered twice
        time.sleep(0.05)
    t0 = time.time()
    s.proc.send_signal(signal.SIGTERM)
    s.proc.wait(timeout=10)
    exit_seconds = time.time() - t0
    stop.set()
    [t.join() for t in threads]
    assert s.proc.returncode == 0
    assert exit_seconds < 5, exit_seconds
    assert answered and set(answered) == {400}
    import sqlite3
    processed = sqlite3.connect(s.db_path).execute("SELECT COUNT(*) FROM audit_events WHERE kind = 'sign_in_failed'").fetchone()[0]
    s.cleanup()
    assert processed == len(answered), (processed, len(answered))


def test_tls(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    s = Server(env={"LATCHKEY_SERVER_TLS_CERTIFICATE": str(cert), "LATCHKEY_SERVER_TLS_KEY": str(key)})
    s.base = s.base.replace("http://", "https://")
    s.proc = subprocess.Popen([BINARY, "serve"], cwd=s.dir, env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 20
        while True:
            try:
                r = requests.get(s.base + "/health/ready", verify=str(cert), timeout=2)
                break
            except requests.ConnectionError:
                assert time.time() < deadline
                time.sleep(0.1)
        assert r.status_code == 200
        r = requests.post(s.base + "/oauth2/v2.0/initiate", data={"client_id": CLIENT_ID, "username": "x@example.com",
                                                                  "challenge_type": ALL_TYPES}, verify=str(cert))
        strict.error(r, "user_not_found")
        # TLS 1.0 and 1.1 are refused; 1.2 is accepted (the client side allows all of them).
        for version, accepted in ((ssl.TLSVersion.TLSv1, False), (ssl.TLSVersion.TLSv1_1, False), (ssl.TLSVersion.TLSv1_2, True)):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
            ctx.minimum_version = ctx.maximum_version = version
            with socket.create_connection(("127.0.0.1", s.port), timeout=5) as raw:
                if accepted:
                    with ctx.wrap_socket(raw) as tls:
                        assert tls.version() == "TLSv1.2"
                else:
                    with pytest.raises(ssl.SSLError):
                        ctx.wrap_socket(raw)
        with pytest.raises(requests.ConnectionError):
            requests.get(s.base.replace("https://", "http://") + "/health/ready", timeout=2)
    finally:
        s.cleanup()


def test_cors_only_for_configured_origins():
    s = Server(env={"LATCHKEY_SERVER_CORS_ALLOWED_ORIGINS": "[https://app.example.com]"}).start()
    try:
        pre = requests.options(s.base + "/oauth2/v2.0/initiate", headers={
            "Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"})
        assert pre.headers.get("Access-Control-Allow-Origin") == "https://app.example.com"
        r = s.post("/oauth2/v2.0/initiate", {"username": "x@example.com", "challenge_type": ALL_TYPES},
                   headers={"Origin": "https://evil.example.com"})
        assert "Access-Control-Allow-Origin" not in r.headers
        r = s.post("/oauth2/v2.0/initiate", {"username": "x@example.com", "challenge_type": ALL_TYPES},
                   headers={"Origin": "https://app.example.com"})
        assert r.headers["Access-Control-Allow-Origin"] == "https://app.example.com"
        assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["Cache-Control"] == "no-store"
    finally:
        s.cleanup()


MSAL_HEADERS = ["content-type", "x-client-SKU", "x-client-VER", "x-client-OS", "x-client-CPU", "x-client-current-telemetry",
                "x-client-last-telemetry", "client-request-id"]


def test_cors_lets_msal_js_call_and_read_its_headers():
    """What MSAL.js's native-auth client sends on every call, from an allowed origin; nothing for others."""
    s = Server(env={"LATCHKEY_SERVER_CORS_ALLOWED_ORIGINS": "[https://app.example.com]", "LATCHKEY_LIMITS_ENABLED": "true",
                    "LATCHKEY_LIMITS_SIGNIN_PER_IP_REQUESTS": "1"}).start()
    try:
        pre = requests.options(s.base + "/oauth2/v2.0/initiate", headers={
            "Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": ",".join(h.lower() for h in MSAL_HEADERS)})
        assert pre.status_code == 204
        allowed = {h.strip().lower() for h in pre.headers["Access-Control-Allow-Headers"].split(",")}
        assert {h.lower() for h in MSAL_HEADERS} <= allowed, allowed
        rid = str(uuid.uuid4())
        msal = {"Origin": "https://app.example.com", "client-request-id": rid, "x-client-SKU": "MSAL.JS", "x-client-VER": "4.0",
                "x-client-OS": "Linux", "x-client-CPU": "x64", "x-client-current-telemetry": "5|0,0|", "x-client-last-telemetry": "5|0|||0,0"}
        answers = [s.post("/oauth2/v2.0/initiate", {"username": "x@example.com", "challenge_type": ALL_TYPES}, headers=msal)
                   for _ in range(2)]
        assert answers[1].status_code == 429
        for r in answers:
            exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
            assert {"client-request-id", "retry-after"} <= exposed and r.headers["client-request-id"] == rid
        other = s.post("/oauth2/v2.0/initiate", {"username": "x@example.com", "challenge_type": ALL_TYPES},
                       headers={**msal, "Origin": "https://evil.example.com"})
        assert not [h for h in other.headers if h.lower().startswith("access-control-")]
        pre = requests.options(s.base + "/oauth2/v2.0/initiate", headers={
            "Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-client-cpu"})
        assert not [h for h in pre.headers if h.lower().startswith("access-control-")]
    finally:
        s.cleanup()


def test_no_secret_reaches_the_log_at_debug_level(email):
    s = Server(env={"LATCHKEY_LOG_LEVEL": "trace", "LATCHKEY_MAIL_TRANSPORT": "file", "LATCHKEY_TESTING_MAILBOX": "true"}).start()
    try:
        password, new_password = "Log-Secret-Passphrase-1", "Log-Secret-Passphrase-2"
        st = strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": password, "challenge_type": ALL_TYPES}), "signup/start")
        ch = strict.ok(s.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"], "challenge_type": ALL_TYPES}),
                       "signup/challenge")
        code = s.wait_for_code(email)
        done = strict.ok(s.post("/signup/v1.0/continue", {"continuation_token": ch["continuation_token"], "grant_type": "oob",
                                                          "oob": code}), "signup/continue")
        tokens = strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "continuation_token", "username": email,
                                                             "continuation_token": done["continuation_token"]}))
        refreshed = strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}))
        rs = strict.ok(s.post("/resetpassword/v1.0/start", {"username": email, "challenge_type": ALL_TYPES}), "resetpassword/start")
        rc = strict.ok(s.post("/resetpassword/v1.0/challenge", {"continuation_token": rs["continuation_token"],
                                                                "challenge_type": ALL_TYPES}), "resetpassword/challenge")
        reset_code = s.wait_for_code(email, 1)
        cont = strict.ok(s.post("/resetpassword/v1.0/continue", {"continuation_token": rc["continuation_token"], "grant_type": "oob",
                                                                 "oob": reset_code}), "resetpassword/continue")
        strict.ok(s.post("/resetpassword/v1.0/submit", {"continuation_token": cont["continuation_token"], "new_password": new_password}),
                  "resetpassword/submit")
        s.stop()
        log = s.read_log()
        assert "debug" in log or "trace" in log or len(log) > 500
        secrets = [password, new_password, code, reset_code, st["continuation_token"], ch["continuation_token"],
                   done["continuation_token"], tokens["refresh_token"], tokens["access_token"], tokens["id_token"],
                   refreshed["refresh_token"], rc["continuation_token"], cont["continuation_token"]]
        for secret in secrets:
            assert secret not in log, f"secret in log: {secret[:6]}..."
    finally:
        s.cleanup()


def test_every_per_ip_rule_answers_429(email):
    """Each per-IP rule with a budget of 2: the third call is refused in the native error shape."""
    rules = ["signin_per_ip", "credential_per_ip", "mail_per_ip", "reset_per_ip"]
    env = {"LATCHKEY_LIMITS_ENABLED": "true", **{f"LATCHKEY_LIMITS_{r.upper()}_REQUESTS": "2" for r in rules}}
    s = Server(env=env).start()
    try:
        sign_up(s, email)  # one mail and one code check from this IP
        init = lambda: s.post("/oauth2/v2.0/initiate", {"username": email, "challenge_type": ALL_TYPES})
        ct = strict.ok(init(), "oauth2/initiate")["continuation_token"]
        strict.ok(init(), "oauth2/initiate")
        limited(init(), "signin_per_ip")
        ch = strict.ok(s.post("/oauth2/v2.0/challenge", {"continuation_token": ct, "challenge_type": ALL_TYPES}), "oauth2/challenge")
        grant = lambda: s.post("/oauth2/v2.0/token", {"grant_type": "password", "password": "wrong password!",
                                                      "continuation_token": ch["continuation_token"]})
        strict.error(grant(), "invalid_grant")                                 # 2nd credential check (1st was the code)
        limited(grant(), "credential_per_ip")
        reset = lambda: s.post("/resetpassword/v1.0/start", {"username": email, "challenge_type": ALL_TYPES})
        st = strict.ok(reset(), "resetpassword/start")
        strict.ok(reset(), "resetpassword/start")
        limited(reset(), "reset_per_ip")
        strict.ok(s.post("/resetpassword/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                           "challenge_type": ALL_TYPES}), "resetpassword/challenge")
        limited(s.post("/resetpassword/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                         "challenge_type": ALL_TYPES}), "mail_per_ip")  # sign-up mail + this
    finally:
        s.cleanup()


def test_ipv6_networks_share_aggregate_allowances():
    """Per /64 the rule's allowance; a /56 shares 4 times it, a /48 16 times: a client holding a /48 cannot multiply its
    allowance by rotating through its /64s."""
    s = Server(env={"LATCHKEY_LIMITS_ENABLED": "true", "LATCHKEY_SERVER_TRUSTED_PROXIES": "[127.0.0.1]",
                    "LATCHKEY_LIMITS_SIGNIN_PER_IP_REQUESTS": "2", "LATCHKEY_LIMITS_SIGNIN_PER_IP_PER_SECONDS": "3600"}).start()
    try:
        def initiate(ip):
            return s.post("/oauth2/v2.0/initiate", {"username": "nobody@example.com", "challenge_type": ALL_TYPES},
                          headers=as_ip(ip)).status_code
        # One /64: 2 allowed.
        assert [initiate("2001:db8:1:1::1"), initiate("2001:db8:1:1::2"), initiate("2001:db8:1:1::3")][2] == 429
        # Other /64s of the same /56 (2001:db8:1:0::/56): 8 in all, of which 3 are spent above (2 allowed, 1 denied).
        statuses = [initiate(f"2001:db8:1:{n:x}::1") for n in range(2, 10)]
        assert statuses.count(400) == 6 and statuses[-1] == 429, statuses
        # Other /56s of the same /48 (2001:db8:1::/48): 32 in all.
        statuses = [initiate(f"2001:db8:1:{n << 8:x}::1") for n in range(1, 30)]
        assert statuses.count(400) == 32 - 8 and statuses[-1] == 429, statuses
        # Another /48 is untouched.
        assert initiate("2001:db8:2::1") == 400
    finally:
        s.cleanup()
