import Foundation
import Hummingbird
import LatchkeyCore

/// `/admin/v1`: a user's identities, second factors and API keys, users by identity, and server API keys.
extension AdminRoutes {
    struct ServerKeyBody: JSONObjectBody, Sendable {
        var app: String?
        var name: String?
    }

    func addIdentityRoutes(to api: RouterGroup<LatchkeyRequestContext>) {
        api.get("/users/:user/identities") { _, context in
            let (_, identities) = try await self.engine.adminIdentities(try context.parameters.requireUser())
            return JSONResponse.ok(["identities": .array(identities.map(Self.identity))])
        }
        api.delete("/users/:user/identities/:provider") { _, context in
            try await self.engine.adminUnlink(try context.parameters.requireUser(), provider: try context.parameters.require("provider"),
                                              caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/users/:user/second-factors") { _, context in
            let (_, factors) = try await self.engine.adminSecondFactors(try context.parameters.requireUser())
            return JSONResponse.ok(["second_factors": .array(factors.map(Self.secondFactor))])
        }
        api.delete("/users/:user/second-factors") { _, context in
            let removed = try await self.engine.adminResetSecondFactors(try context.parameters.requireUser(), caller: Self.caller(context))
            return JSONResponse.ok(["removed": .int(removed)])
        }
        api.get("/users/:user/passkeys") { _, context in
            JSONResponse.ok(["passkeys": .array(try await self.engine.adminPasskeys(try context.parameters.requireUser()).map(Self.passkey))])
        }
        api.delete("/users/:user/passkeys/:id/clone-flag") { _, context in
            try await self.engine.adminClearPasskeyFlag(try context.parameters.requireUser(), id: try context.parameters.require("id"),
                                                        caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.delete("/users/:user/passkeys/:id") { _, context in
            try await self.engine.adminRemovePasskey(try context.parameters.requireUser(), id: try context.parameters.require("id"),
                                                     caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/identities/:provider/:subject") { _, context in
            Self.user(try await self.engine.adminFindUser(provider: try context.parameters.require("provider"),
                                                          subject: try context.parameters.require("subject")))
        }
        api.get("/users/:user/api-keys") { _, context in
            JSONResponse.ok(["api_keys": .array(try await self.engine.adminApiKeys(try context.parameters.requireUser()).map(Self.apiKey))])
        }
        api.get("/api-keys") { request, _ in
            let app = request.uri.queryParameters["app"].map(String.init)
            return JSONResponse.ok(["api_keys": .array(try await self.engine.serverApiKeys(appId: app).map(Self.apiKey))])
        }
        api.post("/api-keys") { request, context in
            let body = try await request.decode(as: ServerKeyBody.self, context: context)
            guard let app = body.app, !app.isEmpty else { throw AdminAPIError.badRequest("app is required: the App Services app the key is for") }
            let created = try await self.engine.createServerApiKey(appId: app, name: body.name, caller: Self.caller(context))
            guard case .object(var object) = Self.apiKey(created.apiKey) else { return Response(status: .internalServerError) }
            object["key"] = .string(created.key)  // shown once
            return JSONResponse.make(.created, object)
        }
        api.delete("/api-keys/:id") { _, context in
            try await self.engine.revokeApiKey(id: try context.parameters.require("id"), caller: Self.caller(context))
            return Response(status: .noContent)
        }
    }

    static func identity(_ identity: IdentityRecord) -> JSONValue {
        .object(["provider": .string(identity.provider), "subject": .string(identity.subject),
                 "created_at": .string(identity.createdAt.ISO8601Format()), "last_used_at": .string(identity.lastUsedAt.ISO8601Format())])
    }

    static func secondFactor(_ factor: SecondFactorSummary) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(factor.id), "kind": .string(factor.kind.rawValue),
                                           "created_at": .string(factor.createdAt.ISO8601Format())]
        if let target = factor.target { object["target"] = .string(target) }
        if let left = factor.recoveryCodesLeft { object["recovery_codes_left"] = .int(left) }
        return .object(object)
    }

    /// A passkey as the operator sees it: never its key.
    static func passkey(_ passkey: PasskeyRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(passkey.id), "name": .string(passkey.name), "created_at": .string(passkey.createdAt.ISO8601Format()),
            "backup_eligible": .bool(passkey.backupEligible), "backed_up": .bool(passkey.backedUp),
            "aaguid": .string(passkey.aaguid.map { String(format: "%02x", $0) }.joined()), "sign_count": .int(Int(passkey.signCount)),
        ]
        if let used = passkey.lastUsedAt { object["last_used_at"] = .string(used.ISO8601Format()) }
        if let flagged = passkey.cloneFlaggedAt { object["clone_flagged_at"] = .string(flagged.ISO8601Format()) }
        return .object(object)
    }

    static func apiKey(_ key: ApiKey) -> JSONValue {
        .object(["id": .string(key.id), "name": .string(key.name), "kind": .string(key.kind.rawValue), "app": .string(key.appId),
                 "user_id": .string(key.userId), "disabled": .bool(key.disabled), "created_at": .string(key.createdAt.ISO8601Format())])
    }
}
