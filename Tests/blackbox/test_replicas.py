"""Two replicas of the real binary on one PostgreSQL database (issue I): every rule that holds on one SQLite file
holds across them. Mail goes through one real SMTP relay, so what either replica sends is seen in one place."""
import email
import json
import os
import re
import signal
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

import strict
from harness import ALL_TYPES, ROOT, Server, free_port
from parse_client import ENV as PARSE_ENV
from parse_client import ParseClient, error, ok
from postgres import OwnCluster, fresh_database, psql
from smtp_relay import Relay, make_certificate
from test_smtp import smtp_env, wait_for

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    cert, key = make_certificate(str(tmp_path_factory.mktemp("relay")))
    r = Relay(free_port(), cert, key).start()
    r.cert = cert
    yield r
    r.stop()


def start_pair(relay, url, **extra):
    # Behind one load balancer, replicas share one public URL: it is the tokens' issuer.
    env = {**smtp_env(relay.port, relay.cert), **PARSE_ENV, "LATCHKEY_SERVER_PUBLIC_URL": "https://id.example.test", **extra}
    # Started together on an empty database: both race to migrate and to create the keys.
    servers = [Server(env=env, postgres_url=url) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda s: s.start(), servers))
    return servers


@pytest.fixture(scope="module")
def database():
    return fresh_database()


@pytest.fixture(scope="module")
def pair(relay, database):
    servers = start_pair(relay, database, LATCHKEY_TOKENS_REFRESH_REUSE_GRACE_SECONDS="0")
    yield servers
    for s in servers:
        s.cleanup()


def address(tag):
    return f"{tag}-{os.urandom(5).hex()}@example.com"


def mails_to(relay, to):
    return [m for m in relay.messages if to in m["to"]]


def code_in(message):
    parsed = email.message_from_bytes(message["data"])
    for part in parsed.walk():
        if part.get_content_type() == "text/plain":
            match = re.search(r"\b(\d{6,10})\b", part.get_payload(decode=True).decode())
            if match:
                return match.group(1)
    raise AssertionError("no code in the mail")


def next_code(relay, to, previous):
    wait_for(lambda: len(mails_to(relay, to)) > previous)
    return code_in(mails_to(relay, to)[-1])


def native_sign_up(a, b, relay, who):
    """Starts on `a`, is challenged on `b`, proves the code on `a` and takes its tokens from `b`."""
    start = strict.ok(a.post("/signup/v1.0/start", {"username": who, "password": PASSWORD, "challenge_type": ALL_TYPES}), "start")
    challenge = strict.ok(b.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                            "challenge_type": ALL_TYPES}), "challenge")
    code = next_code(relay, who, 0)
    done = strict.ok(a.post("/signup/v1.0/continue", {"continuation_token": challenge["continuation_token"],
                                                      "grant_type": "oob", "oob": code}), "continue")
    return strict.tokens(b.post("/oauth2/v2.0/token", {
        "grant_type": "continuation_token", "continuation_token": done["continuation_token"], "username": who,
        "scope": "openid offline_access", "challenge_type": ALL_TYPES, "client_info": "true"}))


def refresh(server, token):
    return server.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": token})


def test_both_replicas_publish_the_one_signing_key_made_once(pair, database):
    keys = [s.get("/discovery/v2.0/keys").json()["keys"] for s in pair]
    assert keys[0] == keys[1] and len(keys[0]) == 1
    assert psql(database, "SELECT count(*) FROM signing_keys") == "1"
    assert psql(database, "SELECT count(*) FROM latchkey_migrations") == str(len(os.listdir(os.path.join(ROOT, "Migrations", "postgres"))))


def test_a_flow_started_on_one_replica_finishes_on_the_other(pair, relay):
    a, b = pair
    who = address("cross")
    tokens = native_sign_up(a, b, relay, who)
    # Signed by one, accepted by the other; the refresh token rotates on either.
    assert a.get("/oidc/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}).status_code == 200
    strict.tokens(refresh(a, tokens["refresh_token"]))
    # Password sign-in split over both; then the same account through Parse on one, its session used on the other.
    init = strict.ok(b.post("/oauth2/v2.0/initiate", {"username": who, "challenge_type": ALL_TYPES}), "initiate")
    ch = strict.ok(a.post("/oauth2/v2.0/challenge", {"continuation_token": init["continuation_token"], "challenge_type": ALL_TYPES}), "ch")
    strict.tokens(b.post("/oauth2/v2.0/token", {"grant_type": "password", "username": who, "password": PASSWORD, "scope": "openid offline_access",
                                                "continuation_token": ch["continuation_token"], "challenge_type": ALL_TYPES}))
    session = ok(ParseClient(a).call("POST", "/login", {"username": who, "password": PASSWORD}))["sessionToken"]
    assert ok(ParseClient(b).call("GET", "/users/me", session_token=session))["email"] == who
    ok(ParseClient(b).call("POST", "/logout", {}, session_token=session))
    error(ParseClient(a).call("GET", "/users/me", session_token=session), 209)


def test_parallel_sign_ups_on_both_make_one_account_per_username_and_per_email(pair):
    name, shared = f"Racer{os.urandom(4).hex()}", address("race")

    def create(i, body):
        return ParseClient(pair[i % 2]).call("POST", "/users", body)

    with ThreadPoolExecutor(12) as pool:
        by_name = list(pool.map(lambda i: create(i, {"username": name.upper() if i % 3 else name, "password": PASSWORD}), range(12)))
        by_mail = list(pool.map(lambda i: create(i, {"username": f"{name}-{i}", "email": shared, "password": PASSWORD}), range(12)))
    for outcomes, lost in ((by_name, 202), (by_mail, 203)):
        assert sorted(r.status_code for r in outcomes) == [201] + [400] * 11, [r.text for r in outcomes]
        for r in outcomes:
            if r.status_code == 400:
                error(r, lost)


def test_one_identity_signed_up_on_both_replicas_at_once_is_one_account(pair):
    """The same anonymous authData sent to both replicas at once: every answer names one objectId (one 201, the rest
    logins into it), and the accounts table holds one."""
    device = str(uuid.uuid4())

    def create(i):
        return ParseClient(pair[i % 2]).call("POST", "/users", {"authData": {"anonymous": {"id": device}}})

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(create, range(8)))
    assert all(r.status_code in (200, 201) for r in outcomes), [r.text for r in outcomes]
    assert [r.status_code for r in outcomes].count(201) == 1, [r.status_code for r in outcomes]
    assert len({r.json()["objectId"] for r in outcomes}) == 1


def test_a_code_and_a_refresh_token_are_redeemed_once_under_parallel_use(pair, relay):
    a, b = pair
    who = address("once")
    start = strict.ok(a.post("/signup/v1.0/start", {"username": who, "password": PASSWORD, "challenge_type": ALL_TYPES}), "start")
    challenge = strict.ok(b.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                            "challenge_type": ALL_TYPES}), "challenge")
    code = next_code(relay, who, 0)
    form = {"continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: pair[i % 2].post("/signup/v1.0/continue", form), range(8)))
    assert [r.status_code for r in answers].count(200) == 1, [r.text for r in answers]

    tokens = native_sign_up(a, b, relay, address("refresh"))
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: refresh(pair[i % 2], tokens["refresh_token"]), range(8)))
    assert [r.status_code for r in answers].count(200) == 1, [r.text for r in answers]


def test_refresh_token_reuse_is_caught_by_whichever_replica_sees_it(pair, relay):
    a, b = pair
    first = native_sign_up(a, b, relay, address("reuse"))
    second = strict.tokens(refresh(a, first["refresh_token"]))
    # With no grace window every second use is a copy, however soon it comes.
    strict.error(refresh(b, first["refresh_token"]), "invalid_grant")
    # The copy revoked the whole family, the legitimate newer token included, on both replicas.
    strict.error(refresh(a, second["refresh_token"]), "invalid_grant")


def unsent(url):
    """Mail rows still to be tried: a sent or failed row is never tried again."""
    return int(psql(url, "SELECT count(*) FROM outbox WHERE status = 'pending'"))


def test_every_mail_is_sent_once_though_both_replicas_drain_the_outbox(pair, relay, database):
    people = [address("drain") for _ in range(16)]
    tokens = []  # start alone sends nothing; the challenge queues the code mail
    for i, who in enumerate(people):
        st = strict.ok(pair[i % 2].post("/signup/v1.0/start", {"username": who, "password": PASSWORD, "challenge_type": ALL_TYPES}), "s")
        tokens.append(st["continuation_token"])
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: strict.ok(pair[(i + 1) % 2].post("/signup/v1.0/challenge", {
            "continuation_token": tokens[i], "challenge_type": ALL_TYPES}), "challenge"), range(16)))
    wait_for(lambda: all(mails_to(relay, who) for who in people))
    wait_for(lambda: unsent(database) == 0)  # every row marked sent: no replica tries one again
    assert [len(mails_to(relay, who)) for who in people] == [1] * 16


def test_a_mail_accepted_by_a_replica_that_dies_is_sent_by_the_other(pair, relay, database):
    # A third replica whose relay is unreachable: it accepts the request and queues the mail, then is killed.
    doomed = Server(env={**smtp_env(free_port(), relay.cert), **PARSE_ENV}, postgres_url=database).start()
    who = address("orphan")
    try:
        st = strict.ok(doomed.post("/signup/v1.0/start", {"username": who, "password": PASSWORD, "challenge_type": ALL_TYPES}), "s")
        strict.ok(doomed.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                         "challenge_type": ALL_TYPES}), "challenge")
        doomed.proc.send_signal(signal.SIGKILL)
        doomed.proc.wait()
    finally:
        doomed.cleanup()
    wait_for(lambda: mails_to(relay, who), timeout=60)  # after the dead replica's lease and retry delay
    wait_for(lambda: unsent(database) == 0)
    assert len(mails_to(relay, who)) == 1


def test_kill_9_of_a_replica_under_sign_up_load_loses_no_answered_account(relay):
    url = fresh_database()
    a, b = start_pair(relay, url)
    created, stop = [], threading.Event()
    lock = threading.Lock()

    def load(worker):
        i = 0
        while not stop.is_set():
            i += 1
            name = f"load-{worker}-{i}-{os.urandom(3).hex()}"
            target = (a, b)[(worker + i) % 2]
            try:
                r = requests.post(target.base + "/parse/users", json={"username": name, "password": PASSWORD},
                                  headers={"X-Parse-Application-Id": "myAppId"}, timeout=10)
            except requests.RequestException:
                continue  # the dead replica: no answer, no promise
            if r.status_code == 201:
                with lock:
                    created.append(name)

    try:
        with ThreadPoolExecutor(6) as pool:
            futures = [pool.submit(load, w) for w in range(6)]
            wait_for(lambda: len(created) >= 20, timeout=60)  # under load on both
            a.proc.send_signal(signal.SIGKILL)
            a.proc.wait()
            before = len(created)
            wait_for(lambda: len(created) >= before + 10, timeout=60)  # the survivor goes on answering
            stop.set()
            for f in futures:
                f.result()
        assert len(created) > 20, len(created)
        assert requests.get(b.base + "/health/ready", timeout=5).status_code == 200
        failed = [n for n in created if ParseClient(b).call("POST", "/login", {"username": n, "password": PASSWORD}).status_code != 200]
        assert failed == [], failed
    finally:
        a.cleanup()
        b.cleanup()


@pytest.fixture(scope="module")
def limited_pair(relay):
    servers = start_pair(relay, fresh_database(), LATCHKEY_LIMITS_ENABLED="true", LATCHKEY_LIMITS_LOCKOUT_FREE_ATTEMPTS="3")
    yield servers
    for s in servers:
        s.cleanup()


def test_the_lockout_and_the_mail_quota_are_shared_by_both_replicas(limited_pair, relay):
    a, b = limited_pair
    name = f"locked{os.urandom(4).hex()}"
    ok(ParseClient(a).call("POST", "/users", {"username": name, "password": PASSWORD, "email": f"{name}@example.com"}), 201)
    for i in range(3):
        error(ParseClient(limited_pair[i % 2]).call("POST", "/login", {"username": name, "password": "wrong guess"}), 101)
    # Three misses spread over both replicas lock the account on both: the right password is refused for now.
    for server in (a, b):
        r = requests.post(server.base + "/parse/login", json={"username": name, "password": PASSWORD},
                          headers={"X-Parse-Application-Id": "myAppId"}, timeout=10)
        assert r.status_code != 200, r.text

    # Five mails an hour to one address, counted over both replicas.
    who = f"{name}@example.com"
    answers = [requests.post(limited_pair[i % 2].base + "/parse/requestPasswordReset", json={"email": who},
                             headers={"X-Parse-Application-Id": "myAppId"}, timeout=10) for i in range(7)]
    assert [r.status_code for r in answers] == [200] * 5 + [429] * 2, [r.text for r in answers]
    # The five reset links, and the notice that the account was locked (once per lock, outside the quota).
    wait_for(lambda: len(mails_to(relay, who)) >= 6)
    time.sleep(1)
    assert len(mails_to(relay, who)) == 6


def test_ready_follows_the_database_down_and_back_without_a_restart(relay):
    cluster = OwnCluster()
    server = None
    try:
        server = Server(env={**smtp_env(relay.port, relay.cert), **PARSE_ENV}, postgres_url=cluster.url).start()
        cluster.halt()
        wait_for(lambda: requests.get(server.base + "/health/ready", timeout=10).status_code == 503, timeout=30)
        assert requests.get(server.base + "/health/live", timeout=5).status_code == 200
        r = ParseClient(server).call("POST", "/users", {"username": "during-outage", "password": PASSWORD})
        assert r.status_code >= 500 and r.json()["code"] == 1, r.text  # an internal error, not a hang or a crash
        cluster.resume()
        wait_for(lambda: requests.get(server.base + "/health/ready", timeout=10).status_code == 200, timeout=30)
        ok(ParseClient(server).call("POST", "/users", {"username": "after-outage", "password": PASSWORD}), 201)
        assert server.proc.poll() is None
    finally:
        if server:
            server.cleanup()
        cluster.stop()


def test_an_authenticator_code_signs_in_once_across_both_replicas(relay):
    import pyotp
    from parse_client import MASTER_KEY
    apps = f'[{{"id": "myAppId", "master_key": "{MASTER_KEY}", "mfa": "optional"}}]'
    a, b = start_pair(relay, fresh_database(), LATCHKEY_PARSE_APPS=apps, LATCHKEY_LIMITS_ENABLED="true",
                      LATCHKEY_LIMITS_LOCKOUT_FREE_ATTEMPTS="4")
    try:
        name = f"totp{os.urandom(4).hex()}"
        user = ok(ParseClient(a).call("POST", "/users", {"username": name, "password": PASSWORD}), 201)
        secret = pyotp.random_base32()
        ok(ParseClient(a).call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                               session_token=user["sessionToken"]))
        body = {"username": name, "password": PASSWORD, "authData": {"mfa": {"token": pyotp.TOTP(secret).at(time.time() + 30)}}}
        # The same code sent to both replicas at once: one login, the other a replay.
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda s: ParseClient(s).call("POST", "/login", body), (a, b)))
        assert sorted(r.status_code for r in answers) == [200, 400], [r.text for r in answers]
        # Wrong codes spread over both replicas count against one lockout: four free attempts, then both refuse.
        wrong = {**body, "authData": {"mfa": {"token": "000000"}}}
        statuses = [ParseClient((a, b)[i % 2]).call("POST", "/login", wrong).status_code for i in range(6)]
        assert statuses[:3] == [400] * 3 and statuses[-1] == 404, statuses
        for s in (a, b):
            locked = requests.post(s.base + "/parse/login", json=wrong, headers={"X-Parse-Application-Id": "myAppId"}, timeout=10)
            assert locked.status_code == 404 and "locked" in locked.json()["error"], locked.text
    finally:
        for s in (a, b):
            s.cleanup()


def test_a_browser_sign_in_moves_between_replicas_and_its_code_is_redeemed_once(relay, tmp_path):
    """Behind a load balancer each request of the hosted pages may land on another replica: the visit is sealed in
    the page, codes and browser sessions are in PostgreSQL. A code is redeemed once though both replicas are asked."""
    from openid_support import Pages, SECRET, WEB
    from test_openid import authorize_url, exchange, query
    secret_file = tmp_path / "client.secret"
    secret_file.write_text(SECRET)
    port = free_port()
    clients = json.dumps([{"id": WEB, "name": "Web app", "redirect_uris": ["http://127.0.0.1/callback"], "secret_file": str(secret_file)}])
    a, b = start_pair(relay, fresh_database(), LATCHKEY_CLIENTS=clients, LATCHKEY_SERVER_PUBLIC_URL=f"http://127.0.0.1:{port}")
    try:
        who = address("oidc")
        pages = Pages(a)
        url, verifier = authorize_url(a)
        first = pages.get(url)
        page = pages.get("/ui/sign-up", params={"interaction": pages.form(first, "/ui/sign-in")["interaction"]})
        page = pages.submit(page, "/ui/sign-up", email=who, password=PASSWORD)
        pages.server = b  # the code page's form is posted to the other replica
        back = pages.submit(page, "/ui/sign-up/code", code=next_code(relay, who, 0))
        assert back.status_code == 303, back.text
        code = query(back)["code"]
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda s: exchange(s, code, verifier), (a, b)))
        assert sorted(r.status_code for r in answers) == [200, 400], [r.text for r in answers]
        # The browser session is found by either replica.
        url, verifier = authorize_url(a, prompt="none")
        again = pages.get(url.replace(a.base, b.base))
        assert "code" in query(again) and exchange(a, query(again)["code"], verifier).status_code == 200
    finally:
        for s in (a, b):
            s.cleanup()
