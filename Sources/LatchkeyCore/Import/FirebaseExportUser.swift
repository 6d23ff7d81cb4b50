import Foundation

/// A user of `firebase auth:export`: the JSON file's `{"users": [...]}` entries (`localId`, `email`, `emailVerified`,
/// `passwordHash`/`salt` in base64, `displayName`, `photoUrl`, `createdAt`/`lastSignedInAt` as milliseconds in text,
/// `phoneNumber`, `disabled`, `customAttributes` as JSON text, `providerUserInfo[{providerId, rawId, …}]`), or the
/// CSV file's headerless 28 columns, which `csvRecord` turns into the same shape. The hash is Firebase's modified
/// scrypt under the project's parameters, kept whole so it verifies at the first sign-in and is replaced then.
public enum FirebaseExportUser {
    /// The CSV columns the CLI writes for these providers: id, email, display name, photo.
    static let csvProviders: [(providerId: String, column: Int)] = [("google.com", 7), ("facebook.com", 11), ("twitter.com", 15), ("github.com", 19)]

    public static func user(_ document: [String: JSONValue], line: Int, hashConfig: FirebaseHashConfig?) -> Result<ImportedUser, ImportLineError> {
        guard let id = SourceValues.string(document["localId"]) else {
            return .failure(ImportLineError(line: line, reason: "no localId: not a Firebase user"))
        }
        var identities: [ImportedIdentity] = []
        var attributes: [String: JSONValue] = [:]
        if case .array(let entries)? = document["providerUserInfo"] {
            for case .object(let entry) in entries {
                guard let provider = SourceValues.string(entry["providerId"]), provider != "password", provider != "phone",
                      let subject = SourceValues.string(entry["rawId"]) else { continue }
                identities.append(ImportedIdentity(provider: SourceValues.provider(provider), subject: subject))
            }
        }
        if let name = SourceValues.string(document["displayName"]) { attributes["name"] = .string(name) }
        if let photo = SourceValues.string(document["photoUrl"]) { attributes["picture"] = .string(photo) }
        if let phone = SourceValues.string(document["phoneNumber"]) { attributes["phone_number"] = .string(phone) }
        for (key, value) in SourceValues.object(document["customAttributes"]) ?? [:] { attributes[key] = value }

        var user = ImportedUser(
            line: line, id: id, email: SourceValues.string(document["email"]), emailVerified: SourceValues.bool(document["emailVerified"]),
            status: SourceValues.bool(document["disabled"]) ? .disabled : .active, attributes: attributes,
            createdAt: SourceValues.epoch(document["createdAt"], milliseconds: true),
            lastLoginAt: SourceValues.epoch(document["lastSignedInAt"] ?? document["lastLoginAt"], milliseconds: true),
            identities: identities)
        if let hash = SourceValues.string(document["passwordHash"]) {
            if let hashConfig {
                user.passwordHash = FirebaseScryptHash.encode(hash: hash, salt: SourceValues.string(document["salt"]) ?? "",
                                                             signerKey: hashConfig.signerKey, saltSeparator: hashConfig.saltSeparator,
                                                             rounds: hashConfig.rounds, memCost: hashConfig.memCost)
                if user.passwordHash == nil {
                    user.unusableHash = .init(scheme: "firebase-scrypt", reason: "the hash or salt is not base64")
                }
            } else {
                user.unusableHash = .init(scheme: "firebase-scrypt", reason: "no --firebase-hash-config, so it cannot be verified")
            }
            if user.passwordHash == nil { user.legacySource = "firebase" }
        }
        return .success(user)
    }

    /// One row of the CSV export in the JSON export's shape; nil when it is not one (too few columns).
    public static func csvRecord(_ row: [String]) -> [String: JSONValue]? {
        guard row.count >= 26 else { return nil }
        func cell(_ index: Int) -> JSONValue? { index < row.count && !row[index].isEmpty ? .string(row[index]) : nil }
        var document: [String: JSONValue] = [:]
        let names = [0: "localId", 1: "email", 2: "emailVerified", 3: "passwordHash", 4: "salt", 5: "displayName", 6: "photoUrl",
                     23: "createdAt", 24: "lastSignedInAt", 25: "phoneNumber", 26: "disabled", 27: "customAttributes"]
        for (index, name) in names { document[name] = cell(index) }
        document["providerUserInfo"] = .array(csvProviders.compactMap { provider in
            cell(provider.column).map { .object(["providerId": .string(provider.providerId), "rawId": $0]) }
        })
        return document
    }
}
