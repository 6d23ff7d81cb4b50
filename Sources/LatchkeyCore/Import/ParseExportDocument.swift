import Foundation

/// Parse Server's `_User` and `_Session` documents, as `mongoexport` writes them (`_id`, `_hashed_password`,
/// `_created_at` as `{"$date": …}`, pointers as `_p_user: "_User$id"`) or as the REST API and dashboard export
/// them (`objectId`, `createdAt`, `{"__type": "Pointer", …}`), turned into what the engine imports.
public enum ParseExportDocument {
    /// Keys that are the account itself or Parse's bookkeeping, never custom fields.
    static let accountKeys: Set<String> = [
        "objectId", "username", "email", "emailVerified", "password", "createdAt", "updatedAt", "authData", "ACL",
        "sessionToken", "className", "__type",
    ]

    public static func user(_ document: [String: JSONValue], line: Int) -> ImportedUser {
        var fields: [String: JSONValue] = [:]
        var identities: [ImportedIdentity] = []
        // REST exports hold `authData: {provider: {id, ...}}`; mongoexport one `_auth_data_<provider>` per provider.
        if case .object(let providers)? = document["authData"] {
            for (provider, entry) in providers { if let identity = identity(provider, entry) { identities.append(identity) } }
        }
        for (key, value) in document {
            if key.hasPrefix("_auth_data_") {
                if let identity = identity(String(key.dropFirst(11)), value) { identities.append(identity) }
                continue
            }
            if key.hasPrefix("_p_"), case .string(let pointer) = value {
                fields[String(key.dropFirst(3))] = pointerValue(pointer)
                continue
            }
            guard !key.hasPrefix("_"), !accountKeys.contains(key) else { continue }
            fields[key] = parseValue(value)
        }
        return ImportedUser(
            line: line, objectId: (document["_id"] ?? document["objectId"])?.stringValue,
            email: document["email"]?.stringValue, username: document["username"]?.stringValue,
            passwordHash: document["_hashed_password"]?.stringValue,
            emailVerified: document["emailVerified"] == .bool(true), status: .active, attributes: fields,
            createdAt: date(document["_created_at"] ?? document["createdAt"]),
            updatedAt: date(document["_updated_at"] ?? document["updatedAt"]),
            identities: identities.sorted { $0.provider < $1.provider })
    }

    /// A provider's entry with a string `id` (Parse Server stores the rest, tokens included, which are not kept).
    private static func identity(_ provider: String, _ entry: JSONValue) -> ImportedIdentity? {
        guard !provider.isEmpty, case .object(let fields) = entry, case .string(let id)? = fields["id"], !id.isEmpty else { return nil }
        return ImportedIdentity(provider: provider, subject: id)
    }

    /// Nil when the document names no token or no user.
    public static func session(_ document: [String: JSONValue], line: Int) -> ImportedSession? {
        guard let token = (document["_session_token"] ?? document["sessionToken"])?.stringValue,
              let userId = userPointer(document) else { return nil }
        var createdWith = "login:password"
        if case .object(let with)? = document["createdWith"] {
            createdWith = "\(with["action"]?.stringValue ?? "login"):\(with["authProvider"]?.stringValue ?? "password")"
        }
        return ImportedSession(line: line, id: (document["_id"] ?? document["objectId"])?.stringValue, token: token, userObjectId: userId,
                               createdAt: date(document["_created_at"] ?? document["createdAt"]),
                               expiresAt: date(document["_expires_at"] ?? document["expiresAt"]),
                               installationId: document["installationId"]?.stringValue, createdWith: createdWith)
    }

    private static func userPointer(_ document: [String: JSONValue]) -> String? {
        if case .string(let pointer)? = document["_p_user"], pointer.hasPrefix("_User$") { return String(pointer.dropFirst(6)) }
        if case .object(let pointer)? = document["user"], pointer["className"] == .string("_User") { return pointer["objectId"]?.stringValue }
        return nil
    }

    /// `Class$objectId`, as MongoDB stores a pointer, in the REST shape the Parse dialect answers with.
    static func pointerValue(_ stored: String) -> JSONValue {
        let parts = stored.split(separator: "$", maxSplits: 1)
        guard parts.count == 2 else { return .string(stored) }
        return .object(["__type": .string("Pointer"), "className": .string(String(parts[0])), "objectId": .string(String(parts[1]))])
    }

    /// MongoDB extended JSON (`$date`, `$numberLong`, …) in the values Parse clients read.
    static func parseValue(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map(parseValue))
        case .object(let map):
            if map.count == 1, let (key, inner) = map.first {
                switch key {
                case "$date": if let when = date(value) { return .object(["__type": .string("Date"), "iso": .string(ParseDate.string(when))]) }
                case "$numberLong", "$numberInt": if let text = inner.stringValue, let number = Int(text) { return .int(number) }
                case "$numberDouble": if let text = inner.stringValue, let number = Double(text), number.isFinite { return .double(number) }
                case "$oid": if let text = inner.stringValue { return .string(text) }
                default: break
                }
            }
            return .object(map.mapValues(parseValue))
        default: return value
        }
    }

    /// A time in any of the shapes exports use: ISO 8601 text, `{"$date": text or {"$numberLong": ms}}`,
    /// `{"__type": "Date", "iso": text}`, or milliseconds.
    public static func date(_ value: JSONValue?) -> Date? {
        switch value {
        case .string(let text)?: return ParseDate.parse(text)
        case .int(let ms)?: return Date(timeIntervalSince1970: Double(ms) / 1000)
        case .object(let map)?:
            if let inner = map["$date"] {
                if case .object(let long) = inner, let text = long["$numberLong"]?.stringValue, let ms = Int(text) {
                    return Date(timeIntervalSince1970: Double(ms) / 1000)
                }
                return date(inner)
            }
            if map["__type"] == .string("Date") { return date(map["iso"]) }
            return nil
        default: return nil
        }
    }
}
