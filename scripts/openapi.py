#!/usr/bin/env python3
"""Writes openapi/openapi.json: the OpenAPI 3.1 document of every public route of every dialect, as the clients send
requests and as Latchkey answers them. Generated from the tables below, so the two prefixes of the native API and the
repeated error shapes stay in step; `scripts/openapi.py --check` fails when the committed file is stale (CI runs it).
The admin listener's API is described too, under its own server entry."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openapi_account import add_account_paths  # noqa: E402
from openapi_openid import add_openid_admin_paths, add_openid_paths  # noqa: E402
from openapi_realm import add_realm_paths  # noqa: E402
from openapi_testing import add_testing_paths  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "openapi", "openapi.json")

S = {"type": "string"}
I = {"type": "integer"}
B = {"type": "boolean"}
ANY_OBJECT = {"type": "object"}


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def obj(required=(), **props):
    return {"type": "object", "properties": props, **({"required": list(required)} if required else {})}


def json_body(schema, description=None):
    return {"description": description or "JSON", "content": {"application/json": {"schema": schema}}}


def html(description):
    return {"description": description, "content": {"text/html": {"schema": S}}}


SCHEMAS = {
    # Native authentication (docs/native-auth.md): MSAL decodes these.
    "NativeError": obj(["error", "error_description", "error_codes", "timestamp", "trace_id", "correlation_id"],
                       error=S, error_description=S, error_codes={"type": "array", "items": I}, timestamp=S, trace_id=S,
                       correlation_id=S, suberror=S, continuation_token=S, invalid_attributes={"type": "array"},
                       required_attributes={"type": "array"}, unverified_attributes={"type": "array"}),
    "NativeStep": obj([], continuation_token=S, challenge_type={"enum": ["oob", "password", "redirect", "preverified"]},
                      binding_method=S, challenge_target_label=S, challenge_target=S, challenge_channel=S, code_length=I, interval=I,
                      status=S, redirect_reason=S, required_attributes={"type": "array"}, unverified_attributes={"type": "array"},
                      methods={"type": "array", "items": obj(["id", "challenge_type", "challenge_channel"], id=S,
                                                             challenge_type={"const": "oob"}, challenge_channel=S, login_hint=S)}),
    "TokenResponse": obj(["token_type", "access_token", "expires_in"], token_type={"const": "Bearer"}, scope=S,
                         expires_in=I, ext_expires_in=I, access_token=S, refresh_token=S, id_token=S, client_info=S),
    "NativeForm": {"type": "object", "required": ["client_id"], "properties": {
        "client_id": {**S, "description": "A registered client id (clients[].id)."}, "username": S, "password": S,
        "new_password": S, "challenge_type": {**S, "description": "Space-separated: oob password redirect."},
        "continuation_token": S, "grant_type": S, "oob": S, "scope": S, "refresh_token": S,
        "attributes": {**S, "description": "A JSON object, as a string."}, "client_info": S,
        "capabilities": {**S, "description": "Space-separated: mfa_required registration_required (first step only)."},
        "id": {**S, "description": "A second-factor method id from oauth2/v2.0/introspect."},
        "challenge_target": {**S, "description": "The address or phone number to register."}, "challenge_channel": S,
        "code": {**S, "description": "grant_type=authorization_code: the code from /authorize."}, "redirect_uri": S,
        "code_verifier": {**S, "description": "The PKCE verifier of the code's challenge."},
        "client_secret": {**S, "description": "client_secret_post (or send it by HTTP Basic)."}}},
    "UserInfo": obj(["sub", "preferred_username"], sub=S, preferred_username=S, email=S, email_verified=B, name=S),
    "Discovery": obj(["issuer", "token_endpoint", "jwks_uri"], issuer=S, authorization_endpoint=S, token_endpoint=S, jwks_uri=S,
                     userinfo_endpoint=S, account_url=S),
    "JWKS": obj(["keys"], keys={"type": "array", "items": obj(["kty", "kid", "crv", "x", "y"], kty=S, kid=S, crv=S, x=S, y=S,
                                                              use=S, alg=S)}),
    "Status": obj(["status"], status=S),
    # App Services (docs/app-services.md).
    "AppServicesError": obj(["error", "error_code"], error=S, error_code=S, link=S),
    "AppServicesBody": obj([], email=S, password=S, username=S, token=S, tokenId=S, arguments={"type": "array"},
                           id_token=S, authCode=S, key=S, provider=S, options=ANY_OBJECT),
    "AppLogin": obj(["access_token", "refresh_token", "user_id", "device_id"], access_token=S, refresh_token=S, user_id=S,
                    device_id=S),
    "AppProfile": obj(["user_id"], user_id=S, domain_id=S, identities={"type": "array"}, data=ANY_OBJECT, type=S),
    "AppLocation": obj(["deployment_model", "location", "hostname", "ws_hostname"], deployment_model=S, location=S, hostname=S,
                       ws_hostname=S),
    # Parse (docs/parse.md).
    "ParseError": obj(["code", "error"], code=I, error=S),
    # A wrong application id or key: Parse Server's 403 without a code.
    "ParseUnauthorized": obj(["error"], error={"const": "unauthorized"}),
    # RFC 6750 §3: a Bearer token refused by the resource server.
    "BearerError": obj(["error", "error_description"], error=S, error_description=S),
    "ParseObject": {"type": "object", "properties": {"objectId": S, "createdAt": S, "updatedAt": S, "sessionToken": S}},
    "ParseResults": obj(["results"], results={"type": "array", "items": {"type": "object"}}, count=I),
    # Admin API.
    "AdminError": obj(["error", "error_description"], error=S, error_description=S),
    "AdminUser": obj(["id", "object_id", "email", "username", "email_verified", "status", "created_at", "last_sign_in_at"],
                     id=S, object_id=S, email={"type": ["string", "null"]}, username={"type": ["string", "null"]},
                     email_verified=B, status={"enum": ["active", "pending", "disabled"]}, created_at=S,
                     last_sign_in_at={"type": ["string", "null"]}, locked_until={"type": ["string", "null"]}, has_password=B),
    "SigningKey": obj(["kid", "alg", "state", "created_at"], kid=S, alg=S, state={"enum": ["signing", "published", "retired"]},
                      created_at=S),
}

PARSE_HEADERS = [
    {"$ref": "#/components/parameters/ParseApplicationId"},
    {"name": "X-Parse-Session-Token", "in": "header", "required": False, "schema": S},
    {"name": "X-Parse-Master-Key", "in": "header", "required": False, "schema": S},
    {"name": "X-Parse-Installation-Id", "in": "header", "required": False, "schema": S},
]


def native_operation(summary, success):
    return {"summary": summary, "tags": ["native"],
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": ref("NativeForm")}}},
            "responses": {"200": json_body(ref(success)), "4XX": json_body(ref("NativeError"), "Native error"),
                          "503": json_body(ref("NativeError"), "Busy or the database is unavailable")}}


def app_errors():
    return {"4XX": json_body(ref("AppServicesError"), "App Services error"),
            "503": json_body(ref("AppServicesError"), "Busy or the database is unavailable")}


def parse_operation(summary, success_status="200", success=None, body=False):
    op = {"summary": summary, "tags": ["parse"], "parameters": PARSE_HEADERS,
          "responses": {success_status: json_body(success or ref("ParseObject")), "4XX": json_body({"anyOf": [ref("ParseError"), ref("ParseUnauthorized")]}, "Parse error"),
                        "5XX": json_body(ref("ParseError"), "Parse error (code 1: internal, busy or database unavailable)")}}
    if body:
        op["requestBody"] = {"required": False, "content": {"application/json": {"schema": ANY_OBJECT}}}
    return op


def admin_operation(summary, success_status="200", success=None, params=()):
    responses = {"4XX": json_body(ref("AdminError"), "Refused (401: missing or wrong token)"),
                 "503": json_body(ref("AdminError"), "The API is off (no admin.token_file) or the database is unavailable")}
    responses[success_status] = json_body(success) if success else {"description": "Done"}
    return {"summary": summary, "tags": ["admin"], "security": [{"adminToken": []}], "servers": [{"url": "http://127.0.0.1:9464"}],
            "parameters": list(params), "responses": responses}


def paths():
    p = {}
    native = [
        ("signup/v1.0/start", "Start a sign-up", "NativeStep"), ("signup/v1.0/challenge", "Send the sign-up code", "NativeStep"),
        ("signup/v1.0/continue", "Submit code, password or attributes", "NativeStep"),
        ("oauth2/v2.0/initiate", "Start a sign-in", "NativeStep"), ("oauth2/v2.0/challenge", "Choose the sign-in method", "NativeStep"),
        ("oauth2/v2.0/token", "Tokens: password, oob, mfa_oob, continuation_token, refresh_token, authorization_code or device_code grant",
         "TokenResponse"),
        ("oauth2/v2.0/introspect", "The account's second-factor methods (after mfa_required)", "NativeStep"),
        ("register/v1.0/introspect", "The methods that can be registered (after registration_required)", "NativeStep"),
        ("register/v1.0/challenge", "Send a code to the address or number to register (or preverified)", "NativeStep"),
        ("register/v1.0/continue", "Submit the registration code; the answer's token signs in", "NativeStep"),
        ("resetpassword/v1.0/start", "Start a password reset", "NativeStep"),
        ("resetpassword/v1.0/challenge", "Send the reset code", "NativeStep"),
        ("resetpassword/v1.0/continue", "Submit the reset code", "NativeStep"),
        ("resetpassword/v1.0/submit", "Submit the new password", "NativeStep"),
        ("resetpassword/v1.0/poll_completion", "Poll the reset", "NativeStep"),
    ]
    tenant = {"name": "tenant", "in": "path", "required": True, "schema": {**S, "pattern": "^[A-Za-z0-9._-]{1,64}$"}}
    for path, summary, success in native:
        p[f"/{path}"] = {"post": native_operation(summary, success)}
        p[f"/{{tenant}}/{path}"] = {"parameters": [tenant], "post": native_operation(summary + " (tenant path)", success)}
    for prefix in ("", "/v2.0", "/{tenant}", "/{tenant}/v2.0"):
        item = {"get": {"summary": "OpenID discovery", "tags": ["openid"], "responses": {"200": json_body(ref("Discovery"))}}}
        p[f"{prefix}/.well-known/openid-configuration"] = {**({"parameters": [tenant]} if "tenant" in prefix else {}), **item}
    for path, params in (("/.well-known/oauth-authorization-server", []), ("/{tenant}/.well-known/oauth-authorization-server", [tenant]),
                         ("/.well-known/oauth-authorization-server/{tenant}", [tenant])):
        p[path] = {**({"parameters": params} if params else {}),
                   "get": {"summary": "RFC 8414 authorization server metadata: the discovery document", "tags": ["openid"],
                           "responses": {"200": json_body(ref("Discovery"))}}}
    device_answer = obj(["device_code", "user_code", "verification_uri", "verification_uri_complete", "expires_in", "interval"],
                        device_code=S, user_code=S, verification_uri=S, verification_uri_complete=S, expires_in=I, interval=I)
    for prefix in ("", "/{tenant}"):
        p[f"{prefix}/oauth2/v2.0/devicecode"] = {**({"parameters": [tenant]} if prefix else {}), "post": {
            "summary": "RFC 8628 device authorization: a device code to poll with and a user code to type at /ui/device", "tags": ["openid"],
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(["client_id"], client_id=S, scope=S)}}},
            "responses": {"200": json_body(device_answer, "The codes"), "4XX": json_body(ref("NativeError"), "Refused (RFC 6749 §5.2)")}}}
    p["/discovery/v2.0/keys"] = {"get": {"summary": "The JWKS: the signing key and, after a rotation, the previous one",
                                         "tags": ["openid"], "responses": {"200": json_body(ref("JWKS"))}}}
    bearer = [{"bearerAccessToken": []}]
    enrol_errors = {"401": json_body(ref("BearerError"), "Missing or invalid access token"),
                    "4XX": json_body(ref("NativeError"), "Native error"), "503": json_body(ref("NativeError"), "Database unavailable")}
    p["/mfa/v1.0/authenticator/start"] = {"post": {
        "summary": "A new authenticator secret for the Bearer access token's user (its client's mfa is not off)", "tags": ["native"],
        "security": bearer, "responses": {"200": json_body(obj(["secret", "otpauth_uri", "continuation_token", "code_length"], secret=S,
                                                               otpauth_uri=S, continuation_token=S, code_length=I)), **enrol_errors}}}
    p["/mfa/v1.0/authenticator/confirm"] = {"post": {
        "summary": "Confirm the secret with the app's code: enrolled, with ten recovery codes shown once", "tags": ["native"],
        "security": bearer,
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(
            ["continuation_token", "oob"], continuation_token=S, oob=S)}}},
        "responses": {"200": json_body(obj(["recovery_codes"], recovery_codes={"type": "array", "items": S})), **enrol_errors}}}
    for method in ("get", "post"):
        p.setdefault("/oidc/userinfo", {})[method] = {
            "summary": "Claims of the Bearer access token's user", "tags": ["openid"], "security": bearer,
            "responses": {"200": json_body(ref("UserInfo")), "4XX": json_body(ref("BearerError"), "Missing or invalid token"),
                          "503": json_body(ref("NativeError"), "Database unavailable")}}
    # RFC 6750 §2.2: the token in a form body instead of the header (never both).
    p["/oidc/userinfo"]["post"]["requestBody"] = {"required": False, "content": {"application/x-www-form-urlencoded": {
        "schema": obj(["access_token"], access_token=S)}}}
    add_openid_paths(p, tenant, S, I, B, obj, json_body, html, ref)
    add_account_paths(p, S, obj, html)
    p["/health/live"] = {"get": {"summary": "Liveness", "tags": ["operations"], "responses": {"200": json_body(ref("Status"))}}}
    p["/favicon.ico"] = {"get": {"summary": "The favicon (both listeners)", "tags": ["operations"],
                                 "responses": {"200": {"description": "A 16x16 icon", "content": {"image/x-icon": {"schema": S}}}}}}
    p["/health/ready"] = {"get": {"summary": "Readiness: the database answers and is migrated", "tags": ["operations"],
                                  "responses": {"200": json_body(ref("Status")), "503": json_body(ref("Status"))}}}
    p["/openapi.json"] = {"get": {"summary": "This document", "tags": ["operations"], "responses": {"200": json_body(ANY_OBJECT)}}}

    # App Services.
    base = "/api/client/v2.0"
    app = {"$ref": "#/components/parameters/AppServicesApp"}
    provider = {"name": "provider", "in": "path", "required": True,
                "schema": {"enum": ["local-userpass"]}, "description": "login also takes anon-user, oauth2-apple and oauth2-google"}
    p[f"{base}/app/{{app}}/location"] = {"parameters": [app], "get": {
        "summary": "Where the app is served", "tags": ["app_services"],
        "responses": {"200": json_body(ref("AppLocation")), **app_errors()}}}
    steps = [("register", "Register with email and password", "201"), ("confirm", "Confirm with token and tokenId", "201"),
             ("confirm/send", "Send the confirmation mail again", "201"), ("confirm/call", "Run the confirmation function", "201"),
             ("reset", "Set a new password with token and tokenId", "201"), ("reset/send", "Send the reset mail", "201"),
             ("reset/call", "Run the reset function", "201"), ("login", "Log in", "200")]
    for step, summary, status in steps:
        success = json_body(ref("AppLogin")) if step == "login" else {"description": "Done, no body"}
        responses = {status: success, **app_errors()}
        if step != "login":
            responses["200"] = {"description": "Done, no body"}
        p[f"{base}/app/{{app}}/auth/providers/{{provider}}/{step}"] = {"parameters": [app, provider], "post": {
            "summary": summary, "tags": ["app_services"],
            "requestBody": {"required": True, "content": {"application/json": {"schema": ref("AppServicesBody")}}},
            "responses": responses}}
    session = [{"bearerRefreshToken": []}]
    p[f"{base}/auth/session"] = {
        "post": {"summary": "A new access token for the Bearer refresh token", "tags": ["app_services"], "security": session,
                 "responses": {"200": json_body(obj(["access_token"], access_token=S)), **app_errors()}},
        "delete": {"summary": "Log out: revoke the Bearer refresh token's session", "tags": ["app_services"], "security": session,
                   "responses": {"204": {"description": "Revoked"}, **app_errors()}}}
    p[f"{base}/auth/profile"] = {"get": {"summary": "The Bearer access token's user", "tags": ["app_services"], "security": bearer,
                                         "responses": {"200": json_body(ref("AppProfile")), **app_errors()}}}
    key_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[0-9a-f]{24}$"}}
    api_key = obj(["_id", "name", "disabled"], _id=S, name=S, disabled=B)
    p[f"{base}/auth/api_keys"] = {
        "post": {"summary": "Create a user API key (the key is in this answer only)", "tags": ["app_services"], "security": session,
                 "requestBody": {"required": True, "content": {"application/json": {"schema": obj(["name"], name=S)}}},
                 "responses": {"201": json_body(obj(["_id", "key", "name", "disabled"], _id=S, key=S, name=S, disabled=B)), **app_errors()}},
        "get": {"summary": "The user's API keys", "tags": ["app_services"], "security": session,
                "responses": {"200": json_body({"type": "array", "items": api_key}), **app_errors()}}}
    p[f"{base}/auth/api_keys/{{id}}"] = {"parameters": [key_id],
        "get": {"summary": "One of the user's API keys", "tags": ["app_services"], "security": session,
                "responses": {"200": json_body(api_key), **app_errors()}},
        "delete": {"summary": "Delete one of the user's API keys", "tags": ["app_services"], "security": session,
                   "responses": {"200": {"description": "Deleted, no body"}, **app_errors()}}}
    for action in ("enable", "disable"):
        p[f"{base}/auth/api_keys/{{id}}/{action}"] = {"parameters": [key_id], "put": {
            "summary": f"{action.capitalize()} one of the user's API keys", "tags": ["app_services"], "security": session,
            "responses": {"200": {"description": "Done, no body"}, **app_errors()}}}
    p[f"{base}/auth/delete"] = {"delete": {"summary": "Delete the Bearer access token's user", "tags": ["app_services"],
                                           "security": bearer, "responses": {"200": {"description": "Deleted, no body"}, **app_errors()}}}
    # Hosted pages behind the mailed App Services links.
    page_query = [{"name": n, "in": "query", "required": False, "schema": S} for n in ("token", "tokenId", "app")]
    p["/confirm"] = {
        "get": {"summary": "The mailed confirmation link's page: a Confirm button (a GET confirms nothing)", "tags": ["pages"],
                "parameters": page_query, "responses": {"200": html("The button"), "4XX": html("Refused"), "503": html("Unavailable")}},
        "post": {"summary": "Confirm the address (the button)", "tags": ["pages"],
                 "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj([], token=S, tokenId=S)}}},
                 "responses": {"200": html("Confirmed"), "4XX": html("Refused"), "503": html("Unavailable")}}}
    p["/reset-password"] = {
        "get": {"summary": "The new-password form", "tags": ["pages"], "parameters": page_query,
                "responses": {"200": html("The form"), "4XX": html("Refused")}},
        "post": {"summary": "Submit the new password", "tags": ["pages"],
                 "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(
                     [], token=S, tokenId=S, app=S, password=S, confirm=S)}}},
                 "responses": {"200": html("Done"), "4XX": html("Refused"), "503": html("Unavailable")}}}

    # Parse, under its default mount.
    m = "/parse"
    p[f"{m}/health"] = {method: {"summary": "Parse health", "tags": ["parse"], "responses": {"200": json_body(ref("Status"))}}
                        for method in ("get", "post")}
    p[f"{m}/login"] = {"get": parse_operation("Log in (query)"), "post": parse_operation("Log in", body=True)}
    p[f"{m}/logout"] = {"post": parse_operation("Log out the session", success=ANY_OBJECT, body=True)}
    p[f"{m}/users"] = {"post": parse_operation("Sign up", "201", body=True),
                       "get": parse_operation("List users (master key)", success=ref("ParseResults"))}
    p[f"{m}/users/me"] = {"get": parse_operation("The session's user"),
                          "post": parse_operation("The session's user (`_method: GET` in the body, as the JS SDK sends it)", body=True)}
    oid = {"name": "objectId", "in": "path", "required": True, "schema": S}
    p[f"{m}/users/{{objectId}}"] = {"parameters": [oid], "get": parse_operation("Read a user"),
                                     "put": parse_operation("Update a user", body=True),
                                     "delete": parse_operation("Delete a user", success=ANY_OBJECT),
                                     "post": parse_operation("Read, update or delete a user (`_method` in the body)", body=True)}
    p[f"{m}/verifyPassword"] = {"get": parse_operation("Check a password"), "post": parse_operation("Check a password", body=True)}
    p[f"{m}/loginAs"] = {"post": parse_operation("A session for a user (master key)", body=True)}
    p[f"{m}/requestPasswordReset"] = {"post": parse_operation("Mail a reset link", success=ANY_OBJECT, body=True)}
    p[f"{m}/verificationEmailRequest"] = {"post": parse_operation("Mail the verification link again", success=ANY_OBJECT, body=True)}
    p[f"{m}/sessions/me"] = {"get": parse_operation("The current session"),
                             "post": parse_operation("The current session (`_method: GET` in the body)", body=True)}
    p[f"{m}/sessions"] = {"get": parse_operation("The user's sessions", success=ref("ParseResults")),
                          "post": parse_operation("The user's sessions (`_method: GET` in the body)", success=ref("ParseResults"), body=True)}
    sid = {"name": "id", "in": "path", "required": True, "schema": S}
    p[f"{m}/sessions/{{id}}"] = {"parameters": [sid], "get": parse_operation("One session"),
                                  "delete": parse_operation("End a session (its own user, or the master key)", success=ANY_OBJECT),
                                  "post": parse_operation("Read or end a session (`_method` in the body)", success=ANY_OBJECT, body=True)}
    fn = {"name": "name", "in": "path", "required": True, "schema": S}
    p[f"{m}/functions/{{name}}"] = {"parameters": [fn], "post": parse_operation("Run a Cloud Code function", success=ANY_OBJECT, body=True)}
    p[f"{m}/serverInfo"] = {"get": parse_operation("Server version and features", success=ANY_OBJECT),
                            "post": parse_operation("Server version and features (`_method: GET` in the body)", success=ANY_OBJECT, body=True)}
    appid = {"name": "appId", "in": "path", "required": True, "schema": S}
    redirect = {"302": {"description": "To the result page"}, "303": {"description": "To the result page"},
                "4XX": html("Refused"), "200": html("A page")}
    p[f"{m}/apps/{{appId}}/verify_email"] = {"parameters": [appid], "get": {
        "summary": "The page of a mailed verification link: a button that verifies", "tags": ["parse-pages"],
        "parameters": [{"name": n, "in": "query", "required": False, "schema": S} for n in ("token", "username")],
        "responses": redirect},
        "post": {"summary": "Verify the address (the link page's button; the GET changes nothing)", "tags": ["parse-pages"],
                 "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(["token"], token=S)}}},
                 "responses": redirect}}
    p[f"{m}/apps/{{appId}}/request_password_reset"] = {"parameters": [appid],
        "get": {"summary": "Check a reset link", "tags": ["parse-pages"],
                "parameters": [{"name": n, "in": "query", "required": False, "schema": S} for n in ("token", "username")],
                "responses": redirect},
        "post": {"summary": "Set the new password", "tags": ["parse-pages"],
                 "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(
                     [], token=S, username=S, new_password=S)}}},
                 "responses": redirect}}
    p[f"{m}/apps/choose_password"] = {"get": {"summary": "The new-password form", "tags": ["parse-pages"], "responses": redirect}}
    for page, summary in (("verify_email_success", "The address is verified"), ("invalid_verification_link", "A spent verification link"),
                          ("invalid_link", "A link that is not valid"), ("password_reset_success", "The password was changed")):
        p[f"{m}/apps/{page}.html"] = {"get": {"summary": summary, "tags": ["parse-pages"], "responses": {"200": html("The page")}}}

    # The testing mailbox (served only with testing.mailbox: true).
    p["/testing/v1/mail"] = {"get": {
        "summary": "Mails sent to an address (testing.mailbox only; never in production)", "tags": ["operations"],
        "parameters": [{"name": "to", "in": "query", "required": True, "schema": S}],
        "responses": {"200": json_body(obj(["messages"], messages={"type": "array"})),
                      "400": json_body(obj(["error", "error_description"], error=S, error_description=S))}}}

    add_testing_paths(p, S, I, B, obj, json_body)

    # The admin listener: Prometheus metrics, then the admin API.
    p["/metrics"] = {"get": {"summary": "Prometheus metrics (admin listener, no token)", "tags": ["admin"],
                             "servers": [{"url": "http://127.0.0.1:9464"}],
                             "responses": {"200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": S}}}}}}
    user = {"name": "user", "in": "path", "required": True, "description": "Id, objectId, email or username", "schema": S}
    limit = {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 1, "maximum": 1000}}
    a = "/admin/v1"
    p[f"{a}/users"] = {"get": admin_operation("List and search users (cursor pagination)",
                                             success=obj(["users", "next_cursor"], users={"type": "array", "items": ref("AdminUser")},
                                                         next_cursor={"type": ["string", "null"]}),
                                             params=[{"name": "q", "in": "query", "required": False, "schema": S}, limit,
                                                     {"name": "cursor", "in": "query", "required": False, "schema": S}])}
    p[f"{a}/users/{{user}}"] = {"parameters": [user], "get": admin_operation("One user", success=ref("AdminUser")),
                                 "delete": admin_operation("Delete the user with their sessions, tokens and flows", "204")}
    for action, summary in (("disable", "Disable: refused everywhere, sessions revoked"), ("enable", "Enable again"),
                            ("verify-email", "Mark the email verified")):
        p[f"{a}/users/{{user}}/{action}"] = {"parameters": [user], "post": admin_operation(summary, success=ref("AdminUser"))}
    p[f"{a}/users/{{user}}/revoke-sessions"] = {"parameters": [user], "post": admin_operation("Revoke every session", "204")}
    p[f"{a}/users/{{user}}/unlock"] = {"parameters": [user], "post": admin_operation(
        "Lift a lockout and start the count of failures again", success=ref("AdminUser"))}
    p[f"{a}/users/{{user}}/send-password-reset"] = {"parameters": [user], "post": admin_operation(
        "Mail the user a link to the hosted reset page", "202")}
    session = obj(["family_id", "dialect", "client", "started_at", "last_used_at", "expires_at"], family_id=S, dialect=S, client=S,
                  started_at=S, last_used_at=S, expires_at=S, device_id=S)
    p[f"{a}/users/{{user}}/sessions"] = {"parameters": [user], "get": admin_operation(
        "Live sessions (one per refresh-token family), most recently used first",
        success=obj(["sessions"], sessions={"type": "array", "items": session}))}
    role = {"name": "role", "in": "path", "required": True, "schema": {"type": "string", "enum": ["operator"]}}
    p[f"{a}/users/{{user}}/roles"] = {"parameters": [user], "get": admin_operation(
        "The roles given to the user", success=obj(["roles"], roles={"type": "array", "items": obj(["role", "granted_at"], role=S,
                                                                                               granted_at=S)}))}
    p[f"{a}/users/{{user}}/roles/{{role}}"] = {"parameters": [user, role],
        "put": admin_operation("Give the role (operator: may sign in to the console with the account)", "204"),
        "delete": admin_operation("Take the role away (an operator's console session ends)", "204")}
    p[f"{a}/mail"] = {"get": admin_operation("Mail by status, newest first (addresses masked)", success=obj(["mails"], mails={"type": "array"}),
                                             params=[{"name": "status", "in": "query", "required": False,
                                                      "schema": {"type": "string", "enum": ["pending", "failed", "sent"]}}, limit])}
    p[f"{a}/mail/{{id}}/retry"] = {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
                                   "post": admin_operation("Queue one failed mail again (409 when it is not a failed mail)", "204")}
    add_openid_admin_paths(p, a, user, S, B, obj, admin_operation)
    add_realm_paths(p, base, a, app, user, S, obj, json_body, app_errors, admin_operation, bearer)
    p[f"{a}/mail/failed"] = {"get": admin_operation("Failed mail (addresses masked)", success=obj(["mails"], mails={"type": "array"}),
                                                   params=[limit])}
    p[f"{a}/mail/retry"] = {"post": admin_operation("Queue every failed mail again", success=obj(["queued"], queued=I))}
    p[f"{a}/audit"] = {"get": admin_operation("Audit events, oldest first", success=obj(["events"], events={"type": "array"}), params=[
        {"name": "since", "in": "query", "required": False, "schema": {**S, "format": "date-time"}},
        {"name": "kind", "in": "query", "required": False, "schema": S},
        {"name": "until", "in": "query", "required": False, "schema": {**S, "format": "date-time"}},
        {"name": "user_id", "in": "query", "required": False, "schema": S},
        {"name": "client_ip", "in": "query", "required": False, "schema": S},
        {"name": "after", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0}}, limit])}
    p[f"{a}/keys"] = {"get": admin_operation("Signing keys", success=obj(["keys"], keys={"type": "array", "items": ref("SigningKey")}))}
    p[f"{a}/keys/rotate"] = {"post": admin_operation("Rotate: a new key signs from now on", "201", success=ref("SigningKey"))}
    provider_param = {"name": "provider", "in": "path", "required": True, "schema": S}
    identity = obj(["provider", "subject"], provider=S, subject=S, created_at=S, last_used_at=S)
    admin_key = obj(["id", "name", "kind", "app"], id=S, name=S, kind=S, app=S, user_id=S, disabled=B, created_at=S, key=S)
    p[f"{a}/users/{{user}}/identities"] = {"parameters": [user], "get": admin_operation(
        "The user's identities in link order", success=obj(["identities"], identities={"type": "array", "items": identity}))}
    p[f"{a}/users/{{user}}/identities/{{provider}}"] = {"parameters": [user, provider_param], "delete": admin_operation(
        "Unlink the user's identity of that provider (never the last way in: 409)", "204")}
    p[f"{a}/identities/{{provider}}/{{subject}}"] = {"parameters": [provider_param, {"name": "subject", "in": "path", "required": True,
                                                                                      "schema": S}],
                                                     "get": admin_operation("The user holding that identity", success=ref("AdminUser"))}
    factor = obj(["id", "kind", "created_at"], id=S, kind={"enum": ["email", "sms", "totp"]}, target=S, created_at=S,
                 recovery_codes_left=I)
    p[f"{a}/users/{{user}}/second-factors"] = {
        "parameters": [user],
        "get": admin_operation("The user's second factors (targets masked)",
                               success=obj(["second_factors"], second_factors={"type": "array", "items": factor})),
        "delete": admin_operation("Remove every second factor and recovery code (audited; the user is mailed)",
                                  success=obj(["removed"], removed=I))}
    passkey = obj(["id", "name", "created_at", "backup_eligible", "backed_up", "aaguid", "sign_count"], id=S, name=S, created_at=S,
                  last_used_at=S, backup_eligible=B, backed_up=B, aaguid=S, sign_count=I, clone_flagged_at=S)
    p[f"{a}/users/{{user}}/passkeys"] = {"parameters": [user], "get": admin_operation(
        "The user's passkeys (never their keys): synced or device-bound, last use, clone flags",
        success=obj(["passkeys"], passkeys={"type": "array", "items": passkey}))}
    p[f"{a}/users/{{user}}/passkeys/{{id}}"] = {"parameters": [user, {"name": "id", "in": "path", "required": True, "schema": S}],
                                                "delete": admin_operation("Remove one of the user's passkeys (never the last way in: 409)", "204")}
    p[f"{a}/users/{{user}}/passkeys/{{id}}/clone-flag"] = {
        "parameters": [user, {"name": "id", "in": "path", "required": True, "schema": S}],
        "delete": admin_operation("Clear a passkey's clone flag after checking with its owner: it signs in again (404 without one)", "204")}
    p[f"{a}/users/{{user}}/api-keys"] = {"parameters": [user], "get": admin_operation(
        "The user's own API keys", success=obj(["api_keys"], api_keys={"type": "array", "items": admin_key}))}
    p[f"{a}/api-keys"] = {
        "get": admin_operation("Server API keys", success=obj(["api_keys"], api_keys={"type": "array", "items": admin_key}),
                               params=[{"name": "app", "in": "query", "required": False, "schema": S}]),
        "post": {**admin_operation("Create a server API key for an App Services app (the key is in this answer only)", "201",
                                   success=admin_key),
                 "requestBody": {"required": True, "content": {"application/json": {"schema": obj(["app", "name"], app=S, name=S)}}}}}
    p[f"{a}/api-keys/{{id}}"] = {"parameters": [{"name": "id", "in": "path", "required": True, "schema": S}], "delete": admin_operation(
        "Revoke an API key (a server key with its account)", "204")}
    kid = {"name": "kid", "in": "path", "required": True, "schema": S}
    p[f"{a}/keys/{{kid}}/revoke"] = {"parameters": [kid], "post": admin_operation(
        "Revoke a key: out of the JWKS and no longer verifying, at once here and on every replica within ten seconds",
        success=obj(["revoked", "signing"], revoked=S, signing={"oneOf": [ref("SigningKey"), {"type": "null"}]}))}
    return p


def document(version):
    return {
        "openapi": "3.1.0",
        "info": {"title": "Latchkey", "version": version,
                 "description": "Every public route of the three dialects (native authentication, App Services, Parse), the "
                                "OpenID documents, health and the hosted pages; and the admin API served on the admin listener."},
        "servers": [{"url": "http://127.0.0.1:8080"}],
        "paths": paths(),
        # A server fills in its own registered client ids, Parse app ids and App Services app ids as enums when it
        # serves this document (GET /openapi.json).
        "components": {"schemas": SCHEMAS, "parameters": {
            "ParseApplicationId": {"name": "X-Parse-Application-Id", "in": "header", "required": True, "schema": S},
            "AppServicesApp": {"name": "app", "in": "path", "required": True, "schema": S}}, "securitySchemes": {
            "bearerAccessToken": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            "bearerRefreshToken": {"type": "http", "scheme": "bearer"},
            "adminToken": {"type": "http", "scheme": "bearer", "description": "The token in admin.token_file"},
            "clientBasic": {"type": "http", "scheme": "basic", "description": "A confidential client's id and secret (client_secret_basic)"}}},
    }


def version():
    with open(os.path.join(ROOT, "Sources", "Latchkey", "Latchkey.swift")) as f:
        for line in f:
            if "static let version" in line:
                return line.split('"')[1]
    raise SystemExit("no version in Latchkey.swift")


if __name__ == "__main__":
    text = json.dumps(document(version()), indent=1, sort_keys=True) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            if f.read() != text:
                raise SystemExit("openapi/openapi.json is stale: run python3 scripts/openapi.py")
        print("openapi/openapi.json is current")
    else:
        with open(OUT, "w") as f:
            f.write(text)
        print(f"wrote {OUT}")
