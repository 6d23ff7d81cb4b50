import Foundation
import GRDB
import LatchkeyCore

extension BrowserSessionRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "browser_sessions"

    /// One row by a statement prepared once per connection (each sign-in at the pages writes one): GRDB's record
    /// insert builds its SQL and encodes through Encodable on every call.
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO browser_sessions (id, user_id, token_hash, amr, auth_time, expires_at, revoked_at, ip, user_agent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id, userId, tokenHash, amr, StoredDate.text(authTime), StoredDate.text(expiresAt),
                                     revokedAt.map(StoredDate.text), ip, userAgent])
    }
}

extension AuthorizationCodeRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "authorization_codes"

    /// Read by column, not through Decodable: an exchange reads one, and the Codable path was a third of that read.
    public init(row: Row) throws {
        self.init(codeHash: row["code_hash"], clientId: row["client_id"], userId: row["user_id"], redirectUri: row["redirect_uri"],
                  codeChallenge: row["code_challenge"], nonce: row["nonce"], scope: row["scope"], amr: row["amr"],
                  authTime: row["auth_time"], familyId: row["family_id"], browserSessionId: row["browser_session_id"],
                  expiresAt: row["expires_at"], usedAt: row["used_at"], resource: row["resource"])
    }

    /// By a statement prepared once per connection, as a browser session's row.
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, nonce, scope, amr, auth_time,
                                             family_id, browser_session_id, expires_at, used_at, resource)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [codeHash, clientId, userId, redirectUri, codeChallenge, nonce, scope, amr, StoredDate.text(authTime),
                                     familyId, browserSessionId, StoredDate.text(expiresAt), usedAt.map(StoredDate.text), resource])
    }
}

extension ConsentRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "consents"
}

// MARK: OpenIDRepository
extension SQLiteRepositories {
    func insert(_ session: BrowserSessionRecord) async throws { try await write { try session.insertRow($0) } }

    func browserSession(tokenHash: Data) async throws -> BrowserSessionRecord? {
        try await lookup { try $0.one(BrowserSessionRecord.self, "SELECT * FROM browser_sessions WHERE token_hash = ?", [tokenHash]) }
    }

    func browserSessions(userId: String, now: Date) async throws -> [BrowserSessionRecord] {
        try await read { db in
            try BrowserSessionRecord.filter(Column("user_id") == userId && Column("revoked_at") == nil && Column("expires_at") > now)
                .order(Column("auth_time").desc, Column("id")).fetchAll(db)
        }
    }

    func revokeBrowserSession(id: String, at: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE browser_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [at, id])
            return db.changesCount > 0
        }
    }

    func raiseBrowserSession(id: String, tokenHash: Data, amr: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE browser_sessions SET token_hash = ?, amr = ? WHERE id = ? AND revoked_at IS NULL",
                           arguments: [tokenHash, amr, id])
            return db.changesCount > 0
        }
    }

    func revokeBrowserSessions(userId: String, at: Date) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE browser_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL", arguments: [at, userId])
        }
    }

    func insert(_ code: AuthorizationCodeRecord) async throws { try await write { try code.insertRow($0) } }

    func redeemAuthorizationCode(codeHash: Data, at now: Date, opening session: SessionRecord?, noting note: SessionNote?) async throws -> Bool {
        try await write { db in
            let at = StoredDate.text(now)
            try db.cachedStatement(sql: "UPDATE authorization_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?")
                .execute(arguments: [at, codeHash, at])
            guard db.changesCount > 0 else { return false }
            try note?.recordRows(db)
            try session?.insertRow(db)
            return true
        }
    }

    func authorizationCode(codeHash: Data) async throws -> AuthorizationCodeRecord? {
        try await lookup { try $0.one(AuthorizationCodeRecord.self, "SELECT * FROM authorization_codes WHERE code_hash = ?", [codeHash]) }
    }

    private static let selectCodeWithUser = """
        SELECT c.*, \(UserColumns.joined.selected), (c.browser_session_id IS NULL OR EXISTS (SELECT 1 FROM browser_sessions b WHERE b.id = c.browser_session_id
            AND b.user_id = c.user_id AND b.revoked_at IS NULL AND b.expires_at > ?)) AS sign_in_live
        FROM authorization_codes c JOIN users u ON u.id = c.user_id WHERE c.code_hash = ?
        """

    func authorizationCodeWithUser(codeHash: Data, now: Date) async throws -> (code: AuthorizationCodeRecord, user: UserRecord, signInLive: Bool)? {
        try await lookup { db in
            try db.oneWithUser(AuthorizationCodeRecord.self, Self.selectCodeWithUser, [StoredDate.text(now), codeHash]) { code, user, row in (code, user, row["sign_in_live"]) }
        }
    }

    func tokenFamilies(browserSessionId: String) async throws -> [String] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT family_id FROM authorization_codes WHERE browser_session_id = ? AND used_at IS NOT NULL",
                                arguments: [browserSessionId])
        }
    }

    func consent(userId: String, clientId: String) async throws -> ConsentRecord? {
        try await read { try ConsentRecord.filter(Column("user_id") == userId && Column("client_id") == clientId).fetchOne($0) }
    }

    func saveConsent(_ consent: ConsentRecord) async throws { try await write { try consent.save($0) } }

    func consents(userId: String) async throws -> [ConsentRecord] {
        try await read { try ConsentRecord.filter(Column("user_id") == userId).order(Column("client_id")).fetchAll($0) }
    }

    func deleteConsent(userId: String, clientId: String) async throws -> Bool {
        try await write { db in
            try ConsentRecord.filter(Column("user_id") == userId && Column("client_id") == clientId).deleteAll(db) > 0
        }
    }
}

extension ClientRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "clients"
}

// MARK: ClientRepository
extension SQLiteRepositories {
    func clients() async throws -> [ClientRecord] { try await read { try ClientRecord.order(Column("created_at"), Column("id")).fetchAll($0) } }

    func insertClient(_ client: ClientRecord) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "INSERT INTO clients (id, name, document, secret_hash, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           arguments: [client.id, client.name, client.document, client.secretHash, client.createdAt])
            return db.changesCount > 0
        }
    }

    func deleteClient(id: String) async throws -> Bool {
        try await write { db in try ClientRecord.deleteOne(db, key: id) }
    }

    func useClientAssertion(idHash: Data, expiresAt: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "INSERT INTO client_assertions (id_hash, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                           arguments: [idHash, StoredDate.text(expiresAt)])
            return db.changesCount > 0
        }
    }

    func setClientSecret(id: String, secretHash: Data) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE clients SET secret_hash = ? WHERE id = ?", arguments: [secretHash, id])
            return db.changesCount > 0
        }
    }
}
