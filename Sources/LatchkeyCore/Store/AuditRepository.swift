import Foundation

/// The audit trail, in the order events were appended.
public protocol AuditRepository: Sendable {
    func append(_ event: AuditEvent) async throws
    /// The events a query matches, oldest first.
    func events(_ query: AuditQuery) async throws -> [AuditEvent]
}

/// Audit events at or after `since`, optionally of one kind or about one user, after the event `afterId`.
public struct AuditQuery: Sendable, Equatable {
    public var since: Date
    public var kind: String?
    public var userId: String?
    public var afterId: Int64?
    public var limit: Int
    public init(since: Date, kind: String? = nil, userId: String? = nil, afterId: Int64? = nil, limit: Int) {
        self.since = since; self.kind = kind; self.userId = userId; self.afterId = afterId; self.limit = limit
    }
}

extension AuditRepository {
    public func events(since: Date, limit: Int) async throws -> [AuditEvent] { try await events(AuditQuery(since: since, limit: limit)) }
}
