import Foundation
import GRDB
import LatchkeyCore

// MARK: LinkTokenRepository
extension SQLiteRepositories {
    func replace(_ token: ActionTokenRecord) async throws {
        try await write { db in
            try ActionTokenRecord.filter(Column("user_id") == token.userId && Column("kind") == token.kind.rawValue).deleteAll(db)
            try token.insert(db)
        }
    }

    func find(tokenId: String) async throws -> ActionTokenRecord? { try await read { try ActionTokenRecord.fetchOne($0, key: tokenId) } }

    func deleteAll(userId: String) async throws {
        try await write { db in _ = try ActionTokenRecord.filter(Column("user_id") == userId).deleteAll(db) }
    }

    func redeem(tokenId: String, kind: ActionTokenRecord.Kind, tokenHash: Data, now: Date) async throws -> String? {
        try await write { db in
            try String.fetchAll(db, sql: """
                UPDATE action_tokens SET used_at = ?
                WHERE token_id = ? AND kind = ? AND used_at IS NULL AND expires_at > ? AND token_hash = ? RETURNING user_id
                """, arguments: [now, tokenId, kind.rawValue, now, tokenHash]).first
        }
    }
}

// MARK: SessionRepository
extension SQLiteRepositories {
    func insert(_ session: SessionRecord) async throws { try await write { try session.insertRow($0) } }

    func insert(_ session: SessionRecord, noting note: SessionNote) async throws {
        try await write { db in
            try note.recordRows(db)
            try session.insertRow(db)
        }
    }

    func record(_ note: SessionNote) async throws { try await write { try note.recordRows($0) } }

    func insert(contentsOf sessions: [SessionRecord]) async throws {
        guard !sessions.isEmpty else { return }
        try await write { db in for session in sessions { try session.insertRow(db) } }
    }

    func existing(ids: [String], tokenHashes: [Data]) async throws -> (ids: Set<String>, tokenHashes: Set<Data>) {
        // Only non-empty lists, as in `matching`: a constant term would turn the index searches into a scan.
        let terms = (ids.isEmpty ? [] : [ids.contains(Column("id"))]) + (tokenHashes.isEmpty ? [] : [tokenHashes.contains(Column("token_hash"))])
        guard let first = terms.first else { return ([], []) }
        let filter = terms.dropFirst().reduce(first) { $0 || $1 }
        return try await read { db in
            let found = try Row.fetchAll(db, SessionRecord.select(Column("id"), Column("token_hash")).filter(filter))
            return (Set(found.map { $0["id"] as String }), Set(found.map { $0["token_hash"] as Data }))
        }
    }

    func find(tokenHash: Data) async throws -> SessionRecord? {
        try await lookup { try $0.one(SessionRecord.self, "SELECT * FROM sessions WHERE token_hash = ?", [tokenHash]) }
    }

    func find(id: String) async throws -> SessionRecord? { try await lookup { try $0.one(SessionRecord.self, "SELECT * FROM sessions WHERE id = ?", [id]) } }

    func live(userId: String, kind: SessionRecord.Kind, audience: String, now: Date) async throws -> [SessionRecord] {
        try await read {
            try SessionRecord.filter(Column("user_id") == userId && Column("kind") == kind.rawValue && Column("audience") == audience
                                     && Column("revoked_at") == nil && Column("expires_at") > now)
                .order(Column("created_at"), Column("id")).fetchAll($0)
        }
    }

    func live(userId: String, now: Date) async throws -> [SessionRecord] {
        try await read {
            try SessionRecord.filter(Column("user_id") == userId && Column("revoked_at") == nil && Column("expires_at") > now)
                .order(Column("created_at"), Column("id")).fetchAll($0)
        }
    }

    private static let selectSessionWithUser =
        "SELECT s.*, \(UserColumns.joined.selected) FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?"

    func findWithUser(tokenHash: Data) async throws -> (session: SessionRecord, user: UserRecord)? {
        // One statement (a refresh and every session check run it): the session's columns, then its account's.
        try await lookup { db in
            try db.oneWithUser(SessionRecord.self, Self.selectSessionWithUser, [tokenHash])
        }
    }

    func rotate(id: String, at: Date, child: SessionRecord) async throws -> Bool {
        // One trip to the writer: outside a transaction GRDB's write wraps both statements in one.
        try await write { db in
            guard try Self.markRotated(db, id: id, at: at) else { return false }
            try child.insertRow(db)
            return true
        }
    }

    private static func markRotated(_ db: Database, id: String, at: Date) throws -> Bool {
        try db.cachedStatement(sql: "UPDATE sessions SET rotated_at = ? WHERE id = ? AND rotated_at IS NULL AND revoked_at IS NULL")
            .execute(arguments: [StoredDate.text(at), id])
        return db.changesCount == 1
    }

    func revoke(familyId: String, at: Date) async throws { try await revokeLive("family_id", familyId, at: at) }
    func revoke(userId: String, at: Date) async throws { try await revokeLive("user_id", userId, at: at) }
    func revoke(audience: String, at: Date) async throws { try await revokeLive("audience", audience, at: at) }
    func revoke(userId: String, kind: SessionRecord.Kind, deviceId: String, at: Date) async throws {
        _ = try await write { db in
            try SessionRecord.filter(Column("user_id") == userId && Column("kind") == kind.rawValue && Column("device_id") == deviceId
                                     && Column("revoked_at") == nil).updateAll(db, Column("revoked_at").set(to: at))
        }
    }

    private func revokeLive(_ column: String, _ value: String, at: Date) async throws {
        _ = try await write { db in
            try SessionRecord.filter(Column(column) == value && Column("revoked_at") == nil).updateAll(db, Column("revoked_at").set(to: at))
        }
    }
}
