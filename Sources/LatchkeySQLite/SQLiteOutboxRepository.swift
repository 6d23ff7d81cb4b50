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
                UPDATE outbox SET claimed_until = ?
                WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
                             AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY id LIMIT ?)
                RETURNING *
                """, arguments: [leaseUntil, dueBy, dueBy, limit]).sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        }
    }

    func renewClaims(ids: [Int64], until: Date) async throws {
        guard !ids.isEmpty else { return }
        _ = try await write { db in
            try OutboxRecord.filter(ids.contains(Column("id")) && Column("status") == OutboxRecord.Status.pending.rawValue)
                .updateAll(db, Column("claimed_until").set(to: until))
        }
    }

    func releaseClaims() async throws -> Int {
        try await write { db in try OutboxRecord.filter(Column("claimed_until") != nil).updateAll(db, Column("claimed_until").set(to: nil)) }
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

    func count(status: OutboxRecord.Status) async throws -> Int {
        try await read { try OutboxRecord.filter(Column("status") == status.rawValue).fetchCount($0) }
    }

    func list(recipient: String, limit: Int) async throws -> [OutboxRecord] {
        try await read { try OutboxRecord.filter(Column("recipient") == recipient).order(Column("id").desc).limit(limit).fetchAll($0) }
    }

    func find(id: Int64) async throws -> OutboxRecord? { try await read { try OutboxRecord.fetchOne($0, key: id) } }

    func retry(id: Int64, now: Date) async throws -> Bool {
        try await write { db in
            try OutboxRecord.filter(Column("id") == id && Column("status") == OutboxRecord.Status.failed.rawValue && Column("sealed_body") != nil)
                .updateAll(db, Column("status").set(to: OutboxRecord.Status.pending.rawValue), Column("attempts").set(to: 0),
                           Column("next_attempt_at").set(to: now)) > 0
        }
    }
}

// MARK: AuditRepository
extension SQLiteRepositories {
    func append(_ event: AuditEvent) async throws {
        try await write { db in try event.insertRow(db) }
    }

    func events(_ query: AuditQuery) async throws -> [AuditEvent] {
        var request = AuditEvent.filter(Column("at") >= query.since)
        if let until = query.until { request = request.filter(Column("at") < until) }
        if let kind = query.kind { request = request.filter(Column("kind") == kind) }
        if let userId = query.userId { request = request.filter(Column("user_id") == userId) }
        if let clientIp = query.clientIp { request = request.filter(Column("client_ip") == clientIp) }
        if let afterId = query.afterId { request = request.filter(Column("id") > afterId) }
        if let beforeId = query.beforeId { request = request.filter(Column("id") < beforeId) }
        let order = query.newestFirst ? Column("id").desc : Column("id").asc
        return try await read { [request] in try request.order(order).limit(query.limit).fetchAll($0) }
    }

    func tally(_ query: AuditTallyQuery) async throws -> [AuditTally] {
        guard !query.kinds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: query.kinds.count).joined(separator: ", ")
        var arguments: StatementArguments = [query.firstHour, query.hoursPerBucket]
        arguments += StatementArguments(query.kinds)
        arguments += [query.firstHour, query.endHour]
        return try await read { [arguments] db in
            try Row.fetchAll(db, sql: """
                SELECT kind, dialect, (hour - ?) / ? AS bucket, sum(count) AS n
                FROM audit_counts WHERE kind IN (\(marks)) AND hour >= ? AND hour < ?
                GROUP BY kind, dialect, bucket
                """, arguments: arguments)
            .map { AuditTally(kind: $0["kind"], dialect: ($0["dialect"] as String).isEmpty ? nil : $0["dialect"], bucket: $0["bucket"],
                              count: $0["n"]) }
        }
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

    func value(name: String) async throws -> Data? {
        try await read { try Data.fetchOne($0, sql: "SELECT value FROM server_values WHERE name = ?", arguments: [name]) }
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try await read { try SigningKeyRecord.order(Column("created_at").desc).fetchAll($0) }
    }

    func insert(signingKey: SigningKeyRecord) async throws { try await write { try signingKey.insert($0) } }

    func deleteSigningKey(kid: String) async throws -> Bool {
        try await write { db in try SigningKeyRecord.filter(Column("kid") == kid).deleteAll(db) > 0 }
    }
}

// MARK: MaintenanceRepository
extension SQLiteRepositories {
    func purge(_ cutoffs: PurgeCutoffs, limit: Int) async throws -> Int {
        try await write { db in
            // Each table through its own index on the cutoff column, at most `limit` rows of it.
            func delete(_ table: String, _ condition: String, _ arguments: StatementArguments, key: String = "rowid") throws -> Int {
                try db.execute(sql: "DELETE FROM \(table) WHERE \(key) IN (SELECT \(key) FROM \(table) WHERE \(condition) LIMIT ?)",
                               arguments: arguments + [limit])
                return db.changesCount
            }
            var removed = try delete("otp_codes", "expires_at < ?", [cutoffs.flowsExpiredBefore])
            removed += try delete("flows", "expires_at < ?", [cutoffs.flowsExpiredBefore])
            removed += try delete("passkey_challenges", "expires_at < ?", [cutoffs.flowsExpiredBefore])
            removed += try delete("sessions", "expires_at < ?", [cutoffs.tokensExpiredBefore])
            removed += try delete("action_tokens", "expires_at < ?", [cutoffs.tokensExpiredBefore])
            // A browser session takes its codes with it (kept until then: sign-out revokes what they gave).
            removed += try delete("browser_sessions", "expires_at < ?", [cutoffs.tokensExpiredBefore])
            removed += try delete("authorization_codes", "browser_session_id IS NULL AND expires_at < ?", [cutoffs.flowsExpiredBefore])
            removed += try delete("device_authorizations", "expires_at < ?", [cutoffs.flowsExpiredBefore])
            removed += try delete("client_assertions", "expires_at < ?", [StoredDate.text(cutoffs.flowsExpiredBefore)], key: "id_hash")
            removed += try delete("users", "status = 'pending' AND updated_at < ?", [cutoffs.pendingUsersUpdatedBefore])
            // Idle anonymous accounts go with everything of theirs (the foreign keys cascade).
            removed += try delete("users", """
                email IS NULL AND password_hash IS NULL
                AND id IN (SELECT user_id FROM identities WHERE provider = 'anonymous' AND last_used_at < ?)
                AND NOT EXISTS (SELECT 1 FROM identities other WHERE other.user_id = users.id AND other.provider <> 'anonymous')
                """, [StoredDate.text(cutoffs.anonymousUsersIdleBefore)])
            if let unused = cutoffs.unusedClientsCreatedBefore {
                removed += try delete("clients", "created_at < ? AND " + PurgeCutoffs.unusedClientCondition, [unused], key: "id")
            }
            removed += try delete("outbox", "status = 'sent' AND sent_at < ?", [cutoffs.sentMailBefore])
            removed += try delete("audit_events", "at < ?", [cutoffs.auditBefore])
            _ = try delete("audit_counts", "hour < ?", [AuditEvent(id: nil, at: cutoffs.auditBefore, kind: "").hour], key: "hour")
            // Idle buckets are bookkeeping, not data: dropped, not counted.
            _ = try delete("rate_buckets", "updated_at < ?", [cutoffs.rateBucketsIdleBefore.timeIntervalSince1970], key: "key")
            return removed
        }
    }

    func wipe(keepAccounts: Bool) async throws {
        try await write { db in
            for table in WipedTables.tables(keepAccounts: keepAccounts) { try db.execute(sql: "DELETE FROM \(table)") }
        }
    }
}
