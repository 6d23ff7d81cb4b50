import Foundation

/// A user of Auth0's bulk export job (NDJSON): `user_id` kept whole (`auth0|…`, `google-oauth2|…`), `email`,
/// `email_verified`, `username`, `blocked`, `identities[{connection, provider, user_id}]`, `user_metadata` and
/// `app_metadata`, with its bcrypt hash from the export Auth0 support provides (`Auth0PasswordExport`).
public enum Auth0ExportUser {
    /// Profile fields Auth0 keeps beside the metadata, carried as attributes of the same names.
    static let profileKeys = ["name", "given_name", "family_name", "nickname", "picture"]

    public static func user(_ document: [String: JSONValue], line: Int, passwords: Auth0PasswordExport?) -> Result<ImportedUser, ImportLineError> {
        guard let id = SourceValues.string(document["user_id"]) else {
            return .failure(ImportLineError(line: line, reason: "no user_id: not an Auth0 user"))
        }
        let email = SourceValues.string(document["email"])
        var identities: [ImportedIdentity] = []
        var hasDatabaseIdentity = id.hasPrefix("auth0|")
        if case .array(let entries)? = document["identities"] {
            for case .object(let entry) in entries {
                let provider = SourceValues.string(entry["provider"])
                // A database connection's identity is the password itself, not a provider.
                if provider == "auth0" { hasDatabaseIdentity = true }
                guard let provider, provider != "auth0", provider != "email", provider != "sms",
                      let subject = SourceValues.string(entry["user_id"]) ?? entry["user_id"]?.intValue.map(String.init) else { continue }
                identities.append(ImportedIdentity(provider: SourceValues.provider(provider), subject: subject))
            }
        }
        var attributes: [String: JSONValue] = [:]
        for key in profileKeys { if let value = SourceValues.string(document[key]) { attributes[key] = .string(value) } }
        for (key, value) in document["user_metadata"]?.objectValue ?? [:] { attributes[key] = value }
        if let app = document["app_metadata"]?.objectValue, !app.isEmpty { attributes["app_metadata"] = .object(app) }
        var user = ImportedUser(
            line: line, id: id, email: email, username: SourceValues.string(document["username"]),
            passwordHash: passwords?.hash(userId: id, email: hasDatabaseIdentity ? email : nil), emailVerified: SourceValues.bool(document["email_verified"]),
            status: SourceValues.bool(document["blocked"]) ? .disabled : .active, attributes: attributes,
            createdAt: SourceValues.timestamp(document["created_at"]), updatedAt: SourceValues.timestamp(document["updated_at"]),
            lastLoginAt: SourceValues.timestamp(document["last_login"]), identities: identities)
        if hasDatabaseIdentity, user.passwordHash == nil { user.legacySource = "auth0" }
        return .success(user)
    }
}

/// The password-hash export Auth0 support sends (NDJSON of `{"_id": {"$oid": …}, "email", "passwordHash", …}`), held
/// as an index from the database user's id (`auth0|<oid>`) and its address to its hash.
public struct Auth0PasswordExport: Sendable {
    var byId: [String: String] = [:]
    var byEmail: [String: String] = [:]
    public private(set) var count = 0

    public init() {}

    /// Adds one line of the export; false when it holds no hash.
    public mutating func add(_ document: [String: JSONValue]) -> Bool {
        guard let hash = SourceValues.string(document["passwordHash"]) else { return false }
        if let oid = SourceValues.string(document["_id"]?.objectValue?["$oid"]) ?? SourceValues.string(document["_id"]) {
            byId["auth0|\(oid)"] = hash
        }
        if let email = SourceValues.string(document["email"]) { byEmail[email.lowercased()] = hash }
        count += 1
        return true
    }

    /// By id, else by address (for a database user only: a social account with the same address is another user).
    func hash(userId: String, email: String?) -> String? {
        byId[userId] ?? email.flatMap { byEmail[$0.lowercased()] }
    }
}
