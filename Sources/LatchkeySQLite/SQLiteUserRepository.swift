import Foundation
import GRDB
import LatchkeyCore

// MARK: UserRepository
extension SQLiteRepositories {
    func find(id: String) async throws -> UserRecord? { try await lookup { try $0.one(UserRecord.self, "SELECT * FROM users WHERE id = ?", [id]) } }

    func find(email: String) async throws -> UserRecord? {
        try await lookup { try $0.one(UserRecord.self, "SELECT * FROM users WHERE email = ?", [email]) }
    }

    func find(username: String) async throws -> UserRecord? {
        let key = UserRecord.usernameKey(username)
        return try await lookup { try $0.one(UserRecord.self, "SELECT * FROM users WHERE username_key = ?", [key]) }
    }

    func find(objectId: String) async throws -> UserRecord? {
        try await lookup { try $0.one(UserRecord.self, "SELECT * FROM users WHERE object_id = ?", [objectId]) }
    }

    func list(_ query: UserQuery) async throws -> [UserRecord] {
        try await read { try Self.filtered(query).order(Column("created_at"), Column("id")).limit(query.limit, offset: query.skip).fetchAll($0) }
    }

    func count(_ query: UserQuery) async throws -> Int { try await read { try Self.filtered(query).fetchCount($0) } }

    private static func filtered(_ query: UserQuery) -> QueryInterfaceRequest<UserRecord> {
        var request = UserRecord.all()
        if let username = query.username { request = request.filter(Column("username_key") == UserRecord.usernameKey(username)) }
        if let email = query.email { request = request.filter(Column("email") == email) }
        if let prefix = query.prefix {
            // Ranges, not LIKE: each is a search of the column's index, and SQLite unions the four. Emails, username
            // keys and ids are stored lower-case; objectIds match as given.
            let folded = UserQuery.prefixRange(UserRecord.usernameKey(prefix)), exact = UserQuery.prefixRange(prefix)
            request = request.filter(sql: """
                ((email >= ? AND email < ?) OR (username_key >= ? AND username_key < ?) OR (id >= ? AND id < ?)
                 OR (object_id >= ? AND object_id < ?))
                """, arguments: [folded.from, folded.to, folded.from, folded.to, folded.from, folded.to, exact.from, exact.to])
        }
        if let after = query.after {
            request = request.filter(sql: "(created_at > ? OR (created_at = ? AND id > ?))", arguments: [after.createdAt, after.createdAt, after.id])
        }
        return request
    }

    func insert(_ user: UserRecord) async throws {
        try await write { db in try Self.mappingConflicts { try user.insert(db) } }
    }

    func matching(_ keys: UserKeys) async throws -> [UserRecord] {
        // Only the lists that have entries: an empty IN becomes a constant false, and an OR with a constant term is
        // a full scan instead of one index search per column.
        let terms = [("id", keys.ids), ("object_id", keys.objectIds), ("email", keys.emails), ("username_key", keys.usernameKeys)]
            .filter { !$0.1.isEmpty }.map { column, values in values.contains(Column(column)) }
        guard let first = terms.first else { return [] }
        let filter = terms.dropFirst().reduce(first) { $0 || $1 }
        return try await read { db in try UserRecord.filter(filter).fetchAll(db) }
    }

    func insert(contentsOf users: [UserRecord]) async throws {
        guard !users.isEmpty else { return }
        try await write { db in try Self.mappingConflicts { for user in users { try user.insert(db) } } }
    }

    func update(_ user: UserRecord) async throws {
        try await write { db in try Self.mappingConflicts { try user.update(db) } }
    }

    func delete(id: String) async throws { _ = try await write { try UserRecord.deleteOne($0, key: id) } }

    func takePasswordAttempt(userId: String, now: Date) async throws -> PasswordAttempt? {
        try await write { db -> PasswordAttempt? in
            if let failures = try Int.fetchAll(db, sql: """
                UPDATE users SET failed_login_count = failed_login_count + 1, updated_at = ?
                WHERE id = ? AND (locked_until IS NULL OR locked_until <= ?) RETURNING failed_login_count
                """, arguments: [now, userId, now]).first {
                return .counted(failures: failures)
            }
            guard let row = try Row.fetchOne(db, sql: "SELECT locked_until FROM users WHERE id = ?", arguments: [userId]) else { return nil }
            return .locked(until: row["locked_until"] ?? now)
        }
    }

    func roles(userId: String) async throws -> [UserRole] {
        try await read { try UserRole.filter(Column("user_id") == userId).order(Column("granted_at"), Column("role")).fetchAll($0) }
    }

    func grant(_ role: UserRole) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "INSERT INTO user_roles (user_id, role, granted_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           arguments: [role.userId, role.role, role.grantedAt])
            return db.changesCount == 1
        }
    }

    func revoke(role: String, userId: String) async throws -> Bool {
        try await write { db in try UserRole.filter(Column("user_id") == userId && Column("role") == role).deleteAll(db) > 0 }
    }

    func lock(userId: String, until: Date) async throws {
        try await write { try $0.execute(sql: "UPDATE users SET locked_until = ? WHERE id = ?", arguments: [until, userId]) }
    }

    func clearPasswordAttempts(userId: String) async throws {
        try await write {
            try $0.execute(sql: "UPDATE users SET failed_login_count = 0, locked_until = NULL WHERE id = ?", arguments: [userId])
        }
    }

    /// The unique indexes name the column that clashed.
    static func mappingConflicts(_ body: () throws -> Void) throws {
        do { try body() } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            throw (error.message ?? "").contains("username") ? StoreConflict.usernameTaken : StoreConflict.emailTaken
        }
    }
}
