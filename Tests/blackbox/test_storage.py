"""What is on disk: schema and migrations, secrets never in clear, keys kept across restarts."""
import base64
import os
import sqlite3
import subprocess
import time

import strict
from conftest import password_sign_in, sign_up, token_after_sign_up
from harness import BINARY, Server


def test_database_never_holds_a_clear_secret(email):
    s = Server().start()
    try:
        password = "Tr0ub4dor&3-unique-pw"
        start = strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": password,
                                                        "challenge_type": "oob password redirect"}), "signup/start")
        ch = strict.ok(s.post("/signup/v1.0/challenge", {"continuation_token": start["continuation_token"],
                                                         "challenge_type": "oob password redirect"}), "signup/challenge")
        code = s.wait_for_code(email)
        done = strict.ok(s.post("/signup/v1.0/continue", {"continuation_token": ch["continuation_token"],
                                                          "grant_type": "oob", "oob": code}), "signup/continue")
        tokens = strict.tokens(token_after_sign_up(s, email, done["continuation_token"]))
        again = strict.tokens(password_sign_in(s, email, password))
        refreshed = strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token",
                                                                "refresh_token": again["refresh_token"]}))
        secrets = [password, code, start["continuation_token"], ch["continuation_token"], done["continuation_token"],
                   tokens["refresh_token"], again["refresh_token"], refreshed["refresh_token"], tokens["access_token"]]
        s.stop()
        blob = b""
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(s.db_path + suffix):
                with open(s.db_path + suffix, "rb") as f:
                    blob += f.read()
        assert len(blob) > 10_000
        for secret in secrets:
            assert secret.encode() not in blob, f"clear secret found in the database files: {secret[:6]}..."
        db = sqlite3.connect(s.db_path)
        (phc,) = db.execute("SELECT password_hash FROM users WHERE email = ?", (email,)).fetchone()
        assert phc.startswith("$scrypt$ln=12,r=8,p=1$")
        assert db.execute("SELECT COUNT(*) FROM outbox WHERE sealed_body IS NOT NULL").fetchone()[0] == 0
    finally:
        s.cleanup()


def test_migrate_command_is_idempotent_and_records_versions(tmp_path):
    s = Server(args=("migrate",))
    for _ in range(2):
        out = subprocess.run([BINARY, "migrate"], env=s.env, cwd=s.dir, capture_output=True, timeout=60)
        assert out.returncode == 0, out.stderr
    db = sqlite3.connect(s.db_path)
    assert [r[0] for r in db.execute("SELECT identifier FROM grdb_migrations")] == ["0001_init", "0002_lockout", "0003_token_lineage_and_devices", "0004_sessions_and_usernames", "0005_parse_object_ids", "0006_rate_buckets", "0007_drop_parent_index", "0008_identities", "0009_api_keys", "0010_second_factors", "0011_openid", "0012_clients", "0013_console", "0014_outbox_claims", "0015_identity_verified_email", "0016_passkeys", "0017_session_origin", "0018_custom_data", "0019_device_authorizations", "0020_resources", "0021_client_assertions"]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"users", "otp_codes", "flows", "action_tokens", "sessions", "signing_keys", "outbox", "audit_events", "rate_buckets", "identities", "api_keys"} <= tables
    s.cleanup()


def test_tokens_survive_a_restart(email):
    s = Server().start()
    try:
        first = strict.tokens(token_after_sign_up(s, email, sign_up(s, email)))
        kid_before = s.get("/discovery/v2.0/keys").json()["keys"][0]["kid"]
        s.stop()
        s.start()
        assert s.get("/discovery/v2.0/keys").json()["keys"][0]["kid"] == kid_before
        r = s.get("/oidc/userinfo", headers={"Authorization": "Bearer " + first["access_token"]})
        assert r.status_code == 200
        strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}))
    finally:
        s.cleanup()


def test_audit_events_are_written(email):
    s = Server().start()
    try:
        sign_up(s, email)
        strict.error(password_sign_in(s, email, "wrong password!"), "invalid_grant", code=50126)
        s.stop()
        kinds = [r[0] for r in sqlite3.connect(s.db_path).execute("SELECT kind FROM audit_events ORDER BY id")]
        assert kinds == ["sign_up", "sign_in_failed"]
    finally:
        s.cleanup()


def test_store_failure_is_a_generic_500_and_writes_nothing(email):
    """Another process holds the write lock past the busy timeout: the request fails cleanly, then recovers."""
    s = Server(env={"LATCHKEY_DATABASE_BUSY_TIMEOUT_MS": "200"}).start()
    try:
        blocker = sqlite3.connect(s.db_path, isolation_level=None, timeout=5)
        blocker.execute("BEGIN EXCLUSIVE")
        r = s.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                          "challenge_type": "oob password redirect"})
        assert r.status_code == 500, r.text
        assert r.json() == {"error": "server_error", "error_description": "The server could not complete the request."}
        blocker.execute("ROLLBACK")
        blocker.close()
        assert "store write failed" in s.read_log()
        db = sqlite3.connect(s.db_path)
        assert db.execute("SELECT COUNT(*) FROM flows").fetchone()[0] == 0
        strict.ok(s.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                "challenge_type": "oob password redirect"}), "signup/start")
    finally:
        s.cleanup()


def test_refresh_tokens_are_stored_under_a_key_that_starts_with_their_issue_time(email):
    """The token index stays ordered by time (new keys on its last pages), and the key is no clear secret."""
    s = Server().start()
    try:
        before = int(time.time() * 1000)
        first = strict.tokens(token_after_sign_up(s, email, sign_up(s, email)))
        second = strict.tokens(s.post("/oauth2/v2.0/token", {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}))
        after = int(time.time() * 1000)
        db = sqlite3.connect(s.db_path)
        issued = []
        for token in (first["refresh_token"], second["refresh_token"]):
            assert len(token) == 51 and all(c.isalnum() or c in "-_" for c in token), token
            raw = base64.urlsafe_b64decode(token + "=")
            assert len(raw) == 38
            millis = int.from_bytes(raw[:6], "big")
            assert before <= millis <= after
            rows = db.execute("SELECT token_hash FROM sessions WHERE substr(token_hash, 1, 6) = ?", (raw[:6],)).fetchall()
            assert len(rows) == 1 and len(rows[0][0]) == 38
            assert raw[6:] not in rows[0][0]
            issued.append(rows[0][0])
        assert issued[0][:6] <= issued[1][:6]
    finally:
        s.cleanup()
