import Foundation
import LatchkeyCore
import PostgresNIO

// MARK: UserRepository
extension PostgresRepositories {
    func find(id: String) async throws -> UserRecord? {
        try UserRecord.decodeFirst(try await rows("SELECT * FROM users WHERE id = \(id)"))
    }

    func find(email: String) async throws -> UserRecord? {
        try UserRecord.decodeFirst(try await rows("SELECT * FROM users WHERE email = \(email)"))
    }

    func find(username: String) async throws -> UserRecord? {
        try UserRecord.decodeFirst(try await rows("SELECT * FROM users WHERE username_key = \(UserRecord.usernameKey(username))"))
    }

    func find(objectId: String) async throws -> UserRecord? {
        try UserRecord.decodeFirst(try await rows("SELECT * FROM users WHERE object_id = \(objectId)"))
    }

    func list(_ query: UserQuery) async throws -> [UserRecord] {
        let (username, email) = Self.filters(query)
        let pattern = query.prefixPattern, exact = query.exactPrefixPattern, afterAt = query.after?.createdAt, afterId = query.after?.id
        return try UserRecord.decode(try await rows("""
            SELECT * FROM users WHERE (\(username)::text IS NULL OR username_key = \(username))
            AND (\(email)::text IS NULL OR email = \(email))
            AND (\(pattern)::text IS NULL OR lower(email) LIKE \(pattern) OR username_key LIKE \(pattern)
                 OR lower(id) LIKE \(pattern) OR object_id LIKE \(exact))
            AND (\(afterAt)::timestamptz IS NULL OR created_at > \(afterAt) OR (created_at = \(afterAt) AND id > \(afterId)))
            ORDER BY created_at, id LIMIT \(query.limit) OFFSET \(query.skip)
            """))
    }

    func count(_ query: UserQuery) async throws -> Int {
        let (username, email) = Self.filters(query)
        let pattern = query.prefixPattern, exact = query.exactPrefixPattern
        return try await rows("""
            SELECT count(*) AS n FROM users WHERE (\(username)::text IS NULL OR username_key = \(username))
            AND (\(email)::text IS NULL OR email = \(email))
            AND (\(pattern)::text IS NULL OR lower(email) LIKE \(pattern) OR username_key LIKE \(pattern)
                 OR lower(id) LIKE \(pattern) OR object_id LIKE \(exact))
            """).first?.columns.value("n") ?? 0
    }

    private static func filters(_ query: UserQuery) -> (username: String?, email: String?) {
        (query.username.map(UserRecord.usernameKey), query.email)
    }

    func insert(_ user: UserRecord) async throws {
        try await mappingConflicts {
            try await rows("""
                INSERT INTO users (id, object_id, email, username, username_key, password_hash, email_verified, status, attributes,
                                   failed_login_count, created_at, updated_at, last_login_at, locked_until)
                VALUES (\(user.id), \(user.objectId), \(user.email), \(user.username), \(user.usernameKey), \(user.passwordHash),
                        \(user.emailVerified), \(user.status.rawValue), \(JSONB(user.attributes)), \(user.failedLoginCount),
                        \(user.createdAt), \(user.updatedAt), \(user.lastLoginAt), \(user.lockedUntil))
                """)
        }
    }

    func matching(_ keys: UserKeys) async throws -> [UserRecord] {
        try UserRecord.decode(try await rows("""
            SELECT * FROM users WHERE id = ANY(\(keys.ids)) OR object_id = ANY(\(keys.objectIds)) OR email = ANY(\(keys.emails))
            OR username_key = ANY(\(keys.usernameKeys))
            """))
    }

    /// One statement per user on the transaction's connection, so a conflict is mapped as `insert` maps it.
    func insert(contentsOf users: [UserRecord]) async throws {
        for user in users { try await insert(user) }
    }

    func update(_ user: UserRecord) async throws {
        try await mappingConflicts {
            try await rows("""
                UPDATE users SET object_id = \(user.objectId), email = \(user.email), username = \(user.username),
                    username_key = \(user.usernameKey), password_hash = \(user.passwordHash), email_verified = \(user.emailVerified),
                    status = \(user.status.rawValue), attributes = \(JSONB(user.attributes)), failed_login_count = \(user.failedLoginCount),
                    created_at = \(user.createdAt), updated_at = \(user.updatedAt), last_login_at = \(user.lastLoginAt),
                    locked_until = \(user.lockedUntil)
                WHERE id = \(user.id)
                """)
        }
    }

    func delete(id: String) async throws { try await rows("DELETE FROM users WHERE id = \(id)") }

    func takePasswordAttempt(userId: String, now: Date) async throws -> PasswordAttempt? {
        // One statement: count the attempt if the account is not locked, and read the lock otherwise.
        guard let row = try await rows("""
            WITH counted AS (
                UPDATE users SET failed_login_count = failed_login_count + 1, updated_at = \(now)
                WHERE id = \(userId) AND (locked_until IS NULL OR locked_until <= \(now)) RETURNING failed_login_count)
            SELECT (SELECT failed_login_count FROM counted) AS failures, locked_until FROM users WHERE id = \(userId)
            """).first?.columns else { return nil }
        if let failures = try row.value("failures", as: Int?.self) { return .counted(failures: failures) }
        return .locked(until: try row.value("locked_until", as: Date?.self) ?? now)
    }

    func roles(userId: String) async throws -> [UserRole] {
        try UserRole.decode(try await rows("SELECT * FROM user_roles WHERE user_id = \(userId) ORDER BY granted_at, role"))
    }

    func grant(_ role: UserRole) async throws -> Bool {
        try await rows("""
            INSERT INTO user_roles (user_id, role, granted_at) VALUES (\(role.userId), \(role.role), \(role.grantedAt))
            ON CONFLICT DO NOTHING RETURNING role
            """).count == 1
    }

    func revoke(role: String, userId: String) async throws -> Bool {
        try await rows("DELETE FROM user_roles WHERE user_id = \(userId) AND role = \(role) RETURNING role").count == 1
    }

    func lock(userId: String, until: Date) async throws {
        try await rows("UPDATE users SET locked_until = \(until) WHERE id = \(userId)")
    }

    func clearPasswordAttempts(userId: String) async throws {
        try await rows("UPDATE users SET failed_login_count = 0, locked_until = NULL WHERE id = \(userId)")
    }

    /// A unique violation names its constraint: `users_username_key_key` for the username, else the address.
    private func mappingConflicts(_ body: () async throws -> Void) async throws {
        do { try await body() } catch let error as PSQLError where error.sqlState == "23505" {
            throw (error.constraint ?? "").contains("username") ? StoreConflict.usernameTaken : StoreConflict.emailTaken
        }
    }
}
