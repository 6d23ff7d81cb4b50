import Foundation
import Yams

/// The lists of mappings in the configuration (clients, attributes, app_services.apps, functions), decoded with
/// Yams into small `Decodable` entries. Decoding errors become `ConfigError`s that name the key
/// (`clients[0].scopes: must be a list of strings`); entries refuse keys they do not know.
enum ConfigList {
    static func decode<Entry: Decodable>(_ type: Entry.Type, from node: Node, key: String) throws -> Entry {
        do {
            return try YAMLDecoder().decode(type, from: node)
        } catch let error as DecodingError {
            throw configError(error, root: key)
        }
    }

    private static func configError(_ error: DecodingError, root: String) -> ConfigError {
        func name(_ path: [any CodingKey]) -> String {
            path.reduce(root) { key, part in part.intValue.map { "\(key)[\($0)]" } ?? "\(key).\(part.stringValue)" }
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigError(key: name(context.codingPath), message: "must be \(describe(type))")
        case .valueNotFound(_, let context):
            return ConfigError(key: name(context.codingPath), message: "is required")
        case .keyNotFound(let missing, let context):
            return ConfigError(key: name(context.codingPath + [missing]), message: "is required")
        case .dataCorrupted(let context):
            return ConfigError(key: name(context.codingPath), message: context.debugDescription)
        @unknown default:
            return ConfigError(key: root, message: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is [String].Type: "a list of strings"
        case is [Any].Type, is Node.Sequence.Type: "a list"
        case is Node.Mapping.Type: "a mapping"
        default: "a single value"
        }
    }
}

/// The coding key of an entry's own keys, so that an entry can list what it found and refuse the rest.
struct EntryKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// The entry's keys, after refusing any not in `known` (a typo must not be ignored without a word).
    func entryKeys(known: Set<String>) throws -> KeyedDecodingContainer<EntryKey> {
        let container = try container(keyedBy: EntryKey.self)
        if let extra = container.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [extra], debugDescription: KeySuggestion.unknown("unknown key", extra.stringValue, among: known)))
        }
        return container
    }
}

extension KeyedDecodingContainer<EntryKey> {
    func optional<Value: Decodable>(_ name: String, as type: Value.Type = Value.self) throws -> Value? {
        try decodeIfPresent(type, forKey: EntryKey(stringValue: name))
    }

    func required<Value: Decodable>(_ name: String, as type: Value.Type = Value.self) throws -> Value {
        try decode(type, forKey: EntryKey(stringValue: name))
    }
}
