"""docs/testing.md's recipes run as written: the local one pasted into bash, and the GitHub Actions job's shell steps
in order (its `uses:` steps are GitHub's own: the checkout is this one, at `latchkey/`; its package step is what this
suite's own test command installs first), the app's test command replaced by a request for the ready apps."""
import os
import re
import subprocess
import tempfile

import requests
import yaml

from harness import ROOT, free_port


def recipe(name, language):
    with open(os.path.join(ROOT, "docs/testing.md")) as f:
        blocks = [b for b in re.findall(rf"```{language}\n(.*?)```", f.read(), re.S) if b.startswith(f"# (recipe) {name}\n")]
    assert len(blocks) == 1, name
    return blocks[0]


def clean_env():
    """The reader's shell: no LATCHKEY_* of this suite's (the server refuses a variable that names no key)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}


def stop(port):
    subprocess.run(["pkill", "-f", f"serve --testing --port {port}"], check=False)


def test_the_local_recipe_runs_as_pasted():
    port, admin = free_port(), free_port()
    script = recipe("local", "sh").replace("8090", str(port)).replace("9490", str(admin))
    folder = tempfile.mkdtemp(prefix="latchkey-recipe-")
    os.symlink(os.path.join(ROOT, ".build"), os.path.join(folder, ".build"))
    # `swift build` runs in the checkout; the rest in a folder of the reader's (the log lands there).
    script = script.replace("swift build --product latchkey", f"(cd {ROOT} && swift build --product latchkey)")
    try:
        out = subprocess.run(["bash", "-e", "-c", script], cwd=folder, env=clean_env(), capture_output=True, text=True, timeout=900)
        assert out.returncode == 0, out.stdout + out.stderr
        assert '"status":"ready"' in out.stdout and '"test-app"' in out.stdout, out.stdout
        assert os.path.exists(os.path.join(folder, "latchkey-test.log"))
    finally:
        stop(port)


def test_the_github_actions_job_runs_step_by_step():
    job = yaml.safe_load(recipe("github-actions", "yaml"))["jobs"]["test"]
    assert job["container"] == "swift:6.2-bookworm"
    steps = job["steps"]
    assert [s.get("uses") for s in steps if "uses" in s] == ["actions/checkout@v4", "actions/checkout@v4", "actions/cache@v4"]
    cache = next(s for s in steps if s.get("uses") == "actions/cache@v4")["with"]
    assert cache["path"] == "latchkey/.build"
    runs = [s["run"] for s in steps if "run" in s]
    assert runs[0].startswith("apt-get update && apt-get install") and "libargon2-dev" in runs[0]
    port = free_port()
    workspace = tempfile.mkdtemp(prefix="latchkey-actions-")
    os.symlink(ROOT, os.path.join(workspace, "latchkey"))  # the second checkout's path
    try:
        for run in runs[1:]:
            run = run.replace("8090", str(port)).replace("./run-your-tests", "sh -c 'curl -fsS $LATCHKEY_URL/testing/v1/config'")
            out = subprocess.run(["bash", "-e", "-c", run], cwd=workspace, env=clean_env(), capture_output=True, text=True, timeout=900)
            assert out.returncode == 0, (run, out.stdout + out.stderr)
        assert '"test-app"' in out.stdout, out.stdout  # the last step reached test mode
        assert requests.get(f"http://127.0.0.1:{port}/health/ready", timeout=5).status_code == 200
    finally:
        stop(port)
