"""The account page's part of openapi/openapi.json: /ui/account and its forms (docs/account.md). Imported by
scripts/openapi.py, which owns the helpers."""


def add_account_paths(p, S, obj, html):
    form = lambda **props: {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": obj(["csrf"], csrf=S, **props)}}}
    page = {"200": html("The account page, or the next step's page"),
            "303": {"description": "Back to the account page saying what was done; or through the hosted pages to sign in (again)"},
            "4XX": html("The account page with the reason"), "503": html("Unavailable")}
    p["/ui/account"] = {"get": {"summary": "The account page of the person signed in at this browser (else through the sign-in pages)",
                                "tags": ["account"], "parameters": [{"name": "done", "in": "query", "required": False, "schema": S}],
                                "responses": {"200": html("The account page"), "303": {"description": "To sign in first"}}}}
    p["/ui/account/sign-in"] = {"get": {
        "summary": "Sign in through the hosted pages as the built-in client latchkey-account (step_up: prompt=login), then back to next",
        "tags": ["account"], "parameters": [{"name": n, "in": "query", "required": False, "schema": S} for n in ("next", "step_up")],
        "responses": {"303": {"description": "To /authorize"}}}}
    p["/ui/account/callback"] = {"get": {
        "summary": "Where the built-in client's sign-in comes back", "tags": ["account"],
        "parameters": [{"name": n, "in": "query", "required": False, "schema": S} for n in ("code", "state", "error")],
        "responses": {"303": {"description": "Back to the account page"}, "400": html("The sign-in was cancelled or is stale")}}}
    p["/ui/account/download"] = {"get": {
        "summary": "The account's data as JSON (no secrets)", "tags": ["account"],
        "responses": {"200": {"description": "An attachment", "content": {"application/json": {"schema": {"type": "object"}}}},
                      "303": {"description": "To sign in first"}}}}
    for path, summary, props in (
            ("/ui/account/profile", "Save the profile (the schema's attributes, as attr.NAME)", {}),
            ("/ui/account/email", "Mail a code to a new address (recent sign-in; the current password after a code sign-in)", dict(email=S, current_password=S)),
            ("/ui/account/email/code", "The code: the account moves to the new address, the old one is told", dict(target=S, code=S)),
            ("/ui/account/password", "Change or set the password (current password, or a recent sign-in)", dict(current_password=S, password=S)),
            ("/ui/account/passkeys/rename", "Rename a passkey", dict(id=S, name=S)),
            ("/ui/account/passkeys/remove", "Remove a passkey (recent sign-in; never the last way in)", dict(id=S)),
            ("/ui/account/passkeys/clear-flag", "Clear a passkey's clone flag (\"it was me\"; the assurance rule as for adding one)", dict(id=S)),
            ("/ui/account/factors/authenticator", "Offer an authenticator: its key as text and as a QR code (recent sign-in)", {}),
            ("/ui/account/factors/authenticator/code", "The app's first code: enrolled, recovery codes shown once", dict(offer=S, code=S)),
            ("/ui/account/factors/code", "Send a code to a new second-factor address or phone number", dict(kind={"enum": ["email", "sms"]}, target=S)),
            ("/ui/account/factors/code/confirm", "The code: the second factor is added", dict(kind=S, target=S, code=S)),
            ("/ui/account/factors/remove", "Remove the second factors of a kind (recent sign-in)", dict(kind={"enum": ["email", "sms", "totp"]})),
            ("/ui/account/factors/recovery", "New recovery codes, shown once (recent sign-in)", {}),
            ("/ui/account/identities/link", "Link an upstream issuer: a redirect to its sign-in (recent sign-in)", dict(provider=S)),
            ("/ui/account/identities/unlink", "Unlink an issuer (recent sign-in; never the last way in)", dict(provider=S)),
            ("/ui/account/sessions/end", "End a browser session", dict(id=S)),
            ("/ui/account/apps/end", "End an app's session (a refresh-token family)", dict(id=S)),
            ("/ui/account/sessions/end-others", "End every session but this browser's", {}),
            ("/ui/account/consents/withdraw", "Withdraw a consent: the app's tokens end", dict(client=S)),
            ("/ui/account/delete", "Delete the account (recent sign-in; the address typed again)", dict(confirm=S))):
        p[path] = {"post": {"summary": summary, "tags": ["account"], "requestBody": form(**props), "responses": page}}
