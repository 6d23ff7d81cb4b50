import Foundation
import Hummingbird
import LatchkeyCore

/// Finding an account (by email, username, objectId, id or its prefix, or `provider:subject`) and everything about it
/// on one page.
extension Console {
    func addUserRoutes(to console: RouterGroup<LatchkeyRequestContext>) {
        console.get("/users") { request, context in try await self.users(request, try await self.visit(request, context)) }
        console.get("/users/:user") { request, context in
            try await self.user(request, try await self.visit(request, context), key: try context.parameters.requireUser())
        }
    }

    private func users(_ request: Request, _ visit: ConsoleVisit) async throws -> Response {
        let query = request.uri.queryParameters
        let text = query["q"].map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard text.count <= 320 else { throw ConsoleBadInput(message: "error_query_long") }
        let cursor = try query["cursor"].map { value -> UserCursor in
            guard let cursor = AdminCursor.decode(String(value)) else { throw ConsoleBadInput(message: "error_cursor") }
            return cursor
        }
        var found: [UserRecord] = []
        if !text.isEmpty, cursor == nil, let exact = try await exactUser(text) { found.append(exact) }
        let listed = try await engine.adminListUsers(prefix: text.isEmpty ? nil : text, after: cursor, limit: 50)
        found += listed.users.filter { user in !found.contains { $0.id == user.id } }
        let now = engine.time.now()
        var values: [String: Any] = ["title": word("users", visit), "section": "users", "q": text, "searched": !text.isEmpty,
                                     "users": found.map { Self.userRow($0, now: now) }, "none": found.isEmpty]
        if let next = listed.next {
            values["next"] = "/console/users?" + [text.isEmpty ? nil : "q=\(ConsoleErrors.escape(text))",
                                                   "cursor=\(AdminCursor.encode(next))"].compactMap { $0 }.joined(separator: "&")
        }
        values["notice"] = notice(request, visit)
        return page("users", visit, values)
    }

    /// The one account `text` names exactly, if any: an identity as `provider:subject`, else an id, objectId,
    /// email or username.
    private func exactUser(_ text: String) async throws -> UserRecord? {
        do {
            if !text.contains("@"), let colon = text.firstIndex(of: ":") {
                return try await engine.adminFindUser(provider: String(text[..<colon]), subject: String(text[text.index(after: colon)...]))
            }
            return try await engine.adminFindUser(text)
        } catch LatchkeyEngine.AdminError.userNotFound {
            return nil
        }
    }

    static func userRow(_ user: UserRecord, now: Date) -> [String: Any] {
        ["id": user.id, "email": user.email ?? "", "username": user.username ?? "", "status": user.status.rawValue,
         "created": ConsoleFormat.time(user.createdAt), "lastSignIn": ConsoleFormat.time(user.lastLoginAt),
         "locked": (user.lockedUntil ?? .distantPast) > now, "disabled": user.status == .disabled]
    }

    private func user(_ request: Request, _ visit: ConsoleVisit, key: String) async throws -> Response {
        let user = try await engine.adminFindUser(key)
        let now = engine.time.now()
        let (_, identities) = try await engine.adminIdentities(user.id)
        let (_, factors) = try await engine.adminSecondFactors(user.id)
        let sessions = try await engine.adminSessions(user.id)
        let browserSessions = try await engine.adminBrowserSessions(user.id)
        let consents = try await engine.adminConsents(user.id)
        let apiKeys = try await engine.adminApiKeys(user.id)
        let passkeys = try await engine.adminPasskeys(user.id)
        let events = try await engine.adminAuditEvents(AuditQuery(since: .distantPast, userId: user.id, newestFirst: true, limit: 20))
        let mails = try await engine.adminMail(to: user, limit: 10)
        let (_, roles) = try await engine.adminRoles(user.id)
        let isOperator = roles.contains { $0.role == UserRole.operatorRole }
        let locked = (user.lockedUntil ?? .distantPast) > now
        var values: [String: Any] = [
            "title": user.email ?? user.username ?? user.id, "section": "users", "user": Self.userRow(user, now: now),
            "objectId": user.objectId, "emailVerified": user.emailVerified, "hasPassword": user.passwordHash != nil,
            "lockedUntil": locked ? ConsoleFormat.time(user.lockedUntil) : "", "failures": user.failedLoginCount,
            "failuresCounted": counted(user.failedLoginCount, "failures", visit),
            "canUnlock": locked || user.failedLoginCount > 0, "canVerify": user.email != nil && !user.emailVerified,
            "canReset": user.email != nil && user.status == .active, "active": user.status == .active,
            "disabled": user.status == .disabled, "pending": user.status == .pending,
            "confirmation": user.email ?? user.id, "isOperator": isOperator, "canGrant": !isOperator && user.status == .active,
            "attributes": user.attributes.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": Self.text($0.value)] },
            "identities": identities.map { ["provider": $0.provider, "subject": $0.subject, "created": ConsoleFormat.time($0.createdAt),
                                             "lastUsed": ConsoleFormat.time($0.lastUsedAt)] },
            "factors": factors.map { ["kind": $0.kind.rawValue, "target": $0.target ?? "", "created": ConsoleFormat.time($0.createdAt),
                                      "recoveryLeft": $0.recoveryCodesLeft.map(String.init) ?? ""] },
            "hasFactors": !factors.isEmpty,
            "passkeys": passkeys.map { ["id": $0.id, "name": $0.name, "created": ConsoleFormat.time($0.createdAt),
                                        "lastUsed": ConsoleFormat.time($0.lastUsedAt), "synced": $0.backupEligible,
                                        "cloneFlagged": $0.cloneFlaggedAt.map(ConsoleFormat.time) ?? ""] },
            "hasPasskeys": !passkeys.isEmpty,
            "sessions": sessions.map { ["dialect": $0.kind.rawValue, "client": $0.audience, "started": ConsoleFormat.time($0.startedAt),
                                        "lastUsed": ConsoleFormat.time($0.lastUsedAt), "expires": ConsoleFormat.time($0.expiresAt),
                                        "device": $0.deviceId ?? ""] },
            "browserSessions": browserSessions.map { ["id": $0.id, "amr": $0.amr, "signedIn": ConsoleFormat.time($0.authTime),
                                                      "expires": ConsoleFormat.time($0.expiresAt), "ip": $0.ip ?? "",
                                                      "userAgent": $0.userAgent ?? ""] },
            "hasSessions": !sessions.isEmpty || !browserSessions.isEmpty, "hasAppSessions": !sessions.isEmpty,
            "hasBrowserSessions": !browserSessions.isEmpty, "hasIdentities": !identities.isEmpty, "hasApiKeys": !apiKeys.isEmpty,
            "hasEvents": !events.isEmpty,
            "consents": consents.map { ["client": $0.clientId, "scope": $0.scope, "granted": ConsoleFormat.time($0.grantedAt)] },
            "apiKeys": apiKeys.map { ["name": $0.name, "kind": $0.kind.rawValue, "app": $0.appId, "disabled": $0.disabled,
                                      "created": ConsoleFormat.time($0.createdAt)] },
            "events": events.map(Self.eventRow),
            "mails": mails.map { ["id": $0.id.map(String.init) ?? "", "kind": $0.kind, "status": $0.status.rawValue,
                                  "attempts": counted($0.attempts, "attempts", visit), "created": ConsoleFormat.time($0.createdAt), "error": $0.lastError ?? ""] },
        ]
        values["notice"] = notice(request, visit)
        return page("user", visit, values)
    }

    static func eventRow(_ event: AuditEvent) -> [String: Any] {
        ["id": event.id.map(String.init) ?? "", "at": ConsoleFormat.time(event.at), "kind": event.kind, "userId": event.userId ?? "",
         "email": event.email.map(EmailAddress.mask) ?? "", "ip": event.clientIp ?? "", "dialect": event.dialect ?? "",
         "actor": event.actor ?? "", "detail": event.detail ?? ""]
    }

    /// An attribute's value as the operator reads it: strings bare, the rest as JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        return String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
    }
}
