import Foundation
import LatchkeyCore
import PostgresNIO

extension PasskeyRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), userId: try row.value("user_id"), credentialId: try row.value("credential_id"), userHandle: try row.value("user_handle"),
                  publicKey: try row.value("public_key"), algorithm: try row.value("algorithm"), signCount: try row.value("sign_count"),
                  name: try row.value("name"), aaguid: try row.value("aaguid"), backupEligible: try row.value("backup_eligible"),
                  backedUp: try row.value("backed_up"), createdAt: try row.value("created_at"), lastUsedAt: try row.value("last_used_at"),
                  cloneFlaggedAt: try row.value("clone_flagged_at"))
    }
}

extension PasskeyChallengeRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(challengeHash: try row.value("challenge_hash"), purpose: try row.value("purpose"), userId: try row.value("user_id"),
                  visitHash: try row.value("visit_hash"), expiresAt: try row.value("expires_at"))
    }
}

// MARK: PasskeyRepository
extension PostgresRepositories {
    func insert(_ passkey: PasskeyRecord) async throws {
        do {
            try await rows("""
                INSERT INTO passkeys (id, user_id, credential_id, user_handle, public_key, algorithm, sign_count, name, aaguid, backup_eligible, backed_up,
                                      created_at, last_used_at, clone_flagged_at)
                VALUES (\(passkey.id), \(passkey.userId), \(passkey.credentialId), \(passkey.userHandle), \(passkey.publicKey), \(passkey.algorithm), \(passkey.signCount),
                        \(passkey.name), \(passkey.aaguid), \(passkey.backupEligible), \(passkey.backedUp), \(passkey.createdAt),
                        \(passkey.lastUsedAt), \(passkey.cloneFlaggedAt))
                """)
        } catch let error as PSQLError where error.sqlState == "23505" {
            throw StoreConflict.credentialTaken
        }
    }

    func passkey(credentialId: Data) async throws -> PasskeyRecord? {
        try PasskeyRecord.decodeFirst(try await rows("SELECT * FROM passkeys WHERE credential_id = \(credentialId)"))
    }

    func passkeyWithUser(credentialId: Data) async throws -> (passkey: PasskeyRecord, user: UserRecord)? {
        // One round trip: the passkey's columns, then its user's under a `u_` prefix.
        guard let row = try await rows("""
            SELECT p.*, \(unescaped: Self.prefixedUserColumns) FROM passkeys p JOIN users u ON u.id = p.user_id
            WHERE p.credential_id = \(credentialId)
            """).first?.makeRandomAccess() else { return nil }
        return (try PasskeyRecord(row: Columns(row: row)), try UserRecord(row: Columns(row: row, prefix: "u_")))
    }

    func passkeys(userId: String) async throws -> [PasskeyRecord] {
        try PasskeyRecord.decode(try await rows("SELECT * FROM passkeys WHERE user_id = \(userId) ORDER BY created_at, id"))
    }

    func passkeys(userIds: [String]) async throws -> [PasskeyRecord] {
        try PasskeyRecord.decode(try await rows("SELECT * FROM passkeys WHERE user_id = ANY(\(userIds)) ORDER BY created_at, id"))
    }

    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date) async throws -> Bool {
        !(try await rows("UPDATE passkeys SET sign_count = \(signCount), backed_up = \(backedUp), last_used_at = \(at) WHERE id = \(id) RETURNING 1")).isEmpty
    }

    /// One statement: the challenge taken guards the use and what the note records (`write(_:guardedBy:after:)`).
    func recordUse(id: String, signCount: Int64, backedUp: Bool, at: Date, noting note: SessionNote, takingChallenge challenge: Data) async throws -> Bool {
        try await write(note, guardedBy: { q in
            q.appendLiteral("DELETE FROM passkey_challenges WHERE challenge_hash = "); try q.appendInterpolation(challenge)
            q.appendLiteral(" AND expires_at > "); q.appendInterpolation(at)
        }, after: { q in
            q.appendLiteral("UPDATE passkeys SET sign_count = "); q.appendInterpolation(signCount)
            q.appendLiteral(", backed_up = "); q.appendInterpolation(backedUp)
            q.appendLiteral(", last_used_at = "); q.appendInterpolation(at)
            q.appendLiteral(" WHERE id = "); q.appendInterpolation(id)
            q.appendLiteral(" AND EXISTS (SELECT 1 FROM guarded)")
        })
    }

    func flagClone(id: String, at: Date) async throws -> Bool {
        !(try await rows("UPDATE passkeys SET clone_flagged_at = \(at) WHERE id = \(id) AND clone_flagged_at IS NULL RETURNING 1")).isEmpty
    }

    func clearCloneFlag(id: String, userId: String) async throws -> Bool {
        !(try await rows("UPDATE passkeys SET clone_flagged_at = NULL WHERE id = \(id) AND user_id = \(userId) AND clone_flagged_at IS NOT NULL RETURNING 1")).isEmpty
    }

    func renamePasskey(id: String, userId: String, name: String) async throws -> Bool {
        !(try await rows("UPDATE passkeys SET name = \(name) WHERE id = \(id) AND user_id = \(userId) RETURNING 1")).isEmpty
    }

    func deletePasskey(id: String, userId: String) async throws -> Bool {
        !(try await rows("DELETE FROM passkeys WHERE id = \(id) AND user_id = \(userId) RETURNING 1")).isEmpty
    }

    func saveChallenge(_ challenge: PasskeyChallengeRecord) async throws {
        try await rows("""
            INSERT INTO passkey_challenges (challenge_hash, purpose, user_id, visit_hash, expires_at)
            VALUES (\(challenge.challengeHash), \(challenge.purpose.rawValue), \(challenge.userId), \(challenge.visitHash), \(challenge.expiresAt))
            """)
    }

    /// One round trip: a row always, the challenge's columns under `c_`, the passkey's under `p_` and its account's
    /// under `u_`, each null when not found.
    func challengeAndPasskey(hash: Data, now: Date, credentialId: Data) async throws
        -> (challenge: PasskeyChallengeRecord?, passkey: (passkey: PasskeyRecord, user: UserRecord)?) {
        guard let row = try await rows("""
            SELECT \(unescaped: Self.prefixedChallengeColumns), \(unescaped: Self.prefixedPasskeyColumns), \(unescaped: Self.prefixedUserColumns)
            FROM (SELECT 1) one
            LEFT JOIN passkey_challenges c ON c.challenge_hash = \(hash) AND c.expires_at > \(now)
            LEFT JOIN (passkeys p JOIN users u ON u.id = p.user_id) ON p.credential_id = \(credentialId)
            """).first?.makeRandomAccess() else { return (nil, nil) }
        let challenge = try row["c_challenge_hash"].decode(Data?.self) == nil ? nil : try PasskeyChallengeRecord(row: Columns(row: row, prefix: "c_"))
        let passkey = try row["p_id"].decode(String?.self) == nil
            ? nil : (try PasskeyRecord(row: Columns(row: row, prefix: "p_")), try UserRecord(row: Columns(row: row, prefix: "u_")))
        return (challenge, passkey)
    }

    static let prefixedChallengeColumns = ["challenge_hash", "purpose", "user_id", "visit_hash", "expires_at"].prefixed("c")
    static let prefixedPasskeyColumns = ["id", "user_id", "credential_id", "user_handle", "public_key", "algorithm", "sign_count", "name", "aaguid",
                                         "backup_eligible", "backed_up", "created_at", "last_used_at", "clone_flagged_at"].prefixed("p")

    func takeChallenge(hash: Data, now: Date) async throws -> PasskeyChallengeRecord? {
        try PasskeyChallengeRecord.decodeFirst(try await rows(
            "DELETE FROM passkey_challenges WHERE challenge_hash = \(hash) AND expires_at > \(now) RETURNING *"))
    }
}
