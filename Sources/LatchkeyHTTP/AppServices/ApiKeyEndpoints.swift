import Foundation
import Hummingbird
import LatchkeyCore

/// `auth/api_keys[/{id}[/enable|/disable]]`, authenticated by the session's refresh token as realm-core sends it.
extension AppServicesRoutes {
    struct ApiKeyBody: JSONObjectBody, Sendable {
        var name: String?
    }

    func addApiKeyRoutes(to group: RouterGroup<LatchkeyRequestContext>) {
        group.post("auth/api_keys") { request, context in
            let body = try await request.decode(as: ApiKeyBody.self, context: context)
            let created = try await engine.createUserApiKey(refreshToken: BearerToken.read(request), name: body.name,
                                                            caller: clientAddress.caller(request, context: context))
            // The key itself is in this answer only.
            var object = Self.apiKey(created.apiKey)
            object["key"] = .string(created.key)
            return JSONResponse.make(.created, object)
        }
        group.get("auth/api_keys") { request, _ in
            let keys = try await engine.userApiKeys(refreshToken: BearerToken.read(request))
            return JSONResponse.make(.ok, value: .array(keys.map { .object(Self.apiKey($0)) }))
        }
        group.get("auth/api_keys/:id") { request, context in
            JSONResponse.ok(Self.apiKey(try await engine.userApiKey(refreshToken: BearerToken.read(request), id: try context.parameters.require("id"))))
        }
        group.delete("auth/api_keys/:id") { request, context in
            try await engine.deleteUserApiKey(refreshToken: BearerToken.read(request), id: try context.parameters.require("id"),
                                              caller: clientAddress.caller(request, context: context))
            return Self.done
        }
        for (action, disabled) in [("enable", false), ("disable", true)] {
            group.put("auth/api_keys/:id/\(action)") { request, context in
                try await engine.setUserApiKeyDisabled(refreshToken: BearerToken.read(request), id: try context.parameters.require("id"),
                                                       disabled: disabled, caller: clientAddress.caller(request, context: context))
                return Self.done
            }
        }
    }

    /// `{_id, name, disabled}`: realm-core parses `_id` as a 24-hex ObjectId and refuses `"key": null`.
    static func apiKey(_ key: ApiKey) -> [String: JSONValue] {
        ["_id": .string(key.id), "name": .string(key.name), "disabled": .bool(key.disabled)]
    }
}
