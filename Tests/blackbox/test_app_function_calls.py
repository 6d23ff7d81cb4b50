"""What a Realm app calls besides signing in: `functions/call` (`user.functions.NAME(args)`) runs an operator function
the app exposes, over a signed webhook, with the caller's id and identities; custom user data set by the admin API,
by a function's answer and by an import comes back in the `user_data` claim of the access tokens that login and
`auth/session` mint, and `latchkey export` carries it."""
import base64
import json
import os
import re
import uuid

import pytest
import requests

from harness import Server
from test_import import cli
from webhook import SignedWebhook

APP, OTHER = "realm-app", "other-app"
ADMIN_TOKEN = "0123456789abcdef0123456789abcdef-admin"
PASSWORD = "correct horse battery"


def answer(request, valid):
    args = request["arguments"]
    if request["name"] == "fail":
        return {"error": "the function threw: no such order"}
    if request["name"] == "junk":
        return b'{"success": '
    if args and args[0] == "remember":
        return {"success": {"$numberInt": "1"}, "custom_data": {"favourite": args[1], "count": {"$numberLong": "7"}}}
    return {"success": {"sum": {"$numberInt": str(sum(int(a["$numberInt"]) for a in args))}, "caller": request["user"]["id"]}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fn")
    (folder / "admin.token").write_text(ADMIN_TOKEN)
    hook = SignedWebhook(answer)
    functions = {name: {"kind": "webhook", "url": hook.url, "secret": hook.secret, "timeout_seconds": 2}
                 for name in ("sum", "fail", "junk", "hidden")}
    apps = [{"id": APP, "confirmation": {"mode": "auto"}, "functions": ["sum", "fail", "junk"]},
            {"id": OTHER, "confirmation": {"mode": "auto"}}]
    s = Server(env={"LATCHKEY_FUNCTIONS": json.dumps(functions), "LATCHKEY_APP_SERVICES_APPS": json.dumps(apps),
                    "LATCHKEY_ADMIN_TOKEN_FILE": str(folder / "admin.token")}).start()
    s.hook = hook
    yield s
    s.cleanup()
    hook.shutdown()


def base(s, app=APP):
    return f"{s.base}/api/client/v2.0/app/{app}"


def registered(s, app=APP):
    email = f"fn-{uuid.uuid4().hex[:10]}@example.com"
    provider = f"{base(s, app)}/auth/providers/local-userpass"
    assert requests.post(f"{provider}/register", json={"email": email, "password": PASSWORD}, timeout=10).status_code == 201
    r = requests.post(f"{provider}/login", json={"username": email, "password": PASSWORD}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def call(s, name, arguments, token, app=APP):
    headers = {"Content-Type": "application/json;charset=utf-8"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(f"{base(s, app)}/functions/call", data=json.dumps({"name": name, "arguments": arguments}), headers=headers, timeout=10)


def app_error(r, status, code):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"] == "application/json" and r.json()["error_code"] == code, r.text
    return r.json()["error"]


def claims(token):
    body = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


def admin(s, method, path, body=None):
    return requests.request(method, f"{s.admin_base}/admin/v1{path}", json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)


def test_a_function_answers_in_extended_json_with_its_callers_id(server):
    session = registered(server)
    server.hook.received.clear()
    r = call(server, "sum", [{"$numberInt": "2"}, {"$numberInt": "40"}], session["access_token"])
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json", r.text
    assert r.json() == {"sum": {"$numberInt": "42"}, "caller": session["user_id"]}
    got = server.hook.received[-1]
    assert got["valid"] and got["body"]["name"] == "sum" and got["body"]["app"] == APP
    assert got["body"]["arguments"] == [{"$numberInt": "2"}, {"$numberInt": "40"}]
    user = got["body"]["user"]
    assert user["id"] == session["user_id"] and user["type"] == "normal" and user["custom_data"] is None
    assert "password" not in json.dumps(got["body"]) and PASSWORD not in json.dumps(got["body"])


def test_unknown_failing_and_unauthenticated_calls_answer_as_realm_core_reads_them(server):
    session = registered(server)
    token = session["access_token"]
    assert "'nope'" in app_error(call(server, "nope", [], token), 404, "FunctionNotFound")
    # Declared under functions: but not exposed to this app: the same as no function at all.
    app_error(call(server, "hidden", [], token), 404, "FunctionNotFound")
    assert app_error(call(server, "fail", [], token), 400, "FunctionExecutionError") == "the function threw: no such order"
    assert "junk" in app_error(call(server, "junk", [], token), 400, "FunctionExecutionError")
    app_error(call(server, "sum", [], None), 401, "InvalidSession")
    app_error(call(server, "sum", [], token + "x"), 401, "InvalidSession")
    # Another app's token does not call this app's functions.
    other = registered(server, OTHER)
    app_error(call(server, "sum", [], other["access_token"]), 401, "InvalidSession")
    bad = requests.post(f"{base(server)}/functions/call", data=b'{"arguments": []}', headers={"Authorization": f"Bearer {token}",
                        "Content-Type": "application/json"}, timeout=10)
    app_error(bad, 400, "MissingParameter")
    wrong = requests.post(f"{base(server)}/functions/call", data=b'{"name": 5}', headers={"Authorization": f"Bearer {token}",
                          "Content-Type": "application/json"}, timeout=10)
    app_error(wrong, 400, "BadRequest")


def test_custom_data_reaches_user_data_after_login_and_after_auth_session(server):
    session = registered(server)
    user_id = session["user_id"]
    assert "user_data" not in claims(session["access_token"])
    r = admin(server, "PUT", f"/users/{user_id}/custom-data/{APP}", {"plan": "pro", "seats": 3})
    assert r.status_code == 204, r.text
    refreshed = requests.post(f"{server.base}/api/client/v2.0/auth/session", headers={"Authorization": f"Bearer {session['refresh_token']}"},
                              timeout=10)
    assert refreshed.status_code == 200 and claims(refreshed.json()["access_token"])["user_data"] == {"plan": "pro", "seats": 3}
    login = requests.post(f"{base(server)}/auth/providers/local-userpass/login",
                          json={"username": admin(server, "GET", f"/users/{user_id}").json()["email"], "password": PASSWORD}, timeout=10)
    assert claims(login.json()["access_token"])["user_data"] == {"plan": "pro", "seats": 3}
    listed = admin(server, "GET", f"/users/{user_id}/custom-data").json()["custom_data"]
    assert [(d["app"], d["document"]) for d in listed] == [(APP, {"plan": "pro", "seats": 3})]

    # A function's answer sets it, and the function sees it on its next call.
    assert call(server, "sum", ["remember", "blue"], login.json()["access_token"]).json() == {"$numberInt": "1"}
    again = requests.post(f"{server.base}/api/client/v2.0/auth/session", headers={"Authorization": f"Bearer {session['refresh_token']}"},
                          timeout=10)
    assert claims(again.json()["access_token"])["user_data"] == {"favourite": "blue", "count": {"$numberLong": "7"}}
    server.hook.received.clear()
    call(server, "sum", [], again.json()["access_token"])
    assert server.hook.received[-1]["body"]["user"]["custom_data"] == {"favourite": "blue", "count": {"$numberLong": "7"}}

    # Bad documents are refused whole; the stored one stays.
    big = admin(server, "PUT", f"/users/{user_id}/custom-data/{APP}", {"blob": "x" * 5000})
    assert big.status_code == 400 and big.json()["error"] == "custom_data_too_large", big.text
    assert admin(server, "PUT", f"/users/{user_id}/custom-data/no-such-app", {"a": 1}).status_code == 404
    assert admin(server, "PUT", f"/users/{user_id}/custom-data/{APP}", ["not", "an", "object"]).status_code == 400
    assert admin(server, "PUT", f"/users/nobody-{uuid.uuid4().hex}/custom-data/{APP}", {"a": 1}).status_code == 404
    assert admin(server, "DELETE", f"/users/{user_id}/custom-data/{APP}").status_code == 204
    gone = requests.post(f"{server.base}/api/client/v2.0/auth/session", headers={"Authorization": f"Bearer {session['refresh_token']}"},
                         timeout=10)
    assert "user_data" not in claims(gone.json()["access_token"])


def test_an_app_services_export_brings_custom_data_and_export_round_trips_it(server):
    _id = uuid.uuid4().hex[:24]
    email = f"cd-{uuid.uuid4().hex[:8]}@example.com"
    export = [{"_id": _id, "identities": [{"id": "i1", "provider_type": "local-userpass", "provider_data": {"email": email}}],
               "data": {"email": email}, "creation_date": 1600000000, "custom_data": {"_id": "doc1", "userId": _id, "theme": "dark"}}]
    path = os.path.join(server.dir, f"as-{_id}.json")
    with open(path, "w") as f:
        json.dump(export, f)
    done = cli(server, "import", "--format", "app-services", path, "--app", APP)
    assert done.returncode == 0 and re.search(r"custom data\s+1\n", done.stdout), done.stdout + done.stderr
    assert admin(server, "GET", f"/users/{_id}/custom-data").json()["custom_data"][0]["document"] == {"userId": _id, "theme": "dark"}
    out = os.path.join(server.dir, f"export-{_id}.jsonl")
    assert cli(server, "export", out).returncode == 0
    with open(out) as f:
        line = next(json.loads(l) for l in f if _id in l)
    assert line["custom_data"] == {APP: {"userId": _id, "theme": "dark"}}
