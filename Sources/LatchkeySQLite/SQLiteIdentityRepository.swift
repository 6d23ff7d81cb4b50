import Foundation
import GRDB
import LatchkeyCore

extension IdentityRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "identities"

    /// By column, not through Codable: an identity login reads one (Decodable was a tenth of that login's CPU).
    public init(row: Row) throws {
        self.init(provider: row["provider"], subject: row["subject"], userId: row["user_id"], createdAt: row["created_at"],
                  lastUsedAt: row["last_used_at"], verifiedEmail: row["verified_email"])
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["provider"] = provider; container["subject"] = subject; container["user_id"] = userId
        container["created_at"] = StoredDate.text(createdAt); container["last_used_at"] = StoredDate.text(lastUsedAt)
        container["verified_email"] = verifiedEmail
    }
}

// MARK: IdentityRepository
extension SQLiteRepositories {
    func identity(provider: String, subject: String) async throws -> IdentityRecord? {
        try await lookup { try $0.one(IdentityRecord.self, "SELECT * FROM identities WHERE provider = ? AND subject = ?", [provider, subject]) }
    }

    private static let selectIdentityWithUser =
        "SELECT i.*, \(UserColumns.joined.selected) FROM identities i JOIN users u ON u.id = i.user_id WHERE i.provider = ? AND i.subject = ?"

    func identityWithUser(provider: String, subject: String) async throws -> (identity: IdentityRecord, user: UserRecord)? {
        try await lookup { db in
            try db.oneWithUser(IdentityRecord.self, Self.selectIdentityWithUser, [provider, subject])
        }
    }

    func identities(userId: String) async throws -> [IdentityRecord] {
        try await read { try IdentityRecord.filter(Column("user_id") == userId).order(Column("created_at"), Column("provider")).fetchAll($0) }
    }

    func identities(userIds: [String]) async throws -> [IdentityRecord] {
        guard !userIds.isEmpty else { return [] }
        return try await read {
            try IdentityRecord.filter(userIds.contains(Column("user_id"))).order(Column("user_id"), Column("created_at"), Column("provider")).fetchAll($0)
        }
    }

    func link(_ identity: IdentityRecord) async throws {
        try await write { db in try Self.mappingIdentityConflicts { try identity.insert(db) } }
    }

    func link(contentsOf identities: [IdentityRecord]) async throws {
        guard !identities.isEmpty else { return }
        try await write { db in try Self.mappingIdentityConflicts { for identity in identities { try identity.insert(db) } } }
    }

    func unlink(provider: String, userId: String) async throws -> Bool {
        try await write { db in
            try IdentityRecord.filter(Column("user_id") == userId && Column("provider") == provider).deleteAll(db) > 0
        }
    }

    func touch(provider: String, subject: String, at: Date) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE identities SET last_used_at = ? WHERE provider = ? AND subject = ?")
                .execute(arguments: [StoredDate.text(at), provider, subject])
        }
    }

    /// SQLite names the columns of the unique rule a row broke: the (user, provider) rule, or the key.
    static func mappingIdentityConflicts(_ body: () throws -> Void) throws {
        do { try body() } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw (error.message ?? "").contains("user_id") ? StoreConflict.providerAlreadyLinked : StoreConflict.identityTaken
        }
    }
}
