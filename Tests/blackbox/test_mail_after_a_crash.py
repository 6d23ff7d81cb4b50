"""A sender killed with `kill -9` mid-batch leaves no mail waiting: on SQLite the restarted server takes its dead
process's claims back at start; on PostgreSQL a claim is a short lease its sender renews, so it lapses within seconds.
Every mail acknowledged before the kill (its request answered) reaches the relay within 10 s of the restart."""
import json
import time
import uuid

import pytest
import requests

from harness import Server
from postgres import fresh_database
from test_replicas import mails_to, relay  # noqa: F401 (relay is a fixture)
from test_smtp import smtp_env, wait_for

APP = "crash-app"


def register(server, address):
    return requests.post(f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass/register",
                         json={"email": address, "password": "correct horse battery"}, timeout=10)


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_mail_claimed_by_a_killed_sender_goes_out_within_seconds_of_the_restart(relay, store):  # noqa: F811
    env = {**smtp_env(relay.port, relay.cert), "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": APP}]), "LATCHKEY_MAIL_LANES": "1"}
    server = Server(env=env, postgres_url=fresh_database() if store == "postgres" else None).start()
    addresses = [f"crash-{uuid.uuid4().hex[:8]}-{i}@example.com" for i in range(12)]
    try:
        relay.handler.delay = 2.0  # each mail takes 2 s: the batch of 12 is under way for about 24 s
        for address in addresses:
            assert register(server, address).status_code == 201  # acknowledged: its mail is committed
        wait_for(lambda: any(a in relay.handler.rcpt_attempts for a in addresses), timeout=20)
        server.proc.kill()  # SIGKILL, mid-batch: no shutdown, no chance to record anything
        server.proc.wait()
        relay.handler.delay = 0.0
        server.start()
        restarted = time.monotonic()
        wait_for(lambda: all(mails_to(relay, a) for a in addresses), timeout=60)
        waited = time.monotonic() - restarted
        print(f"{store}: every acknowledged mail delivered {waited:.1f} s after the restart")  # pytest -s shows it
        assert waited < 10, f"{store}: the last acknowledged mail arrived {waited:.1f} s after the restart"
    finally:
        relay.handler.delay = 0.0
        server.cleanup()
