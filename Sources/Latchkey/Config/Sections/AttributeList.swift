import Foundation
import LatchkeyCore

/// `attributes`: the sign-up attribute schema, each `{name, type, required, regex, label}`.
enum AttributeList: ConfigSection {
    static let section = ""
    static let keys: [String] = []
    static let lists = ["attributes"]

    struct Entry: Decodable {
        var name: String
        var type: String?
        var required: Bool?
        var regex: String?
        var label: Label?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["name", "type", "required", "regex", "label"])
            name = try entry.required("name")
            type = try entry.optional("type")
            required = try entry.optional("required")
            regex = try entry.optional("regex")
            label = try entry.optional("label")
        }
    }

    /// `label: Postal code` (every language) or `label: {en: Postal code, de: Postleitzahl}`.
    struct Label: Decodable {
        var byLanguage: [String: String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                byLanguage = [AttributeDefinition.anyLanguage: text]
            } else {
                byLanguage = try container.decode([String: String].self)
            }
        }
    }

    static func read(_ config: SectionReader) throws -> [AttributeDefinition] {
        guard let entries = try config.list("attributes", of: [Entry].self) else { return [] }
        return try entries.enumerated().map { index, entry in
            let key = "attributes[\(index)]"
            guard !entry.name.isEmpty else { throw ConfigError(key: "\(key).name", message: "is required") }
            guard let kind = AttributeDefinition.Kind(rawValue: entry.type ?? "string") else {
                throw ConfigError(key: "\(key).type", message: "must be string, boolean or number")
            }
            if let regex = entry.regex, (try? NSRegularExpression(pattern: regex)) == nil {
                throw ConfigError(key: "\(key).regex", message: "is not a valid regular expression")
            }
            var attribute = AttributeDefinition(name: entry.name, kind: kind, required: entry.required ?? false, regex: entry.regex)
            attribute.labels = entry.label?.byLanguage ?? [:]
            return attribute
        }
    }
}
