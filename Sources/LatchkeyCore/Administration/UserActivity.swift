import Foundation

/// What a user's page in the console shows besides the account: live sessions by dialect and client, the mails
/// sent to them, their recent audit events.
extension OperatorService {
    /// The user's live sessions, one per family, most recently used first.
    public func adminSessions(_ key: String) async throws -> [SessionSummary] {
        try await engine.tokens.sessionSummaries(userId: try await adminFindUser(key).id)
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
