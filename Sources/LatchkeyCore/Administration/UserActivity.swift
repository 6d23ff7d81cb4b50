import Foundation

/// What a user's page in the console shows besides the account: live sessions by dialect and client, the mails
/// sent to them, their recent audit events.
extension OperatorService {
    /// One signed-in app: a refresh-token family (native), an App Services or Parse session, with its last use.
    public struct SessionSummary: Sendable, Equatable {
        public var familyId: String
        public var kind: SessionRecord.Kind
        /// The native client id, or the App Services or Parse app id.
        public var audience: String
        public var startedAt: Date
        /// When the family last minted a token (a refresh), or the session began.
        public var lastUsedAt: Date
        public var expiresAt: Date
        public var deviceId: String?
    }

    /// The user's live sessions, one per family, most recently used first.
    public func adminSessions(_ key: String) async throws -> [SessionSummary] {
        let user = try await adminFindUser(key)
        var families: [String: SessionSummary] = [:]
        for session in try await reader.sessions.live(userId: user.id, now: time.now()) {
            let used = max(session.createdAt, session.rotatedAt ?? session.createdAt)
            if var summary = families[session.familyId] {
                summary.startedAt = min(summary.startedAt, session.createdAt)
                summary.lastUsedAt = max(summary.lastUsedAt, used)
                summary.expiresAt = max(summary.expiresAt, session.expiresAt)
                families[session.familyId] = summary
            } else {
                families[session.familyId] = SessionSummary(familyId: session.familyId, kind: session.kind, audience: session.audience,
                                                            startedAt: session.createdAt, lastUsedAt: used, expiresAt: session.expiresAt,
                                                            deviceId: session.deviceId)
            }
        }
        return families.values.sorted { ($0.lastUsedAt, $0.familyId) > ($1.lastUsedAt, $1.familyId) }
    }

    /// The newest mails to the user's address (the outbox keeps sent mail `sentMailRetentionDays`).
    public func adminMail(to user: UserRecord, limit: Int) async throws -> [OutboxRecord] {
        guard let email = user.email else { return [] }
        return try await reader.outbox.list(recipient: email, limit: min(max(limit, 1), 100))
    }

    /// Mail with one status, newest first.
    public func adminMail(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord] {
        try await OperatorViews(store: store).mail(status: status, limit: limit)
    }

    public func adminMail(id: Int64) async throws -> OutboxRecord? { try await reader.outbox.find(id: id) }

    /// Queues one failed mail again; false when it is not failed (or its body is gone).
    public func adminRetryMail(id: Int64, caller: CallerInfo) async throws -> Bool {
        try await transaction { tx in
            guard try await tx.outbox.retry(id: id, now: self.time.now()) else { return false }
            try await self.audit(tx, "admin.mail_retried", caller: caller, detail: "mail \(id)")
            return true
        }
    }
}
