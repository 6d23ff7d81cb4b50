import Foundation
import LatchkeyCore

/// `attributes`: the sign-up attribute schema, each `{name, type, required, regex}`.
enum AttributeList: ConfigSection {
    static let section = ""
    static let keys: [String] = []
    static let lists = ["attributes"]

    struct Entry: Decodable {
        var name: String
        var type: String?
        var required: Bool?
        var regex: String?

        init(from decoder: any Decoder) throws {
            let entry = try decoder.entryKeys(known: ["name", "type", "required", "regex"])
            name = try entry.required("name")
            type = try entry.optional("type")
            required = try entry.optional("required")
            regex = try entry.optional("regex")
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
            return AttributeDefinition(name: entry.name, kind: kind, required: entry.required ?? false, regex: entry.regex)
        }
    }
}
