import Foundation

/// A row of Supabase's `auth.users`, as `COPY (SELECT …) TO … CSV HEADER` writes it (every value text, NULL empty,
/// `jsonb` as JSON text, `timestamptz` as `2024-01-15 10:20:30.123456+00`) or as JSON lines (`row_to_json`): `id`
/// kept, `email`, bcrypt `encrypted_password`, `email_confirmed_at`, `raw_user_meta_data`, `banned_until`,
/// `created_at`, `last_sign_in_at`; with its `auth.identities` rows (`SupabaseIdentities`).
public enum SupabaseExportUser {
    public static func user(_ row: [String: JSONValue], line: Int, identities: SupabaseIdentities?, now: Date) -> Result<ImportedUser, ImportLineError> {
        guard let id = SourceValues.string(row["id"]) else {
            return .failure(ImportLineError(line: line, reason: "no id: not an auth.users row"))
        }
        if SourceValues.string(row["deleted_at"]) != nil {
            return .failure(ImportLineError(line: line, reason: "deleted_at is set: a deleted account, not imported"))
        }
        let banned = SourceValues.timestamp(row["banned_until"]).map { $0 > now } ?? false
        var carried = identities?.byUser[id] ?? []
        if SourceValues.bool(row["is_anonymous"]) { carried.append(ImportedIdentity(provider: VerifiedIdentity.anonymousProvider, subject: id)) }
        var attributes = SourceValues.object(row["raw_user_meta_data"]) ?? [:]
        // What the providers copied into the metadata is the identity, not the profile.
        for key in ["sub", "iss", "email", "email_verified", "phone_verified", "provider_id"] { attributes[key] = nil }
        return .success(ImportedUser(
            line: line, id: id, email: SourceValues.string(row["email"]),
            passwordHash: SourceValues.string(row["encrypted_password"]),
            emailVerified: SourceValues.string(row["email_confirmed_at"]) != nil || SourceValues.string(row["confirmed_at"]) != nil,
            status: banned ? .disabled : .active, attributes: attributes,
            createdAt: SourceValues.timestamp(row["created_at"]), updatedAt: SourceValues.timestamp(row["updated_at"]),
            lastLoginAt: SourceValues.timestamp(row["last_sign_in_at"]), identities: carried))
    }
}

/// `auth.identities` rows, by the user they belong to: `provider` and `provider_id` (the provider's subject; older
/// schemas hold it in `id`). The `email` provider's rows are the address itself and are not carried.
public struct SupabaseIdentities: Sendable {
    var byUser: [String: [ImportedIdentity]] = [:]
    public private(set) var count = 0

    public init() {}

    /// Adds one row; false when it is not an identity row.
    public mutating func add(_ row: [String: JSONValue]) -> Bool {
        guard let user = SourceValues.string(row["user_id"]), let provider = SourceValues.string(row["provider"]),
              let subject = SourceValues.string(row["provider_id"]) ?? SourceValues.string(row["id"]) else { return false }
        guard provider != "email", provider != "phone" else { return true }
        byUser[user, default: []].append(ImportedIdentity(provider: SourceValues.provider(provider), subject: subject))
        count += 1
        return true
    }
}
