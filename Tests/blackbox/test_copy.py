"""`latchkey copy --to postgres://…`: a SQLite deployment moved to PostgreSQL keeps its users, their passwords,
identities, second factors and refresh tokens (App Services' JWTs among them), its signing key and its queued mail;
a non-empty target is refused."""
import os
import re
import subprocess
import time

import pyotp
import requests

import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import BINARY, Server, free_port
from parse_client import MASTER_KEY, ParseClient, ok
from postgres import fresh_database, psql
from test_replicas import PASSWORD, mails_to, relay  # noqa: F401 (relay is a fixture)
from test_smtp import smtp_env, wait_for


def copy(server, target):
    return subprocess.run([BINARY, "copy", "--to", target, "--to-tls", "disable"], cwd=server.dir, env=server.env,
                          capture_output=True, text=True, timeout=120)


PARSE_ENV = {"LATCHKEY_PARSE_APPS": f'[{{"id": "myAppId", "master_key": "{MASTER_KEY}", "mfa": "optional"}}]',
             "LATCHKEY_APP_SERVICES_APPS": '[{"id": "moving-app", "providers": ["anon-user"]}]'}
APP_SESSION = "/api/client/v2.0/auth/session"
ANONYMOUS = {"authData": {"anonymous": {"id": "5b0e8f9e-0000-4000-8000-00000000c0b7"}}}


def test_copy_moves_everything_and_refuses_a_non_empty_target(relay):  # noqa: F811
    old = Server(env=PARSE_ENV).start()
    who = f"moving-{os.urandom(4).hex()}@example.com"
    tokens = strict.tokens(token_after_sign_up(old, who, sign_up(old, who, password=PASSWORD)))
    mover = ok(ParseClient(old).call("POST", "/users", {"username": "parse-mover", "password": PASSWORD}), 201)
    secret = pyotp.random_base32()
    ok(ParseClient(old).call("PUT", f"/users/{mover['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                             session_token=mover["sessionToken"]))
    anonymous = ok(ParseClient(old).call("POST", "/users", ANONYMOUS), 201)
    realm = requests.post(old.base + "/api/client/v2.0/app/moving-app/auth/providers/anon-user/login", json={"provider": "anon-user"},
                          timeout=10).json()
    keys = old.get("/discovery/v2.0/keys").json()
    old.stop()
    # A client made at run time (stored, not in the configuration) moves with the rest.
    made = subprocess.run([BINARY, "clients", "create", "--name", "Moving app", "--redirect-uri", "https://app.example/cb",
                           "--secret-file", "moving.secret"], env=old.env, cwd=old.dir, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    # The secret went to a new owner-only file, not to the terminal.
    secret_path = os.path.join(old.dir, "moving.secret")
    assert os.stat(secret_path).st_mode & 0o777 == 0o600 and open(secret_path).read().strip() not in made.stdout
    client_id = re.search(r"client_id (\S+)", made.stdout).group(1)
    # A mail queued but not yet sent when the old server stopped: a reset request on a server whose relay is down.
    offline = Server(env={**PARSE_ENV, **smtp_env(free_port(), relay.cert)})
    offline.env["LATCHKEY_DATABASE_PATH"] = old.db_path
    offline.start()
    ok(ParseClient(offline).call("POST", "/requestPasswordReset", {"email": who}))
    offline.cleanup()

    target = fresh_database()
    done = copy(old, target)
    assert done.returncode == 0, done.stderr
    assert "copied 4 users, 2 identities, 0 API keys, 11 second factors" in done.stdout and "1 clients" in done.stdout
    assert re.search(r"latchkey: copy: rows: (\d+)/\1 \(\d+/s\)", done.stderr), done.stderr
    assert psql(target, "SELECT count(*) FROM outbox WHERE status = 'pending'") == "1"

    new = Server(env={**PARSE_ENV, **smtp_env(relay.port, relay.cert)}, postgres_url=target).start()
    try:
        assert new.get("/discovery/v2.0/keys").json() == keys
        listed = subprocess.run([BINARY, "clients"], env=new.env, cwd=new.dir, capture_output=True, text=True, timeout=60)
        assert client_id in listed.stdout and "Moving app" in listed.stdout, listed.stdout + listed.stderr
        strict.tokens(password_sign_in(new, who, PASSWORD))
        strict.tokens(new.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}))
        # The App Services session (its refresh token a JWT signed under the copied server key) came along.
        refreshed = requests.post(new.base + APP_SESSION, headers={"Authorization": f"Bearer {realm['refresh_token']}"}, timeout=10)
        assert refreshed.status_code == 200 and refreshed.json()["access_token"].count(".") == 2, refreshed.text
        # The authenticator and the anonymous identity came along.
        ok(ParseClient(new).call("POST", "/login", {"username": "parse-mover", "password": PASSWORD,
                                                    "authData": {"mfa": {"token": pyotp.TOTP(secret).at(time.time() + 30)}}}))
        assert ok(ParseClient(new).call("POST", "/users", ANONYMOUS))["objectId"] == anonymous["objectId"]
        wait_for(lambda: mails_to(relay, who))  # the queued mail, sealed under the copied key, goes out from the new store
        again = copy(old, target)
        assert again.returncode != 0 and "already holds data" in again.stderr, again.stderr
    finally:
        new.cleanup()
        old.cleanup()
