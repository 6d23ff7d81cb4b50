"""The OpenAPI paths of what a Realm app calls besides signing in: `functions/call` and custom user data (admin API)."""


def add_realm_paths(p, base, a, app, user, S, obj, json_body, app_errors, admin_operation, bearer):
    extended_json = {"description": "Extended JSON (canonical or relaxed), passed through as it came"}
    p[f"{base}/app/{{app}}/functions/call"] = {"parameters": [app], "post": {
        "summary": "Call a function the app exposes (app_services.apps[].functions) as the Bearer access token's user",
        "tags": ["app_services"], "security": bearer,
        "requestBody": {"required": True, "content": {"application/json": {"schema": obj(
            ["name"], name=S, arguments={"type": "array", "items": extended_json}, service=S)}}},
        "responses": {"200": json_body(extended_json, "The function's result"), **app_errors()}}}
    application = {"name": "app", "in": "path", "required": True, "description": "An app_services.apps id", "schema": S}
    document = obj(["app", "document", "updated_at"], app=S, document={"type": "object"}, updated_at=S)
    p[f"{a}/users/{{user}}/custom-data"] = {"parameters": [user], "get": admin_operation(
        "The user's custom user data, per App Services app", success=obj(["custom_data"], custom_data={"type": "array", "items": document}))}
    p[f"{a}/users/{{user}}/custom-data/{{app}}"] = {"parameters": [user, application],
        "put": {**admin_operation("Replace the user's custom data for the app (the body is the document; at most 4096 bytes)", "204"),
                "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}}},
        "delete": admin_operation("Remove the user's custom data for the app", "204")}
