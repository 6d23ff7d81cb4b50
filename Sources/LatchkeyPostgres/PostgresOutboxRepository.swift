import Foundation
import LatchkeyCore
import PostgresNIO

// MARK: OutboxRepository
extension PostgresRepositories {
    func enqueue(_ mail: OutboxRecord) async throws {
        try await rows("""
            INSERT INTO outbox (recipient, subject, kind, sealed_body, status, attempts, created_at, next_attempt_at, sent_at, last_error)
            VALUES (\(mail.recipient), \(mail.subject), \(mail.kind), \(mail.sealedBody), \(mail.status.rawValue), \(mail.attempts),
                    \(mail.createdAt), \(mail.nextAttemptAt), \(mail.sentAt), \(mail.lastError))
            """)
    }

    /// SKIP LOCKED: replicas draining at once each take rows no other claim holds, so no mail has two senders.
    func claimDue(dueBy: Date, limit: Int, leaseUntil: Date) async throws -> [OutboxRecord] {
        try OutboxRecord.decode(try await rows("""
            UPDATE outbox SET claimed_until = \(leaseUntil)
            WHERE id IN (SELECT id FROM outbox WHERE status = 'pending' AND next_attempt_at <= \(dueBy)
                         AND (claimed_until IS NULL OR claimed_until <= \(dueBy))
                         ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING *
            """)).sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    func renewClaims(ids: [Int64], until: Date) async throws {
        guard !ids.isEmpty else { return }
        try await rows("UPDATE outbox SET claimed_until = \(until) WHERE id = ANY(\(ids)) AND status = 'pending'")
    }

    func releaseClaims() async throws -> Int {
        try await rows("UPDATE outbox SET claimed_until = NULL WHERE claimed_until IS NOT NULL RETURNING id").count
    }

    func update(_ mail: OutboxRecord) async throws {
        guard let id = mail.id else { return }
        try await rows("""
            UPDATE outbox SET recipient = \(mail.recipient), subject = \(mail.subject), kind = \(mail.kind),
                sealed_body = \(mail.sealedBody), status = \(mail.status.rawValue), attempts = \(mail.attempts),
                created_at = \(mail.createdAt), next_attempt_at = \(mail.nextAttemptAt), sent_at = \(mail.sentAt),
                last_error = \(mail.lastError), claimed_until = \(mail.claimedUntil)
            WHERE id = \(id)
            """)
    }

    func retryFailed(now: Date) async throws -> Int {
        try await rows("""
            UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = \(now)
            WHERE status = 'failed' AND sealed_body IS NOT NULL RETURNING id
            """).count
    }

    func list(status: OutboxRecord.Status, limit: Int) async throws -> [OutboxRecord] {
        try OutboxRecord.decode(try await rows("SELECT * FROM outbox WHERE status = \(status.rawValue) ORDER BY id DESC LIMIT \(limit)"))
    }

    func count(status: OutboxRecord.Status) async throws -> Int {
        try await rows("SELECT count(*) AS n FROM outbox WHERE status = \(status.rawValue)").first?.columns.value("n") ?? 0
    }

    func list(recipient: String, limit: Int) async throws -> [OutboxRecord] {
        try OutboxRecord.decode(try await rows("SELECT * FROM outbox WHERE recipient = \(recipient) ORDER BY id DESC LIMIT \(limit)"))
    }

    func find(id: Int64) async throws -> OutboxRecord? {
        try OutboxRecord.decode(try await rows("SELECT * FROM outbox WHERE id = \(id)")).first
    }

    func retry(id: Int64, now: Date) async throws -> Bool {
        try await rows("""
            UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = \(now)
            WHERE id = \(id) AND status = 'failed' AND sealed_body IS NOT NULL RETURNING id
            """).count == 1
    }
}

// MARK: AuditRepository
extension PostgresRepositories {
    func append(_ event: AuditEvent) async throws {
        // One statement: the event and its hour's count, so the count is never without its event.
        try await rows("""
            WITH event AS (
                INSERT INTO audit_events (at, kind, user_id, email, client_ip, user_agent, detail, dialect, actor)
                VALUES (\(event.at), \(event.kind), \(event.userId), \(event.email), \(event.clientIp), \(event.userAgent), \(event.detail),
                        \(event.dialect), \(event.actor)))
            INSERT INTO audit_counts (hour, kind, dialect, count) VALUES (\(event.hour), \(event.kind), \(event.dialect ?? ""), 1)
            ON CONFLICT (hour, kind, dialect) DO UPDATE SET count = audit_counts.count + 1
            """)
    }

    func events(_ query: AuditQuery) async throws -> [AuditEvent] {
        try AuditEvent.decode(try await rows("""
            SELECT * FROM audit_events WHERE at >= \(query.since) AND (\(query.until)::timestamptz IS NULL OR at < \(query.until))
            AND (\(query.kind)::text IS NULL OR kind = \(query.kind))
            AND (\(query.userId)::text IS NULL OR user_id = \(query.userId))
            AND (\(query.clientIp)::text IS NULL OR client_ip = \(query.clientIp))
            AND (\(query.afterId)::bigint IS NULL OR id > \(query.afterId)) AND (\(query.beforeId)::bigint IS NULL OR id < \(query.beforeId))
            ORDER BY id \(unescaped: query.newestFirst ? "DESC" : "ASC") LIMIT \(query.limit)
            """))
    }

    func tally(_ query: AuditTallyQuery) async throws -> [AuditTally] {
        guard !query.kinds.isEmpty else { return [] }
        return try await rows("""
            SELECT kind, dialect, (hour - \(query.firstHour)) / \(query.hoursPerBucket) AS bucket, sum(count)::bigint AS n
            FROM audit_counts WHERE kind = ANY(\(query.kinds)) AND hour >= \(query.firstHour) AND hour < \(query.endHour)
            GROUP BY kind, dialect, bucket
            """).map { row in
            let columns = row.columns
            let dialect: String = try columns.value("dialect")
            return AuditTally(kind: try columns.value("kind"), dialect: dialect.isEmpty ? nil : dialect,
                              bucket: Int(try columns.value("bucket") as Int64), count: Int(try columns.value("n") as Int64))
        }
    }
}

// MARK: ServerValueRepository
extension PostgresRepositories {
    /// Two statements on purpose: the insert waits for a racing replica's uncommitted insert of the same name, and
    /// the read that follows (a new snapshot under READ COMMITTED) then sees the winner's value.
    func insertIfAbsent(name: String, value: Data) async throws -> Data {
        try await rows("INSERT INTO server_values (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING")
        return try await rows("SELECT value FROM server_values WHERE name = \(name)").first?.columns.value("value") ?? value
    }

    func value(name: String) async throws -> Data? {
        try await rows("SELECT value FROM server_values WHERE name = \(name)").first?.columns.value("value")
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try SigningKeyRecord.decode(try await rows("SELECT * FROM signing_keys ORDER BY created_at DESC"))
    }

    func insert(signingKey: SigningKeyRecord) async throws {
        try await rows("""
            INSERT INTO signing_keys (kid, algorithm, private_key_pem, created_at)
            VALUES (\(signingKey.kid), \(signingKey.algorithm), \(signingKey.privateKeyPem), \(signingKey.createdAt))
            """)
    }

    func deleteSigningKey(kid: String) async throws -> Bool {
        try await rows("DELETE FROM signing_keys WHERE kid = \(kid) RETURNING kid").first != nil
    }
}

// MARK: MaintenanceRepository
extension PostgresRepositories {
    func wipe(keepAccounts: Bool) async throws {
        // One statement: TRUNCATE takes the tables together (and is instant at any size).
        let tables = WipedTables.tables(keepAccounts: keepAccounts).joined(separator: ", ")
        try await rows(PostgresQuery(unsafeSQL: "TRUNCATE \(tables)"))
    }

    func purge(_ cutoffs: PurgeCutoffs, limit: Int) async throws -> Int {
        // Counted in the database: only the number of rows comes back. ctid picks the rows found through the
        // cutoff's index without naming each table's key. `condition` compares with $1, the bound cutoff.
        @Sendable func delete(_ tx: PostgresRepositories, _ table: String, _ condition: String, _ cutoff: some PostgresEncodable & Sendable)
            async throws -> Int {
            var binds = PostgresBindings()
            try binds.append(cutoff)
            let rows = try await tx.rows(PostgresQuery(unsafeSQL: """
                WITH d AS (DELETE FROM \(table) WHERE ctid = ANY(ARRAY(SELECT ctid FROM \(table) WHERE \(condition) LIMIT \(limit)))
                RETURNING 1) SELECT count(*) AS n FROM d
                """, binds: binds))
            return try rows.first?.columns.value("n", as: Int.self) ?? 0
        }
        return try await atomically { tx in
            var removed = try await delete(tx, "otp_codes", "expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "flows", "expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "passkey_challenges", "expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "sessions", "expires_at < $1", cutoffs.tokensExpiredBefore)
            removed += try await delete(tx, "action_tokens", "expires_at < $1", cutoffs.tokensExpiredBefore)
            // A browser session takes its codes with it (kept until then: sign-out revokes what they gave).
            removed += try await delete(tx, "browser_sessions", "expires_at < $1", cutoffs.tokensExpiredBefore)
            removed += try await delete(tx, "authorization_codes", "browser_session_id IS NULL AND expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "device_authorizations", "expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "client_assertions", "expires_at < $1", cutoffs.flowsExpiredBefore)
            removed += try await delete(tx, "users", "status = 'pending' AND updated_at < $1", cutoffs.pendingUsersUpdatedBefore)
            // Idle anonymous accounts go with everything of theirs (the foreign keys cascade).
            removed += try await delete(tx, "users", """
                email IS NULL AND password_hash IS NULL
                AND id IN (SELECT user_id FROM identities WHERE provider = 'anonymous' AND last_used_at < $1)
                AND NOT EXISTS (SELECT 1 FROM identities other WHERE other.user_id = users.id AND other.provider <> 'anonymous')
                """, cutoffs.anonymousUsersIdleBefore)
            if let unused = cutoffs.unusedClientsCreatedBefore {
                removed += try await delete(tx, "clients", "created_at < $1 AND " + PurgeCutoffs.unusedClientCondition, unused)
            }
            removed += try await delete(tx, "outbox", "status = 'sent' AND sent_at < $1", cutoffs.sentMailBefore)
            removed += try await delete(tx, "audit_events", "at < $1", cutoffs.auditBefore)
            _ = try await delete(tx, "audit_counts", "hour < $1", AuditEvent(id: nil, at: cutoffs.auditBefore, kind: "").hour)
            // Idle buckets are bookkeeping, not data: dropped, not counted.
            _ = try await delete(tx, "rate_buckets", "updated_at < $1", cutoffs.rateBucketsIdleBefore.timeIntervalSince1970)
            return removed
        }
    }
}

// MARK: RateBucketRepository
extension PostgresRepositories {
    /// One upsert: a new key starts full less this token; an existing one refills for the time passed, then gives a
    /// token if it has one. The row lock queues parallel takes, and the SET expressions read the row as the previous
    /// take left it. (The numbers are written into the text: they come from configuration, never from a request.)
    func take(key: String, rule: RateRule, now: Date) async throws -> RateLimiter.Verdict {
        let at = now.timeIntervalSince1970
        let refilled = "LEAST(\(Double(rule.capacity)), rate_buckets.tokens + GREATEST(0, \(at) - rate_buckets.updated_at) * \(rule.refillPerSecond))"
        let quiet = "(rate_buckets.audited_at IS NULL OR \(at) - rate_buckets.audited_at > \(RateRule.auditQuietSeconds))"
        guard let row = try await rows("""
            INSERT INTO rate_buckets (key, tokens, verdict, updated_at) VALUES (\(key), \(Double(rule.capacity - 1)), 0, \(at))
            ON CONFLICT (key) DO UPDATE SET
                tokens = CASE WHEN \(unescaped: refilled) >= 1 THEN \(unescaped: refilled) - 1 ELSE \(unescaped: refilled) END,
                verdict = CASE WHEN \(unescaped: refilled) >= 1 THEN 0 WHEN \(unescaped: quiet) THEN 2 ELSE 1 END,
                audited_at = CASE WHEN \(unescaped: refilled) < 1 AND \(unescaped: quiet) THEN \(at) ELSE rate_buckets.audited_at END,
                updated_at = \(at)
            RETURNING tokens, verdict
            """).first?.columns else { return .allowed }
        let verdict = try row.value("verdict", as: Int.self)
        return verdict == 0 ? .allowed : rule.denial(tokens: try row.value("tokens"), firstInWindow: verdict == 2)
    }
}
