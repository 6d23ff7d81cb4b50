"""README's walk-through, pasted in order into bash against a fresh server on config/latchkey.dev.yaml."""
import os
import re
import shutil
import subprocess
import tempfile

from harness import BINARY, ROOT, Server, free_port


def walkthrough_blocks():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    return [b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if b.startswith("# (walkthrough)")]


def test_walkthrough_runs_as_written():
    blocks = walkthrough_blocks()
    assert len(blocks) >= 7
    folder = tempfile.mkdtemp(prefix="latchkey-readme-")
    os.makedirs(f"{folder}/config")
    shutil.copy(os.path.join(ROOT, "config", "latchkey.dev.yaml"), f"{folder}/config/latchkey.dev.yaml")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_SERVER_PORT"] = str(port)  # the README's 8080 may be taken on a test machine
    server = Server()
    server.base = f"http://127.0.0.1:{port}"
    server.proc = subprocess.Popen([BINARY, "serve", "--config", "config/latchkey.dev.yaml"], cwd=folder, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        server.dir, server.log_path = folder, os.devnull
        import requests, time
        for _ in range(200):
            try:
                if requests.get(server.base + "/health/ready", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.05)
        script = "set -eo pipefail\n" + "\n".join(blocks).replace("127.0.0.1:8080", f"127.0.0.1:{port}")
        out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=folder)
        assert out.returncode == 0, out.stdout + out.stderr
        text = out.stdout
        assert '"error"' not in text, text  # every step succeeded; errors would be printed
        assert text.count('"access_token"') >= 6 and '"challenge_type":"password"' in text and '"status":"succeeded"' in text
        assert '"email":"ada@example.com"' in text and '"user_id"' in text and '"identities"' in text
        # The Parse walk-through: verified by link, password changed, reset by link, logged in with the new one.
        assert "/parse/apps/verify_email_success.html" in text and '"Password successfully reset"' in text
        assert text.count('"sessionToken":"r:') >= 5 and '"count":1' in text
        assert os.path.exists(f"{folder}/data/dev.sqlite")  # relative to the config file, as it says
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
