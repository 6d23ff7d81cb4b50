import Foundation
import LatchkeyCore
import PostgresNIO

extension IdentityRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(provider: try row.value("provider"), subject: try row.value("subject"), userId: try row.value("user_id"),
                  createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"),
                  verifiedEmail: try row.value("verified_email"))
    }
}

// MARK: IdentityRepository
extension PostgresRepositories {
    func identity(provider: String, subject: String) async throws -> IdentityRecord? {
        try IdentityRecord.decodeFirst(try await rows("SELECT * FROM identities WHERE provider = \(provider) AND subject = \(subject)"))
    }

    func identityWithUser(provider: String, subject: String) async throws -> (identity: IdentityRecord, user: UserRecord)? {
        // One round trip: the identity's columns, then its user's under a `u_` prefix.
        guard let row = try await rows("""
            SELECT i.*, \(unescaped: PostgresRepositories.prefixedUserColumns) FROM identities i JOIN users u ON u.id = i.user_id
            WHERE i.provider = \(provider) AND i.subject = \(subject)
            """).first?.makeRandomAccess() else { return nil }
        return (try IdentityRecord(row: Columns(row: row)), try UserRecord(row: Columns(row: row, prefix: "u_")))
    }

    func identities(userId: String) async throws -> [IdentityRecord] {
        try IdentityRecord.decode(try await rows("SELECT * FROM identities WHERE user_id = \(userId) ORDER BY created_at, provider"))
    }

    func identities(userIds: [String]) async throws -> [IdentityRecord] {
        guard !userIds.isEmpty else { return [] }
        return try IdentityRecord.decode(try await rows(
            "SELECT * FROM identities WHERE user_id = ANY(\(userIds)) ORDER BY user_id, created_at, provider"))
    }

    func link(_ identity: IdentityRecord) async throws {
        try await link(contentsOf: [identity])
    }

    func link(contentsOf identities: [IdentityRecord]) async throws {
        guard !identities.isEmpty else { return }
        do {
            try await rows("""
                INSERT INTO identities (provider, subject, user_id, created_at, last_used_at, verified_email)
                SELECT p, s, u, c, l, NULLIF(v, '')
                FROM unnest(\(identities.map(\.provider))::text[], \(identities.map(\.subject))::text[],
                            \(identities.map(\.userId))::text[], \(identities.map(\.createdAt))::timestamptz[],
                            \(identities.map(\.lastUsedAt))::timestamptz[],
                            \(identities.map { $0.verifiedEmail ?? "" })::text[]) AS t(p, s, u, c, l, v)
                """)
        } catch let error as PSQLError where error.sqlState == "23505" {
            throw error.constraint == "identities_user_provider" ? StoreConflict.providerAlreadyLinked : StoreConflict.identityTaken
        }
    }

    func unlink(provider: String, userId: String) async throws -> Bool {
        !(try await rows("DELETE FROM identities WHERE user_id = \(userId) AND provider = \(provider) RETURNING 1")).isEmpty
    }

    func touch(provider: String, subject: String, at: Date) async throws {
        try await rows("UPDATE identities SET last_used_at = \(at) WHERE provider = \(provider) AND subject = \(subject)")
    }
}
