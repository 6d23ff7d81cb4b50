import Foundation

/// What the operator reads without changing anything: the audit log and the outbox. Separate from
/// `LatchkeyEngine` because starting an engine writes (it makes the server key and the first signing key when
/// absent), and `latchkey audit` and `latchkey mail status` open the database read-only.
public struct OperatorViews: Sendable {
    private let store: any Store

    public init(store: any Store) { self.store = store }

    /// Audit events from `query.since`, oldest first, at most 1,000.
    public func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        var query = query
        query.limit = min(max(query.limit, 1), 1000)
        return try await store.direct.audit.events(query)
    }

    /// Mail with `status`, newest first, at most 500.
    public func mail(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord] {
        try await store.direct.outbox.list(status: status, limit: min(max(limit, 1), 500))
    }
}
