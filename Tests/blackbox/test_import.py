"""`latchkey import` / `latchkey export` (issue L): a Parse Server export made here (bcrypt from the `bcrypt` package,
sha512-crypt and yescrypt from libxcrypt, Django PBKDF2 from hashlib, sessions with known tokens) comes in with its
objectIds, passwords, custom fields and open sessions; a re-run changes nothing; conflicts are reported; export then
import into an empty deployment round-trips."""
import base64
import ctypes
import hashlib
import json
import os
import re
import sqlite3
import stat
import subprocess

import bcrypt
import pytest

import strict
from conftest import password_sign_in, sign_up
from harness import BINARY, ROOT, Server
from parse_client import ENV as PARSE_ENV
from parse_client import ParseClient, error, ok
from postgres import fresh_database, psql

PASSWORDS = {"alice": "alice's old secret", "bob": "bob's old secret", "carol": "carol's old secret",
             "erin": "erin's old secret", "yuki": "yuki's old secret", "frank": "frank's old secret",
             "gina": "gina's old secret"}
ALICE_TOKEN = "r:" + "a1" * 16
LEGACY_TOKEN = "legacyTokenFromParse2016xyz"

_libcrypt = ctypes.CDLL("libcrypt.so.1")
_libcrypt.crypt_gensalt.restype = ctypes.c_char_p
_libcrypt.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
_libcrypt.crypt.restype = ctypes.c_char_p
_libcrypt.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


def libcrypt(password, prefix, count=0):
    return _libcrypt.crypt(password.encode(), _libcrypt.crypt_gensalt(prefix.encode(), count, None, 0)).decode()


def django(password, iterations=600_000, salt="s4ltS4lt"):
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), iterations)
    return f"pbkdf2_sha256${iterations}${salt}${base64.b64encode(digest).decode()}"


def mongo_date(iso):
    return {"$date": iso}


def parse_users(taken_email):
    """mongoexport's JSON lines of _User, as Parse Server stores them."""
    bc = bcrypt.hashpw(PASSWORDS["alice"].encode(), bcrypt.gensalt(rounds=10, prefix=b"2a")).decode()
    bob = "$2y$" + bcrypt.hashpw(PASSWORDS["bob"].encode(), bcrypt.gensalt(rounds=10)).decode()[4:]
    return [
        {"_id": "aliceObj01", "username": "alice", "email": "Alice@Example.com", "emailVerified": True, "_hashed_password": bc,
         "_created_at": mongo_date("2021-03-04T05:06:07.089Z"), "_updated_at": mongo_date("2022-01-01T00:00:00.000Z"),
         "age": 41, "nickname": "Al", "_p_team": "Team$teamObj001", "birthday": {"$date": "1983-02-01T00:00:00.000Z"},
         "_rperm": ["*", "aliceObj01"], "_wperm": ["aliceObj01"], "_acl": {"aliceObj01": {"w": True, "r": True}},
         "_email_verify_token": "should-not-come-along"},
        {"_id": "bobObj0001", "username": "bob", "email": "bob@example.com", "emailVerified": False, "_hashed_password": bob,
         "_created_at": mongo_date("2021-04-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-04-01T00:00:00.000Z"),
         "_auth_data_facebook": {"id": "123"}},
        # No email at all: a username-only Parse user, sha512-crypt from another system.
        {"_id": "carolObj01", "username": "carol", "_hashed_password": libcrypt(PASSWORDS["carol"], "$6$"),
         "_created_at": mongo_date("2021-05-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-05-01T00:00:00.000Z")},
        # Same email as alice under another objectId: a conflict, nothing written for it.
        {"_id": "daveObj001", "username": "dave", "email": "alice@example.com", "_hashed_password": bc,
         "_created_at": mongo_date("2021-06-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-06-01T00:00:00.000Z")},
        {"_id": "erinObj001", "username": "erin", "email": "erin@example.com", "_hashed_password": django(PASSWORDS["erin"]),
         "_created_at": mongo_date("2021-07-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-07-01T00:00:00.000Z")},
        {"_id": "yukiObj001", "username": "yuki", "email": "yuki@example.com", "_hashed_password": libcrypt(PASSWORDS["yuki"], "$y$", 5),
         "_created_at": mongo_date("2021-08-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-08-01T00:00:00.000Z")},
        # A bcrypt bomb (cost 15) and an argon2id one (1 GiB per check): the accounts come, the passwords do not.
        {"_id": "frankObj01", "username": "frank", "email": "frank@example.com",
         "_hashed_password": "$2b$15$" + bc[7:],
         "_created_at": mongo_date("2021-09-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-09-01T00:00:00.000Z")},
        {"_id": "ginaObj001", "username": "gina", "email": "gina@example.com",
         "_hashed_password": "$argon2id$v=19$m=1048576,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
         "_created_at": mongo_date("2021-10-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-10-01T00:00:00.000Z")},
        # The address of an account that signed up on Latchkey before the import: a conflict.
        {"_id": "takenObj01", "username": "taken", "email": taken_email, "_hashed_password": bc,
         "_created_at": mongo_date("2021-11-01T00:00:00.000Z"), "_updated_at": mongo_date("2021-11-01T00:00:00.000Z")},
    ]


def parse_sessions():
    return [
        {"_id": "sessAlice1", "_session_token": ALICE_TOKEN, "_p_user": "_User$aliceObj01", "installationId": "inst-alice",
         "createdWith": {"action": "login", "authProvider": "password"}, "restricted": False,
         "_created_at": mongo_date("2024-01-01T00:00:00.000Z"), "_expires_at": mongo_date("2099-01-01T00:00:00.000Z")},
        {"_id": "sessCarol1", "_session_token": LEGACY_TOKEN, "_p_user": "_User$carolObj01",
         "_created_at": mongo_date("2024-01-01T00:00:00.000Z"), "_expires_at": mongo_date("2099-01-01T00:00:00.000Z")},
        {"_id": "sessOld001", "_session_token": "r:" + "0e" * 16, "_p_user": "_User$bobObj0001",
         "_created_at": mongo_date("2019-01-01T00:00:00.000Z"), "_expires_at": mongo_date("2020-01-01T00:00:00.000Z")},
        {"_id": "sessGhost1", "_session_token": "r:" + "99" * 16, "_p_user": "_User$noSuchUser",
         "_created_at": mongo_date("2024-01-01T00:00:00.000Z"), "_expires_at": mongo_date("2099-01-01T00:00:00.000Z")},
    ]


def write_lines(path, docs):
    with open(path, "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    return path


def cli(server, *args):
    return subprocess.run([BINARY, *args], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=300)


def summary(out):
    """The summary's counts by name."""
    counts = {}
    for line in out.splitlines():
        if line.startswith("  ") and not line.startswith("  line "):
            name, _, rest = line.strip().rpartition("  ")
            if rest.split()[0].isdigit():
                counts[name.strip()] = int(rest.split()[0])
    return counts


def summary_rows(text):
    """The names of the summary's rows, in order, from "import finished" to "problems:"."""
    lines = text[text.index("import finished in"):].splitlines()[1:]
    return [re.split(r"\s{2,}", line.strip())[0] for line in lines[:lines.index(next(l for l in lines if l.strip() == "problems:"))]]


def stored_hash(server, object_id):
    with sqlite3.connect(server.db_path) as db:
        return db.execute("SELECT password_hash FROM users WHERE object_id = ?", (object_id,)).fetchone()[0]


def parse_login(server, username, password):
    return ParseClient(server).call("POST", "/login", {"username": username, "password": password})


@pytest.fixture
def parse_server():
    s = Server(env=PARSE_ENV).start()
    yield s
    s.cleanup()


def test_a_parse_export_comes_in_with_passwords_ids_fields_and_sessions(parse_server):
    s = parse_server
    taken = f"taken-{os.urandom(4).hex()}@example.com"
    sign_up(s, taken)
    users = write_lines(os.path.join(s.dir, "users.json"), parse_users(taken))
    sessions = write_lines(os.path.join(s.dir, "sessions.json"), parse_sessions())

    # Small batches, so the dry run's memory of rolled-back batches and the real run's lookups across batches count.
    dry = cli(s, "import", "--format", "parse", users, "--sessions", sessions, "--dry-run", "--batch-size", "2")
    assert dry.returncode == 0, dry.stderr
    assert "dry run" in dry.stdout
    with sqlite3.connect(s.db_path) as db:
        assert db.execute("SELECT count(*) FROM users").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM audit_events WHERE kind = 'users_imported'").fetchone()[0] == 0

    done = cli(s, "import", "--format", "parse", users, "--sessions", sessions, "--batch-size", "3")
    assert done.returncode == 0, done.stderr
    counts = summary(done.stdout)
    assert summary(dry.stdout) == counts, (dry.stdout, done.stdout)  # the dry run told the truth
    assert counts["imported"] == 7 and counts["conflicts"] == 2 and counts["skipped (already here)"] == 0, done.stdout
    # Progress goes to standard error (a line every few seconds off a terminal, and the last state at the end);
    # the report on standard output stays clean. Every line of the file was read: n of n.
    assert re.search(r"latchkey: import: users: (\d+)/\1 \(\d+/s\)", done.stderr), done.stderr
    assert "configuration" in done.stderr and "database" in done.stderr  # it says what it opened
    assert counts["unsupported hashes"] == 2 and counts["without password"] == 2
    # The facebook identity is carried, though no facebook provider is configured here.
    assert counts["identities"] == 1 and "1 (facebook 1), 1 of providers not configured here" in done.stdout
    assert re.search(r"unsupported hashes\s+2 \(argon2id 1, bcrypt 1\)", done.stdout), done.stdout
    assert re.search(r"password hashes\s+5 \(bcrypt 2, pbkdf2_sha256 1, sha512-crypt 1, yescrypt 1\)", done.stdout), done.stdout
    assert "1 imported" not in done.stdout and "2 imported, 0 already here, 1 expired, 1 without their user" in done.stdout
    assert "email belongs to another account" in done.stdout
    # The summary quoted in docs/migrating-from-parse.md is the one the command prints: its rows, in order, and the line
    # it quotes for identities of providers not configured here.
    with open(os.path.join(ROOT, "docs", "migrating-from-parse.md")) as f:
        page = f.read()
    assert summary_rows(page) == summary_rows(done.stdout), (summary_rows(page), done.stdout)
    assert "identities 1 (facebook 1), 1 of providers not configured here" in page and "no third-party sign-in" not in page

    # Old passwords, through Parse and the native API; the hash becomes scrypt on the first sign-in.
    assert stored_hash(s, "aliceObj01").startswith("$2a$10$")
    alice = ok(parse_login(s, "alice", PASSWORDS["alice"]))
    assert alice["objectId"] == "aliceObj01" and alice["createdAt"] == "2021-03-04T05:06:07.089Z"
    assert alice["age"] == 41 and alice["nickname"] == "Al" and alice["emailVerified"] is True
    assert alice["team"] == {"__type": "Pointer", "className": "Team", "objectId": "teamObj001"}
    assert alice["birthday"] == {"__type": "Date", "iso": "1983-02-01T00:00:00.000Z"}
    assert not any(k.startswith("_") for k in alice)
    assert stored_hash(s, "aliceObj01").startswith("$scrypt$")
    assert ok(parse_login(s, "alice", PASSWORDS["alice"]))["objectId"] == "aliceObj01"  # and scrypt verifies it next time

    strict.tokens(password_sign_in(s, "bob@example.com", PASSWORDS["bob"]))
    assert stored_hash(s, "bobObj0001").startswith("$scrypt$")
    for name in ("carol", "erin", "yuki"):
        assert ok(parse_login(s, name, PASSWORDS[name]))["objectId"] == f"{name}Obj01"[:10] or name != "carol"
        assert stored_hash(s, {"carol": "carolObj01", "erin": "erinObj001", "yuki": "yukiObj001"}[name]).startswith("$scrypt$")
    error(parse_login(s, "erin", "not erin's password"), 101)
    error(parse_login(s, "frank", PASSWORDS["frank"]), 101)  # imported without a password: a reset brings one
    assert stored_hash(s, "frankObj01") is None

    # The imported session keeps working: ParseSwift's User.current after switching the server URL.
    me = ok(ParseClient(s).call("GET", "/users/me", session_token=ALICE_TOKEN))
    assert me["objectId"] == "aliceObj01" and me["sessionToken"] == ALICE_TOKEN
    assert ok(ParseClient(s).call("GET", "/users/me", session_token=LEGACY_TOKEN))["objectId"] == "carolObj01"
    error(ParseClient(s).call("GET", "/users/me", session_token="r:" + "0e" * 16), 209)
    mine = ok(ParseClient(s).call("GET", "/sessions/me", session_token=ALICE_TOKEN))
    assert mine["installationId"] == "inst-alice" and mine["expiresAt"]["iso"] == "2099-01-01T00:00:00.000Z"
    with sqlite3.connect(s.db_path) as db:
        # Tokens are stored as HMACs only, like every other token.
        blob = b"".join(row[0] for row in db.execute("SELECT token_hash FROM sessions"))
        assert ALICE_TOKEN.encode() not in blob and LEGACY_TOKEN.encode() not in blob
        assert db.execute("SELECT count(*) FROM audit_events WHERE kind = 'users_imported'").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 1  # the sign-up code of `taken`, nothing from the import
        before = db.execute("SELECT * FROM users ORDER BY id").fetchall()

    # A second run changes nothing and says so.
    again = cli(s, "import", "--format", "parse", users, "--sessions", sessions)
    assert again.returncode == 0, again.stderr
    counts = summary(again.stdout)
    assert counts["imported"] == 0 and counts["skipped (already here)"] == 7 and counts["conflicts"] == 2, again.stdout
    assert "0 imported, 2 already here" in again.stdout
    with sqlite3.connect(s.db_path) as db:
        assert db.execute("SELECT * FROM users ORDER BY id").fetchall() == before


def test_the_rest_shape_and_bad_records_are_read_record_by_record(parse_server):
    s = parse_server
    path = os.path.join(s.dir, "export.json")
    hashed = bcrypt.hashpw(b"rest password 1", bcrypt.gensalt(rounds=4)).decode()
    with open(path, "w") as f:
        json.dump({"results": [
            {"objectId": "restUser01", "username": "rest", "email": "rest@example.com", "createdAt": "2020-02-02T02:02:02.002Z",
             "updatedAt": "2020-02-02T02:02:02.002Z", "emailVerified": True, "_hashed_password": hashed,
             "score": {"$numberLong": "9007199254740993"}, "ACL": {"*": {"read": True}}},
            {"objectId": "restUser02", "username": "no password, no email", "createdAt": "2020-02-02T02:02:02.002Z"},
            {"objectId": "bad id with spaces", "username": "x"},
            {"objectId": "restUser04", "email": "not an address"},
            "not an object",
        ]}, f, indent=2)
    done = cli(s, "import", "--format", "parse", path)
    assert done.returncode == 0, done.stderr
    counts = summary(done.stdout)
    assert counts["imported"] == 2 and counts["invalid"] == 3 and counts["without password"] == 1, done.stdout
    assert "line 3:" in done.stdout and "line 4: invalid email address" in done.stdout and "line 5:" in done.stdout
    user = ok(parse_login(s, "rest", "rest password 1"))
    assert user["objectId"] == "restUser01" and user["score"] == 9007199254740993

    for broken, message in (("{\"results\": ", "neither JSON lines"), ("[1, 2", "not a JSON array")):
        with open(path, "w") as f:
            f.write(broken)
        out = cli(s, "import", "--format", "parse", path)
        assert out.returncode == 66 and message in out.stderr, out.stderr
    out = cli(s, "import", "--format", "parse", os.path.join(s.dir, "missing.json"))
    assert out.returncode == 66 and "cannot read" in out.stderr
    out = cli(s, "import", "--format", "jsonl", path, "--sessions", path)
    assert out.returncode == 64 and "--format parse" in out.stderr


def test_export_then_import_into_an_empty_deployment_round_trips(parse_server):
    s = parse_server
    who = f"native-{os.urandom(4).hex()}@example.com"
    sign_up(s, who, password="native password 1", attributes=json.dumps({"displayName": "Nat"}))
    users = write_lines(os.path.join(s.dir, "users.json"), parse_users("someone@example.com")[:3])
    assert cli(s, "import", "--format", "parse", users).returncode == 0
    ok(ParseClient(s).call("POST", "/users", {"username": "parse-native", "password": "parse password 1", "level": 3}), 201)

    first = os.path.join(s.dir, "export.jsonl")
    out = cli(s, "export", first)
    assert out.returncode == 0 and "exported 5 users" in out.stdout, out.stderr
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
    refused = cli(s, "export", first)
    assert refused.returncode == 73 and "cannot create" in refused.stderr
    lines = [json.loads(line) for line in open(first)]
    assert {u["email"] for u in lines if "email" in u} >= {who, "alice@example.com", "bob@example.com"}
    assert all(u["password_hash"] for u in lines)

    target = fresh_database()
    new = Server(env=PARSE_ENV, postgres_url=target).start()
    try:
        done = cli(new, "import", "--format", "jsonl", first)
        assert done.returncode == 0, done.stderr
        assert summary(done.stdout)["imported"] == 5, done.stdout
        assert psql(target, "SELECT count(*) FROM users") == "5"
        strict.tokens(password_sign_in(new, who, "native password 1"))
        assert ok(parse_login(new, "alice", PASSWORDS["alice"]))["objectId"] == "aliceObj01"  # bcrypt, verified on PostgreSQL
        assert ok(parse_login(new, "parse-native", "parse password 1"))["level"] == 3
        # Both sign-ins changed only hashes and times: compare everything else, line by line.
        second = os.path.join(new.dir, "again.jsonl")
        assert cli(new, "export", second).returncode == 0
        def stable(path):
            return sorted(json.dumps({k: v for k, v in json.loads(line).items()
                                      if k not in ("password_hash", "updated_at", "last_login_at")}, sort_keys=True)
                          for line in open(path))
        assert stable(first) == stable(second)
        again = cli(new, "import", "--format", "jsonl", first)
        assert summary(again.stdout)["skipped (already here)"] == 5, again.stdout
    finally:
        new.cleanup()


def test_import_checks_declared_attributes_and_the_field_limits(tmp_path):
    """Import is a write path like any other: a declared attribute must match its schema, and a user over the
    per-user field limits is not imported (the report names the keys to raise)."""
    attributes = json.dumps([{"name": "displayName", "type": "string", "required": False, "regex": "^[A-Za-z ]+$"}])
    s = Server(env={**PARSE_ENV, "LATCHKEY_ATTRIBUTES": attributes, "LATCHKEY_PARSE_MAX_CUSTOM_FIELDS": "3"}).start()
    try:
        users = tmp_path / "users.jsonl"
        users.write_text("\n".join(json.dumps(u) for u in [
            {"_id": "goodObj001", "username": "good", "displayName": "Ada Lovelace", "age": 3},
            {"_id": "badObj0001", "username": "bad", "displayName": "<script>x</script>", "age": 4},
            {"_id": "manyObj001", "username": "many", "a": 1, "b": 2, "c": 3, "d": 4},
        ]) + "\n")
        out = subprocess.run([BINARY, "import", "--format", "parse", str(users)], env=s.env, cwd=s.dir, capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "does not match the declared attribute" in out.stdout and "parse.max_custom_fields" in out.stdout, out.stdout
        db = sqlite3.connect(s.db_path)
        rows = dict(db.execute("SELECT username, attributes FROM users").fetchall())
        assert json.loads(rows["good"]) == {"displayName": "Ada Lovelace", "age": 3}
        assert json.loads(rows["bad"]) == {"age": 4}
        assert "many" not in rows
    finally:
        s.cleanup()


def test_the_sample_parse_export_imports_and_its_users_sign_in(parse_server):
    """examples/parse-export/, as its README runs it: three users and a session, maria still logged in, kim's bcrypt
    hash verified as it is."""
    s, folder = parse_server, os.path.join(ROOT, "examples", "parse-export")
    done = cli(s, "import", "--format", "parse", os.path.join(folder, "users.json"), "--sessions", os.path.join(folder, "sessions.json"))
    assert done.returncode == 0, done.stderr
    counts = summary(done.stdout)
    assert counts["imported"] == 3 and counts["conflicts"] == 0 and counts["invalid"] == 0, done.stdout
    assert "1 imported, 0 already here, 0 expired, 0 without their user" in done.stdout, done.stdout
    me = ok(ParseClient(s).call("GET", "/users/me", session_token="r:5e551014e5a9e0b4e8f2a6c3d7b1f0aa"))
    assert me["objectId"] == "eXaMpLe001" and me["username"] == "maria" and me["displayName"] == "Maria", me
    kim = ok(parse_login(s, "kim", "correct horse battery"))
    assert kim["objectId"] == "eXaMpLe003" and kim["sessionToken"].startswith("r:"), kim
