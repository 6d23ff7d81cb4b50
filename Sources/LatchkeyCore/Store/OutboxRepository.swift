import Foundation

/// The mail outbox: written in the transaction that caused a mail, drained by the delivery worker.
public protocol OutboxRepository: Sendable {
    func enqueue(_ mail: OutboxRecord) async throws
    /// Takes up to `limit` due pending mails that no live claim holds and claims them until `leaseUntil` in the same
    /// write, so each row has one claimant (however many workers ask at once) and a failure to record the outcome
    /// cannot resend it in a tight loop.
    func claimDue(dueBy: Date, limit: Int, leaseUntil: Date) async throws -> [OutboxRecord]
    /// Extends the claims on `ids` that are still pending to `until`, while their sender is still sending.
    func renewClaims(ids: [Int64], until: Date) async throws
    /// Drops every claim; returns how many. Only for a store no other process sends from (a restarted SQLite server:
    /// the claims are its own dead process's).
    func releaseClaims() async throws -> Int
    func update(_ mail: OutboxRecord) async throws
    /// Puts failed mails back in the queue (attempts reset); returns how many.
    func retryFailed(now: Date) async throws -> Int
    /// The newest rows with `status`, newest first.
    func list(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord]
    func count(status: OutboxRecord.Status) async throws -> Int
    /// The newest mails to one address, newest first.
    func list(recipient: String, limit: Int) async throws -> [OutboxRecord]
    func find(id: Int64) async throws -> OutboxRecord?
    /// Puts one failed mail back in the queue; false when it is not a failed mail that can be sent again.
    func retry(id: Int64, now: Date) async throws -> Bool
}
