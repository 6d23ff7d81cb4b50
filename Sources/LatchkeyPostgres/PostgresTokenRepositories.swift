import Foundation
import LatchkeyCore
import PostgresNIO

// MARK: LinkTokenRepository
extension PostgresRepositories {
    func replace(_ token: ActionTokenRecord) async throws {
        try await atomically { tx in
            try await tx.rows("DELETE FROM action_tokens WHERE user_id = \(token.userId) AND kind = \(token.kind.rawValue)")
            try await tx.rows("""
                INSERT INTO action_tokens (token_id, token_hash, kind, user_id, expires_at, used_at, created_at)
                VALUES (\(token.tokenId), \(token.tokenHash), \(token.kind.rawValue), \(token.userId), \(token.expiresAt),
                        \(token.usedAt), \(token.createdAt))
                """)
        }
    }

    func find(tokenId: String) async throws -> ActionTokenRecord? {
        try ActionTokenRecord.decodeFirst(try await rows("SELECT * FROM action_tokens WHERE token_id = \(tokenId)"))
    }

    func deleteAll(userId: String) async throws {
        try await rows("DELETE FROM action_tokens WHERE user_id = \(userId)")
    }

    func redeem(tokenId: String, kind: ActionTokenRecord.Kind, tokenHash: Data, now: Date) async throws -> String? {
        try await rows("""
            UPDATE action_tokens SET used_at = \(now)
            WHERE token_id = \(tokenId) AND kind = \(kind.rawValue) AND used_at IS NULL AND expires_at > \(now)
            AND token_hash = \(tokenHash) RETURNING user_id
            """).first?.columns.value("user_id")
    }
}

// MARK: SessionRepository
extension PostgresRepositories {
    func insert(_ session: SessionRecord) async throws {
        var q = PostgresQuery.StringInterpolation(literalCapacity: 512, interpolationCount: 15)
        try Self.appendInsert(session, to: &q)
        try await rows(PostgresQuery(stringInterpolation: q))
    }

    /// One statement: the session, then what the note records (`write(_:after:)`).
    func insert(_ session: SessionRecord, noting note: SessionNote) async throws {
        try await write(note) { try Self.appendInsert(session, to: &$0) }
    }

    /// The session's INSERT, alone or as the first step of a statement; `condition` (a WHERE clause) makes it a
    /// conditional one.
    static func appendInsert(_ session: SessionRecord, to q: inout PostgresQuery.StringInterpolation, condition: String? = nil) throws {
        q.appendLiteral("INSERT INTO sessions (id, family_id, user_id, kind, audience, scope, token_hash, created_at, expires_at, rotated_at, "
                        + "revoked_at, parent_id, device_id, ip, user_agent, resource) " + (condition == nil ? "VALUES (" : "SELECT "))
        q.appendInterpolation(session.id)
        for value in [session.familyId, session.userId, session.kind.rawValue, session.audience, session.scope] {
            q.appendLiteral(", ")
            q.appendInterpolation(value)
        }
        q.appendLiteral(", ")
        try q.appendInterpolation(session.tokenHash)
        for date in [session.createdAt, session.expiresAt, session.rotatedAt, session.revokedAt] {
            q.appendLiteral(", ")
            q.appendInterpolation(date)
        }
        for value in [session.parentId, session.deviceId, session.ip, session.userAgent, session.resource] {
            q.appendLiteral(", ")
            q.appendInterpolation(value)
        }
        q.appendLiteral(condition ?? ")")
    }

    /// One statement: what the note records (`write(_:after:)`).
    func record(_ note: SessionNote) async throws { try await write(note) }

    func insert(contentsOf sessions: [SessionRecord]) async throws {
        for session in sessions { try await insert(session) }
    }

    func existing(ids: [String], tokenHashes: [Data]) async throws -> (ids: Set<String>, tokenHashes: Set<Data>) {
        // bytea[] has no binding here: the hashes travel as hex text.
        let hexes = tokenHashes.map { [UInt8]($0).hex }
        let found = try await rows("""
            SELECT id, token_hash FROM sessions
            WHERE id = ANY(\(ids)) OR token_hash = ANY(ARRAY(SELECT decode(h, 'hex') FROM unnest(\(hexes)::text[]) AS h))
            """)
        var taken: (ids: Set<String>, tokenHashes: Set<Data>) = ([], [])
        for row in found {
            let (id, hash) = try row.decode((String, Data).self)
            taken.ids.insert(id)
            taken.tokenHashes.insert(hash)
        }
        return taken
    }

    func find(tokenHash: Data) async throws -> SessionRecord? {
        try SessionRecord.decodeFirst(try await rows("SELECT * FROM sessions WHERE token_hash = \(tokenHash)"))
    }

    func find(id: String) async throws -> SessionRecord? {
        try SessionRecord.decodeFirst(try await rows("SELECT * FROM sessions WHERE id = \(id)"))
    }

    func live(userId: String, kind: SessionRecord.Kind, audience: String, now: Date) async throws -> [SessionRecord] {
        try SessionRecord.decode(try await rows("""
            SELECT * FROM sessions WHERE user_id = \(userId) AND kind = \(kind.rawValue) AND audience = \(audience)
            AND revoked_at IS NULL AND expires_at > \(now) ORDER BY created_at, id
            """))
    }

    func live(userId: String, now: Date) async throws -> [SessionRecord] {
        try SessionRecord.decode(try await rows("""
            SELECT * FROM sessions WHERE user_id = \(userId) AND revoked_at IS NULL AND expires_at > \(now) ORDER BY created_at, id
            """))
    }

    func findWithUser(tokenHash: Data) async throws -> (session: SessionRecord, user: UserRecord)? {
        // One round trip: the session's columns, then its user's under a `u_` prefix.
        guard let row = try await rows("""
            SELECT s.*, \(unescaped: Self.prefixedUserColumns) FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = \(tokenHash)
            """).first?.makeRandomAccess() else { return nil }
        return (try SessionRecord(row: Columns(row: row)), try UserRecord(row: Columns(row: row, prefix: "u_")))
    }

    /// The user's columns under a `u_` prefix, for a read that joins a row to its account.
    static let prefixedUserColumns = ["id", "object_id", "email", "username", "username_key", "password_hash", "email_verified",
                                      "status", "attributes", "failed_login_count", "created_at", "updated_at", "last_login_at",
                                      "locked_until"].prefixed("u")

    /// One statement: the child row is inserted only from the parent row the update marked, so of two replicas
    /// presenting the same refresh token, the second (waiting on the row lock, then seeing it rotated) stores nothing.
    func rotate(id: String, at: Date, child: SessionRecord) async throws -> Bool {
        try await !rows("""
            WITH marked AS (
                UPDATE sessions SET rotated_at = \(at) WHERE id = \(id) AND rotated_at IS NULL AND revoked_at IS NULL RETURNING id)
            INSERT INTO sessions (id, family_id, user_id, kind, audience, scope, token_hash, created_at, expires_at, rotated_at,
                                  revoked_at, parent_id, device_id, ip, user_agent, resource)
            SELECT \(child.id), \(child.familyId), \(child.userId), \(child.kind.rawValue), \(child.audience), \(child.scope),
                   \(child.tokenHash), \(child.createdAt), \(child.expiresAt), \(child.rotatedAt), \(child.revokedAt),
                   \(child.parentId), \(child.deviceId), \(child.ip), \(child.userAgent), \(child.resource)
            FROM marked RETURNING id
            """).isEmpty
    }

    func revoke(familyId: String, at: Date) async throws {
        try await rows("UPDATE sessions SET revoked_at = \(at) WHERE family_id = \(familyId) AND revoked_at IS NULL")
    }

    func revoke(userId: String, at: Date) async throws {
        try await rows("UPDATE sessions SET revoked_at = \(at) WHERE user_id = \(userId) AND revoked_at IS NULL")
    }

    func revoke(audience: String, at: Date) async throws {
        try await rows("UPDATE sessions SET revoked_at = \(at) WHERE audience = \(audience) AND revoked_at IS NULL")
    }

    func revoke(userId: String, kind: SessionRecord.Kind, deviceId: String, at: Date) async throws {
        try await rows("""
            UPDATE sessions SET revoked_at = \(at)
            WHERE user_id = \(userId) AND kind = \(kind.rawValue) AND device_id = \(deviceId) AND revoked_at IS NULL
            """)
    }
}
