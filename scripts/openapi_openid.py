"""The OpenID provider's part of openapi/openapi.json (issue R): /authorize, the hosted sign-in pages under /ui/,
sign-out, introspection and revocation. Imported by scripts/openapi.py, which owns the helpers."""


def add_openid_paths(p, tenant, S, I, B, obj, json_body, html, ref):
    form = lambda **props: {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj([], **props)}}}
    page = {"200": html("The next page"), "303": {"description": "On to the next step, or back to the client's redirect_uri"},
            "4XX": html("Refused, with the reason"), "503": html("Unavailable")}
    authorize_params = [{"name": n, "in": "query", "required": n in ("client_id", "redirect_uri", "response_type"), "schema": S}
                        for n in ("client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge",
                                  "code_challenge_method", "prompt", "max_age", "login_hint", "ui_locales", "response_mode")]
    for prefix in ("", "/{tenant}"):
        item = p.setdefault(f"{prefix}/oauth2/v2.0/authorize", {"parameters": [tenant]} if prefix else {})
        item["get"] = {"summary": "Authorization code flow with PKCE: a sign-in page, or straight back with a code (SSO)",
                       "tags": ["openid"], "parameters": authorize_params, "responses": page}
        item["post"] = {"summary": "The same, with the parameters in a form", "tags": ["openid"],
                        "requestBody": form(client_id=S, redirect_uri=S, response_type=S, scope=S, state=S, nonce=S,
                                            code_challenge=S, code_challenge_method=S), "responses": page}
    interaction = [{"name": "interaction", "in": "query", "required": True, "schema": S,
                    "description": "The sealed visit, from the page that links here"}]
    posted = lambda **props: form(csrf=S, interaction=S, **props)
    p["/ui/style.css"] = {"get": {"summary": "The pages' style sheet", "tags": ["pages"],
                                  "responses": {"200": {"description": "CSS", "content": {"text/css": {"schema": S}}}}}}
    p["/ui/passkeys.js"] = {"get": {"summary": "The pages' one script: passkey sign-in (the pages work without it)", "tags": ["pages"],
                                    "responses": {"200": {"description": "JavaScript", "content": {"text/javascript": {"schema": S}}}}}}
    p["/ui/brand/logo"] = {"get": {"summary": "The operator's logo (pages.brand.logo_file)", "tags": ["pages"],
                                   "responses": {"200": {"description": "The image, by its own type", "content": {"image/*": {"schema": S}}},
                                                 "404": {"description": "No logo is configured", "content": {"text/html": {"schema": S}}}}}}
    for path, summary in (("/ui/sign-in", "The sign-in page"), ("/ui/sign-up", "The sign-up page"), ("/ui/reset", "The reset page")):
        p[path] = {"get": {"summary": summary, "tags": ["pages"], "parameters": interaction, "responses": page}}
    p["/ui/device"] = {
        "get": {"summary": "Type the code a device shows (user_code fills it in; nothing is approved until it is sent)", "tags": ["pages"],
                "parameters": [{"name": "user_code", "in": "query", "required": False, "schema": S}], "responses": page},
        "post": {"summary": "The device's user code: on to the sign-in and the confirmation", "tags": ["pages"],
                 "requestBody": form(csrf=S, user_code=S), "responses": page}}
    p["/ui/device/done"] = {"get": {"summary": "How a device's sign-in ended", "tags": ["pages"],
                                    "parameters": [{"name": "result", "in": "query", "required": False,
                                                    "schema": {"enum": ["approved", "denied", "gone"]}}],
                                    "responses": {"200": html("The outcome")}}}
    registration_body = obj(["client_id", "redirect_uris", "grant_types", "token_endpoint_auth_method", "registration_client_uri"],
                            client_id=S, client_id_issued_at=I, client_name=S, redirect_uris={"type": "array", "items": S},
                            grant_types={"type": "array", "items": S}, response_types={"type": "array", "items": S},
                            token_endpoint_auth_method=S, registration_client_uri=S, client_secret=S, client_secret_expires_at=I,
                            registration_access_token=S)
    oauth_refusal = json_body(obj(["error", "error_description"], error=S, error_description=S), "Refused (RFC 7591 §3.2.2), or the token is wrong (401)")
    p["/oauth2/register"] = {"post": {
        "summary": "RFC 7591 dynamic registration (openid.registration_enabled); Bearer the initial access token when one is configured",
        "tags": ["openid"],
        "requestBody": {"required": True, "content": {"application/json": {"schema": obj(
            ["redirect_uris"], redirect_uris={"type": "array", "items": S}, client_name=S, grant_types={"type": "array", "items": S},
            response_types={"type": "array", "items": S}, token_endpoint_auth_method={"enum": ["none", "client_secret_basic", "client_secret_post"]},
            scope=S)}}},
        "responses": {"201": json_body(registration_body, "The client, its secret and registration access token (shown once)"),
                      "4XX": oauth_refusal}}}
    client_param = [{"name": "client", "in": "path", "required": True, "schema": S}]
    p["/oauth2/register/{client}"] = {"parameters": client_param,
        "get": {"summary": "RFC 7592: the registration, read with its registration access token (Bearer)", "tags": ["openid"],
                "responses": {"200": json_body(registration_body, "The client"), "4XX": oauth_refusal}},
        "delete": {"summary": "RFC 7592: the registration deleted by its client (Bearer its registration access token)", "tags": ["openid"],
                   "responses": {"204": {"description": "Deleted"}, "4XX": oauth_refusal}}}
    posts = [
        ("/ui/sign-in", "Sign in with a password, or ask for a code (method=code)", dict(email=S, password=S, method=S)),
        ("/ui/code", "The mailed sign-in code", dict(code=S)),
        ("/ui/code/resend", "Mail a new sign-in code", {}),
        ("/ui/sign-up", "Create an account: a code is mailed to prove the address", dict(email=S, password=S)),
        ("/ui/sign-up/code", "The sign-up code: the account is created and signed in", dict(code=S)),
        ("/ui/sign-up/code/resend", "Mail a new sign-up code", {}),
        ("/ui/reset", "Mail a reset code", dict(email=S)),
        ("/ui/reset/code", "The reset code and the new password: signed in", dict(code=S, password=S)),
        ("/ui/reset/code/resend", "Mail a new reset code", {}),
        ("/ui/second-factor/send", "Send the chosen second factor's code", dict(method=S)),
        ("/ui/second-factor/code", "The second factor's code", dict(code=S)),
        ("/ui/second-factor/code/resend", "Send a new code to the second factor last chosen", {}),
        ("/ui/second-factor/enrol", "Enrol an address or phone number as second factor", dict(channel=S, target=S)),
        ("/ui/second-factor/enrol/code", "The code sent to the new second factor", dict(code=S)),
        ("/ui/second-factor/enrol/code/resend", "Send a new code to the second factor being enrolled", {}),
        ("/ui/second-factor/authenticator", "Enrol an authenticator app instead: its key is shown once", {}),
        ("/ui/second-factor/authenticator/code", "The app's first code: enrolled, recovery codes shown once", dict(code=S)),
        ("/ui/second-factor/done", "After the recovery codes: on to the app", {}),
        ("/ui/consent", "Allow or deny a third-party client", dict(decision={"enum": ["allow", "deny"]})),
        ("/ui/upstream", "Continue with an upstream OpenID issuer (a redirect to its sign-in)", dict(provider=S)),
    ]
    for path, summary, props in posts:
        p.setdefault(path, {})["post"] = {"summary": summary, "tags": ["pages"], "requestBody": posted(**props), "responses": page}
    # The passkey wire: JSON in and out, bound to the visit by the CSRF cookie and the X-CSRF-Token header.
    csrf_header = [{"name": "X-CSRF-Token", "in": "header", "required": True, "schema": S, "description": "The pages' form token"},
                   {"name": "X-Latchkey-Interaction", "in": "header", "required": False, "schema": S, "description": "The sealed visit"}]
    oauth_error = json_body(obj(["error", "error_description"], error=S, error_description=S), "Refused, with the check that failed")
    passkey_errors = {"400": oauth_error, "401": oauth_error, "403": oauth_error, "413": oauth_error, "429": oauth_error, "503": oauth_error}
    any_json = {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}}
    for path, summary, answer in (
            ("/ui/passkeys/registration/options", "PublicKeyCredentialCreationOptionsJSON for the account signed in at this browser",
             json_body({"type": "object"}, "The creation options")),
            ("/ui/passkeys/registration", "A RegistrationResponseJSON: the passkey is added (?name= names it)",
             json_body(obj(["id", "name", "backup_eligible"], id=S, name=S, backup_eligible=B), "The passkey")),
            ("/ui/passkeys/authentication/options", "PublicKeyCredentialRequestOptionsJSON (discoverable: no allowed list)",
             json_body({"type": "object"}, "The request options")),
            ("/ui/passkeys/authentication", "An AuthenticationResponseJSON: signed in; where the visit goes next",
             json_body(obj(["location"], location=S), "Where to go next (a browser session cookie is set)"))):
        p[path] = {"post": {"summary": summary, "tags": ["pages"], "parameters": csrf_header, "requestBody": any_json,
                            "responses": {"200": answer, **passkey_errors}}}
    p["/ui/continue"] = {"get": {"summary": "Where a visit goes on after a passkey sign-in, when it has a page to show",
                                 "tags": ["pages"], "parameters": interaction, "responses": page}}
    callback = {"200": html("A second factor, or the sign-in page with the reason"),
                "303": {"description": "On to the client"}, "4XX": html("Refused"), "503": html("The issuer is unreachable")}
    answer = [{"name": n, "in": "query", "required": False, "schema": S} for n in ("code", "state", "error", "iss")]
    p["/ui/upstream/callback/{provider}"] = {
        "parameters": [{"name": "provider", "in": "path", "required": True, "schema": S,
                        "description": "The issuer's name under identities.providers"}],
        "get": {"summary": "Where an upstream issuer sends the browser back, one address per issuer (register it there)",
                "tags": ["pages"], "parameters": answer, "responses": callback},
        "post": {"summary": "The same, answered by form post (Apple)", "tags": ["pages"],
                 "requestBody": form(code=S, state=S, error=S, iss=S), "responses": callback}}
    p["/ui/upstream/callback"] = {
        "get": {"summary": "The address every issuer shared before: answers to sign-ins begun there", "tags": ["pages"],
                "parameters": answer, "responses": callback},
        "post": {"summary": "The same, answered by form post (Apple)", "tags": ["pages"],
                 "requestBody": form(code=S, state=S, error=S, iss=S), "responses": callback}}
    logout_params = [{"name": n, "in": "query", "required": False, "schema": S}
                     for n in ("id_token_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales")]
    p["/oauth2/v2.0/logout"] = {
        "get": {"summary": "RP-initiated logout: ends the browser session and its apps' refresh tokens", "tags": ["openid"],
                "parameters": logout_params, "responses": {"200": html("Signed out, or the confirmation page"),
                                                           "303": {"description": "Back to the registered post_logout_redirect_uri"},
                                                           "4XX": html("Refused")}},
        "post": {"summary": "The confirmation page's form", "tags": ["openid"],
                 "requestBody": form(csrf=S, confirm=S, client_id=S, post_logout_redirect_uri=S, state=S),
                 "responses": {"200": html("Signed out"), "303": {"description": "Back to the client"}, "4XX": html("Refused")}}}
    client_auth = [{"clientBasic": []}, {}]
    oauth_error = json_body(obj(["error", "error_description"], error=S, error_description=S), "OAuth error")
    p["/oidc/introspect"] = {"post": {
        "summary": "RFC 7662: is this access or refresh token of the calling (confidential) client active", "tags": ["openid"],
        "security": client_auth, "requestBody": form(token=S, token_type_hint=S, client_id=S, client_secret=S),
        "responses": {"200": json_body(obj(["active"], active=B, scope=S, client_id=S, sub=S, username=S, exp=I, iat=I, iss=S, aud=S,
                                               token_type=S)), "4XX": oauth_error, "503": oauth_error}}}
    p["/oidc/revoke"] = {"post": {
        "summary": "RFC 7009: revoke a refresh token (and its family) of the calling client", "tags": ["openid"],
        "security": client_auth, "requestBody": form(token=S, token_type_hint=S, client_id=S, client_secret=S),
        "responses": {"200": {"description": "Revoked, or nothing to revoke"}, "4XX": oauth_error, "503": oauth_error}}}


def add_openid_admin_paths(p, a, user, S, B, obj, admin_operation):
    """The admin API's OpenID operations: a user's browser sessions and consents, and the configured clients."""
    session = obj(["id", "amr", "auth_time", "expires_at"], id=S, amr={"type": "array", "items": S}, auth_time=S, expires_at=S,
                  ip={"type": ["string", "null"]}, user_agent={"type": ["string", "null"]})
    consent = obj(["client_id", "scope", "granted_at"], client_id=S, scope=S, granted_at=S)
    client = obj(["id", "name", "confidential", "first_party", "source"], id=S, name=S, source={"enum": ["configuration", "admin", "registration", "metadata_document"]}, scopes={"type": "array", "items": S}, mfa=S,
                 redirect_uris={"type": "array", "items": S}, post_logout_redirect_uris={"type": "array", "items": S},
                 confidential=B, first_party=B, grant_types={"type": "array", "items": S})
    p[f"{a}/users/{{user}}/browser-sessions"] = {"parameters": [user], "get": admin_operation(
        "The user's live sessions at the hosted sign-in pages (SSO)",
        success=obj(["browser_sessions"], browser_sessions={"type": "array", "items": session}))}
    p[f"{a}/users/{{user}}/browser-sessions/{{id}}"] = {
        "parameters": [user, {"name": "id", "in": "path", "required": True, "schema": S}],
        "delete": admin_operation("End one browser session and the refresh tokens it gave (audited)", "204")}
    p[f"{a}/users/{{user}}/consents"] = {"parameters": [user], "get": admin_operation(
        "The consents the user gave third-party clients", success=obj(["consents"], consents={"type": "array", "items": consent}))}
    p[f"{a}/users/{{user}}/consents/{{client}}"] = {
        "parameters": [user, {"name": "client", "in": "path", "required": True, "schema": S}],
        "delete": admin_operation("Withdraw a consent, with the refresh tokens that client holds for the user (audited)", "204")}
    new_client = obj(["name"], name=S, scopes={"type": "array", "items": S}, mfa={"enum": ["off", "optional", "required"]},
                     redirect_uris={"type": "array", "items": S}, post_logout_redirect_uris={"type": "array", "items": S},
                     confidential={**B, "description": "Default true: a secret is made and shown once"}, first_party=B)
    created = {**client, "properties": {**client["properties"], "client_secret": S}}
    post = admin_operation("Make a client (stored; every replica has it within ten seconds)", "201", success=created)
    post["requestBody"] = {"required": True, "content": {"application/json": {"schema": new_client}}}
    p[f"{a}/clients"] = {"get": admin_operation("Every client: the configuration's and those made here (secrets never shown)",
                                                success=obj(["clients"], clients={"type": "array", "items": client})),
                         "post": post}
    client_id = {"name": "id", "in": "path", "required": True, "schema": S}
    p[f"{a}/clients/{{id}}"] = {"parameters": [client_id], "delete": admin_operation(
        "Delete a client made here (a configured one: 409)", "204")}
    p[f"{a}/clients/{{id}}/secret"] = {"parameters": [client_id], "post": admin_operation(
        "A new secret for a confidential client made here; the old one stops working", success=obj(["client_secret"], client_secret=S))}
