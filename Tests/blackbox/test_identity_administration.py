"""The operator's side of identities, over real sockets: API keys (a user's own over the refresh token, server keys
from the admin API and the CLI), a user's identities in the admin API, and identities carried by import and export."""
import json
import re
import uuid

from console_support import Operator, text_of
from harness import Server
from identity_support import ADMIN_TOKEN, APP, admin, api_keys, app_error, identity_env, login, profile, registered
from identity_support import apple, google, server  # noqa: F401 (fixtures)
from parse_client import ParseClient, ok


def test_user_api_keys_sign_in_as_their_owner_and_are_managed_with_the_refresh_token(server):
    owner = registered(server)
    created = api_keys(server, "POST", refresh=owner["refresh_token"], body={"name": "laptop"})
    assert created.status_code == 201, created.text
    key = created.json()
    assert set(key) == {"_id", "key", "name", "disabled"} and len(key["_id"]) == 24 and int(key["_id"], 16) >= 0 and not key["disabled"]
    listed = api_keys(server, "GET", refresh=owner["refresh_token"]).json()
    assert listed == [{"_id": key["_id"], "name": "laptop", "disabled": False}]  # never the key again
    assert api_keys(server, "GET", f"/{key['_id']}", refresh=owner["refresh_token"]).json() == listed[0]
    signed_in = login(server, "api-key", {"key": key["key"]})
    assert signed_in.status_code == 200 and signed_in.json()["user_id"] == owner["user_id"]
    assert profile(server, signed_in.json()["access_token"])["type"] == "normal"
    # Disabled, it signs nobody in; enabled again, it does.
    assert api_keys(server, "PUT", f"/{key['_id']}/disable", refresh=owner["refresh_token"]).status_code == 200
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    assert api_keys(server, "PUT", f"/{key['_id']}/enable", refresh=owner["refresh_token"]).status_code == 200
    assert login(server, "api-key", {"key": key["key"]}).status_code == 200
    # Another user's key is not found to them (never 401: realm-core would log them out).
    stranger = registered(server)
    for method, path in (("GET", f"/{key['_id']}"), ("DELETE", f"/{key['_id']}"), ("PUT", f"/{key['_id']}/disable")):
        app_error(api_keys(server, method, path, refresh=stranger["refresh_token"]), 404, "APIKeyNotFound")
    assert api_keys(server, "GET", refresh=stranger["refresh_token"]).json() == []
    # Anonymous users have none; an API key is never linked onto an account.
    anonymous = login(server, "anon-user").json()
    app_error(api_keys(server, "POST", refresh=anonymous["refresh_token"], body={"name": "x"}), 400, "InvalidParameter")
    app_error(login(server, "api-key", {"key": key["key"]}, access=stranger["access_token"], link=True), 400, "InvalidParameter")
    # The operator sees and revokes it; then it signs nobody in.
    assert [k["id"] for k in admin(server, "GET", f"/users/{owner['user_id']}/api-keys").json()["api_keys"]] == [key["_id"]]
    assert api_keys(server, "DELETE", f"/{key['_id']}", refresh=owner["refresh_token"]).status_code == 200
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    app_error(api_keys(server, "GET", refresh="not-a-token"), 401, "InvalidSession")


def test_server_api_keys_are_made_and_revoked_by_the_operator(server):
    made = admin(server, "POST", "/api-keys", {"app": APP, "name": "backend-" + uuid.uuid4().hex[:6]})
    assert made.status_code == 201, made.text
    key = made.json()
    r = login(server, "api-key", {"key": key["key"]})
    assert r.status_code == 200, r.text
    me = profile(server, r.json()["access_token"])
    assert me["type"] == "server" and me["user_id"] == key["user_id"] and me["data"]["name"] == key["name"]
    assert key["id"] in [k["id"] for k in admin(server, "GET", f"/api-keys?app={APP}").json()["api_keys"]]
    assert "key" not in admin(server, "GET", "/api-keys").json()["api_keys"][0]
    assert admin(server, "POST", "/api-keys", {"app": "no-such-app", "name": "x"}).status_code == 404
    assert admin(server, "DELETE", f"/api-keys/{key['id']}").status_code == 204
    app_error(login(server, "api-key", {"key": key["key"]}), 401, "AuthError")
    assert admin(server, "DELETE", f"/api-keys/{key['id']}").status_code == 404


def test_the_operator_sees_finds_and_unlinks_identities(server, google):
    anonymous = login(server, "anon-user").json()
    sub = uuid.uuid4().hex
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}, access=anonymous["access_token"], link=True).status_code == 200
    user = anonymous["user_id"]
    assert [i["provider"] for i in admin(server, "GET", f"/users/{user}/identities").json()["identities"]] == ["anonymous", "google"]
    assert admin(server, "GET", f"/identities/google/{sub}").json()["id"] == user
    assert admin(server, "GET", "/identities/google/nobody").status_code == 404
    assert admin(server, "DELETE", f"/users/{user}/identities/google").status_code == 204
    assert admin(server, "DELETE", f"/users/{user}/identities/google").status_code == 404
    # The anonymous identity is now the only way in: it stays.
    assert admin(server, "DELETE", f"/users/{user}/identities/anonymous").json()["error"] == "last_way_in"


def test_the_cli_manages_server_keys_and_shows_identities(server):
    import subprocess
    from harness import BINARY

    def cli(*args):
        done = subprocess.run([BINARY, *args], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout
    made = dict(line.split("\t") for line in cli("api-keys", "create", "--app", APP, "--name", "cli-" + uuid.uuid4().hex[:6]).splitlines())
    signed_in = login(server, "api-key", {"key": made["key"]})
    assert signed_in.status_code == 200
    user = signed_in.json()["user_id"]
    assert made["id"] in cli("api-keys", "list", "--app", APP)
    assert f"api-key\t{made['id']}" in cli("users", "identities", user)
    assert user in cli("users", "by-identity", "api-key", made["id"])
    assert f"revoked {made['id']}" in cli("api-keys", "revoke", made["id"])
    app_error(login(server, "api-key", {"key": made["key"]}), 401, "AuthError")
    gone = subprocess.run([BINARY, "api-keys", "revoke", made["id"]], env=server.env, cwd=server.dir, capture_output=True, text=True)
    assert gone.returncode != 0 and "no API key has that id" in gone.stderr


def test_an_imported_apple_user_signs_in_again_and_keeps_their_object_id(server, apple):
    """`latchkey import --format parse` carries authData: the Apple user signs in with a fresh Apple token."""
    import subprocess
    from harness import BINARY
    sub = "001234." + uuid.uuid4().hex
    object_id = "imp" + uuid.uuid4().hex[:7]
    docs = [{"_id": object_id, "username": "imported" + uuid.uuid4().hex[:6], "_created_at": {"$date": "2021-03-04T05:06:07.089Z"},
             "_auth_data_apple": {"id": sub, "token": "stale"}, "_auth_data_anonymous": None},
            {"objectId": "rest" + uuid.uuid4().hex[:6], "username": "rest" + uuid.uuid4().hex[:6],
             "authData": {"google": {"id": "g-" + uuid.uuid4().hex}, "corp": {"id": "c1"}}}]
    path = f"{server.dir}/users-{uuid.uuid4().hex[:6]}.json"
    with open(path, "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in docs)
    done = subprocess.run([BINARY, "import", "--format", "parse", path], env=server.env, cwd=server.dir, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # apple and google are served here; corp is kept until it is configured.
    assert "3 (apple 1, corp 1, google 1), 1 of providers not configured here" in done.stdout, done.stdout
    back = ok(ParseClient(server).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 200)
    assert back["objectId"] == object_id and back["createdAt"] == "2021-03-04T05:06:07.089Z"
    # And through App Services, the same account.
    realm = login(server, "oauth2-apple", {"id_token": apple.token(sub)}).json()
    assert [i["id"] for i in profile(server, realm["access_token"])["identities"]] == [sub]


def test_export_and_import_carry_identities_to_another_deployment(server, apple, google, tmp_path):
    import subprocess
    from harness import BINARY
    sub = "001234." + uuid.uuid4().hex
    made = ok(ParseClient(server).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 201)
    export = str(tmp_path / "users.jsonl")
    done = subprocess.run([BINARY, "export", export], env=server.env, cwd=server.dir, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(export) as f:
        lines = [json.loads(line) for line in f]
    mine = next(line for line in lines if line["object_id"] == made["objectId"])
    assert mine["identities"] == [{"provider": "apple", "subject": sub}] and "token" not in json.dumps(mine)
    other = Server(env=identity_env(apple, google)).start()
    try:
        done = subprocess.run([BINARY, "import", "--format", "jsonl", export], env=other.env, cwd=other.dir, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        back = ok(ParseClient(other).call("POST", "/users", {"authData": {"apple": {"id": sub, "token": apple.token(sub)}}}), 200)
        assert back["objectId"] == made["objectId"]
    finally:
        other.cleanup()


def test_guessing_api_keys_is_limited_per_address(apple, google):
    """API keys are 64 random characters, so guessing is hopeless; still, each guess is a credential check, limited per
    address like passwords (30 a minute by default)."""
    env = {**identity_env(apple, google), "LATCHKEY_LIMITS_ENABLED": "true"}
    s = Server(env=env).start()
    try:
        answers = [login(s, "api-key", {"key": "guess-" + uuid.uuid4().hex}).status_code for _ in range(32)]
        assert answers[:30] == [401] * 30 and answers[-1] == 429, answers
    finally:
        s.cleanup()


def test_a_disabled_account_is_refused_through_its_identities_with_the_reason(server, google):
    sub = uuid.uuid4().hex
    user = login(server, "oauth2-google", {"id_token": google.token(sub)}).json()["user_id"]
    assert admin(server, "POST", f"/users/{user}/disable").status_code == 200
    assert "disabled" in app_error(login(server, "oauth2-google", {"id_token": google.token(sub)}), 401, "AuthError")
    assert admin(server, "POST", f"/users/{user}/enable").status_code == 200
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}).json()["user_id"] == user


def test_the_console_finds_a_user_by_identity_unlinks_it_and_manages_server_keys(server, google):
    anonymous = login(server, "anon-user").json()
    sub = uuid.uuid4().hex
    assert login(server, "oauth2-google", {"id_token": google.token(sub)}, access=anonymous["access_token"], link=True).status_code == 200
    operator = Operator(server, token=ADMIN_TOKEN).signed_in()
    found = operator.get(f"/users?q=google:{sub}")
    assert f'href="/console/users/{anonymous["user_id"]}"' in found.text
    page = operator.get(f"/users/{anonymous['user_id']}")
    assert sub in page.text and "anonymous" in page.text and "app_services" in page.text  # the identity and the App Services session
    page = operator.act(f"/users/{anonymous['user_id']}/identities/google/unlink")
    assert "The identity is unlinked." in text_of(page.text) and sub not in page.text
    refused = operator.post(f"/users/{anonymous['user_id']}/identities/anonymous/unlink")
    assert refused.status_code == 409 and "last way to sign in" in text_of(refused.text)

    operator.get("/clients")
    made = operator.post(f"/apps/{APP}/api-keys", {"name": "console-backend"})
    assert made.status_code == 201
    key = re.search(r'<code class="secret">([^<]+)</code>', made.text).group(1)
    assert login(server, "api-key", {"key": key}).status_code == 200
    page = operator.get("/clients")
    assert "console-backend" in page.text and key not in page.text
    key_id = re.search(r'action="/console/api-keys/([^/]+)/revoke"', page.text).group(1)
    assert "The key is revoked." in text_of(operator.act(f"/api-keys/{key_id}/revoke").text)
    app_error(login(server, "api-key", {"key": key}), 401, "AuthError")
