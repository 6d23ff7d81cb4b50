"""Test mode's state, moved as Firebase's emulators move theirs: POST /testing/v1/export gives one document, another
test mode server loads it at start (`--import FILE`) or through POST /testing/v1/import, and `testing.export_on_exit`
writes it when the server stops. The accounts keep their ids and passwords; an authenticator keeps its key, so the
test's own codes (pyotp) still work; roles and identities come along."""
import json
import os
import uuid

import pyotp
import requests

from harness import Server

PASSWORD = "correct horse battery"
APP = "/api/client/v2.0/app/test-app"
SECRET = pyotp.random_base32()


def made(server, **account):
    r = requests.post(server.base + "/testing/v1/users", json=account, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def export(server):
    r = requests.post(server.base + "/testing/v1/export", json={}, timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json", r.text
    return r.json()


def login(server, email):
    return requests.post(server.base + APP + "/auth/providers/local-userpass/login", json={"username": email, "password": PASSWORD}, timeout=10)


def test_an_export_loads_into_another_server_at_start_and_by_the_api(tmp_path):
    email, other = f"st-{uuid.uuid4().hex[:8]}@example.com", f"st-{uuid.uuid4().hex[:8]}@example.com"
    first = Server(args=("serve", "--testing")).start()
    try:
        ada = made(first, email=email, password=PASSWORD, roles=["operator"], identities=[{"provider": "apple", "subject": "apple-1"}],
                   second_factors=[{"kind": "totp", "secret": SECRET}, {"kind": "email", "target": other}])
        state = export(first)
    finally:
        first.cleanup()
    assert state["format"] == "latchkey-testing-state/1"
    [user] = [u for u in state["users"] if u["email"] == email]
    assert user["id"] == ada["id"] and user["object_id"] == ada["object_id"] and user["password_hash"].startswith("$scrypt$")
    assert {(f["kind"], f.get("secret"), f.get("target")) for f in state["second_factors"]} == {("totp", SECRET, None), ("email", None, other)}
    assert state["roles"] == [{"user_id": ada["id"], "role": "operator"}]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))

    second = Server(args=("serve", "--testing", "--import", str(path))).start()
    try:
        assert "test mode state loaded from" in second.read_log()
        signed_in = login(second, email)
        assert signed_in.status_code == 200 and signed_in.json()["user_id"] == ada["id"], signed_in.text
        again = export(second)
        assert [u["id"] for u in again["users"]] == [ada["id"]] and again["roles"] == state["roles"]
        assert {(f["kind"], f.get("secret")) for f in again["second_factors"]} == {("totp", SECRET), ("email", None)}
        # By the API, after a wipe: the same state again; a second import skips what is there.
        assert requests.delete(second.base + "/testing/v1/data", timeout=10).status_code == 200
        loaded = requests.post(second.base + "/testing/v1/import", json=state, timeout=10)
        assert loaded.status_code == 200 and loaded.json() == {"users": 1, "second_factors": 2, "roles": 1, "problems": []}, loaded.text
        assert login(second, email).status_code == 200
        assert requests.post(second.base + "/testing/v1/import", json=state, timeout=10).json()["users"] == 0
        for bad, words in (({"format": "something else", "exported_at": "", "users": [], "second_factors": [], "roles": []}, "format must be"),
                           ({"format": "latchkey-testing-state/1"}, "is missing")):
            r = requests.post(second.base + "/testing/v1/import", json=bad, timeout=10)
            assert r.status_code == 400 and words in r.json()["error_description"], r.text
    finally:
        second.cleanup()


def test_the_state_is_written_at_exit_and_a_bad_file_stops_the_start(tmp_path):
    path, email = tmp_path / "exit.json", f"ex-{uuid.uuid4().hex[:8]}@example.com"
    s = Server(args=("serve", "--testing"), env={"LATCHKEY_TESTING_EXPORT_ON_EXIT": str(path)}).start()
    made(s, email=email, password=PASSWORD)
    s.stop()  # SIGTERM: a graceful stop
    try:
        written = json.loads(path.read_text())
        assert [u["email"] for u in written["users"]] == [email] and not os.path.exists(str(path) + ".partial")
    finally:
        s.cleanup()
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "latchkey-testing-state/1", "users": 3}')
    import subprocess
    from harness import BINARY
    refused = Server(args=("serve", "--testing", "--import", str(broken)))
    out = subprocess.run([BINARY, *refused.args], env=refused.env, cwd=refused.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 65 and "testing.import: " in out.stderr and "is not a state document" in out.stderr, out.stderr
    refused.cleanup()
    plain = Server(env={"LATCHKEY_TESTING_EXPORT_ON_EXIT": str(path)})
    out = subprocess.run([BINARY, *plain.args], env=plain.env, cwd=plain.dir, capture_output=True, text=True, timeout=60)
    assert out.returncode == 78 and "testing.export_on_exit: only applies to test mode" in out.stderr, out.stderr
    plain.cleanup()


def test_test_modes_own_admin_token_only_on_loopback():
    from harness import free_port
    port = free_port()
    s = Server(args=("serve", "--testing"), env={"LATCHKEY_TESTING_ALLOW_REMOTE": "true", "LATCHKEY_ADMIN_LISTEN": f"0.0.0.0:{port}"})
    s.admin_base = f"http://127.0.0.1:{port}"
    s.start()
    try:
        config = s.get("/testing/v1/config").json()
        assert config["admin_token"] is None, config  # reachable from other machines: no well-known token
        r = requests.get(s.admin_base + "/admin/v1/users", headers={"Authorization": "Bearer test-admin-token-0123456789abcdef0123456789abcdef"},
                         timeout=10)
        assert r.status_code in (401, 503), r.text
    finally:
        s.cleanup()
