import Configuration
import Foundation
import Yams

public struct ConfigError: Error, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "\(key): \(message)" }
}

/// Where the configuration comes from: the YAML file and the `LATCHKEY_*` environment, read through
/// swift-configuration (environment first, then the file). Lists of mappings (clients, attributes, apps,
/// functions), which its key-value model cannot express, are kept as YAML nodes for `ConfigList` to decode.
/// Unknown keys in the file and `LATCHKEY_` variables that name no key are refused here, before any value is read.
final class ConfigSource {
    let reader: ConfigReader
    /// The folder of the configuration file; relative paths in the file are relative to it.
    let fileDirectory: String?
    private let environmentReader: ConfigReader
    /// Declared keys the file sets and keys the environment sets.
    private let fileKeys: Set<String>
    private let environmentKeys: Set<String>
    private let lists: [String: Node]
    /// Every key a component asked for (the schema test compares it with the declared sections).
    private(set) var keysRead = Set<String>()

    init(yaml: String?, fileDirectory: String? = nil, environment: [String: String], sections: [any ConfigSection.Type]) throws {
        self.fileDirectory = fileDirectory
        let declared = Set(sections.flatMap { section in section.keys.map { Self.join(section.section, $0) } })
        let lists = sections.flatMap { section in section.lists.map { Self.join(section.section, $0) } }
        var root = Node.Mapping([])
        if let yaml, !yaml.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, let node = try Yams.compose(yaml: yaml) {
            guard let mapping = node.mapping else { throw ConfigError(key: "(file)", message: "the top level must be a mapping") }
            root = mapping
        }
        var fileKeys = Set<String>()
        try Self.checkKnown(root, prefix: "", declared: declared, lists: Set(lists), known: declared.union(lists), found: &fileKeys)
        self.fileKeys = fileKeys

        // A misspelt variable would otherwise be ignored without a word, like an unknown YAML key must not be.
        let names = Dictionary(uniqueKeysWithValues: (declared.union(lists)).map { (Self.environmentName($0), $0) })
        if let unknown = environment.keys.filter({ $0.hasPrefix("LATCHKEY_") && names[$0] == nil }).sorted().first {
            throw ConfigError(key: unknown, message: KeySuggestion.unknown("names no configuration key", unknown, among: names.keys, separator: "_"))
        }
        environmentKeys = Set(environment.keys.compactMap { names[$0] })

        var found = [String: Node]()
        for path in lists {
            let fromFile = Self.remove(path, from: &root)
            if let text = environment[Self.environmentName(path)] {
                guard let node = try? Yams.compose(yaml: text) else {
                    throw ConfigError(key: Self.environmentName(path), message: "not valid JSON or YAML flow text")
                }
                found[path] = node
            } else {
                found[path] = fromFile
            }
        }
        self.lists = found

        let environmentProvider = EnvironmentVariablesProvider(
            environmentVariables: environment.filter { $0.key.hasPrefix("LATCHKEY_") }).prefixKeys(with: "latchkey")
        environmentReader = ConfigReader(provider: environmentProvider)
        var providers: [any ConfigProvider] = [environmentProvider]
        if !root.isEmpty {
            let data = Data(try Yams.serialize(node: .mapping(root)).utf8)
            providers.append(FixedSnapshotProvider(
                fixed: try YAMLSnapshot(data: data.bytes, providerName: "file", parsingOptions: .default)))
        }
        reader = ConfigReader(providers: providers)
    }

    /// The scoped reader a component reads its section with.
    func section(_ path: String) -> SectionReader { SectionReader(path: path, source: self) }

    func isSet(_ key: String) -> Bool { environmentKeys.contains(key) || fileKeys.contains(key) }
    func isFromEnvironment(_ key: String) -> Bool { environmentKeys.contains(key) }
    func noteRead(_ key: String) { keysRead.insert(key) }

    /// The raw text of an environment value (lists from the environment are written `a,b` or `[a, b]`).
    func environmentText(_ key: String) -> String? { environmentReader.string(forKey: ConfigKey(key)) }

    /// A list of mappings (`clients`, `app_services.apps`, ...), from the environment when it sets one.
    func list(_ path: String) -> Node? {
        noteRead(path)
        return lists[path]
    }

    static func join(_ section: String, _ key: String) -> String { section.isEmpty ? key : key.isEmpty ? section : "\(section).\(key)" }

    /// server.tls.key -> LATCHKEY_SERVER_TLS_KEY (the name swift-configuration's environment provider looks up).
    static func environmentName(_ key: String) -> String {
        "LATCHKEY_" + key.replacingOccurrences(of: ".", with: "_").uppercased()
    }

    /// Walks the file: every node must be a declared key, a list section, or a mapping on the way to one.
    private static func checkKnown(_ mapping: Node.Mapping, prefix: String, declared: Set<String>, lists: Set<String>,
                                   known: Set<String>, found: inout Set<String>) throws {
        for (keyNode, value) in mapping {
            guard let name = keyNode.string else { throw ConfigError(key: prefix.isEmpty ? "(file)" : prefix, message: "keys must be strings") }
            let path = join(prefix, name)
            if lists.contains(path) { continue }
            if declared.contains(path) {
                if value.mapping != nil { throw ConfigError(key: path, message: "must be a value, not a mapping") }
                for (index, item) in (value.sequence ?? []).enumerated() where item.scalar == nil {
                    throw ConfigError(key: "\(path)[\(index)]", message: "must be a string")
                }
                found.insert(path)
                continue
            }
            guard known.contains(where: { $0.hasPrefix(path + ".") }), let child = value.mapping else {
                throw ConfigError(key: path, message: KeySuggestion.unknown("unknown key", path, among: known))
            }
            try checkKnown(child, prefix: path, declared: declared, lists: lists, known: known, found: &found)
        }
    }

    private static func remove(_ path: String, from mapping: inout Node.Mapping) -> Node? {
        let parts = path.split(separator: ".").map(String.init)
        guard let head = parts.first, let index = mapping.firstIndex(where: { $0.key.string == head }) else { return nil }
        let pair = mapping[index]
        if parts.count == 1 {
            mapping = Node.Mapping(mapping.filter { $0.key.string != head }.map { ($0.key, $0.value) })
            return pair.value
        }
        guard var child = pair.value.mapping else { return nil }
        let node = remove(parts.dropFirst().joined(separator: "."), from: &child)
        mapping = Node.Mapping(mapping.map { ($0.key, $0.key.string == head ? Node.mapping(child) : $0.value) })
        return node
    }
}
