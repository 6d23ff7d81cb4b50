import HTTPTypes
import Hummingbird
import LatchkeyCore

/// `functions/:name` (the operator's functions the app lists) and `serverInfo` (master key).
extension ParseRoutes {
    /// The only request headers a function sees: what describes the client, never a credential (an allowlist, so a
    /// header nobody thought of, `Proxy-Authorization` or `X-Api-Key`, stays on the server).
    static let forwardedHeaders: Set<String> = ["accept", "accept-language", "content-type", "user-agent", "x-parse-application-id",
                                                "x-parse-client-version", "x-parse-installation-id", "x-parse-request-id",
                                                "x-parse-os-version", "x-parse-app-build-version", "x-parse-app-display-version",
                                                "x-request-id", "client-request-id"]

    func addFunctionRoutes(_ group: RouterGroup<LatchkeyRequestContext>) {
        route(group, "functions/:name", [.post: Endpoint(.checked) { request in
            var headers: [String: String] = [:]
            for field in request.headers where Self.forwardedHeaders.contains(field.name.canonicalName) {
                headers[field.name.canonicalName] = field.value
            }
            let result = try await engine.runParseFunction(
                app: request.call.app, name: request.parameter("name"), params: request.call.body, actor: request.actor,
                user: request.session.map { .object(ParseObjects.user($0.user, showEmail: true)) },
                installationId: request.call.installationId, headers: headers, caller: request.call.caller)
            return JSONResponse.make(.ok, ["result": result])
        }])
        route(group, "serverInfo", [.get: Endpoint(.checked) { request in
            guard request.call.isMaster else { throw ParseError(119, "master key is required") }
            return JSONResponse.make(.ok, Self.serverInfo)
        }])
    }

    /// The Parse Server REST level Latchkey answers like (SDKs read `parseServerVersion` as semver), and what it
    /// does not offer.
    static let serverInfo: [String: JSONValue] = [
        "parseServerVersion": "7.0.0",
        "features": .object([
            "globalConfig": .object(["create": .bool(false), "read": .bool(false), "update": .bool(false), "delete": .bool(false)]),
            "hooks": .object(["createFunction": .bool(false), "createTrigger": .bool(false), "getFunctions": .bool(false),
                              "getTriggers": .bool(false), "updateFunction": .bool(false), "updateTrigger": .bool(false),
                              "removeFunction": .bool(false), "removeTrigger": .bool(false)]),
            "cloudCode": .object(["jobs": .bool(false)]),
            "logs": .object(["level": .bool(false), "size": .bool(false), "order": .bool(false), "until": .bool(false), "from": .bool(false)]),
            "push": .object(["immediatePush": .bool(false), "scheduledPush": .bool(false), "storedPushData": .bool(false),
                             "pushAudiences": .bool(false), "localization": .bool(false)]),
            "schemas": .object(["addField": .bool(false), "removeField": .bool(false), "addClass": .bool(false), "removeClass": .bool(false),
                                "clearAllDataFromClass": .bool(false), "exportClass": .bool(false), "editClassLevelPermissions": .bool(false),
                                "editPointerPermissions": .bool(false)]),
        ]),
    ]
}
