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


PAGES = ["docs/native-auth.md", "docs/app-services.md", "docs/parse.md", "docs/openid.md"]


def walkthrough_blocks():
    blocks = []
    for page in PAGES:
        with open(os.path.join(ROOT, page)) as f:
            blocks += [b for b in re.findall(r"```sh\n(.*?)```", f.read(), re.S) if b.startswith("# (walkthrough)")]
    return blocks


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
        env["LATCHKEY_ADMIN_LISTEN"] = f"127.0.0.1:{free_port()}"  # and so may 9464
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
        """Runs the blocks as one bash script, as pasted, with the documented port replaced by this server's."""
        script = "set -eo pipefail\n" + "\n".join(blocks)
        script = script.replace("127.0.0.1:8080", f"127.0.0.1:{self.port}").replace("localhost:8080", f"localhost:{self.port}")
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=self.folder)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def test_walkthrough_runs_as_written():
    blocks = walkthrough_blocks()
    assert len(blocks) >= 8
    server = DevServer()
    try:
        text = server.bash(blocks)
        assert '"error"' not in text, text  # every step succeeded; errors would be printed
        assert text.count('"access_token"') >= 8 and '"challenge_type":"password"' in text and '"status":"succeeded"' in text
        assert '"email":"ada@example.com"' in text and '"user_id"' in text and '"identities"' in text
        assert '"provider_type":"anon-user"' in text  # the anonymous App Services user
        assert '"username":"' in text and text.count('"sessionToken":"r:') >= 7  # the anonymous Parse user and its upgrade
        # The Parse walk-through: verified by link, password changed, reset by link, logged in with the new one.
        assert "/parse/apps/verify_email_success.html" in text and '"Password successfully reset"' in text
        assert '"count":1' in text
        # Second factors: registered just in time, then signed in through mfa_required; Parse's authenticator.
        assert "registration_required" in text and "mfa_required" in text and '"challenge_channel":"email"' in text
        assert '"recovery":"' in text and '"mfa":{"status":"enabled"}' in text and '"recovery_codes":["' in text
        # The browser sign-in, curl playing the browser: a code, an ID token saying how, SSO, and sign-out.
        assert "<h1>Sign in</h1>" in text and '"amr":["otp"]' in text and "&state=s2&iss=" in text and "/?state=bye" in text
        assert os.path.exists(f"{server.folder}/data/dev.sqlite")  # relative to the config file, as it says
    finally:
        server.stop()


def test_readme_tour_runs_as_written():
    tour = [block for block in readme_commands() if block.startswith("C=")]
    assert len(tour) == 1
    server = DevServer()
    try:
        text = server.bash(tour)
        assert '"error"' not in text, text
        assert '"challenge_type":"oob"' in text and '"challenge_channel":"email"' in text
        assert "\n201\n" in text and '"sessionToken":"r:' in text and '"keys":[' in text
    finally:
        server.stop()
