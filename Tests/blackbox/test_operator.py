"""What an operator meets first: the binary runs from any folder with its defaults inside it, configuration
paths are relative to the file, read-only commands create nothing, and start-up errors are one line with
the key and a sysexits code."""
import os
import shutil
import socket
import subprocess
import tempfile

import pytest
import requests

import strict
from conftest import fresh, sign_up
from harness import ALL_TYPES, BINARY, CLIENT_ID, ROOT, Server, free_port


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update(extra)
    return env


def run(args, cwd, env=None, timeout=30):
    return subprocess.run([BINARY, *args], cwd=cwd, env=env or clean_env(), capture_output=True, timeout=timeout)


@pytest.fixture
def elsewhere():
    """A binary copied out of the checkout, a config in its own folder, and an unrelated working directory."""
    root = tempfile.mkdtemp(prefix="latchkey-op-")
    os.makedirs(f"{root}/bin"), os.makedirs(f"{root}/etc"), os.makedirs(f"{root}/cwd")
    shutil.copy(BINARY, f"{root}/bin/latchkey")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_runs_from_any_folder_with_relative_paths_from_its_config(elsewhere):
    port = free_port()
    with open(f"{elsewhere}/etc/latchkey.yaml", "w") as f:
        f.write(f"server:\n  port: {port}\ndatabase:\n  path: state/latchkey.sqlite\npasswords:\n  scrypt_log_n: 12\n"
                "testing:\n  mailbox: true\n")
    proc = subprocess.Popen([f"{elsewhere}/bin/latchkey", "serve", "--config", f"{elsewhere}/etc/latchkey.yaml"],
                            cwd=f"{elsewhere}/cwd", env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    s = Server()
    s.base, s.proc = f"http://127.0.0.1:{port}", proc
    try:
        for _ in range(200):
            try:
                if requests.get(s.base + "/health/ready", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert proc.poll() is None, proc.stdout.read().decode()
            import time
            time.sleep(0.05)
        assert os.path.exists(f"{elsewhere}/etc/state/latchkey.sqlite")
        assert os.listdir(f"{elsewhere}/cwd") == []
        # Built-in templates, pages and common-password list are in use.
        email = "anywhere@example.com"
        strict.error(s.post("/signup/v1.0/start", {"username": email, "password": "password123", "challenge_type": ALL_TYPES}),
                     "invalid_grant", "password_banned")
        sign_up(s, email)
        assert "Latchkey" in s.mails(email)[-1]["subject"] or s.mails(email)[-1]["subject"]
        # A broken reset link is refused on GET, with the built-in page saying how to get a new one.
        page = requests.get(s.base + "/reset-password?token=a&tokenId=b")
        assert page.status_code == 400 and "<!doctype html>" in page.text and "Copy the whole link from the mail" in page.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_read_only_commands_create_nothing(elsewhere):
    cwd = f"{elsewhere}/cwd"
    for args in (["audit"], ["mail", "status"], ["mail", "retry"]):
        out = run(args, cwd)
        assert out.returncode == 66, (args, out.returncode, out.stderr)
        assert out.stderr.decode().startswith("latchkey: database.path: no database at")
        assert os.listdir(cwd) == []
    assert run(["migrate"], cwd).returncode == 0
    assert os.path.exists(f"{cwd}/data/latchkey.sqlite")
    assert run(["audit"], cwd).returncode == 0 and run(["mail", "status"], cwd).returncode == 0


def test_start_errors_are_one_line_with_the_key(elsewhere):
    cwd = f"{elsewhere}/cwd"
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        out = run(["serve"], cwd, clean_env(LATCHKEY_SERVER_PORT=str(busy.getsockname()[1])))
        assert out.returncode == 69, out.stderr
        assert f"latchkey: server.port: 127.0.0.1:{busy.getsockname()[1]} is already in use; pick another port with --port N " \
            "or LATCHKEY_SERVER_PORT=N" in out.stderr.decode(), out.stderr
        assert "CancellationError" not in out.stderr.decode() + out.stdout.decode()
        # The flag names the same listener: taken there too, it says so.
        out = run(["serve", "--testing", "--port", str(busy.getsockname()[1])], cwd)
        assert out.returncode == 69 and b"--port N" in out.stderr, out.stderr
    finally:
        busy.close()
    out = run(["serve"], cwd, clean_env(LATCHKEY_DATABASE_PATH="/etc/hostname/latchkey.sqlite"))
    assert out.returncode == 73 and out.stderr.decode().startswith("latchkey: database.path: cannot open"), out.stderr
    out = run(["serve"], cwd, clean_env(LATCHKEY_DATABASE_PATH="/proc/latchkey/db.sqlite"))
    assert out.returncode == 73 and out.stderr.decode().startswith("latchkey: database.path: cannot create the folder"), out.stderr
    out = run(["serve"], cwd, clean_env(LATCHKEY_DATABASE_MIGRATIONS=f"{elsewhere}/missing"))
    assert out.returncode == 78 and "latchkey: database.migrations: folder" in out.stderr.decode(), out.stderr
    out = run(["serve"], cwd, clean_env(LATCHKEY_SERVER_PROT="9001"))
    assert out.returncode == 78 and out.stderr.decode().strip() == "latchkey: LATCHKEY_SERVER_PROT: names no configuration key (did you mean LATCHKEY_SERVER_PORT?)"
    out = run(["serve"], cwd, clean_env(LATCHKEY_PASSWORDS_COMMON_LIST=f"{elsewhere}/nope.txt"))
    assert out.returncode == 78 and "passwords.common_list: cannot read" in out.stderr.decode()
    out = run(["serve"], cwd, clean_env(LATCHKEY_PASSWORDS_SCRYPT_LOG_N="20", LATCHKEY_PASSWORDS_SCRYPT_R="32"))
    assert out.returncode == 78 and "passwords.scrypt_log_n" in out.stderr.decode()
    for line in (out.stderr.decode().strip(),):
        assert "\n" not in line
    assert os.listdir(cwd) in ([], ["data"])


def test_read_only_database_is_reported_at_start(elsewhere):
    """As an unprivileged user (root writes anywhere): a database file it may read but not write."""
    cwd = f"{elsewhere}/cwd"
    assert run(["migrate"], cwd).returncode == 0
    os.chmod(elsewhere, 0o755), os.chmod(cwd, 0o755), os.chmod(f"{cwd}/data", 0o755), os.chmod(f"{elsewhere}/bin", 0o755)
    os.chmod(f"{cwd}/data/latchkey.sqlite", 0o644)
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    out = subprocess.run([*drop, f"{elsewhere}/bin/latchkey", "serve"], cwd=cwd, env=clean_env(), capture_output=True, timeout=30)
    assert out.returncode == 73, out.stderr
    assert out.stderr.decode().startswith("latchkey: database.path: cannot open data/latchkey.sqlite for writing"), out.stderr


def test_version_and_unknown_command(elsewhere):
    out = run(["--version"], elsewhere)
    assert out.returncode == 0 and out.stdout.decode().strip().count(".") == 2
    out = run(["bogus"], elsewhere)
    assert out.returncode == 64 and "unknown command 'bogus'" in out.stderr.decode()


def test_healthcheck_follows_the_configured_port():
    s = Server().start()
    try:
        out = subprocess.run([BINARY, "healthcheck"], env=s.env, cwd=s.dir, capture_output=True, timeout=30)
        assert out.returncode == 0 and out.stdout.decode().strip() == "ready"
        s.stop()
        out = subprocess.run([BINARY, "healthcheck"], env=s.env, cwd=s.dir, capture_output=True, timeout=30)
        assert out.returncode == 1 and out.stdout.decode().startswith("not ready")
    finally:
        s.cleanup()


def test_audit_cli_escapes_control_characters(apps):
    email = fresh("agent")
    requests.post(apps.base + "/oauth2/v2.0/initiate", data={"client_id": CLIENT_ID, "username": email, "challenge_type": ALL_TYPES},
                  headers={"User-Agent": "evil\x1b]0;owned\x07agent"})
    sign_up(apps, email)
    import subprocess
    from harness import BINARY
    out = subprocess.run([BINARY, "audit", "--since", "1h"], env=apps.env, cwd=apps.dir, capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert b"\x1b" not in out.stdout and b"\x07" not in out.stdout


def test_latchkey_alone_prints_help_and_creates_nothing(elsewhere):
    cwd = f"{elsewhere}/cwd"
    out = run([], cwd)
    assert out.returncode == 0 and b"USAGE: latchkey" in out.stdout and b"serve" in out.stdout, out
    assert os.listdir(cwd) == [], os.listdir(cwd)  # no data/latchkey.sqlite in whatever folder it ran in


def test_the_cli_finds_the_development_database_as_the_docs_say(elsewhere):
    """README: the dev config named before or after the command, or by LATCHKEY_CONFIG; without it the CLI points at
    the dev config instead of advising `migrate` (which would make a second, empty database)."""
    cwd = f"{elsewhere}/cwd"
    os.makedirs(f"{cwd}/config")
    for name in ("latchkey.dev.yaml", "dev-web-client.secret", "dev-admin.token"):
        shutil.copy(os.path.join(ROOT, "config", name), f"{cwd}/config/{name}")
    out = run(["users", "list"], cwd)
    assert out.returncode == 66 and b"migrate" not in out.stderr, out.stderr
    assert b"pass --config config/latchkey.dev.yaml or set LATCHKEY_CONFIG=config/latchkey.dev.yaml" in out.stderr, out.stderr
    assert run(["migrate", "--config", "config/latchkey.dev.yaml"], cwd).returncode == 0
    for args, env in ((["--config", "config/latchkey.dev.yaml", "users", "list"], None),
                      (["--config=config/latchkey.dev.yaml", "users", "list"], None),
                      (["users", "list", "--config", "config/latchkey.dev.yaml"], None),
                      (["users", "list"], clean_env(LATCHKEY_CONFIG="config/latchkey.dev.yaml"))):
        out = run(args, cwd, env)
        # The answer on stdout, and no `info` lines on stderr: an operator command's output is its answer.
        assert out.returncode == 0 and out.stdout.decode().startswith("id\t") and out.stderr == b"", (args, out)
        # The count names the database it read: the dev file, resolved against the configuration's folder.
        assert out.stdout.decode().splitlines()[-1] == f"0 users in {os.path.realpath(cwd)}/data/dev.sqlite", out.stdout
    out = run(["users", "list"], cwd, clean_env(LATCHKEY_CONFIG="config/missing.yaml"))
    assert out.returncode == 78 and b"LATCHKEY_CONFIG: cannot read config/missing.yaml" in out.stderr, out.stderr
    out = run(["users", "list"], cwd, clean_env(LATCHKEY_CONFIG="config/latchkey.dev.yaml", LATCHKEY_LOG_LEVEL="info"))
    assert out.returncode == 0 and b"configuration config/latchkey.dev.yaml" in out.stderr  # asked for, it says what it opened
    out = run(["--config", "config/latchkey.dev.yaml", "frob"], cwd)
    assert out.returncode == 64 and b"unknown command 'frob'" in out.stderr, out.stderr
    out = run(["users", "list", "--limit", "-5", "--config", "config/latchkey.dev.yaml"], cwd)
    assert out.returncode == 64 and b"--limit must be at least 1 (it was -5)" in out.stderr, out.stderr
    out = run(["keys", "--config", "config/latchkey.dev.yaml"], cwd)
    assert out.returncode == 0 and b"\tES256\tsigning\t" in out.stdout, out  # `keys` lists, as `clients` does
