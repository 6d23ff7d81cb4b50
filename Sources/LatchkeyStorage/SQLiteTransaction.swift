import Foundation
import GRDB
import LatchkeyCore

/// The Store operations inside one GRDB read or write transaction.
struct SQLiteTransaction: StoreWriting {
    let db: Database

    // MARK: Reading

    func user(email: String) throws -> UserRecord? {
        try UserRecord.filter(Column("email") == email).fetchOne(db)
    }

    func user(id: String) throws -> UserRecord? { try UserRecord.fetchOne(db, key: id) }

    func flow(tokenHash: Data) throws -> FlowRecord? {
        try FlowRecord.filter(Column("token_hash") == tokenHash).fetchOne(db)
    }

    func otp(flowId: String) throws -> OTPRecord? { try OTPRecord.fetchOne(db, key: flowId) }

    func refreshToken(tokenHash: Data) throws -> RefreshTokenRecord? {
        try RefreshTokenRecord.filter(Column("token_hash") == tokenHash).fetchOne(db)
    }

    func actionToken(tokenId: String) throws -> ActionTokenRecord? { try ActionTokenRecord.fetchOne(db, key: tokenId) }

    func serverValue(name: String) throws -> Data? {
        try Data.fetchOne(db, sql: "SELECT value FROM server_values WHERE name = ?", arguments: [name])
    }

    func signingKeys() throws -> [SigningKeyRecord] {
        try SigningKeyRecord.order(Column("created_at").desc).fetchAll(db)
    }

    func pendingMail(dueBy: Date, limit: Int) throws -> [OutboxRecord] {
        try OutboxRecord.filter(Column("status") == OutboxRecord.Status.pending.rawValue && Column("next_attempt_at") <= dueBy)
            .order(Column("id")).limit(limit).fetchAll(db)
    }

    func mail(status: OutboxRecord.Status, limit: Int) throws -> [OutboxRecord] {
        try OutboxRecord.filter(Column("status") == status.rawValue).order(Column("id").desc).limit(limit).fetchAll(db)
    }

    func auditEvents(since: Date, limit: Int) throws -> [AuditEvent] {
        try AuditEvent.filter(Column("at") >= since).order(Column("id")).limit(limit).fetchAll(db)
    }

    // MARK: Writing

    func insert(user: UserRecord) throws {
        do {
            try user.insert(db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw LatchkeyError.userAlreadyExists
        }
    }

    func update(user: UserRecord) throws { try user.update(db) }
    func save(flow: FlowRecord) throws { try flow.save(db) }
    func deleteFlow(id: String) throws { _ = try FlowRecord.deleteOne(db, key: id) }
    func save(otp: OTPRecord) throws { try otp.save(db) }
    func deleteOTP(flowId: String) throws { _ = try OTPRecord.deleteOne(db, key: flowId) }
    func insert(refreshToken: RefreshTokenRecord) throws { try refreshToken.insert(db) }

    func replace(actionToken: ActionTokenRecord) throws {
        try ActionTokenRecord.filter(Column("user_id") == actionToken.userId && Column("kind") == actionToken.kind.rawValue).deleteAll(db)
        try actionToken.insert(db)
    }

    func update(actionToken: ActionTokenRecord) throws { try actionToken.update(db) }
    func deleteUser(id: String) throws { _ = try UserRecord.deleteOne(db, key: id) }
    func update(refreshToken: RefreshTokenRecord) throws { try refreshToken.update(db) }

    func revokeRefreshTokens(familyId: String, at: Date) throws {
        try RefreshTokenRecord.filter(Column("family_id") == familyId && Column("revoked_at") == nil)
            .updateAll(db, Column("revoked_at").set(to: at))
    }

    func revokeRefreshTokens(userId: String, at: Date) throws {
        try RefreshTokenRecord.filter(Column("user_id") == userId && Column("revoked_at") == nil)
            .updateAll(db, Column("revoked_at").set(to: at))
    }

    func revokeRefreshTokens(parentId: String, at: Date) throws {
        try RefreshTokenRecord.filter(Column("parent_id") == parentId && Column("revoked_at") == nil)
            .updateAll(db, Column("revoked_at").set(to: at))
    }

    func claimPendingMail(dueBy: Date, limit: Int, leaseUntil: Date) throws -> [OutboxRecord] {
        let due = try pendingMail(dueBy: dueBy, limit: limit)
        guard !due.isEmpty else { return [] }
        try OutboxRecord.filter(keys: due.compactMap(\.id)).updateAll(db, Column("next_attempt_at").set(to: leaseUntil))
        return due
    }

    func enqueue(mail: OutboxRecord) throws {
        var record = mail
        try record.insert(db)
    }

    func update(mail: OutboxRecord) throws { try mail.update(db) }

    func retryFailedMail(now: Date) throws -> Int {
        try OutboxRecord.filter(Column("status") == OutboxRecord.Status.failed.rawValue && Column("sealed_body") != nil)
            .updateAll(db, Column("status").set(to: OutboxRecord.Status.pending.rawValue), Column("attempts").set(to: 0),
                       Column("next_attempt_at").set(to: now))
    }

    func append(audit: AuditEvent) throws {
        var event = audit
        try event.insert(db)
    }

    func setServerValue(name: String, value: Data) throws {
        try db.execute(sql: "INSERT INTO server_values (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                       arguments: [name, value])
    }

    func insert(signingKey: SigningKeyRecord) throws { try signingKey.insert(db) }

    func purge(_ cutoffs: PurgeCutoffs) throws -> Int {
        var removed = try OTPRecord.filter(Column("expires_at") < cutoffs.flowsExpiredBefore).deleteAll(db)
        removed += try FlowRecord.filter(Column("expires_at") < cutoffs.flowsExpiredBefore).deleteAll(db)
        removed += try RefreshTokenRecord.filter(Column("expires_at") < cutoffs.tokensExpiredBefore).deleteAll(db)
        removed += try ActionTokenRecord.filter(Column("expires_at") < cutoffs.tokensExpiredBefore).deleteAll(db)
        removed += try UserRecord.filter(Column("status") == UserRecord.Status.pending.rawValue
            && Column("updated_at") < cutoffs.pendingUsersUpdatedBefore).deleteAll(db)
        removed += try OutboxRecord.filter(Column("status") == OutboxRecord.Status.sent.rawValue
            && Column("sent_at") < cutoffs.sentMailBefore).deleteAll(db)
        removed += try AuditEvent.filter(Column("at") < cutoffs.auditBefore).deleteAll(db)
        return removed
    }
}
