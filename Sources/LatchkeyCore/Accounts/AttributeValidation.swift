import Foundation

/// Sign-up attributes against the operator's schema. Unknown names are ignored, as the native API does.
extension AccountRules {
    /// The known attributes, normalized to their declared type; throws `.invalidAttributes` naming every bad one.
    func validateAttributes(_ given: [String: JSONValue]) throws -> [String: JSONValue] {
        var accepted: [String: JSONValue] = [:]
        var invalid: [String] = []
        for definition in settings.attributes {
            guard let value = given[definition.name] else { continue }
            if let normalized = Self.normalize(value, as: definition) { accepted[definition.name] = normalized }
            else { invalid.append(definition.name) }
        }
        if !invalid.isEmpty { throw LatchkeyError.invalidAttributes(invalid) }
        return accepted
    }

    func missingRequiredAttributes(_ collected: [String: JSONValue]) -> [AttributeDefinition] {
        settings.attributes.filter { $0.required && collected[$0.name] == nil }
    }

    static func normalize(_ value: JSONValue, as definition: AttributeDefinition) -> JSONValue? {
        switch definition.kind {
        case .string:
            let text: String
            switch value {
            case .string(let s): text = s
            case .int(let i): text = String(i)   // apps pass numbers for numeric-looking strings
            case .double(let d): text = String(d)
            default: return nil
            }
            guard !text.isEmpty, text.count <= 1024 else { return nil }
            if let pattern = definition.regex {
                guard text.range(of: pattern, options: .regularExpression) != nil else { return nil }
            }
            return .string(text)
        case .boolean:
            switch value {
            case .bool: return value
            case .string(let s) where s == "true" || s == "false": return .bool(s == "true")
            default: return nil
            }
        case .number:
            switch value {
            case .int, .double: return value
            case .string(let s): return Int(s).map(JSONValue.int) ?? Double(s).map(JSONValue.double)
            default: return nil
            }
        }
    }
}
