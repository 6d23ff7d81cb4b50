import Foundation
import GRDB
import LatchkeyCore

extension PasskeyRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "passkeys"

    /// Read by column, not through Decodable: a passkey sign-in reads one, and the Codable path was most of that read.
    public init(row: Row) throws {
        self.init(id: row["id"], userId: row["user_id"], credentialId: row["credential_id"], userHandle: row["user_handle"],
                  publicKey: row["public_key"], algorithm: row["algorithm"], signCount: row["sign_count"], name: row["name"],
                  aaguid: row["aaguid"], backupEligible: row["backup_eligible"], backedUp: row["backed_up"], createdAt: row["created_at"],
                  lastUsedAt: row["last_used_at"], cloneFlaggedAt: row["clone_flagged_at"])
    }
}

extension PasskeyChallengeRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "passkey_challenges"

    public init(row: Row) throws {
        self.init(challengeHash: row["challenge_hash"], purpose: try Self.column(row, "purpose", Purpose.init(rawValue:)), userId: row["user_id"],
                  visitHash: row["visit_hash"], expiresAt: row["expires_at"])
    }
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
        try await lookup { try $0.one(PasskeyRecord.self, "SELECT * FROM passkeys WHERE credential_id = ?", [credentialId]) }
    }

    func passkeyWithUser(credentialId: Data) async throws -> (passkey: PasskeyRecord, user: UserRecord)? {
        try await lookup { try Self.passkeyWithUser($0, credentialId: credentialId) }
    }

    private static let selectPasskeyWithUser =
        "SELECT p.*, \(UserColumns.joined.selected) FROM passkeys p JOIN users u ON u.id = p.user_id WHERE p.credential_id = ?"

    private static func passkeyWithUser(_ db: Database, credentialId: Data) throws -> (passkey: PasskeyRecord, user: UserRecord)? {
        try db.oneWithUser(PasskeyRecord.self, selectPasskeyWithUser, [credentialId])
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

    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date, noting note: SessionNote, takingChallenge challenge: Data) async throws -> Bool {
        try await write { db in
            let now = StoredDate.text(at)
            try db.cachedStatement(sql: "DELETE FROM passkey_challenges WHERE challenge_hash = ? AND expires_at > ?").execute(arguments: [challenge, now])
            guard db.changesCount > 0 else { return false }
            try db.cachedStatement(sql: "UPDATE passkeys SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE id = ?")
                .execute(arguments: [signCount, backedUp, now, id])
            try note.recordRows(db)
            return true
        }
    }

    func flagClone(id: String, at: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkeys SET clone_flagged_at = ? WHERE id = ? AND clone_flagged_at IS NULL",
                           arguments: [StoredDate.text(at), id])
            return db.changesCount > 0
        }
    }

    func clearCloneFlag(id: String, userId: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE passkeys SET clone_flagged_at = NULL WHERE id = ? AND user_id = ? AND clone_flagged_at IS NOT NULL",
                           arguments: [id, userId])
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

    /// Two statements on one reader: its checkout, not the statements, was half of each read.
    func challengeAndPasskey(hash: Data, now: Date, credentialId: Data) async throws
        -> (challenge: PasskeyChallengeRecord?, passkey: (passkey: PasskeyRecord, user: UserRecord)?) {
        try await lookup { db in
            (try db.one(PasskeyChallengeRecord.self, "SELECT * FROM passkey_challenges WHERE challenge_hash = ? AND expires_at > ?",
                        [hash, StoredDate.text(now)]),
             try Self.passkeyWithUser(db, credentialId: credentialId))
        }
    }

    func takeChallenge(hash: Data, now: Date) async throws -> PasskeyChallengeRecord? {
        try await write { db in
            try PasskeyChallengeRecord.fetchOne(db, sql: "DELETE FROM passkey_challenges WHERE challenge_hash = ? AND expires_at > ? RETURNING *",
                                                arguments: [hash, StoredDate.text(now)])
        }
    }
}
