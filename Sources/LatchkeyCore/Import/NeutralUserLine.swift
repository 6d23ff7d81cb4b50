import Foundation

/// Latchkey's own export format, one user per line (`latchkey export` writes it, `latchkey import --format jsonl`
/// reads it, so the two round-trip). Times are ISO 8601 with milliseconds; `password_hash` is the stored hash
/// (scrypt PHC, or an imported scheme not yet replaced). Only `email` or `username` is required on import.
public struct NeutralUserLine: Codable, Sendable {
    public var id: String?
    public var objectId: String?
    public var email: String?
    public var username: String?
    public var passwordHash: String?
    public var emailVerified: Bool?
    public var status: String?
    public var attributes: [String: JSONValue]?
    public var createdAt: String?
    public var updatedAt: String?
    public var lastLoginAt: String?
    /// `[{provider, subject}]`: the ways in other than the password (anonymous, apple, google, ...).
    public var identities: [Identity]?

    public struct Identity: Codable, Sendable {
        public var provider: String
        public var subject: String
    }

    enum CodingKeys: String, CodingKey {
        case id, objectId = "object_id", email, username, passwordHash = "password_hash", emailVerified = "email_verified", status
        case attributes, createdAt = "created_at", updatedAt = "updated_at", lastLoginAt = "last_login_at", identities
    }

    public init(_ user: UserRecord, identities: [IdentityRecord] = []) {
        id = user.id; objectId = user.objectId; email = user.email; username = user.username; passwordHash = user.passwordHash
        emailVerified = user.emailVerified; status = user.status.rawValue; attributes = user.attributes
        createdAt = ParseDate.string(user.createdAt); updatedAt = ParseDate.string(user.updatedAt)
        lastLoginAt = user.lastLoginAt.map(ParseDate.string)
        self.identities = identities.isEmpty ? nil : identities.map { Identity(provider: $0.provider, subject: $0.subject) }
    }

    /// Nil, with the reason, when a field has the wrong form (an unknown status, a time that is not ISO 8601).
    public func imported(line: Int) -> Result<ImportedUser, ImportLineError> {
        guard let status = UserRecord.Status(rawValue: status ?? "active") else {
            return .failure(ImportLineError(line: line, reason: "status must be active, pending or disabled"))
        }
        var times: [Date?] = []
        for (name, text) in [("created_at", createdAt), ("updated_at", updatedAt), ("last_login_at", lastLoginAt)] {
            guard let text else { times.append(nil); continue }
            guard let date = ParseDate.parse(text) else {
                return .failure(ImportLineError(line: line, reason: "\(name) is not an ISO 8601 time"))
            }
            times.append(date)
        }
        return .success(ImportedUser(line: line, id: id, objectId: objectId, email: email, username: username, passwordHash: passwordHash,
                                     emailVerified: emailVerified ?? false, status: status, attributes: attributes ?? [:],
                                     createdAt: times[0], updatedAt: times[1], lastLoginAt: times[2],
                                     identities: (identities ?? []).map { ImportedIdentity(provider: $0.provider, subject: $0.subject) }))
    }
}

/// A line of an import file that could not be read at all.
public struct ImportLineError: Error, Sendable {
    public var line: Int
    public var reason: String
    public init(line: Int, reason: String) { self.line = line; self.reason = reason }
}
