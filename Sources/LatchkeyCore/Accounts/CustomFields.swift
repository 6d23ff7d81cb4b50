import Foundation

/// Custom fields a client stores on its user (`age`, `nickname`, ...), kept with the attributes. A field's type is
/// fixed by its first write in an app (Parse keeps one schema per app), as an insert-if-absent server value, so two
/// first writes racing agree. A field named like a declared attribute is that attribute and must match its schema.
/// A user's fields are capped in number and size, so one account cannot grow without bound.
extension AccountRules {
    /// Names the dialect itself answers, which a client may not use for its own fields.
    static let reservedFieldNames: Set<String> = [
        "objectId", "createdAt", "updatedAt", "ACL", "username", "password", "email", "emailVerified", "authData",
        "sessionToken", "className", "error", "message", "code",
    ]

    /// Whether a client may name its own field so: `^[A-Za-z][0-9A-Za-z_]*$` (checked without a regex: every login
    /// answer filters the stored fields by it), at most 64 characters, and not one of the dialect's own keys.
    public static func isCustomFieldName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 64, !reservedFieldNames.contains(name) else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
        return isLetter(first) && name.utf8.allSatisfy { isLetter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") }
    }

    /// The type name a value is stored under (Parse's schema names).
    static func fieldType(_ value: JSONValue) -> String {
        switch value {
        case .string: "String"
        case .int, .double: "Number"
        case .bool: "Boolean"
        case .array: "Array"
        case .object(let map): map["__type"] == .string("Date") ? "Date" : "Object"
        case .null: "Null"
        }
    }

    /// The fields a write leaves on the user: `written` (name → resulting value, `.null` when removed) merged into
    /// `stored`. Checks names, declared attributes against their schema (normalized to their type), the per-user
    /// caps, then records each new field's type in `app` or refuses a write of another type, in `tx`.
    func checkCustomFields(_ written: [String: JSONValue], into stored: [String: JSONValue], app: String,
                           in tx: any Repositories) async throws -> [String: JSONValue] {
        if let invalid = written.keys.sorted().first(where: { !Self.isCustomFieldName($0) }) {
            throw LatchkeyError.invalidFieldName(invalid)
        }
        var fields = stored
        var invalid: [String] = []
        for (name, value) in written {
            guard value != .null else { fields[name] = nil; continue }
            if let definition = settings.attributes.first(where: { $0.name == name }) {
                guard let normalized = Self.normalize(value, as: definition) else { invalid.append(name); continue }
                fields[name] = normalized
            } else {
                fields[name] = value
            }
        }
        if !invalid.isEmpty { throw LatchkeyError.invalidAttributes(invalid.sorted()) }
        try requireWithinFieldLimits(fields)
        for (name, value) in written.sorted(by: { $0.key < $1.key }) where value != .null
            && !settings.attributes.contains(where: { $0.name == name }) {
            let type = Self.fieldType(value)
            let stored = try await tx.serverValues.insertIfAbsent(name: "field_type.\(app).\(name)", value: Data(type.utf8))
            let expected = String(decoding: stored, as: UTF8.self)
            guard expected == type else { throw LatchkeyError.fieldTypeMismatch(field: name, expected: expected, got: type) }
        }
        return fields
    }

    /// At most `maxCustomFields` fields taking at most `maxCustomFieldBytes` as JSON, attributes included.
    func requireWithinFieldLimits(_ fields: [String: JSONValue]) throws {
        let limits = settings.customFieldLimits
        guard fields.count <= limits.count, JSONWriter.bytes(fields).count <= limits.bytes else {
            throw LatchkeyError.fieldsOverLimit(maxFields: limits.count, maxBytes: limits.bytes)
        }
    }
}
