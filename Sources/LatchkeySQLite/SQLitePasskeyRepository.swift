import Foundation
import GRDB
import LatchkeyCore

extension PasskeyRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "passkeys"
}

extension PasskeyChallengeRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "passkey_challenges"
}

// MARK: PasskeyRepository
extension SQLiteRepositories {
    func insert(_ passkey: PasskeyRecord) async throws {
        try await write { db in
            do { try passkey.insert(db) } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw StoreConflict.credentialTaken
            }
        }
    }

    func passkey(credentialId: Data) async throws -> PasskeyRecord? {
        try await lookup { try PasskeyRecord.filter(Column("credential_id") == credentialId).fetchOne($0) }
    }

    func passkeys(userId: String) async throws -> [PasskeyRecord] {
        try await read { try PasskeyRecord.filter(Column("user_id") == userId).order(Column("created_at"), Column("id")).fetchAll($0) }
    }

    func passkeys(userIds: [String]) async throws -> [PasskeyRecord] {
        try await read { try PasskeyRecord.filter(userIds.contains(Column("user_id"))).order(Column("created_at"), Column("id")).fetchAll($0) }
    }

    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkeys SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE id = ?",
                           arguments: [signCount, backedUp, StoredDate.text(at), id])
            return db.changesCount > 0
        }
    }

    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date, noting note: SessionNote) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE passkeys SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE id = ?")
                .execute(arguments: [signCount, backedUp, StoredDate.text(at), id])
            try note.recordRows(db)
        }
    }

    func flagClone(id: String, at: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkeys SET clone_flagged_at = ? WHERE id = ? AND clone_flagged_at IS NULL",
                           arguments: [StoredDate.text(at), id])
            return db.changesCount > 0
        }
    }

    func renamePasskey(id: String, userId: String, name: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?", arguments: [name, id, userId])
            return db.changesCount > 0
        }
    }

    func deletePasskey(id: String, userId: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM passkeys WHERE id = ? AND user_id = ?", arguments: [id, userId])
            return db.changesCount > 0
        }
    }

    func saveChallenge(_ challenge: PasskeyChallengeRecord) async throws { try await write { try challenge.insert($0) } }

    func takeChallenge(hash: Data, now: Date) async throws -> PasskeyChallengeRecord? {
        try await write { db in
            try PasskeyChallengeRecord.fetchOne(db, sql: "DELETE FROM passkey_challenges WHERE challenge_hash = ? AND expires_at > ? RETURNING *",
                                                arguments: [hash, StoredDate.text(now)])
        }
    }
}
