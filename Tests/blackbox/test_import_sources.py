"""`latchkey import` from App Services, Firebase, Auth0, Supabase and Keycloak: each source's own export format comes
in with its ids, hashes, identities and profile; the users then sign in through the dialect their apps use, answered
with their old ids, and the foreign hash becomes scrypt at the first sign-in; dry runs tell the truth, second runs
change nothing, and a bad record is reported while the rest go on."""
import base64
import json
import os
import re
import sqlite3
import uuid

import pytest
import requests

import import_fixtures as fx
import strict
from conftest import password_sign_in
from harness import Server
from identity_support import ADMIN_TOKEN, APP, admin, apple, google, identity_env, login, profile  # noqa: F401
from openid_support import Pages, provider_config
from test_app_services import link_pair
from test_import import cli, summary
from test_openid import authorize_url, exchange, query


@pytest.fixture(scope="module")
def server(apple, google, tmp_path_factory):  # noqa: F811
    folder = tmp_path_factory.mktemp("sources")
    (folder / "admin.token").write_text(ADMIN_TOKEN)
    (folder / "client.secret").write_text("s" * 64 + "\n")
    s = Server(config_text=provider_config(str(folder / "client.secret"), [4999]),
               env={**identity_env(apple, google), "LATCHKEY_ADMIN_TOKEN_FILE": str(folder / "admin.token")}).start()
    yield s
    s.cleanup()


def tag():
    return uuid.uuid4().hex[:8]


def write(server, name, text):
    path = os.path.join(server.dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def lines(docs):
    return "".join(json.dumps(d) + "\n" for d in docs)


def stored(server, user_id):
    with sqlite3.connect(server.db_path) as db:
        row = db.execute("SELECT password_hash, email_verified, status FROM users WHERE id = ?", (user_id,)).fetchone()
    assert row, f"no user {user_id}"
    return row


def claims(token):
    body = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


def imported(server, *args):
    """A dry run, then the import: the dry run writes nothing and reports what the import then does."""
    with sqlite3.connect(server.db_path) as db:
        before = db.execute("SELECT count(*) FROM users").fetchone()[0]
    dry = cli(server, "import", *args, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    with sqlite3.connect(server.db_path) as db:
        assert db.execute("SELECT count(*) FROM users").fetchone()[0] == before
    done = cli(server, "import", *args, "--batch-size", "2")
    assert done.returncode == 0, done.stderr
    assert summary(dry.stdout) == summary(done.stdout), (dry.stdout, done.stdout)
    again = cli(server, "import", *args)
    assert again.returncode == 0, again.stderr
    repeat = summary(again.stdout)
    assert repeat["imported"] == 0 and repeat["skipped (already here)"] == summary(done.stdout)["imported"], again.stdout
    return summary(done.stdout), done.stdout


def pages_sign_in(server, email, password):
    """The hosted pages, form by form: the ID token the app then holds."""
    url, verifier = authorize_url(server)
    back = Pages(server).sign_in(url, email, password)
    assert back.status_code == 303, back.text[-800:]
    tokens = exchange(server, query(back)["code"], verifier, secret="s" * 64)
    assert tokens.status_code == 200, tokens.text
    return claims(tokens.json()["id_token"])


def test_app_services_users_keep_their_ids_through_the_realm_wire(server, google):  # noqa: F811
    t = tag()
    ids = {name: uuid.uuid4().hex[:24] for name in ("mail", "google", "anon", "server", "off")}
    users = [
        {"_id": ids["mail"], "identities": [{"id": uuid.uuid4().hex[:24], "provider_type": "local-userpass", "provider_id": "p1",
                                             "provider_data": {"email": f"as-{t}@example.com"}}],
         "type": "normal", "data": {"email": f"as-{t}@example.com", "nickname": "Mail"}, "creation_date": 1600000000,
         "last_authentication_date": 1700000000, "disabled": False},
        {"_id": ids["google"], "identities": [{"id": f"g-{t}", "provider_type": "oauth2-google", "provider_id": "p2",
                                               "provider_data": {"email": f"asg-{t}@example.com"}}],
         "type": "normal", "data": {"email": f"asg-{t}@example.com"}, "creation_date": 1600000001, "disabled": False},
        {"_id": ids["anon"], "identities": [{"id": f"anon-{t}", "provider_type": "anon-user", "provider_id": "p3"}], "type": "normal",
         "data": {}, "creation_date": 1600000002},
        {"_id": ids["server"], "identities": [{"id": f"key-{t}", "provider_type": "api-key", "provider_id": "p4"}], "type": "server",
         "data": {"name": "backend"}, "creation_date": 1600000003},
        {"_id": ids["off"], "identities": [{"id": "x", "provider_type": "local-userpass", "provider_data": {"email": f"aso-{t}@example.com"}}],
         "data": {}, "creation_date": 1600000004, "disabled": True},
        {"identities": [], "data": {}},  # no _id: reported, the rest go on
    ]
    path = write(server, f"appservices-{t}.json", json.dumps(users, indent=2))
    counts, out = imported(server, "--format", "app-services", path)
    assert counts["imported"] == 5 and counts["invalid"] == 1 and counts["without password"] == 5, out
    assert "line 6: no _id" in out and "issue new ones with latchkey api-keys" in out
    assert re.search(r"identities\s+2 \(anonymous 1, google 1\)", out), out

    # No hash ever left App Services: the first sign-in is a reset, through App Services' own reset flow.
    email = f"as-{t}@example.com"
    reset = requests.post(f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass/reset/send", json={"email": email}, timeout=10)
    assert reset.status_code == 200, reset.text
    _, token, token_id = link_pair(server, email)
    done = requests.post(f"{server.base}/api/client/v2.0/app/{APP}/auth/providers/local-userpass/reset",
                         json={"token": token, "tokenId": token_id, "password": "a brand new passphrase"}, timeout=10)
    assert done.status_code == 200, done.text
    session = login(server, "local-userpass", {"username": email, "password": "a brand new passphrase"})
    assert session.status_code == 200, session.text
    assert session.json()["user_id"] == ids["mail"] and claims(session.json()["access_token"])["sub"] == ids["mail"]
    me = profile(server, session.json()["access_token"])
    assert me["user_id"] == ids["mail"] and me["data"]["email"] == email

    # The Google identity signs the imported account in, answered with its App Services id.
    signed = login(server, "oauth2-google", {"id_token": google.token(f"g-{t}", email=f"asg-{t}@example.com")})
    assert signed.status_code == 200 and signed.json()["user_id"] == ids["google"], signed.text
    assert stored(server, ids["off"])[2] == "disabled" and stored(server, ids["server"])[0] is None


def test_firebase_users_sign_in_with_their_firebase_passwords(server):
    t = tag()
    config = write(server, f"firebase-{t}.json.config", json.dumps(fx.FIREBASE_CONFIG))
    example = {**fx.firebase_json_user(f"fbExample{t}", f"fbx-{t}@example.com"), "passwordHash": fx.FIREBASE_EXAMPLE["hash"],
               "salt": fx.FIREBASE_EXAMPLE["salt"]}
    made = fx.firebase_json_user(f"fbMade{t}", f"fbm-{t}@example.com", password="made by hashlib", providers=[("google.com", f"fg-{t}")])
    body = json.dumps({"users": [example, made, {"email": "no-local-id@example.com"}]}, indent=2)
    counts, out = imported(server, "--format", "firebase", write(server, f"firebase-{t}.json", body), "--firebase-hash-config", config)
    assert counts["imported"] == 2 and counts["invalid"] == 1 and "password hashes         2 (firebase-scrypt 2)" in out, out
    assert stored(server, f"fbExample{t}")[0].startswith("$firebase-scrypt$ln=14,r=8$")

    # The native API, with Firebase's own published example password; then scrypt, and it verifies again.
    tokens = strict.tokens(password_sign_in(server, f"fbx-{t}@example.com", fx.FIREBASE_EXAMPLE["password"]))
    assert claims(tokens["access_token"])["sub"] == f"fbExample{t}"
    assert stored(server, f"fbExample{t}")[0].startswith("$scrypt$")
    strict.tokens(password_sign_in(server, f"fbx-{t}@example.com", fx.FIREBASE_EXAMPLE["password"]))
    # The hosted pages, with a hash made here: the ID token's subject is the Firebase localId.
    assert password_sign_in(server, f"fbm-{t}@example.com", "not the password").status_code == 400
    assert pages_sign_in(server, f"fbm-{t}@example.com", "made by hashlib")["sub"] == f"fbMade{t}"
    assert stored(server, f"fbMade{t}")[0].startswith("$scrypt$")

    # The CSV export, with the console's text form of the parameters.
    csv_user = fx.firebase_json_user(f"fbCsv{t}", f"fbc-{t}@example.com", password="from the csv file", providers=[("google.com", f"fc-{t}")])
    csv_path = write(server, f"firebase-{t}.csv", fx.firebase_csv_row(csv_user) + "tooFewColumns,a@b.c,true\n")
    console = write(server, f"firebase-{t}.txt", fx.FIREBASE_CONSOLE_TEXT)
    counts, out = imported(server, "--format", "firebase", csv_path, "--firebase-hash-config", console)
    assert counts["imported"] == 1 and counts["invalid"] == 1 and "line 2: 3 columns" in out, out
    assert pages_sign_in(server, f"fbc-{t}@example.com", "from the csv file")["sub"] == f"fbCsv{t}"
    user = admin(server, "GET", f"/users/fbCsv{t}").json()
    assert user["email_verified"] is True and user["created_at"].startswith("2020-09-13T12:26:40")

    # Without the parameters the hashes cannot be checked: the accounts come, the passwords do not, and it says why.
    other = fx.firebase_json_user(f"fbNoCfg{t}", f"fbn-{t}@example.com", password="unverifiable")
    counts, out = imported(server, "--format", "firebase", write(server, f"fbn-{t}.json", json.dumps({"users": [other]})))
    assert counts["unsupported hashes"] == 1 and "no --firebase-hash-config" in out, out
    bad = cli(server, "import", "--format", "firebase", csv_path, "--firebase-hash-config", write(server, "bad.cfg", "{\"rounds\": 8}"))
    assert bad.returncode == 65 and "base64_signer_key" in bad.stderr, bad.stderr


def test_auth0_users_keep_their_prefixed_ids_and_bcrypt_passwords(server, google):  # noqa: F811
    t = tag()
    oid = uuid.uuid4().hex[:24]
    users = [
        {"user_id": f"auth0|{oid}", "email": f"a0-{t}@example.com", "email_verified": True, "name": "Zero", "created_at": "2021-01-02T03:04:05.678Z",
         "last_login": "2024-05-06T07:08:09.000Z", "identities": [{"connection": "Username-Password-Authentication", "provider": "auth0",
                                                                   "user_id": oid, "isSocial": False}],
         "user_metadata": {"theme": "dark"}, "app_metadata": {"roles": ["admin"]}},
        {"user_id": f"google-oauth2|10{t}", "email": f"a0g-{t}@example.com", "email_verified": True,
         "identities": [{"connection": "google-oauth2", "provider": "google-oauth2", "user_id": f"10{t}", "isSocial": True}]},
        {"user_id": f"auth0|blocked{t}", "email": f"a0b-{t}@example.com", "blocked": True,
         "identities": [{"connection": "Username-Password-Authentication", "provider": "auth0", "user_id": f"blocked{t}"}]},
    ]
    passwords = [{"_id": {"$oid": oid}, "email": f"a0-{t}@example.com", "email_verified": True, "passwordHash": fx.auth0_bcrypt("zero's password"),
                  "password_set_date": {"$date": "2021-01-02T03:04:05.678Z"}, "tenant": "acme", "connection": "Username-Password-Authentication"},
                 # Matched by its address: Auth0 support's export names the user by address too.
                 {"_id": {"$oid": uuid.uuid4().hex[:24]}, "email": f"a0b-{t}@example.com", "passwordHash": fx.auth0_bcrypt("blocked one")}]
    users_path, password_path = write(server, f"auth0-{t}.ndjson", lines(users)), write(server, f"auth0pw-{t}.ndjson", lines(passwords))
    counts, out = imported(server, "--format", "auth0", users_path, "--auth0-passwords", password_path)
    assert counts["imported"] == 3 and "password hashes         2 (bcrypt 2)" in out and re.search(r"identities\s+1 \(google 1\)", out), out

    # The hosted pages and the native API; the id is Auth0's, whole.
    assert pages_sign_in(server, f"a0-{t}@example.com", "zero's password")["sub"] == f"auth0|{oid}"
    assert stored(server, f"auth0|{oid}")[0].startswith("$scrypt$")
    tokens = strict.tokens(password_sign_in(server, f"a0-{t}@example.com", "zero's password"))
    assert claims(tokens["access_token"])["sub"] == f"auth0|{oid}"
    # The admin API reaches such an id (its `|` escaped in the path), and the metadata came along.
    user = admin(server, "GET", f"/users/auth0%7C{oid}")
    assert user.status_code == 200 and user.json()["id"] == f"auth0|{oid}", user.text
    # Blocked in Auth0 is disabled here, its password notwithstanding.
    assert stored(server, f"auth0|blocked{t}")[2] == "disabled"
    refused = server.post("/oauth2/v2.0/initiate", {"username": f"a0b-{t}@example.com", "challenge_type": "password oob redirect"})
    assert refused.status_code == 400 and refused.json()["error"] == "user_not_found", refused.text
    signed = login(server, "oauth2-google", {"id_token": google.token(f"10{t}", email=f"a0g-{t}@example.com")})
    assert signed.status_code == 200 and signed.json()["user_id"] == f"google-oauth2|10{t}", signed.text
    wrong = cli(server, "import", "--format", "firebase", users_path, "--auth0-passwords", password_path)
    assert wrong.returncode == 64 and "--format auth0" in wrong.stderr


def test_supabase_rows_come_in_from_copy_csv_and_json_lines(server, google):  # noqa: F811
    t = tag()
    ids = [str(uuid.uuid4()) for _ in range(4)]
    rows = [
        {"id": ids[0], "aud": "authenticated", "role": "authenticated", "email": f"sb-{t}@example.com",
         "encrypted_password": fx.auth0_bcrypt("supa password").replace("$2b$", "$2a$"), "email_confirmed_at": "2024-01-15 10:20:30.123456+00",
         "created_at": "2024-01-15 10:20:00.5+00", "last_sign_in_at": "2024-02-01 00:00:00+00",
         "raw_user_meta_data": {"full_name": "Supa \"Base\", Jr.", "sub": ids[0], "email_verified": True}, "raw_app_meta_data": {"provider": "email"}},
        {"id": ids[1], "email": f"sbg-{t}@example.com", "email_confirmed_at": "2024-01-15 10:20:30+00", "created_at": "2024-01-15 10:20:00+00",
         "raw_user_meta_data": {"avatar_url": "https://example.com/a.png"}},
        {"id": ids[2], "email": f"sbx-{t}@example.com", "created_at": "2024-01-15 10:20:00+00", "banned_until": "2999-01-01 00:00:00+00"},
        {"id": ids[3], "email": f"sbd-{t}@example.com", "created_at": "2024-01-15 10:20:00+00", "deleted_at": "2024-03-01 00:00:00+00"},
    ]
    identities = ("provider_id,user_id,identity_data,provider,last_sign_in_at,created_at,updated_at,email,id\n"
                  f"{ids[0]},{ids[0]},\"{{\"\"sub\"\": \"\"{ids[0]}\"\"}}\",email,,,,,{uuid.uuid4()}\n"
                  f"gs-{t},{ids[1]},{{}},google,,,,,{uuid.uuid4()}\n")
    users_path = write(server, f"supabase-{t}.csv", fx.supabase_users_csv(rows))
    counts, out = imported(server, "--format", "supabase", users_path, "--supabase-identities", write(server, f"sbi-{t}.csv", identities))
    assert counts["imported"] == 3 and counts["invalid"] == 1 and "deleted_at is set" in out, out
    assert re.search(r"identities\s+1 \(google 1\)", out) and "password hashes         1 (bcrypt 1)" in out, out
    tokens = strict.tokens(password_sign_in(server, f"sb-{t}@example.com", "supa password"))
    assert claims(tokens["access_token"])["sub"] == ids[0] and stored(server, ids[0])[0].startswith("$scrypt$")
    user = admin(server, "GET", f"/users/{ids[0]}").json()
    assert user["email_verified"] is True and user["created_at"].startswith("2024-01-15T10:20:00")
    assert stored(server, ids[2])[2] == "disabled"
    signed = login(server, "oauth2-google", {"id_token": google.token(f"gs-{t}", email=f"sbg-{t}@example.com")})
    assert signed.status_code == 200 and signed.json()["user_id"] == ids[1], signed.text

    # JSON lines (row_to_json): the same columns, times in ISO 8601.
    one = str(uuid.uuid4())
    jsonl = lines([{"id": one, "email": f"sbj-{t}@example.com", "encrypted_password": fx.auth0_bcrypt("json lines pw"),
                    "email_confirmed_at": "2024-01-15T10:20:30.123456+00:00", "raw_user_meta_data": {}, "created_at": "2024-01-15T10:20:00+00:00"}])
    counts, out = imported(server, "--format", "supabase", write(server, f"supabase-{t}.jsonl", jsonl))
    assert counts["imported"] == 1, out
    strict.tokens(password_sign_in(server, f"sbj-{t}@example.com", "json lines pw"))


def test_keycloak_realm_users_bring_pbkdf2_and_argon2_hashes(server, google):  # noqa: F811
    t = tag()
    ids = [str(uuid.uuid4()) for _ in range(6)]

    def person(n, name, credentials=(), **extra):
        return {"id": ids[n], "createdTimestamp": 1600000000000, "username": f"{name}-{t}", "enabled": True, "emailVerified": True,
                "firstName": name.title(), "lastName": "Cloak", "email": f"{name}-{t}@example.com", "attributes": {"locale": ["de"]},
                "credentials": list(credentials), "disableableCredentialTypes": [], "requiredActions": [], "realmRoles": ["default-roles-acme"],
                "notBefore": 0, "groups": [], **extra}
    realm = {"id": "acme", "realm": "acme", "enabled": True, "users": [
        person(0, "sha256", [fx.keycloak_pbkdf2("pbkdf2 sha256 pw", "pbkdf2-sha256", 27500)]),
        person(1, "sha512", [fx.keycloak_pbkdf2("pbkdf2 sha512 pw", "pbkdf2-sha512", 210000)],
               federatedIdentities=[{"identityProvider": "google", "userId": f"kg-{t}", "userName": "k"}]),
        person(2, "argon", [fx.keycloak_argon2("argon2id default pw"),
                            {"type": "otp", "secretData": "{\"value\":\"JBSWY3DPEHPK3PXP\"}", "credentialData": "{}"}],
               requiredActions=["CONFIGURE_TOTP"]),
        person(3, "update", [fx.keycloak_pbkdf2("to be replaced", "pbkdf2-sha256", 27500)], requiredActions=["UPDATE_PASSWORD"]),
        person(4, "verify", [fx.keycloak_pbkdf2("verify pw", "pbkdf2-sha256", 27500)], requiredActions=["VERIFY_EMAIL"]),
        {"id": ids[5], "username": f"service-account-api-{t}", "enabled": True, "serviceAccountClientId": "api", "credentials": []},
    ], "clients": [], "roles": {}}
    counts, out = imported(server, "--format", "keycloak", write(server, f"realm-{t}.json", json.dumps(realm, indent=2)))
    assert counts["imported"] == 5 and counts["invalid"] == 1 and "service account" in out, out
    assert "password hashes         4 (argon2id 1, pbkdf2-sha256 2, pbkdf2-sha512 1)" in out, out
    for n, password in ((0, "pbkdf2 sha256 pw"), (1, "pbkdf2 sha512 pw"), (2, "argon2id default pw")):
        email = realm["users"][n]["email"]
        assert password_sign_in(server, email, password + "!").status_code == 400
        tokens = strict.tokens(password_sign_in(server, email, password))
        assert claims(tokens["access_token"])["sub"] == ids[n] and stored(server, ids[n])[0].startswith("$scrypt$")
    # UPDATE_PASSWORD: the old password does not come; VERIFY_EMAIL: the address is not yet proven.
    assert stored(server, ids[3])[0] is None and stored(server, ids[4])[1] == 0
    user = admin(server, "GET", f"/users/{ids[0]}").json()
    assert user["username"] == f"sha256-{t}" and user["created_at"].startswith("2020-09-13")
    signed = login(server, "oauth2-google", {"id_token": google.token(f"kg-{t}", email=f"sha512-{t}@example.com")})
    assert signed.status_code == 200 and signed.json()["user_id"] == ids[1], signed.text
