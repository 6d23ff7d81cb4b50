import Foundation
import Hummingbird
import LatchkeyCore

/// The admin API (`/admin/v1`, JSON). The OpenAPI document at `GET /openapi.json` on the public listener
/// describes every operation.
struct AdminRoutes: Sendable {
    let engine: any OperatorSurface

    func addRoutes(to api: RouterGroup<LatchkeyRequestContext>) {
        api.get("/users") { request, _ in try await self.listUsers(request) }
        api.get("/users/:user") { _, context in Self.user(try await self.engine.adminFindUser(try context.parameters.requireUser())) }
        api.delete("/users/:user") { _, context in
            try await self.engine.adminDeleteUser(try context.parameters.requireUser(), caller: Self.caller(context))
            return Response(status: .noContent)
        }
        for (action, disabled) in [("disable", true), ("enable", false)] {
            api.post("/users/:user/\(action)") { _, context in
                Self.user(try await self.engine.adminSetDisabled(try context.parameters.requireUser(), disabled: disabled,
                                                                 caller: Self.caller(context)))
            }
        }
        api.post("/users/:user/revoke-sessions") { _, context in
            try await self.engine.adminRevokeSessions(try context.parameters.requireUser(), caller: Self.caller(context))
            return Response(status: .noContent)
        }
        api.post("/users/:user/verify-email") { _, context in
            Self.user(try await self.engine.adminVerifyEmail(try context.parameters.requireUser(), caller: Self.caller(context)))
        }
        addIdentityRoutes(to: api)
        addRecoveryRoutes(to: api)
        addOpenIDRoutes(to: api)
        api.get("/mail/failed") { request, _ in
            let mails = try await self.engine.adminFailedMail(limit: try Self.int(request, "limit", default: 100))
            return JSONResponse.ok(["mails": .array(mails.map(Self.mail))])
        }
        api.post("/mail/retry") { _, context in
            JSONResponse.ok(["queued": .int(try await self.engine.adminRetryFailedMail(caller: Self.caller(context)))])
        }
        api.get("/audit") { request, _ in try await self.audit(request) }
        api.get("/keys") { _, _ in JSONResponse.ok(["keys": .array(try await self.engine.signingKeyInfo().map(Self.key))]) }
        api.post("/keys/rotate") { _, context in
            JSONResponse.make(.created, value: Self.key(try await self.engine.rotateSigningKey(caller: Self.caller(context))))
        }
        api.post("/keys/:kid/revoke") { _, context in
            let kid = try context.parameters.require("kid")
            let replacement = try await self.engine.revokeSigningKey(kid: kid, caller: Self.caller(context))
            return JSONResponse.ok(["revoked": .string(kid), "signing": replacement.map(Self.key) ?? .null])
        }
    }

    static func caller(_ context: LatchkeyRequestContext) -> CallerInfo {
        CallerInfo(dialect: .admin, clientId: "admin-api", ip: context.remoteAddress?.ipAddress, userAgent: "admin api", actor: "admin-api")
    }

    func listUsers(_ request: Request) async throws -> Response {
        let cursor = try request.uri.queryParameters["cursor"].map { text -> UserCursor in
            guard let cursor = AdminCursor.decode(String(text)) else { throw AdminAPIError.badRequest("cursor is not one this API handed out") }
            return cursor
        }
        let page = try await engine.adminListUsers(prefix: request.uri.queryParameters["q"].map(String.init), after: cursor,
                                                   limit: try Self.int(request, "limit", default: 50))
        var body: [String: JSONValue] = ["users": .array(page.users.map { .object(AdminJSON.user($0)) })]
        body["next_cursor"] = page.next.map { .string(AdminCursor.encode($0)) } ?? .null
        return JSONResponse.ok(body)
    }

    func audit(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        func time(_ name: String) throws -> Date? {
            try query[Substring(name)].map { text -> Date in
                guard let date = ISO8601DateFormatter().date(from: String(text)) else {
                    throw AdminAPIError.badRequest("\(name) must be an ISO 8601 time, e.g. 2026-11-01T00:00:00Z")
                }
                return date
            }
        }
        let after = try query["after"].map { text -> Int64 in
            guard let id = Int64(text), id >= 0 else { throw AdminAPIError.badRequest("after must be an event id") }
            return id
        }
        let events = try await engine.adminAuditEvents(AuditQuery(
            since: try time("since") ?? engine.time.now().addingTimeInterval(-86_400), until: try time("until"),
            kind: query["kind"].map(String.init), userId: query["user_id"].map(String.init), clientIp: query["client_ip"].map(String.init),
            afterId: after, limit: try Self.int(request, "limit", default: 100)))
        return JSONResponse.ok(["events": .array(events.map(Self.event))])
    }

    /// One audit event as the API and the console's export write it.
    static func event(_ event: AuditEvent) -> JSONValue {
        var fields: [String: JSONValue] = ["id": event.id.map { .int(Int($0)) } ?? .null, "at": .string(event.at.ISO8601Format()),
                                           "kind": .string(event.kind)]
        for (name, value) in [("user_id", event.userId), ("email", event.email), ("client_ip", event.clientIp),
                              ("user_agent", event.userAgent), ("detail", event.detail), ("dialect", event.dialect), ("actor", event.actor)] {
            fields[name] = value.map(JSONValue.string) ?? .null
        }
        return .object(fields)
    }

    static func int(_ request: Request, _ name: String, default value: Int) throws -> Int {
        guard let text = request.uri.queryParameters[Substring(name)] else { return value }
        guard let number = Int(text), (1...1000).contains(number) else { throw AdminAPIError.badRequest("\(name) must be 1 to 1000") }
        return number
    }

    static func user(_ user: UserRecord) -> Response { JSONResponse.ok(AdminJSON.user(user)) }

    static func mail(_ mail: OutboxRecord) -> JSONValue {
        .object(["id": mail.id.map { .int(Int($0)) } ?? .null, "kind": .string(mail.kind),
                        "recipient": .string(EmailAddress.mask(mail.recipient)), "attempts": .int(mail.attempts),
                        "created_at": .string(mail.createdAt.ISO8601Format()),
                        "last_error": mail.lastError.map(JSONValue.string) ?? .null])
    }

    static func key(_ key: OperatorService.SigningKeyInfo) -> JSONValue {
        .object(["kid": .string(key.kid), "alg": .string(key.algorithm), "state": .string(key.state.rawValue),
                 "created_at": .string(key.createdAt.ISO8601Format())])
    }
}

/// How the admin API (and `latchkey users … --json`) shows a user: no hash, no attributes.
public enum AdminJSON {
    public static func user(_ user: UserRecord) -> [String: JSONValue] {
        [
            "id": .string(user.id), "object_id": .string(user.objectId), "email": user.email.map(JSONValue.string) ?? .null,
            "username": user.username.map(JSONValue.string) ?? .null, "email_verified": .bool(user.emailVerified),
            "status": .string(user.status.rawValue), "created_at": .string(user.createdAt.ISO8601Format()),
            "last_sign_in_at": user.lastLoginAt.map { .string($0.ISO8601Format()) } ?? .null,
            "locked_until": user.lockedUntil.map { .string($0.ISO8601Format()) } ?? .null,
            "has_password": .bool(user.passwordHash != nil),
        ]
    }
}

/// An opaque page cursor: the last user's creation time (full precision) and id, base64url-encoded.
enum AdminCursor {
    static func encode(_ cursor: UserCursor) -> String {
        Base64URL.encode(Array("\(cursor.createdAt.timeIntervalSince1970)|\(cursor.id)".utf8))
    }

    static func decode(_ text: String) -> UserCursor? {
        guard text.utf8.count <= 200, let bytes = Base64URL.decode(text) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: "|", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite, !parts[1].isEmpty else { return nil }
        return UserCursor(createdAt: Date(timeIntervalSince1970: seconds), id: String(parts[1]))
    }
}
