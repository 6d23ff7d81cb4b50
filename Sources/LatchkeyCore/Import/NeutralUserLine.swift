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
    /// The passkeys (public keys only: a passkey's private key never leaves its authenticator), so they keep signing
    /// in after an import under the same relying party id.
    public var passkeys: [Passkey]?
    /// Custom user data by App Services app id.
    public var customData: [String: [String: JSONValue]]?

    public struct Identity: Codable, Sendable {
        public var provider: String
        public var subject: String
    }

    public struct Passkey: Codable, Sendable {
        /// base64url, as WebAuthn writes them; `public_key` is the COSE key.
        public var credentialId: String
        public var userHandle: String
        public var publicKey: String
        public var signCount: Int64
        public var name: String
        public var aaguid: String
        public var backupEligible: Bool
        public var backedUp: Bool
        public var createdAt: String
        public var lastUsedAt: String?

        enum CodingKeys: String, CodingKey {
            case credentialId = "credential_id", userHandle = "user_handle", publicKey = "public_key", signCount = "sign_count", name, aaguid
            case backupEligible = "backup_eligible", backedUp = "backed_up", createdAt = "created_at", lastUsedAt = "last_used_at"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, objectId = "object_id", email, username, passwordHash = "password_hash", emailVerified = "email_verified", status
        case attributes, createdAt = "created_at", updatedAt = "updated_at", lastLoginAt = "last_login_at", identities, passkeys
        case customData = "custom_data"
    }

    public init(_ user: UserRecord, identities: [IdentityRecord] = [], passkeys: [PasskeyRecord] = [], customData: [CustomDataRecord] = []) {
        self.customData = customData.isEmpty ? nil : Dictionary(customData.map { ($0.appId, $0.document) }, uniquingKeysWith: { first, _ in first })
        id = user.id; objectId = user.objectId; email = user.email; username = user.username; passwordHash = user.passwordHash
        emailVerified = user.emailVerified; status = user.status.rawValue; attributes = user.attributes
        createdAt = ParseDate.string(user.createdAt); updatedAt = ParseDate.string(user.updatedAt)
        lastLoginAt = user.lastLoginAt.map(ParseDate.string)
        self.identities = identities.isEmpty ? nil : identities.map { Identity(provider: $0.provider, subject: $0.subject) }
        self.passkeys = passkeys.isEmpty ? nil : passkeys.map {
            Passkey(credentialId: Base64URL.encode(Array($0.credentialId)), userHandle: Base64URL.encode(Array($0.userHandle)), publicKey: Base64URL.encode(Array($0.publicKey)), signCount: $0.signCount,
                    name: $0.name, aaguid: Base64URL.encode(Array($0.aaguid)), backupEligible: $0.backupEligible, backedUp: $0.backedUp,
                    createdAt: ParseDate.string($0.createdAt), lastUsedAt: $0.lastUsedAt.map(ParseDate.string))
        }
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
        var imported: [PasskeyRecord] = []
        for (index, passkey) in (passkeys ?? []).enumerated() {
            guard let credential = Base64URL.decode(Substring(passkey.credentialId)), !credential.isEmpty,
                  credential.count <= AuthenticatorData.maxCredentialIdBytes, let handle = Base64URL.decode(Substring(passkey.userHandle)),
                  !handle.isEmpty, handle.count <= 64, let cose = Base64URL.decode(Substring(passkey.publicKey)),
                  let key = try? COSEKey(encoded: cose), let aaguid = Base64URL.decode(Substring(passkey.aaguid)),
                  let created = ParseDate.parse(passkey.createdAt), passkey.signCount >= 0 else {
                return .failure(ImportLineError(line: line, reason: "passkeys[\(index)] is not a passkey Latchkey can use"))
            }
            imported.append(PasskeyRecord(id: SecureRandom.uuidString(), userId: "", credentialId: Data(credential), userHandle: Data(handle),
                                          publicKey: Data(cose), algorithm: key.algorithm.rawValue, signCount: passkey.signCount,
                                          name: String(passkey.name.prefix(64)), aaguid: Data(aaguid),
                                          backupEligible: passkey.backupEligible, backedUp: passkey.backedUp, createdAt: created,
                                          lastUsedAt: passkey.lastUsedAt.flatMap(ParseDate.parse)))
        }
        var user = ImportedUser(line: line, id: id, objectId: objectId, email: email, username: username, passwordHash: passwordHash,
                                emailVerified: emailVerified ?? false, status: status, attributes: attributes ?? [:],
                                createdAt: times[0], updatedAt: times[1], lastLoginAt: times[2],
                                identities: (identities ?? []).map { ImportedIdentity(provider: $0.provider, subject: $0.subject) })
        user.passkeys = imported
        user.customData = customData ?? [:]
        return .success(user)
    }
}

/// A line of an import file that could not be read at all.
public struct ImportLineError: Error, Sendable {
    public var line: Int
    public var reason: String
    public init(line: Int, reason: String) { self.line = line; self.reason = reason }
}
