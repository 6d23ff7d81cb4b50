#!/usr/bin/env python3
"""Fills a stopped server's database with realistic rows, quickly, for measuring how the hot paths behave as data
grows (issue J): N users and M refresh-token rows, most of them expired or revoked as in a deployment that has run
for a while. Works on SQLite and PostgreSQL; the database must exist and be migrated (start the server once, or run
`latchkey migrate`), and the server must be stopped.

    python3 bench/seed.py --config latchkey.yaml --users 1000000 --refresh-tokens 10000000
    python3 bench/seed.py --database /data/latchkey.sqlite --users 1000 --refresh-tokens 10000
    python3 bench/seed.py --postgres postgres://latchkey@db/latchkey --users 1000000 --refresh-tokens 10000000

The database is named by `--config` (its `database.path`, or `database.url` with `database.password_file`), by
LATCHKEY_DATABASE_PATH / LATCHKEY_DATABASE_URL, or by `--database` / `--postgres`.

What the rows look like: users with an email, a Parse objectId, a password hash in Latchkey's scrypt format (of no
known password: seeded accounts do not sign in), a small attributes object, creation times over the past two years.
Refresh tokens come in rotation families of 1-8 tokens spread over the users; every token but the last of a family
is rotated. Of the families, 65 % expired more than a day ago (what the background purge removes), 10 % expired
within the day, 15 % were revoked while still valid (kept for reuse detection until they expire) and 10 % are live.
The secondary indexes are dropped during the load and built again at the end, which is how a bulk load is done on
either database; the unique indexes stay, so the load checks what the server would.
"""
import argparse
import base64
import datetime
import os
import random
import sqlite3
import subprocess
import sys
import time

CLIENT = "11111111-1111-1111-1111-111111111111"
SCOPE = "openid profile offline_access"
# The shape of Latchkey's stored hashes (scrypt, PHC-like); random salt and digest, so no password matches it.
HASH = "$scrypt$ln=17,r=8,p=1${salt}${digest}"
BATCH = 50_000


def config_database(path):
    try:
        import yaml
    except ImportError:
        sys.exit("--config needs PyYAML (pip install pyyaml), or pass --database / --postgres")
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
    db = doc.get("database") or {}
    url = os.environ.get("LATCHKEY_DATABASE_URL") or db.get("url")
    if url:
        password_file = os.environ.get("LATCHKEY_DATABASE_PASSWORD_FILE") or db.get("password_file")
        return None, url, password_file
    return os.environ.get("LATCHKEY_DATABASE_PATH") or db.get("path") or "latchkey.sqlite", None, None


class Clock:
    """Timestamps around now, in each database's text form."""

    def __init__(self):
        self.now = datetime.datetime.now(datetime.timezone.utc)

    def at(self, seconds_from_now):
        return self.now + datetime.timedelta(seconds=seconds_from_now)


def uuid_from(rng, n):
    return "%08x-%04x-4%03x-%04x-%012x" % (rng.getrandbits(32), n & 0xFFFF, rng.getrandbits(12),
                                          0x8000 | rng.getrandbits(14), (n << 16 | rng.getrandbits(16)) & 0xFFFFFFFFFFFF)


def b64(raw):
    return base64.b64encode(raw).decode().rstrip("=")


def object_id(rng):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choice(alphabet) for _ in range(10))


def users(rng, count, clock):
    """(id, object_id, email, password_hash, attributes, created_at, updated_at, last_login_at) per user."""
    for i in range(count):
        created = clock.at(-rng.uniform(86400, 2 * 365 * 86400))
        last = clock.at(-rng.uniform(0, 30 * 86400)) if rng.random() < 0.6 else None
        yield (uuid_from(rng, i), object_id(rng), f"user{i}@seed.example.com",
               HASH.format(salt=b64(rng.randbytes(16)), digest=b64(rng.randbytes(32))),
               '{"displayName":"Seeded User %d"}' % i, created, created, last)


def token_key(created, rng):
    """A stored refresh-token key as the server writes it: the issue time in milliseconds (6 bytes), then the
    token's HMAC (random here: nobody holds these tokens, they stand for other people's sessions)."""
    return int(created.timestamp() * 1000).to_bytes(6, "big") + rng.randbytes(32)


def sessions(rng, user_ids, count, clock):
    """(id, family_id, user_id, token_hash, created_at, expires_at, rotated_at, revoked_at, parent_id) per token."""
    made = 0
    lifetime = 90 * 86400
    while made < count:
        user = user_ids[rng.randrange(len(user_ids))]
        family = uuid_from(rng, made)
        length = min(rng.randint(1, 8), count - made)
        fate = rng.random()
        if fate < 0.65:
            end = clock.at(-rng.uniform(86400 * 1.01, 365 * 86400))        # expired over a day ago: purged
        elif fate < 0.75:
            end = clock.at(-rng.uniform(60, 86400 * 0.99))                  # expired today: kept a day more
        else:
            end = clock.at(rng.uniform(3600, lifetime))                     # still valid
        revoked = end - datetime.timedelta(days=rng.uniform(1, 30)) if 0.75 <= fate < 0.90 else None
        start = end - datetime.timedelta(seconds=lifetime)
        parent = None
        for k in range(length):
            created = start + datetime.timedelta(seconds=k * 3600)
            token_id = uuid_from(rng, made)
            rotated = created + datetime.timedelta(seconds=3600) if k < length - 1 else None
            yield (token_id, family, user, token_key(created, rng), created, created + datetime.timedelta(seconds=lifetime),
                   rotated, revoked, parent)
            parent = token_id
            made += 1


def sqlite_text(value):
    """GRDB's storage format for dates: UTC, millisecond precision."""
    return None if value is None else value.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (value.microsecond // 1000)


def seed_sqlite(path, n_users, n_tokens, rng, clock):
    if not os.path.exists(path):
        sys.exit(f"no database at {path}: start the server once or run `latchkey migrate` first")
    db = sqlite3.connect(path, isolation_level=None)
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'sessions'").fetchone():
        sys.exit(f"{path} is not migrated: start the server once or run `latchkey migrate` first")
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -1048576")  # 1 GiB of page cache while the unique indexes grow
    indexes = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('users', 'sessions') "
                         "AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%'").fetchall()
    for name, _ in indexes:
        db.execute(f'DROP INDEX "{name}"')
    started = time.time()
    user_ids = []
    db.execute("BEGIN")
    for i, (uid, oid, email, pw, attrs, created, updated, last) in enumerate(users(rng, n_users, clock)):
        user_ids.append(uid)
        db.execute("INSERT INTO users (id, object_id, email, password_hash, email_verified, status, attributes, "
                   "failed_login_count, created_at, updated_at, last_login_at) VALUES (?, ?, ?, ?, 1, 'active', ?, 0, ?, ?, ?)",
                   (uid, oid, email, pw, attrs, sqlite_text(created), sqlite_text(updated), sqlite_text(last)))
        if i % BATCH == BATCH - 1:
            db.execute("COMMIT"); db.execute("BEGIN")
    db.execute("COMMIT")
    print(f"users: {n_users} in {time.time() - started:.0f} s", flush=True)
    if not user_ids:
        user_ids = [r[0] for r in db.execute("SELECT id FROM users LIMIT 100000")]
    started = time.time()
    rows = ((t, f, u, "native", CLIENT, SCOPE, h, sqlite_text(c), sqlite_text(e), sqlite_text(rot), sqlite_text(rev), p)
            for (t, f, u, h, c, e, rot, rev, p) in sessions(rng, user_ids, n_tokens, clock))
    while True:
        chunk = [row for _, row in zip(range(BATCH), rows)]
        if not chunk:
            break
        db.execute("BEGIN")
        db.executemany("INSERT INTO sessions (id, family_id, user_id, kind, audience, scope, token_hash, created_at, expires_at, "
                       "rotated_at, revoked_at, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
        db.execute("COMMIT")
    print(f"refresh tokens: {n_tokens} in {time.time() - started:.0f} s", flush=True)
    started = time.time()
    for _, sql in indexes:
        db.execute(sql)
    db.execute("ANALYZE")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    print(f"indexes and ANALYZE: {time.time() - started:.0f} s", flush=True)


def pg_text(value):
    return "\\N" if value is None else value.isoformat()


def seed_postgres(url, password_file, n_users, n_tokens, rng, clock):
    env = dict(os.environ)
    if password_file:
        with open(password_file) as f:
            env["PGPASSWORD"] = f.read().strip()

    def psql(sql):
        subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, env=env)

    def copy(table, columns, lines):
        proc = subprocess.Popen(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                 f"COPY {table} ({', '.join(columns)}) FROM STDIN"], stdin=subprocess.PIPE, env=env)
        for line in lines:
            proc.stdin.write(line.encode())
        proc.stdin.close()
        if proc.wait() != 0:
            sys.exit(f"COPY into {table} failed")

    out = subprocess.run(["psql", url, "-X", "-At", "-c", "SELECT indexname || '|' || indexdef FROM pg_indexes WHERE "
                          "tablename IN ('users', 'sessions') AND indexdef NOT LIKE 'CREATE UNIQUE%'"],
                         check=True, env=env, capture_output=True, text=True).stdout.split("\n")
    indexes = [line.split("|", 1) for line in out if line]
    if not indexes:
        sys.exit("the database is not migrated: start the server once or run `latchkey migrate` first")
    for name, _ in indexes:
        psql(f'DROP INDEX "{name}"')
    started = time.time()
    user_ids = []

    def user_lines():
        for uid, oid, email, pw, attrs, created, updated, last in users(rng, n_users, clock):
            user_ids.append(uid)
            yield "\t".join([uid, oid, email, pw, "t", "active", attrs, "0", pg_text(created), pg_text(updated), pg_text(last)]) + "\n"

    copy("users", ["id", "object_id", "email", "password_hash", "email_verified", "status", "attributes", "failed_login_count",
                   "created_at", "updated_at", "last_login_at"], user_lines())
    print(f"users: {n_users} in {time.time() - started:.0f} s", flush=True)
    if not user_ids:
        user_ids = subprocess.run(["psql", url, "-X", "-At", "-c", "SELECT id FROM users LIMIT 100000"], check=True, env=env,
                                  capture_output=True, text=True).stdout.split()
    started = time.time()

    def session_lines():
        for t, f, u, h, c, e, rot, rev, p in sessions(rng, user_ids, n_tokens, clock):
            yield "\t".join([t, f, u, "native", CLIENT, SCOPE, "\\\\x" + h.hex(), pg_text(c), pg_text(e), pg_text(rot), pg_text(rev),
                             p or "\\N"]) + "\n"

    copy("sessions", ["id", "family_id", "user_id", "kind", "audience", "scope", "token_hash", "created_at", "expires_at",
                      "rotated_at", "revoked_at", "parent_id"], session_lines())
    print(f"refresh tokens: {n_tokens} in {time.time() - started:.0f} s", flush=True)
    started = time.time()
    for _, sql in indexes:
        psql(sql)
    psql("VACUUM ANALYZE users")
    psql("VACUUM ANALYZE sessions")
    print(f"indexes and ANALYZE: {time.time() - started:.0f} s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", help="the server's configuration file")
    where.add_argument("--database", help="an SQLite database file")
    where.add_argument("--postgres", help="a PostgreSQL URL")
    ap.add_argument("--password-file", help="PostgreSQL password, as database.password_file")
    ap.add_argument("--users", type=int, required=True)
    ap.add_argument("--refresh-tokens", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1, help="random seed, so two loads are alike")
    args = ap.parse_args()
    path, url, password_file = (config_database(args.config) if args.config
                                else (args.database, args.postgres, args.password_file))
    rng, clock = random.Random(args.seed), Clock()
    started = time.time()
    if url:
        seed_postgres(url, password_file, args.users, args.refresh_tokens, rng, clock)
    else:
        seed_sqlite(path, args.users, args.refresh_tokens, rng, clock)
    print(f"seeded {args.users} users and {args.refresh_tokens} refresh tokens in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
