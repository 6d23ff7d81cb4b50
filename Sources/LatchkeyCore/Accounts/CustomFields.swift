import Foundation

/// Custom fields a client stores on its user (`age`, `nickname`, ...), kept with the attributes. A field's type is
/// fixed by its first write, deployment-wide, as an insert-if-absent server value, so two first writes racing agree.
extension LatchkeyEngine {
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

    /// Checks names, then records each new field's type or refuses a write of another type, in `tx`.
    func checkCustomFields(_ fields: [String: JSONValue], in tx: any Repositories) async throws {
        if let invalid = fields.keys.sorted().first(where: { !Self.isCustomFieldName($0) }) {
            throw LatchkeyError.invalidFieldName(invalid)
        }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where value != .null {
            let type = Self.fieldType(value)
            let stored = try await tx.serverValues.insertIfAbsent(name: "field_type.\(name)", value: Data(type.utf8))
            let expected = String(decoding: stored, as: UTF8.self)
            guard expected == type else { throw LatchkeyError.fieldTypeMismatch(field: name, expected: expected, got: type) }
        }
    }
}
