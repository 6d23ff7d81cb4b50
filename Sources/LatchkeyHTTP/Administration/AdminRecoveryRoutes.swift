import Foundation
import Hummingbird
import LatchkeyCore

/// `/admin/v1`: helping someone back in (lift a lockout, mail a reset link), what they are signed in to, the roles an
/// operator gives accounts, their custom user data per App Services app, and the outbox by status with one mail retried.
extension AdminRoutes {
    /// A body that is the document itself: any JSON object.
    struct DocumentBody: JSONObjectBody, Sendable {
        var document: [String: JSONValue]
        init(from decoder: any Decoder) throws { document = try [String: JSONValue](from: decoder) }
    }

    func addRecoveryRoutes(to api: RouterGroup<LatchkeyRequestContext>) {
        api.post("/users/:user/unlock") { _, context in
            Self.user(try await self.engine.adminUnlock(try context.parameters.requireUser(), caller: Self.caller(context)))
        }
        api.post("/users/:user/send-password-reset") { _, context in
            try await self.engine.adminSendPasswordReset(try context.parameters.requireUser(), caller: Self.caller(context))
            return Response(status: .accepted)
        }
        api.get("/users/:user/sessions") { _, context in
            let sessions = try await self.engine.adminSessions(try context.parameters.requireUser())
            return JSONResponse.ok(["sessions": .array(sessions.map(Self.session))])
        }
        api.get("/users/:user/roles") { _, context in
            let (_, roles) = try await self.engine.adminRoles(try context.parameters.requireUser())
            return JSONResponse.ok(["roles": .array(roles.map { .object(["role": .string($0.role),
                                                                         "granted_at": .string($0.grantedAt.ISO8601Format())]) })])
        }
        api.put("/users/:user/roles/:role") { _, context in
            try await self.engine.adminGrantRole(try context.parameters.requireUser(), role: try context.parameters.require("role"),
                                                 caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.delete("/users/:user/roles/:role") { _, context in
            try await self.engine.adminRevokeRole(try context.parameters.requireUser(), role: try context.parameters.require("role"),
                                                  caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/users/:user/custom-data") { _, context in
            let documents = try await self.engine.adminCustomData(try context.parameters.requireUser())
            return JSONResponse.ok(["custom_data": .array(documents.map {
                .object(["app": .string($0.appId), "document": .object($0.document), "updated_at": .string($0.updatedAt.ISO8601Format())])
            })])
        }
        api.put("/users/:user/custom-data/:app") { request, context in
            let body = try await request.decode(as: DocumentBody.self, context: context)
            try await self.engine.adminSetCustomData(try context.parameters.requireUser(), appId: try context.parameters.require("app"),
                                                     document: body.document, caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.delete("/users/:user/custom-data/:app") { _, context in
            try await self.engine.adminSetCustomData(try context.parameters.requireUser(), appId: try context.parameters.require("app"),
                                                     document: nil, caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.get("/mail") { request, _ in
            let text = request.uri.queryParameters["status"].map(String.init) ?? "pending"
            guard let status = OutboxRecord.Status(rawValue: text) else {
                throw AdminAPIError.badRequest("status must be pending, failed or sent")
            }
            let mails = try await self.engine.adminMail(status: status, limit: try Self.int(request, "limit", default: 100))
            return JSONResponse.ok(["mails": .array(mails.map(Self.mail))])
        }
        api.post("/mail/:id/retry") { _, context in
            guard let id = Int64(try context.parameters.require("id")) else { throw AdminAPIError.badRequest("the mail id is a number") }
            guard try await self.engine.adminRetryMail(id: id, caller: Self.caller(context)) else {
                throw AdminAPIError.conflict("mail_not_failed", "No failed mail that can be sent again has that id.")
            }
            return Response(status: .noContent)
        }
    }

    static func session(_ session: SessionSummary) -> JSONValue {
        var object: [String: JSONValue] = [
            "family_id": .string(session.familyId), "dialect": .string(session.kind.rawValue), "client": .string(session.audience),
            "started_at": .string(session.startedAt.ISO8601Format()), "last_used_at": .string(session.lastUsedAt.ISO8601Format()),
            "expires_at": .string(session.expiresAt.ISO8601Format())]
        if let device = session.deviceId { object["device_id"] = .string(device) }
        return .object(object)
    }
}
