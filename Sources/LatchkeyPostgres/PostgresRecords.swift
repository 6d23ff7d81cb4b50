import Foundation
import LatchkeyCore
import PostgresNIO

/// The engine's records from their rows. Columns are named as in `Migrations/postgres`; every query selects `*`
/// or RETURNING `*`, so a row always carries every column of its table.
protocol PostgresRowDecodable {
    init(row: Columns) throws
}

extension PostgresRowDecodable {
    static func decode(_ rows: [PostgresRow]) throws -> [Self] { try rows.map { try Self(row: Columns(row: $0.makeRandomAccess())) } }
    static func decodeFirst(_ rows: [PostgresRow]) throws -> Self? { try decode(Array(rows.prefix(1))).first }
}

extension UserRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), email: try row.value("email"), username: try row.value("username"),
                  passwordHash: try row.value("password_hash"), emailVerified: try row.value("email_verified"),
                  status: try row.value("status"), attributes: try row.value("attributes", as: JSONB<[String: JSONValue]>.self).value,
                  now: try row.value("created_at"))
        objectId = try row.value("object_id")
        failedLoginCount = try row.value("failed_login_count")
        updatedAt = try row.value("updated_at")
        lastLoginAt = try row.value("last_login_at")
        lockedUntil = try row.value("locked_until")
    }
}

extension FlowRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), tokenHash: try row.value("token_hash"), kind: try row.value("kind"),
                  email: try row.value("email"), userId: try row.value("user_id"),
                  state: try row.value("state", as: JSONB<FlowState>.self).value, expiresAt: try row.value("expires_at"),
                  createdAt: try row.value("created_at"))
    }
}

extension SessionRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), familyId: try row.value("family_id"), userId: try row.value("user_id"),
                  kind: try row.value("kind"), audience: try row.value("audience"), scope: try row.value("scope"),
                  tokenHash: try row.value("token_hash"), createdAt: try row.value("created_at"), expiresAt: try row.value("expires_at"),
                  parentId: try row.value("parent_id"), deviceId: try row.value("device_id"), ip: try row.value("ip"),
                  userAgent: try row.value("user_agent"), resource: try row.value("resource"))
        rotatedAt = try row.value("rotated_at")
        revokedAt = try row.value("revoked_at")
    }
}

extension ActionTokenRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(tokenId: try row.value("token_id"), tokenHash: try row.value("token_hash"), kind: try row.value("kind"),
                  userId: try row.value("user_id"), expiresAt: try row.value("expires_at"), usedAt: try row.value("used_at"),
                  createdAt: try row.value("created_at"))
    }
}

extension OutboxRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), recipient: try row.value("recipient"), subject: try row.value("subject"),
                  kind: try row.value("kind"), sealedBody: try row.value("sealed_body"), status: try row.value("status"),
                  attempts: try row.value("attempts"), createdAt: try row.value("created_at"),
                  nextAttemptAt: try row.value("next_attempt_at"), sentAt: try row.value("sent_at"), lastError: try row.value("last_error"),
                  claimedUntil: try row.value("claimed_until"))
    }
}

extension AuditEvent: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), at: try row.value("at"), kind: try row.value("kind"), userId: try row.value("user_id"),
                  email: try row.value("email"), clientIp: try row.value("client_ip"), userAgent: try row.value("user_agent"),
                  detail: try row.value("detail"), dialect: try row.value("dialect"), actor: try row.value("actor"))
    }
}

extension UserRole: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(userId: try row.value("user_id"), role: try row.value("role"), grantedAt: try row.value("granted_at"))
    }
}

extension SigningKeyRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(kid: try row.value("kid"), algorithm: try row.value("algorithm"), privateKeyPem: try row.value("private_key_pem"),
                  createdAt: try row.value("created_at"))
    }
}
