import Foundation
import GRDB
import LatchkeyCore

// MARK: OutboxRepository
extension SQLiteRepositories {
    func enqueue(_ mail: OutboxRecord) async throws {
        try await write { db in
            var record = mail
            try record.insert(db)
        }
    }

    func claimDue(dueBy: Date, limit: Int, leaseUntil: Date) async throws -> [OutboxRecord] {
        try await write { db in
            try OutboxRecord.fetchAll(db, sql: """
                UPDATE outbox SET next_attempt_at = ?
                WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?)
                RETURNING *
                """, arguments: [leaseUntil, dueBy, limit]).sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        }
    }

    func update(_ mail: OutboxRecord) async throws { try await write { try mail.update($0) } }

    func retryFailed(now: Date) async throws -> Int {
        try await write { db in
            try OutboxRecord.filter(Column("status") == OutboxRecord.Status.failed.rawValue && Column("sealed_body") != nil)
                .updateAll(db, Column("status").set(to: OutboxRecord.Status.pending.rawValue), Column("attempts").set(to: 0),
                           Column("next_attempt_at").set(to: now))
        }
    }

    func list(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord] {
        try await read { try OutboxRecord.filter(Column("status") == status.rawValue).order(Column("id").desc).limit(limit).fetchAll($0) }
    }
}

// MARK: AuditRepository
extension SQLiteRepositories {
    func append(_ event: AuditEvent) async throws {
        try await write { db in
            var record = event
            try record.insert(db)
        }
    }

    func events(since: Date, limit: Int) async throws -> [AuditEvent] {
        try await read { try AuditEvent.filter(Column("at") >= since).order(Column("id")).limit(limit).fetchAll($0) }
    }
}

// MARK: ServerValueRepository
extension SQLiteRepositories {
    func insertIfAbsent(name: String, value: Data) async throws -> Data {
        try await write { db in
            try db.execute(sql: "INSERT INTO server_values (name, value) VALUES (?, ?) ON CONFLICT(name) DO NOTHING", arguments: [name, value])
            return try Data.fetchOne(db, sql: "SELECT value FROM server_values WHERE name = ?", arguments: [name]) ?? value
        }
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try await read { try SigningKeyRecord.order(Column("created_at").desc).fetchAll($0) }
    }

    func insert(signingKey: SigningKeyRecord) async throws { try await write { try signingKey.insert($0) } }
}

// MARK: MaintenanceRepository
extension SQLiteRepositories {
    func purge(_ cutoffs: PurgeCutoffs) async throws -> Int {
        try await write { db in
            var removed = try OTPRecord.filter(Column("expires_at") < cutoffs.flowsExpiredBefore).deleteAll(db)
            removed += try FlowRecord.filter(Column("expires_at") < cutoffs.flowsExpiredBefore).deleteAll(db)
            removed += try SessionRecord.filter(Column("expires_at") < cutoffs.tokensExpiredBefore).deleteAll(db)
            removed += try ActionTokenRecord.filter(Column("expires_at") < cutoffs.tokensExpiredBefore).deleteAll(db)
            removed += try UserRecord.filter(Column("status") == UserRecord.Status.pending.rawValue
                && Column("updated_at") < cutoffs.pendingUsersUpdatedBefore).deleteAll(db)
            removed += try OutboxRecord.filter(Column("status") == OutboxRecord.Status.sent.rawValue
                && Column("sent_at") < cutoffs.sentMailBefore).deleteAll(db)
            removed += try AuditEvent.filter(Column("at") < cutoffs.auditBefore).deleteAll(db)
            try db.execute(sql: "DELETE FROM rate_buckets WHERE updated_at < ?", arguments: [cutoffs.rateBucketsIdleBefore.timeIntervalSince1970])
            return removed
        }
    }
}
