"""Configuration is validated at start (naming the bad key); mail transports; racing sign-ups."""
import json
import subprocess
import threading
import time

import strict
from conftest import sign_up
from harness import ALL_TYPES, BINARY, Server
import pytest


def run_expecting_config_error(env=None, config_text=None):
    s = Server(env=env, config_text=config_text)
    out = subprocess.run([BINARY, *s.args], env=s.env, cwd=s.dir, capture_output=True, timeout=60)
    s.cleanup()
    assert out.returncode == 78, out
    return out.stderr.decode()


def test_bad_values_are_named():
    assert "server.idle_timeout_seconds" in run_expecting_config_error(config_text="server:\n  idle_timeout_seconds: eighty\n")
    assert "server.port" in run_expecting_config_error(env={"LATCHKEY_SERVER_PORT": "99999"})
    assert "codes.length" in run_expecting_config_error(env={"LATCHKEY_CODES_LENGTH": "3"})
    assert "mail.transport" in run_expecting_config_error(env={"LATCHKEY_MAIL_TRANSPORT": "pigeon"})
    assert "attributes[0].regex" in run_expecting_config_error(config_text="attributes:\n  - {name: a, regex: '('}\n")
    assert "server.public_url" in run_expecting_config_error(env={"LATCHKEY_SERVER_PUBLIC_URL": "ftp://x"})


def test_a_public_url_with_a_path_is_refused_and_an_origin_with_a_slash_is_taken():
    # Behind a proxy mounting Latchkey under /idp, the pages would post to /ui at the root: nobody could sign in.
    said = run_expecting_config_error(env={"LATCHKEY_SERVER_PUBLIC_URL": "https://id.example.com/idp"})
    assert "server.public_url" in said and "/idp" in said and "root" in said, said
    assert "server.public_url" in run_expecting_config_error(env={"LATCHKEY_SERVER_PUBLIC_URL": "https://id.example.com/?a=b"})
    s = Server(env={"LATCHKEY_SERVER_PUBLIC_URL": "http://127.0.0.1:1/"}).start()
    try:
        assert s.get("/.well-known/openid-configuration").json()["issuer"] == "http://127.0.0.1:1"
    finally:
        s.cleanup()


def test_unknown_keys_are_named():
    assert "server.prot" in run_expecting_config_error(config_text="server:\n  prot: 80\n")
    assert "clients[0].secret" in run_expecting_config_error(config_text="clients:\n  - {id: abc, secret: x}\n")


def test_yaml_file_configures_clients_and_attributes(email):
    config = """
server: { host: 127.0.0.1 }
clients:
  - { id: 22222222-2222-2222-2222-222222222222, name: mobile }
attributes:
  - { name: postalCode, type: string, required: true, regex: "^[1-9][0-9]*$" }
codes: { length: 6, ttl_seconds: 600, max_attempts: 3 }
"""
    s = Server(config_text=config).start()
    try:
        strict.error(s.post("/signup/v1.0/start", {"username": email, "challenge_type": ALL_TYPES}), "unauthorized_client")
        r = s.post("/signup/v1.0/start", {"client_id": "22222222-2222-2222-2222-222222222222", "username": email,
                                          "challenge_type": ALL_TYPES})
        st = strict.ok(r, "signup/start")
        ch = strict.ok(s.post("/signup/v1.0/challenge", {"client_id": "22222222-2222-2222-2222-222222222222",
                                                         "continuation_token": st["continuation_token"],
                                                         "challenge_type": ALL_TYPES}), "signup/challenge")
        assert ch["code_length"] == 6 and len(s.wait_for_code(email)) == 6
    finally:
        s.cleanup()


def test_file_transport_writes_json_lines(email):
    s = Server(env={"LATCHKEY_MAIL_TRANSPORT": "file", "LATCHKEY_MAIL_FILE": "mail/out.jsonl"}).start()
    try:
        sign_up(s, email)
        path = s.dir + "/mail/out.jsonl"
        deadline = time.time() + 5
        lines = []
        while time.time() < deadline and not lines:
            with open(path) as f:
                lines = [json.loads(line) for line in f if line.strip()]
            time.sleep(0.05)
        assert set(lines[0]) == {"to", "subject", "text", "html", "created_at"}
        assert lines[0]["to"] == email and any(ch.isdigit() for ch in lines[0]["text"])
    finally:
        s.cleanup()


def test_testing_mailbox_is_off_by_default():
    s = Server(env={"LATCHKEY_TESTING_MAILBOX": "false"}).start()
    try:
        assert s.get("/testing/v1/mail", params={"to": "a@example.com"}).status_code == 404
        assert "testing.mailbox" not in s.read_log()
    finally:
        s.cleanup()


def test_two_racing_sign_ups_make_one_user(server, email):
    flows = []
    for _ in range(2):
        st = strict.ok(server.post("/signup/v1.0/start", {"username": email, "password": "correct horse battery",
                                                          "challenge_type": ALL_TYPES}), "signup/start")
        before = len(server.mails(email))
        ch = strict.ok(server.post("/signup/v1.0/challenge", {"continuation_token": st["continuation_token"],
                                                              "challenge_type": ALL_TYPES}), "signup/challenge")
        flows.append((ch["continuation_token"], server.wait_for_code(email, before)))
    results = [None, None]
    barrier = threading.Barrier(2)

    def finish(i):
        barrier.wait()
        ct, code = flows[i]
        results[i] = server.post("/signup/v1.0/continue", {"continuation_token": ct, "grant_type": "oob", "oob": code})

    threads = [threading.Thread(target=finish, args=(i,)) for i in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 400], [r.text for r in results]
    loser = next(r for r in results if r.status_code == 400)
    strict.error(loser, "user_already_exists")


def test_app_services_config_is_validated():
    err = run_expecting_config_error(env={"LATCHKEY_APP_SERVICES_APPS": '[{"id": "a", "confirmation": {"mode": "magic"}}]'})
    assert "app_services.apps[0].confirmation.mode" in err
    err = run_expecting_config_error(env={"LATCHKEY_APP_SERVICES_APPS": '[{"id": "a", "confirmation": {"mode": "function"}}]'})
    assert "app_services.apps[0].confirmation.function" in err
    err = run_expecting_config_error(env={"LATCHKEY_FUNCTIONS": '{"f": {"kind": "webhook", "url": "http://x/h"}}'})
    assert "functions.f.secret" in err
    err = run_expecting_config_error(env={"LATCHKEY_FUNCTIONS": '{"f": {"kind": "command", "command": ["relative/path"]}}'})
    assert "functions.f.command" in err
    err = run_expecting_config_error(env={"LATCHKEY_APP_SERVICES_APPS": '[{"id": "a", "reset": {"mode": "email", "url": "ftp://x"}}]'})
    assert "app_services.apps[0].reset.url" in err
    assert "app_services.apps[1].id" in run_expecting_config_error(env={"LATCHKEY_APP_SERVICES_APPS": '[{"id": "a"}, {"id": "a"}]'})


def test_development_defaults_refused_off_loopback():
    s = Server(env={"LATCHKEY_SERVER_HOST": "0.0.0.0", "LATCHKEY_TESTING_MAILBOX": "false"})
    try:
        with pytest.raises(RuntimeError) as failed:
            s.start(timeout=10)
        assert "exited with 78" in str(failed.value)
        assert "development: true" in s.read_log() and "clients" in s.read_log()
        s.env["LATCHKEY_DEVELOPMENT"] = "true"
        s.start()
    finally:
        s.cleanup()
