"""The operator's side of second factors: the admin API and the CLI list a user's factors (masked, no secret) and
reset them (audited, the user mailed); metrics count the events."""
import subprocess

import pyotp
import pytest
import requests

import strict
from console_support import Operator, text_of, user_id
from harness import BINARY, Server
from mfa_support import OFF, REQUIRED, Native, config, new_email, sms, suberror
from parse_client import ParseClient, ok
from test_mfa_native import enrol_authenticator, register_email

__all__ = ["sms"]  # fixture
TOKEN = "0123456789abcdef0123456789abcdef-admin"


@pytest.fixture(scope="module")
def ops_server(sms, tmp_path_factory):
    token_file = tmp_path_factory.mktemp("admin") / "admin.token"
    token_file.write_text(TOKEN)
    s = Server(config_text=config(sms), env={"LATCHKEY_ADMIN_TOKEN_FILE": str(token_file)}).start()
    yield s
    s.cleanup()


def admin(s, method, path):
    return requests.request(method, f"{s.admin_base}/admin/v1{path}", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)


def cli(s, *args):
    done = subprocess.run([BINARY, *args], env=s.env, cwd=s.dir, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_admin_api_lists_and_resets_second_factors(ops_server):
    s, email = ops_server, new_email()
    Native(s, OFF).sign_up(email)
    tokens = register_email(s, Native(s, REQUIRED), email)
    # Parse cannot send the mailed code this account now holds: its login refuses rather than take the password alone.
    parse = ParseClient(s, app_id="mfaApp")
    refused = parse.call("POST", "/login", {"username": email, "password": "correct horse battery"})
    assert refused.status_code == 400 and refused.json()["code"] == 141, refused.text
    # The two-factor tokens of that sign-in add an authenticator.
    secret = enrol_authenticator(s, tokens["access_token"])[0].secret

    listed = admin(s, "GET", f"/users/{email}/second-factors")
    assert listed.status_code == 200, listed.text
    factors = listed.json()["second_factors"]
    assert sorted(f["kind"] for f in factors) == ["email", "totp"]
    by_kind = {f["kind"]: f for f in factors}
    assert by_kind["email"]["target"] != email and "*" in by_kind["email"]["target"]
    assert by_kind["totp"]["recovery_codes_left"] == 10 and "target" not in by_kind["totp"]
    assert secret not in listed.text
    assert admin(s, "GET", "/users/nobody@example.com/second-factors").status_code == 404

    reset = admin(s, "DELETE", f"/users/{email}/second-factors")
    assert reset.status_code == 200 and reset.json() == {"removed": 2}, reset.text
    assert admin(s, "GET", f"/users/{email}/second-factors").json() == {"second_factors": []}
    assert s.wait_for_subject(email, "second factor was removed")
    events = admin(s, "GET", "/audit?kind=admin.mfa_reset").json()["events"]
    assert any(e.get("user_id") for e in events)
    # Reset, the required client asks for a registration again; the Parse app asks for nothing.
    suberror(Native(s, REQUIRED).password_token(email), "registration_required")
    ok(parse.call("POST", "/login", {"username": email, "password": "correct horse battery"}))
    metrics = requests.get(f"{s.admin_base}/metrics", timeout=10).text
    assert 'latchkey_second_factor_events_total{event="enrolled",kind="totp"}' in metrics
    assert 'latchkey_second_factor_events_total{event="removed",kind="any"}' in metrics


def test_cli_lists_and_resets_second_factors(ops_server):
    s, email = ops_server, new_email()
    Native(s, OFF).sign_up(email)
    register_email(s, Native(s, REQUIRED), email)
    out = cli(s, "users", "second-factors", email)
    lines = out.strip().splitlines()
    assert lines[0].split("\t")[:3] == ["id", "kind", "target"] and lines[-1] == "1 second factor"
    assert "\temail\t" in lines[1] and email not in out
    assert cli(s, "users", "reset-second-factors", email).strip() == f"removed 1 second factor of {email}"
    assert cli(s, "users", "second-factors", email).strip().splitlines()[-1] == "0 second factors"
    assert cli(s, "users", "reset-second-factors", email).strip() == f"removed 0 second factors of {email}"
    strict.tokens(Native(s, OFF).password_token(email))


def test_the_console_shows_second_factors_masked_and_removes_them(ops_server):
    s, email = ops_server, new_email()
    Native(s, OFF).sign_up(email)
    parse = ParseClient(s, app_id="mfaApp")
    user = ok(parse.call("POST", "/login", {"username": email, "password": "correct horse battery"}))
    secret = pyotp.random_base32()
    ok(parse.call("PUT", f"/users/{user['objectId']}", {"authData": {"mfa": {"secret": secret, "token": pyotp.TOTP(secret).now()}}},
                  session_token=user["sessionToken"]))
    operator = Operator(s, token=TOKEN).signed_in()
    uid = user_id(operator, email)
    page = operator.get(f"/users/{uid}")
    assert "totp" in page.text and "10 recovery codes left" in text_of(page.text) and secret not in page.text
    page = operator.act(f"/users/{uid}/reset-second-factors")
    assert "The second factors are removed." in text_of(page.text) and "totp" not in page.text
    assert admin(s, "GET", f"/users/{email}/second-factors").json() == {"second_factors": []}
    assert [e for e in admin(s, "GET", "/audit?kind=admin.mfa_reset").json()["events"]
            if e["user_id"] == uid and e["actor"] == "console:ada"]
