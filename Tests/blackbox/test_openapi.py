"""The OpenAPI document against the live server: schemathesis (PyPI) generates requests for every operation from
the document and checks every answer: no 5xx, statuses, content types and bodies as documented. The admin
operations run against the admin listener with its token."""
import json
import os
import re
import subprocess
import sys

import pytest
import requests

from harness import Server
from parse_client import ENV as PARSE_ENV

TOKEN = "0123456789abcdef" * 4
CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance,unsupported_method"
SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    token_file = tmp_path_factory.mktemp("openapi") / "admin.token"
    token_file.write_text(TOKEN)
    s = Server(env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file), **PARSE_ENV,
                    "LATCHKEY_APP_SERVICES_APPS": json.dumps([{"id": "auto-app", "confirmation": {"mode": "auto"}}])}).start()
    yield s
    s.cleanup()


def run_schemathesis(s, base, *selection, token):
    args = [SCHEMATHESIS, "run", s.base + "/openapi.json", "--url", base, "--checks", CHECKS, "--max-examples", "25",
            "--phases", "examples,coverage,fuzzing", "--seed", "1", "-H", f"Authorization: Bearer {token}", *selection]
    result = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=s.dir)
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert "passed" in result.stdout and " 0 generated" not in result.stdout
    return result.stdout


def test_the_document_is_served_for_this_deployment(live):
    document = live.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0" and document["servers"] == [{"url": live.base}]
    native_form = document["components"]["schemas"]["NativeForm"]["properties"]["client_id"]
    assert native_form["enum"] == ["11111111-1111-1111-1111-111111111111"]
    assert document["paths"]["/admin/v1/users"]["get"]["servers"] == [{"url": live.admin_base}]
    assert "/parse/users/me" in document["paths"] and "/signup/v1.0/start" in document["paths"]


@pytest.fixture(scope="module")
def bare():
    """The default deployment: no Parse or App Services app, no testing mailbox, the admin listener off."""
    s = Server(env={"LATCHKEY_TESTING_MAILBOX": "false", "LATCHKEY_ADMIN_LISTEN": ""}).start()
    yield s
    s.cleanup()


def test_the_document_leaves_out_what_a_deployment_does_not_serve(bare):
    paths = bare.get("/openapi.json").json()["paths"]
    assert "/oauth2/v2.0/token" in paths and "/.well-known/openid-configuration" in paths
    assert not any(p.startswith(("/parse", "/api/client/v2.0/app/", "/testing/", "/admin/", "/metrics")) for p in paths), sorted(paths)


def test_schemathesis_on_the_default_deployment(bare):
    # Every operation this deployment documents holds against it (a different document from the full one above).
    out = run_schemathesis(bare, bare.base, token="not-a-token")
    tested = re.search(r"Tested: (\d+)", out)
    assert tested and int(tested.group(1)) >= 30, out[-3000:]


def test_schemathesis_public_operations(live):
    out = run_schemathesis(live, live.base, "--exclude-path-regex", "^/(admin|metrics)", token="not-a-token")
    tested = re.search(r"Tested: (\d+)", out)
    assert tested and int(tested.group(1)) >= 70, out[-3000:]  # every public operation of the document


def test_schemathesis_admin_operations(live):
    run_schemathesis(live, live.admin_base, "--include-path-regex", "^/(admin|metrics)", token=TOKEN)


def test_schemathesis_on_the_development_configuration(tmp_path):
    """The README's first command's configuration (config/latchkey.dev.yaml, with its App Services and Parse apps)
    serves a document schemathesis accepts and holds to. Its `auth_bootstrap` phase is left out, as in every run
    here: schemathesis 4 builds the register call of its register-and-login bootstrap from the body alone and fails
    on any register operation with a path parameter (App Services' `{app}`), whatever the document says."""
    config = os.path.join(os.path.dirname(__file__), "..", "..", "config")
    s = Server(config_text=open(os.path.join(config, "latchkey.dev.yaml")).read(),
               env={"LATCHKEY_ADMIN_LISTEN": ""})
    for name in ("dev-admin.token", "dev-web-client.secret"):
        with open(os.path.join(config, name)) as source, open(os.path.join(s.dir, name), "w") as copy:
            copy.write(source.read())
    s.start()
    try:
        assert "/api/client/v2.0/app/{app}/location" in s.get("/openapi.json").json()["paths"]
        out = run_schemathesis(s, s.base, "--exclude-path-regex", "^/(admin|metrics)", token="not-a-token")
        tested = re.search(r"Tested: (\d+)", out)
        assert tested and int(tested.group(1)) >= 70, out[-3000:]
    finally:
        s.cleanup()
