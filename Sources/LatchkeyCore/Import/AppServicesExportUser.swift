import Foundation

/// A user of the App Services Admin API's list (`GET /groups/{group}/apps/{app}/users`, or `appservices users list
/// -f json`): `_id` (the id the Realm SDKs read as `user.id`, which data points at), `identities[]` by
/// `provider_type`, `type` (`normal` or `server`), `creation_date`/`last_authentication_date` in epoch seconds,
/// `disabled`, and `data` (the address and whatever the providers put there). No password hash is ever exported:
/// these accounts sign in first by mailed code, a reset, or the legacy-password function.
public enum AppServicesExportUser {
    /// Identity provider types that carry over as identities; `local-userpass` is the address, `api-key` cannot be
    /// exported (the key is shown once and stored hashed).
    static let carriedTypes: Set<String> = ["anon-user", "oauth2-apple", "oauth2-google", "custom-token", "custom-function"]

    /// `customDataApp` is the App Services app a record's `custom_data` (the app's custom user data document, joined
    /// into the export by the operator) belongs to.
    public static func user(_ document: [String: JSONValue], line: Int, customDataApp: String?) -> Result<ImportedUser, ImportLineError> {
        guard let id = SourceValues.string(document["_id"] ?? document["id"]) else {
            return .failure(ImportLineError(line: line, reason: "no _id: not an App Services user"))
        }
        var email = SourceValues.string(document["data"]?.objectValue?["email"])
        var identities: [ImportedIdentity] = []
        var hasApiKey = false
        if case .array(let entries)? = document["identities"] {
            for case .object(let entry) in entries {
                guard let type = SourceValues.string(entry["provider_type"]) else { continue }
                if type == "local-userpass" {
                    email = SourceValues.string(entry["provider_data"]?.objectValue?["email"]) ?? email
                } else if type == "api-key" {
                    hasApiKey = true
                } else if carriedTypes.contains(type), let subject = SourceValues.string(entry["id"]) {
                    identities.append(ImportedIdentity(provider: SourceValues.provider(type), subject: subject))
                }
            }
        }
        var attributes = document["data"]?.objectValue ?? [:]
        attributes["email"] = nil
        var user = ImportedUser(
            line: line, id: id, email: email, emailVerified: email != nil,
            status: SourceValues.bool(document["disabled"]) ? .disabled : .active, attributes: attributes,
            createdAt: SourceValues.epoch(document["creation_date"], milliseconds: false),
            lastLoginAt: SourceValues.epoch(document["last_authentication_date"], milliseconds: false),
            identities: identities)
        // A server user (or any whose only way in was a key) keeps its id for the data it owns; new keys are issued here.
        if let data = document["custom_data"]?.objectValue, let app = customDataApp {
            var data = data
            data["_id"] = nil  // the document's own id in its collection, not the user's data
            user.customData = [app: data]
        }
        if email != nil { user.legacySource = "app-services" }
        user.keyOnly = email == nil && identities.isEmpty && (hasApiKey || document["type"] == .string("server"))
        return .success(user)
    }
}
