import Foundation
import LatchkeyCore
import PostgresNIO

extension BrowserSessionRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), userId: try row.value("user_id"), tokenHash: try row.value("token_hash"), amr: try row.value("amr"),
                  authTime: try row.value("auth_time"), expiresAt: try row.value("expires_at"), revokedAt: try row.value("revoked_at"),
                  ip: try row.value("ip"), userAgent: try row.value("user_agent"))
    }
}

extension AuthorizationCodeRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(codeHash: try row.value("code_hash"), clientId: try row.value("client_id"), userId: try row.value("user_id"),
                  redirectUri: try row.value("redirect_uri"), codeChallenge: try row.value("code_challenge"), nonce: try row.value("nonce"),
                  scope: try row.value("scope"), amr: try row.value("amr"), authTime: try row.value("auth_time"),
                  familyId: try row.value("family_id"), browserSessionId: try row.value("browser_session_id"),
                  expiresAt: try row.value("expires_at"), usedAt: try row.value("used_at"), resource: try row.value("resource"))
    }
}

extension ConsentRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(userId: try row.value("user_id"), clientId: try row.value("client_id"), scope: try row.value("scope"),
                  grantedAt: try row.value("granted_at"))
    }
}

// MARK: OpenIDRepository
extension PostgresRepositories {
    func insert(_ session: BrowserSessionRecord) async throws {
        var q = PostgresQuery.StringInterpolation(literalCapacity: 256, interpolationCount: 9)
        try Self.appendInsert(session, to: &q)
        try await rows(PostgresQuery(stringInterpolation: q))
    }

    /// The browser session's INSERT, alone or as a step of a statement (`condition`, a WHERE clause, makes it conditional).
    static func appendInsert(_ session: BrowserSessionRecord, to q: inout PostgresQuery.StringInterpolation, condition: String? = nil) throws {
        q.appendLiteral("INSERT INTO browser_sessions (id, user_id, token_hash, amr, auth_time, expires_at, revoked_at, ip, user_agent) "
                        + (condition == nil ? "VALUES (" : "SELECT "))
        q.appendInterpolation(session.id); q.appendLiteral(", "); q.appendInterpolation(session.userId); q.appendLiteral(", ")
        try q.appendInterpolation(session.tokenHash); q.appendLiteral(", "); q.appendInterpolation(session.amr); q.appendLiteral(", ")
        q.appendInterpolation(session.authTime); q.appendLiteral(", "); q.appendInterpolation(session.expiresAt); q.appendLiteral(", ")
        q.appendInterpolation(session.revokedAt); q.appendLiteral(", "); q.appendInterpolation(session.ip); q.appendLiteral(", ")
        q.appendInterpolation(session.userAgent)
        q.appendLiteral(condition ?? ")")
    }

    func browserSession(tokenHash: Data) async throws -> BrowserSessionRecord? {
        try BrowserSessionRecord.decode(try await rows("SELECT * FROM browser_sessions WHERE token_hash = \(tokenHash)")).first
    }

    func browserSessions(userId: String, now: Date) async throws -> [BrowserSessionRecord] {
        try BrowserSessionRecord.decode(try await rows("""
            SELECT * FROM browser_sessions WHERE user_id = \(userId) AND revoked_at IS NULL AND expires_at > \(now)
            ORDER BY auth_time DESC, id
            """))
    }

    func revokeBrowserSession(id: String, at: Date) async throws -> Bool {
        !(try await rows("UPDATE browser_sessions SET revoked_at = \(at) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1")).isEmpty
    }

    func raiseBrowserSession(id: String, tokenHash: Data, amr: String) async throws -> Bool {
        !(try await rows("UPDATE browser_sessions SET token_hash = \(tokenHash), amr = \(amr) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1")).isEmpty
    }

    func revokeBrowserSessions(userId: String, at: Date) async throws {
        try await rows("UPDATE browser_sessions SET revoked_at = \(at) WHERE user_id = \(userId) AND revoked_at IS NULL")
    }

    func insert(_ code: AuthorizationCodeRecord) async throws {
        var q = PostgresQuery.StringInterpolation(literalCapacity: 256, interpolationCount: 13)
        try Self.appendInsert(code, to: &q)
        try await rows(PostgresQuery(stringInterpolation: q))
    }

    /// The code's INSERT, alone or as a step of a statement (`condition`, a WHERE clause, makes it conditional).
    static func appendInsert(_ code: AuthorizationCodeRecord, to q: inout PostgresQuery.StringInterpolation, condition: String? = nil) throws {
        q.appendLiteral("INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, nonce, scope, amr, "
                        + "auth_time, family_id, browser_session_id, expires_at, used_at, resource) " + (condition == nil ? "VALUES (" : "SELECT "))
        try q.appendInterpolation(code.codeHash)
        for value in [code.clientId, code.userId, code.redirectUri, code.codeChallenge, code.nonce, code.scope, code.amr] {
            q.appendLiteral(", "); q.appendInterpolation(value)
        }
        q.appendLiteral(", "); q.appendInterpolation(code.authTime)
        for value in [code.familyId, code.browserSessionId] { q.appendLiteral(", "); q.appendInterpolation(value) }
        q.appendLiteral(", "); q.appendInterpolation(code.expiresAt); q.appendLiteral(", "); q.appendInterpolation(code.usedAt)
        q.appendLiteral(", "); q.appendInterpolation(code.resource)
        q.appendLiteral(condition ?? ")")
    }

    /// One statement: the code's mark guards the session's insert and the note's steps (`write(_:guardedBy:after:)`).
    func redeemAuthorizationCode(codeHash: Data, at now: Date, opening session: SessionRecord?, noting note: SessionNote?) async throws -> Bool {
        let redeem: Step = { q in
            q.appendLiteral("UPDATE authorization_codes SET used_at = ")
            q.appendInterpolation(now)
            q.appendLiteral(" WHERE code_hash = ")
            try q.appendInterpolation(codeHash)
            q.appendLiteral(" AND used_at IS NULL AND expires_at > ")
            q.appendInterpolation(now)
        }
        guard let note else {
            var q = PostgresQuery.StringInterpolation(literalCapacity: 160, interpolationCount: 3)
            try redeem(&q)
            q.appendLiteral(" RETURNING 1")
            return !(try await rows(PostgresQuery(stringInterpolation: q))).isEmpty
        }
        return try await write(note, guardedBy: redeem,
                               after: session.map { session in { try Self.appendInsert(session, to: &$0, condition: Self.onlyIfGuarded) } })
    }

    func authorizationCodeWithUser(codeHash: Data, now: Date) async throws -> (code: AuthorizationCodeRecord, user: UserRecord, signInLive: Bool)? {
        // One round trip: the code's columns, its user's under a `u_` prefix, and whether its browser sign-in lives.
        guard let row = try await rows("""
            SELECT c.*, \(unescaped: Self.prefixedUserColumns), (c.browser_session_id IS NULL OR EXISTS (
                SELECT 1 FROM browser_sessions b WHERE b.id = c.browser_session_id AND b.user_id = c.user_id
                AND b.revoked_at IS NULL AND b.expires_at > \(now))) AS sign_in_live
            FROM authorization_codes c JOIN users u ON u.id = c.user_id WHERE c.code_hash = \(codeHash)
            """).first?.makeRandomAccess() else { return nil }
        return (try AuthorizationCodeRecord(row: Columns(row: row)), try UserRecord(row: Columns(row: row, prefix: "u_")),
                try row["sign_in_live"].decode(Bool.self))
    }

    func authorizationCode(codeHash: Data) async throws -> AuthorizationCodeRecord? {
        try AuthorizationCodeRecord.decode(try await rows("SELECT * FROM authorization_codes WHERE code_hash = \(codeHash)")).first
    }

    func tokenFamilies(browserSessionId: String) async throws -> [String] {
        try await rows("""
            SELECT DISTINCT family_id FROM authorization_codes WHERE browser_session_id = \(browserSessionId) AND used_at IS NOT NULL
            """).map { try $0.columns.value("family_id", as: String.self) }
    }

    func consent(userId: String, clientId: String) async throws -> ConsentRecord? {
        try ConsentRecord.decode(try await rows("SELECT * FROM consents WHERE user_id = \(userId) AND client_id = \(clientId)")).first
    }

    func saveConsent(_ consent: ConsentRecord) async throws {
        try await rows("""
            INSERT INTO consents (user_id, client_id, scope, granted_at) VALUES (\(consent.userId), \(consent.clientId), \(consent.scope),
                                                                                 \(consent.grantedAt))
            ON CONFLICT (user_id, client_id) DO UPDATE SET scope = EXCLUDED.scope, granted_at = EXCLUDED.granted_at
            """)
    }

    func consents(userId: String) async throws -> [ConsentRecord] {
        try ConsentRecord.decode(try await rows("SELECT * FROM consents WHERE user_id = \(userId) ORDER BY client_id"))
    }

    func deleteConsent(userId: String, clientId: String) async throws -> Bool {
        !(try await rows("DELETE FROM consents WHERE user_id = \(userId) AND client_id = \(clientId) RETURNING 1")).isEmpty
    }
}

extension ClientRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), name: try row.value("name"), document: try row.value("document"),
                  secretHash: try row.value("secret_hash"), createdAt: try row.value("created_at"))
    }
}

// MARK: ClientRepository
extension PostgresRepositories {
    func clients() async throws -> [ClientRecord] {
        try ClientRecord.decode(try await rows("SELECT * FROM clients ORDER BY created_at, id"))
    }

    func insertClient(_ client: ClientRecord) async throws -> Bool {
        !(try await rows("""
            INSERT INTO clients (id, name, document, secret_hash, created_at)
            VALUES (\(client.id), \(client.name), \(client.document), \(client.secretHash), \(client.createdAt))
            ON CONFLICT DO NOTHING RETURNING 1
            """)).isEmpty
    }

    func deleteClient(id: String) async throws -> Bool {
        !(try await rows("DELETE FROM clients WHERE id = \(id) RETURNING 1")).isEmpty
    }

    func useClientAssertion(idHash: Data, expiresAt: Date) async throws -> Bool {
        !(try await rows("""
            INSERT INTO client_assertions (id_hash, expires_at) VALUES (\(idHash), \(expiresAt)) ON CONFLICT DO NOTHING RETURNING 1
            """)).isEmpty
    }

    func setClientSecret(id: String, secretHash: Data) async throws -> Bool {
        !(try await rows("UPDATE clients SET secret_hash = \(secretHash) WHERE id = \(id) RETURNING 1")).isEmpty
    }
}
