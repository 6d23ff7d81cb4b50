import Foundation
import GRDB
import LatchkeyCore

/// The engine's records map onto tables by name: camelCase properties, snake_case columns.
public protocol SnakeCaseColumns: FetchableRecord, EncodableRecord {}

extension SnakeCaseColumns {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

extension UserRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "users"

    /// Read by column, not through Decodable: the Codable path was the largest cost of a userinfo call.
    public init(row: Row) throws { try self.init(row: row, columns: .stored) }

    init(row: Row, columns c: UserColumns) throws {
        self.init(stored: row[c.id], objectId: row[c.objectId], email: row[c.email], username: row[c.username],
                  usernameKey: row[c.usernameKey], passwordHash: row[c.passwordHash], emailVerified: row[c.emailVerified],
                  status: try Self.column(row, c.status, Status.init(rawValue:)),
                  attributes: try StoredJSON.attributes(row[c.attributes]),
                  failedLoginCount: row[c.failedLoginCount], createdAt: row[c.createdAt], updatedAt: row[c.updatedAt],
                  lastLoginAt: row[c.lastLoginAt], lockedUntil: row[c.lockedUntil])
    }
}

/// The account's column names as a statement selects them: as stored, or under `u_` in a joined read
/// (`UserColumns.joined.selected` in its column list), so the joined row is read by name with no adapter to split
/// it (GRDB laid an adapter out on every read: most of a joined read's decoding).
struct UserColumns: Sendable {
    static let stored = UserColumns(prefix: ""), joined = UserColumns(prefix: "u_")
    static let names = ["id", "object_id", "email", "username", "username_key", "password_hash", "email_verified", "status", "attributes",
                        "failed_login_count", "created_at", "updated_at", "last_login_at", "locked_until"]

    let id, objectId, email, username, usernameKey, passwordHash, emailVerified, status, attributes: String
    let failedLoginCount, createdAt, updatedAt, lastLoginAt, lockedUntil: String
    /// `u.id AS u_id, ...`: the account's columns for a statement joining `users u`.
    let selected: String

    private init(prefix: String) {
        let n = Self.names.map { prefix + $0 }
        (id, objectId, email, username, usernameKey, passwordHash, emailVerified) = (n[0], n[1], n[2], n[3], n[4], n[5], n[6])
        (status, attributes, failedLoginCount, createdAt, updatedAt, lastLoginAt, lockedUntil) = (n[7], n[8], n[9], n[10], n[11], n[12], n[13])
        selected = Self.names.map { "u.\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
    }
}

extension FlowRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "flows"
}

extension OTPRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "otp_codes"
}

extension SessionRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "sessions"

    public init(row: Row) throws {
        self.init(id: row["id"], familyId: row["family_id"], userId: row["user_id"],
                  kind: try Self.column(row, "kind", Kind.init(rawValue:)), audience: row["audience"], scope: row["scope"],
                  tokenHash: row["token_hash"], createdAt: row["created_at"], expiresAt: row["expires_at"],
                  parentId: row["parent_id"], deviceId: row["device_id"], ip: row["ip"], userAgent: row["user_agent"],
                  resource: row["resource"])
        rotatedAt = row["rotated_at"]
        revokedAt = row["revoked_at"]
    }

    /// Written by column, not through Encodable: one is inserted per refresh.
    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id; container["family_id"] = familyId; container["user_id"] = userId
        container["kind"] = kind.rawValue; container["audience"] = audience; container["scope"] = scope
        container["token_hash"] = tokenHash; container["created_at"] = StoredDate.text(createdAt)
        container["expires_at"] = StoredDate.text(expiresAt); container["rotated_at"] = rotatedAt.map(StoredDate.text)
        container["revoked_at"] = revokedAt.map(StoredDate.text); container["parent_id"] = parentId
        container["device_id"] = deviceId; container["ip"] = ip; container["user_agent"] = userAgent
        container["resource"] = resource
    }

    /// One row by a statement prepared once per connection (a refresh inserts one): GRDB's record insert builds its
    /// SQL and a persistence container on every call.
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO sessions (id, family_id, user_id, kind, audience, scope, token_hash, created_at, expires_at, rotated_at,
                                  revoked_at, parent_id, device_id, ip, user_agent, resource)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [id, familyId, userId, kind.rawValue, audience, scope, tokenHash, StoredDate.text(createdAt),
                                     StoredDate.text(expiresAt), rotatedAt.map(StoredDate.text), revokedAt.map(StoredDate.text),
                                     parentId, deviceId, ip, userAgent, resource])
    }
}

extension ActionTokenRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "action_tokens"
}

extension UserRole: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "user_roles"
}

extension SigningKeyRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "signing_keys"
}

extension OutboxRecord: FetchableRecord, MutablePersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "outbox"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AuditEvent: FetchableRecord, MutablePersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "audit_events"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The event and its hour's count, by statements prepared once per connection (GRDB's record insert builds its
    /// SQL on every call).
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO audit_events (at, kind, user_id, email, client_ip, user_agent, detail, dialect, actor)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [StoredDate.text(at), kind, userId, email, clientIp, userAgent, detail, dialect, actor])
        try db.cachedStatement(sql: """
            INSERT INTO audit_counts (hour, kind, dialect, count) VALUES (?, ?, ?, 1)
            ON CONFLICT (hour, kind, dialect) DO UPDATE SET count = count + 1
            """).execute(arguments: [hour, kind, dialect ?? ""])
    }
}

extension SessionNote {
    func recordRows(_ db: Database) throws {
        if signIn, let userId = event.userId {
            try db.cachedStatement(sql: "UPDATE users SET last_login_at = ?, failed_login_count = 0, locked_until = NULL WHERE id = ?")
                .execute(arguments: [StoredDate.text(event.at), userId])
        }
        try event.insertRow(db)
        try browserSession?.insertRow(db)
        try authorizationCode?.insertRow(db)
    }
}

extension FetchableRecord where Self: TableRecord {
    /// A text column holding one of an enum's raw values; anything else is a corrupt row, not a crash.
    static func column<T>(_ row: Row, _ name: String, _ make: (String) -> T?) throws -> T {
        let raw: String = row[name]
        guard let value = make(raw) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "\(databaseTableName).\(name) holds \(raw)")
        }
        return value
    }
}

extension Database {
    /// A row and its account's, from one statement selecting the row's columns and then the account's under their
    /// joined names (`SELECT t.*, \(UserColumns.joined.selected) ... JOIN users u`): one lookup where two would each
    /// pay for a reader and a statement.
    func oneWithUser<R: FetchableRecord>(_ type: R.Type, _ sql: String, _ arguments: StatementArguments) throws -> (R, UserRecord)? {
        try oneWithUser(type, sql, arguments) { record, user, _ in (record, user) }
    }

    /// The same, and further columns the statement selects, read by `read` from the row (by name) while it is current.
    /// The row is the statement's own, not a copy: a copied row finds each column by lower-casing every name before it.
    func oneWithUser<R: FetchableRecord, T>(_ type: R.Type, _ sql: String, _ arguments: StatementArguments,
                                            _ read: (R, UserRecord, Row) throws -> T) throws -> T? {
        let rows = try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
        guard let row = try rows.next() else { return nil }
        return try read(R(row: row), UserRecord(row: row, columns: .joined), row)
    }

    /// One record by a statement prepared once per connection: the query interface compiles and authorizes its
    /// SQL on every call, which was a visible share of a token lookup.
    func one<R: FetchableRecord>(_ type: R.Type, _ sql: String, _ arguments: StatementArguments) throws -> R? {
        try R.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }
}

/// Nested values GRDB's Codable support stores as JSON text.
enum StoredJSON {
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// An account's attributes: many accounts have none, stored as `{}`, which needs no decoder.
    static func attributes(_ text: String) throws -> [String: JSONValue] {
        text == "{}" ? [:] : try decode([String: JSONValue].self, text)
    }
}
