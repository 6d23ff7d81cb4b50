"""Test mode's part of openapi/openapi.json: the testing API under /testing/v1/ (docs/testing.md), served only by
`latchkey serve --testing`. Imported by scripts/openapi.py, which owns the helpers."""


def add_testing_paths(p, S, I, B, obj, json_body):
    error = json_body(obj(["error", "error_description"], error=S, error_description=S), "Refused, saying why")
    clock = json_body(obj(["now", "offset_seconds"], now=S, offset_seconds={"type": "number"}), "The server's clock")
    tag = ["testing"]
    p["/testing/v1/config"] = {"get": {"summary": "The ready apps' ids and secrets (test mode only)", "tags": tag,
                                       "responses": {"200": json_body({"type": "object"}, "Ids, secrets and addresses")}}}
    code = obj(["purpose", "channel", "to", "sent_at", "expires_at", "used"], purpose={"enum": ["sign_up", "sign_in", "second_factor", "reset",
               "confirmation", "address_change"]}, channel={"enum": ["email", "sms"]}, to=S, code=S, link=S, token=S, token_id=S, dialect=S, client_id=S, sent_at=S,
               expires_at=S, used=B)
    to = [{"name": "to", "in": "query", "required": False, "schema": S, "description": "An address or a phone number (without: to anyone)"},
          {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
           "description": "At most this many (100)"},
          {"name": "before", "in": "query", "required": False, "schema": I, "description": "The `next` of the page before"}]
    nxt = {"type": ["integer", "null"], "description": "The cursor of the next (older) page; null at the oldest"}
    p["/testing/v1/codes"] = {"get": {"summary": "The codes and links sent (to one address or number, or to anyone), newest first, paged, as data",
                                      "tags": tag, "parameters": to,
                                      "responses": {"200": json_body(obj(["codes", "next"], codes={"type": "array", "items": code}, next=nxt)),
                                                    "400": error}}}
    p["/testing/v1/sms"] = {"get": {"summary": "The text messages sent (captured, never sent), newest first, paged", "tags": tag, "parameters": to,
                                    "responses": {"200": json_body(obj(["messages", "next"], messages={"type": "array", "items": code}, next=nxt)),
                                                  "400": error}}}
    state = {"type": "object", "required": ["format", "exported_at", "users", "second_factors", "roles"],
             "properties": {"format": {"const": "latchkey-testing-state/1"}, "exported_at": S, "users": {"type": "array", "items": {"type": "object"}},
                            "second_factors": {"type": "array", "items": obj(["user_id", "kind"], user_id=S, kind={"enum": ["totp", "email", "sms"]},
                                                                               target=S, secret=S)},
                            "roles": {"type": "array", "items": obj(["user_id", "role"], user_id=S, role=S)}}}
    p["/testing/v1/export"] = {"post": {"summary": "The state as one document: accounts, identities, second factors, roles", "tags": tag,
                                        "responses": {"200": json_body(state, "The state document")}}}
    p["/testing/v1/import"] = {"post": {"summary": "Adds a state document's accounts to what is there", "tags": tag,
                                        "requestBody": {"required": True, "content": {"application/json": {"schema": state}}},
                                        "responses": {"200": json_body(obj(["users", "second_factors", "roles", "problems"], users=I, second_factors=I,
                                                                           roles=I, problems={"type": "array", "items": S})),
                                                      "400": error}}}
    p["/testing/v1/clock"] = {
        "get": {"summary": "The server's clock and how far it was moved", "tags": tag, "responses": {"200": clock}},
        "post": {"summary": "Move the clock forward: codes, tokens, lockouts and sessions expire as they would", "tags": tag,
                 "requestBody": {"required": True, "content": {"application/json": {"schema": obj(["advance_seconds"], advance_seconds={"type": "number"})}}},
                 "responses": {"200": clock, "400": error}},
        "delete": {"summary": "Back to real time", "tags": tag, "responses": {"200": clock}}}
    p["/testing/v1/data"] = {"delete": {
        "summary": "Wipe every account, session, flow, code, mail and audit event (keep_accounts=true: only sessions and flows)", "tags": tag,
        "parameters": [{"name": "keep_accounts", "in": "query", "required": False, "schema": B}],
        "responses": {"200": json_body(obj(["wiped", "milliseconds"], wiped=S, milliseconds={"type": "number"}), "What went, and how long it took")}}}
    account = obj([], email=S, email_verified=B, username=S, password=S, attributes={"type": "object"},
                  identities={"type": "array", "items": obj(["provider", "subject"], provider=S, subject=S)},
                  second_factors={"type": "array", "items": obj(["kind"], kind={"enum": ["totp", "email"]}, secret=S, target=S)},
                  roles={"type": "array", "items": S})
    made = obj(["id", "object_id"], id=S, object_id=S)
    p["/testing/v1/users"] = {"post": {
        "summary": "Make an account directly (or many: a JSON array)", "tags": tag,
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"oneOf": [account, {"type": "array", "items": account}]}}}},
        "responses": {"201": json_body({"oneOf": [made, {"type": "array", "items": made}]}, "The accounts' ids"), "400": error, "409": error}}}
    p["/testing/v1/users/{user}/{state}"] = {
        "parameters": [{"name": "user", "in": "path", "required": True, "schema": S, "description": "Id, email or username"},
                       {"name": "state", "in": "path", "required": True, "schema": {"enum": ["lock", "unlock", "disable", "enable", "verify"]}}],
        "post": {"summary": "Put an account in a state a test needs", "tags": tag,
                 "responses": {"200": json_body(obj(["id", "status", "email_verified", "locked"], id=S, status=S, email_verified=B, locked=B),
                                                "The account now"), "404": error}}}
    name = {"name": "name", "in": "path", "required": True, "schema": S, "description": "apple, google or any name (1 to 40 letters, digits, - or _)"}
    html = {"description": "A page", "content": {"text/html": {"schema": S}}}
    p["/testing/v1/issuer/{name}/.well-known/openid-configuration"] = {"parameters": [name], "get": {
        "summary": "The stand-in issuer's discovery", "tags": tag, "responses": {"200": json_body({"type": "object"}), "404": error}}}
    p["/testing/v1/issuer/{name}/jwks"] = {"parameters": [name], "get": {
        "summary": "The stand-in issuer's keys", "tags": tag, "responses": {"200": json_body(obj(["keys"], keys={"type": "array"})), "404": error}}}
    p["/testing/v1/issuer/{name}/authorize"] = {"parameters": [name],
        "get": {"summary": "The stand-in's sign-in page: a form saying who signs in", "tags": tag,
                "parameters": [{"name": n, "in": "query", "required": n == "redirect_uri", "schema": S} for n in ("client_id", "redirect_uri", "state", "nonce")],
                "responses": {"200": html, "400": html, "404": error}},
        "post": {"summary": "The form: back to redirect_uri with a code", "tags": tag,
                 "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(["redirect_uri", "sub"], client_id=S,
                                 redirect_uri=S, state=S, nonce=S, sub=S, email=S, email_verified=S, name=S)}}},
                 "responses": {"303": {"description": "To redirect_uri with code, state and iss"}, "400": html, "404": error}}}
    p["/testing/v1/issuer/{name}/token"] = {"parameters": [name], "post": {
        "summary": "The stand-in's token endpoint: its code for an ID token", "tags": tag,
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(["grant_type", "code"], grant_type=S, code=S,
                        client_id=S, client_secret=S, code_verifier=S, redirect_uri=S)}}},
        "responses": {"200": json_body(obj(["id_token"], id_token=S, access_token=S, token_type=S, expires_in=I)), "400": error, "404": error}}}
    p["/testing/v1/issuer/{name}/id-token"] = {"parameters": [name], "post": {
        "summary": "An ID token of the stand-in signed for any claims (iss, aud, iat, exp and sub filled in when left out)", "tags": tag,
        "requestBody": {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"200": json_body(obj(["id_token"], id_token=S)), "400": error, "404": error}}}
