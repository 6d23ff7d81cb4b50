"""The docs' walk-throughs (native authentication, then App Services, then Parse), pasted in order into bash against
a fresh server started as README's first command starts it, and README's tour against another."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import requests

from harness import BINARY, ROOT, free_port


PAGES = ["docs/native-auth.md", "docs/app-services.md", "docs/parse.md", "docs/openid.md", "docs/account.md", "docs/console.md",
         "docs/passkeys.md", "docs/configuration.md"]


def walkthrough_blocks(page):
    with open(os.path.join(ROOT, page)) as f:
        return [b for b in re.findall(r"```sh\n(.*?)```", f.read(), re.S) if b.startswith("# (walkthrough)")]


def operations_block():
    with open(os.path.join(ROOT, "docs/operations.md")) as f:
        blocks = [b for b in re.findall(r"```sh\n(.*?)```", f.read(), re.S) if b.startswith("# (operations)")]
    assert len(blocks) == 1
    return blocks[0]


def readme_commands():
    """README's code blocks: the first command (how to start) and the tour."""
    with open(os.path.join(ROOT, "README.md")) as f:
        return re.findall(r"```sh\n(.*?)```", f.read(), re.S)


class DevServer:
    """The binary started the way README's first command starts it, in a fresh folder holding the dev config."""

    def __init__(self):
        first = readme_commands()[0].strip()
        assert first == "swift run latchkey serve --config config/latchkey.dev.yaml", first
        self.folder = tempfile.mkdtemp(prefix="latchkey-readme-")
        os.makedirs(f"{self.folder}/config")
        for name in ("latchkey.dev.yaml", "dev-web-client.secret", "dev-admin.token"):  # the config and the files it names
            shutil.copy(os.path.join(ROOT, "config", name), f"{self.folder}/config/{name}")
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
        env["LATCHKEY_SERVER_PORT"] = str(self.port)  # README's 8080 may be taken on a test machine
        env["LATCHKEY_SERVER_PUBLIC_URL"] = f"http://localhost:{self.port}"  # the dev config's public URL, on that port
        self.admin_port = free_port()
        env["LATCHKEY_ADMIN_LISTEN"] = f"127.0.0.1:{self.admin_port}"  # and so may 9464
        self.proc = subprocess.Popen([BINARY, *first.split()[3:]], cwd=self.folder, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{self.port}"
        for _ in range(200):
            try:
                if requests.get(base + "/health/ready", timeout=1).status_code == 200:
                    return
            except requests.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("the development server did not become ready")

    def bash(self, blocks):
        """Runs the blocks as one `bash -e` script, as pasted, with the documented ports replaced by this server's."""
        script = "set -eo pipefail\n" + "\n".join(blocks)
        script = script.replace("127.0.0.1:8080", f"127.0.0.1:{self.port}").replace("localhost:8080", f"localhost:{self.port}")
        script = script.replace("127.0.0.1:9464", f"127.0.0.1:{self.admin_port}")
        # The binary on PATH, as README says to put it after a build.
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")},
               "PATH": os.path.dirname(BINARY) + os.pathsep + os.environ.get("PATH", "")}
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=self.folder, env=env)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "stopped at" not in out.stderr, out.stderr
        return out.stdout

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def check_native(text):
    assert text.count('"access_token"') >= 5 and '"challenge_type":"password"' in text and '"status":"succeeded"' in text
    # Second factors: registered just in time, then signed in through mfa_required; then an authenticator.
    assert "registration_required" in text and "mfa_required" in text and '"challenge_channel":"email"' in text
    assert '"recovery_codes":["' in text


def check_app_services(text):
    assert text.count('"access_token"') >= 3 and '"user_id"' in text and '"identities"' in text
    assert '"provider_type":"anon-user"' in text  # the anonymous App Services user


def check_parse(text):
    assert text.count('"sessionToken":"r:') >= 7  # logins, the anonymous user and its upgrade
    # Verified by link, password changed, reset by link, logged in with the new one; found by the master key.
    assert "/parse/apps/verify_email_success.html" in text and '"Password successfully reset"' in text
    assert '"count":1' in text and '"recovery":"' in text and '"mfa":{"status":"enabled"}' in text


def check_openid(text):
    # The browser sign-in, curl playing the browser: a code, an ID token saying how, SSO, and sign-out.
    assert "<h1>Sign in</h1>" in text and '"amr":["otp"]' in text and "&state=s2&iss=" in text and "/?state=bye" in text


def check_account(text):
    assert "<h1>Your account</h1>" in text and "Your profile is saved." in text and re.search(r"lin\.x\d+@example\.com \{'displayName': 'Lin'\}", text)


def check_console(text):
    lines = text.splitlines()
    assert "303" in lines and "<h1>Overview</h1>" in lines and '"actor":"console:Ada"' in lines[-1], text[-800:]
    assert int(lines[-2]) >= 1  # the user found


def check_passkeys(text):
    assert '"rpId":"localhost"' in text and '"userVerification":"required"' in text and '"allowCredentials":[]' in text


def check_configuration(text):
    assert re.search(r"^http://localhost:\d+$", text, re.M) and "server.prot: unknown key (did you mean server.port?)" in text
    assert "LATCHKEY_SERVER_PROT: names no configuration key (did you mean LATCHKEY_SERVER_PORT?)" in text


def check_operations(text):
    assert '"kind":"admin.user_disabled"' in text and '"removed":0' in text and '"kind":"server"' in text


def test_tour_then_every_walkthrough_twice_on_one_server():
    """As a newcomer pastes them: README's tour, then each page in a new shell (App Services and Parse after the
    native page's helpers, as they say), then operations.md's admin block; and all of it again on the same server, so
    no page depends on a fresh database or on another page's accounts."""
    tour = [block for block in readme_commands() if block.startswith("C=")]
    assert len(tour) == 1
    helpers = walkthrough_blocks("docs/native-auth.md")[0]
    checks = {"docs/native-auth.md": check_native, "docs/app-services.md": check_app_services,
              "docs/parse.md": check_parse, "docs/openid.md": check_openid, "docs/account.md": check_account,
              "docs/console.md": check_console, "docs/passkeys.md": check_passkeys, "docs/configuration.md": check_configuration}
    server = DevServer()
    try:
        for _ in range(2):
            text = server.bash(tour)
            assert '"error"' not in text, text
            assert '"challenge_type":"oob"' in text and '"challenge_channel":"email"' in text
            assert "\n201\n" in text and '"sessionToken":"r:' in text and '"keys":[' in text
            assert re.search(r'"email":"ada\.x\d+@example\.com"', text) and '"sub":"' in text, text  # signed in, userinfo answered
            for page in PAGES:
                blocks = walkthrough_blocks(page)
                assert blocks, page
                text = server.bash(blocks if page == "docs/native-auth.md" else [helpers, *blocks])
                assert '"error"' not in text, (page, text)
                checks[page](text)
            check_operations(server.bash([operations_block()]))
        assert os.path.exists(f"{server.folder}/data/dev.sqlite")  # relative to the config file, as it says
    finally:
        server.stop()


def test_a_failed_step_stops_the_walkthrough_and_names_it():
    """The helpers stop at the first failure under `bash -e` and say which request failed."""
    helpers = walkthrough_blocks("docs/native-auth.md")[0]
    server = DevServer()
    try:
        script = "set -e\n" + helpers + "\npost /oauth2/v2.0/token -d grant_type=password -d username=$ADA -d password=x\necho REACHED\n"
        script = script.replace("127.0.0.1:8080", f"127.0.0.1:{server.port}")
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, cwd=server.folder)
        assert out.returncode != 0 and "REACHED" not in out.stdout
        assert "stopped at curl" in out.stderr and "/oauth2/v2.0/token" in out.stderr and "HTTP 400" in out.stderr, out.stderr
    finally:
        server.stop()
