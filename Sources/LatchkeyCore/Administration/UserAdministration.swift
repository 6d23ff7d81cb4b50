import Foundation

/// What an operator may do to accounts, from the admin API or the CLI. Every change is one transaction and is
/// audited under an `admin.` kind.
extension OperatorService {
    public struct UserPage: Sendable {
        public var users: [UserRecord]
        /// Pass back to get the next page; nil on the last one.
        public var next: UserCursor?
    }


    /// Users in creation order, optionally those whose email or username starts with `prefix`.
    public func adminListUsers(prefix: String?, after: UserCursor?, limit: Int) async throws -> UserPage {
        let limit = min(max(limit, 1), 500)
        let trimmed = prefix?.trimmingCharacters(in: .whitespaces)
        let users = try await reader.users.list(UserQuery(prefix: trimmed?.isEmpty == false ? trimmed : nil, after: after, limit: limit + 1))
        let page = Array(users.prefix(limit))
        return UserPage(users: page, next: users.count > limit ? page.last.map { UserCursor(createdAt: $0.createdAt, id: $0.id) } : nil)
    }

    /// One user by id, objectId, email or username: whatever the operator has at hand.
    public func adminFindUser(_ key: String) async throws -> UserRecord { try await engine.adminFindUser(key) }

    /// A disabled user cannot sign in in any dialect; their sessions and refresh tokens are revoked with it.
    public func adminSetDisabled(_ key: String, disabled: Bool, caller: CallerInfo) async throws -> UserRecord {
        let found = try await adminFindUser(key)
        let now = time.now()
        return try await transaction { tx in
            guard var user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            guard user.status != .pending else { throw AdminError.userPending }
            guard user.status != (disabled ? .disabled : .active) else { return user }
            user.status = disabled ? .disabled : .active
            user.updatedAt = now
            try await tx.users.update(user)
            if disabled {
                // A disabled account keeps no way back in: no session, and no mailed link that could verify or reset it.
                try await self.engine.tokens.revokeEverySession(userId: user.id, at: now, in: tx)
                try await tx.linkTokens.deleteAll(userId: user.id)
            }
            try await self.audit(tx, disabled ? "admin.user_disabled" : "admin.user_enabled", caller: caller, userId: user.id, email: user.email)
            return user
        }
    }

    /// Deletes the account; its sessions, tokens and flows go with it (the store cascades).
    public func adminDeleteUser(_ key: String, caller: CallerInfo) async throws {
        let found = try await adminFindUser(key)
        try await transaction { tx in
            try await tx.users.delete(id: found.id)
            try await self.audit(tx, "admin.user_deleted", caller: caller, userId: found.id, email: found.email)
        }
    }

    /// Signs the user out everywhere: every session and refresh token, in every dialect.
    public func adminRevokeSessions(_ key: String, caller: CallerInfo) async throws {
        let user = try await adminFindUser(key)
        try await transaction { tx in
            try await self.engine.tokens.revokeEverySession(userId: user.id, at: self.time.now(), in: tx)
            try await self.audit(tx, "admin.sessions_revoked", caller: caller, userId: user.id, email: user.email)
        }
    }

    public func adminVerifyEmail(_ key: String, caller: CallerInfo) async throws -> UserRecord {
        let found = try await adminFindUser(key)
        let now = time.now()
        return try await transaction { tx in
            guard var user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            guard !user.emailVerified else { return user }
            try await self.engine.accounts.proveAddress(&user, through: .assured("operator"), caller: caller, in: tx)
            user.updatedAt = now
            try await tx.users.update(user)
            try await self.audit(tx, "admin.email_verified", caller: caller, userId: user.id, email: user.email)
            return user
        }
    }

    /// Queues every failed mail again; the worker sends it.
    public func adminRetryFailedMail(caller: CallerInfo) async throws -> Int {
        try await transaction { tx in
            let count = try await tx.outbox.retryFailed(now: self.time.now())
            try await self.audit(tx, "admin.mail_retried", caller: caller, detail: "\(count) mail(s)")
            return count
        }
    }

    public func adminFailedMail(limit: Int) async throws -> [OutboxRecord] { try await adminMail(status: .failed, limit: limit) }

    public func adminAuditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await OperatorViews(store: store).auditEvents(query)
    }
}
