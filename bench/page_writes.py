"""Rows written per hosted password sign-in: `POST /ui/sign-in` with the right password for an account with no second
factor, on the provider over a fresh PostgreSQL database. The rows each table had inserted, updated and deleted come
from pg_stat_user_tables around N sign-ins (their sign-in pages fetched before), less what the idle server wrote over
an idle spell as long (its sweeps and leases), divided by N. PostgreSQL publishes a backend's counts within about ten
seconds of its last transaction, so each reading waits until two in a row agree.

    LATCHKEY_TEST_POSTGRES_URL=postgres://... python3 bench/page_writes.py [--sign-ins 40]
"""
import argparse
import os
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Tests", "blackbox"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import openid_support  # noqa: E402
from postgres import fresh_database, psql  # noqa: E402
from test_openid import authorize_url  # noqa: E402


def table_writes(url):
    rows = psql(url, "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables ORDER BY relname")
    return {name: (int(i), int(u), int(d)) for name, i, u, d in (line.split("|") for line in rows.splitlines())}


def settled(url):
    """The counts once PostgreSQL has published every backend's."""
    last = table_writes(url)
    while True:
        time.sleep(11)
        now = table_writes(url)
        if now == last:
            return now
        last = now


def difference(after, before):
    return {t: tuple(a - b for a, b in zip(after[t], before.get(t, (0, 0, 0)))) for t in after
            if after[t] != before.get(t, (0, 0, 0))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sign-ins", type=int, default=40)
    args = ap.parse_args()
    url = fresh_database()
    folder = harness.tempfile.mkdtemp(prefix="latchkey-bench-")
    secret = os.path.join(folder, "client.secret")
    with open(secret, "w") as f:
        f.write(openid_support.SECRET)
    # Passkeys off: a password sign-in then ends in the redirect, not in the offer to add one.
    server = harness.Server(config_text=openid_support.provider_config(secret, [4999]), postgres_url=url,
                            env={"LATCHKEY_LIMITS_ENABLED": "false", "LATCHKEY_PASSWORDS_SCRYPT_LOG_N": "17"}).start()
    try:
        pages = openid_support.Pages(server)
        email = f"writes-{uuid.uuid4().hex[:8]}@example.com"
        link, _ = authorize_url(server)
        signed_up = pages.sign_up(link, email)
        assert signed_up.status_code == 303, signed_up.text[:2000]
        visits = []
        for _ in range(args.sign_ins):
            visitor = openid_support.Pages(server)
            page = visitor.get(authorize_url(server)[0])
            assert page.status_code == 200, page.text
            visits.append((visitor, page))
        idle_start = settled(url)
        started = time.time()
        for visitor, page in visits:
            answer = visitor.submit(page, "/ui/sign-in", email=email, password=openid_support.PASSWORD, method="password")
            assert answer.status_code == 303, answer.text
        spell = time.time() - started
        signed_in = settled(url)
        time.sleep(spell)
        idle_end = settled(url)
        idle = difference(idle_end, signed_in)
        writes = difference(signed_in, idle_start)
        total = 0.0
        print(f"rows written per hosted password sign-in ({args.sign_ins} sign-ins, less an idle spell of {spell:.1f} s):")
        for table, counts in sorted(writes.items()):
            per = [(c - idle.get(table, (0, 0, 0))[k]) / args.sign_ins for k, c in enumerate(counts)]
            total += sum(per)
            print(f"  {table:20} inserted {per[0]:.2f}  updated {per[1]:.2f}  deleted {per[2]:.2f}")
        print(f"  total {total:.2f}")
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
