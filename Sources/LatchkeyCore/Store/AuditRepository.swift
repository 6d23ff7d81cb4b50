import Foundation

/// The audit trail, in the order events were appended.
public protocol AuditRepository: Sendable {
    func append(_ event: AuditEvent) async throws
    /// Events at or after `since`, oldest first.
    func events(since: Date, limit: Int) async throws -> [AuditEvent]
}
