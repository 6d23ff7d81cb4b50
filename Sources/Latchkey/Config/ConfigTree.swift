import Foundation
import Yams

public struct ConfigError: Error, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "\(key): \(message)" }
}

/// The parsed YAML with `LATCHKEY_*` environment overrides applied, read through typed getters that name
/// the offending key on any mistake. Keys nobody read are reported as unknown (typos fail loudly).
final class ConfigTree {
    private var root: [String: Any]
    private var consumed = Set<String>()

    init(yaml: String?, environment: [String: String], knownSections: [String: [String]]) throws {
        if let yaml, !yaml.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            guard let parsed = try Yams.load(yaml: yaml) else { root = [:]; return }
            guard let map = parsed as? [String: Any] else { throw ConfigError(key: "(file)", message: "the top level must be a mapping") }
            root = map
        } else {
            root = [:]
        }
        try applyEnvironment(environment, knownSections: knownSections)
    }

    /// LATCHKEY_SERVER_PORT=9000 overrides server.port; LATCHKEY_CLIENTS='[...]' replaces a whole list.
    /// Values are read as YAML scalars or flow collections, so numbers and booleans keep their types.
    private func applyEnvironment(_ env: [String: String], knownSections: [String: [String]]) throws {
        for (section, keys) in knownSections {
            if keys.isEmpty {
                let name = "LATCHKEY_" + section.uppercased()
                if let raw = env[name] { root[section] = try parseEnvValue(raw, name: name) }
                continue
            }
            for key in keys {
                let name = "LATCHKEY_\(section)_\(key)".uppercased()
                guard let raw = env[name] else { continue }
                var map = root[section] as? [String: Any] ?? [:]
                map[key] = try parseEnvValue(raw, name: name)
                root[section] = map
            }
        }
    }

    private func parseEnvValue(_ raw: String, name: String) throws -> Any {
        do { return try Yams.load(yaml: raw) ?? "" } catch { throw ConfigError(key: name, message: "not a valid value") }
    }

    private func lookup(_ path: String) -> Any? {
        consumed.insert(path)
        let parts = path.split(separator: ".").map(String.init)
        var node: Any? = root
        for part in parts {
            if parts.count > 1, part == parts.first { consumed.insert(part) }
            node = (node as? [String: Any])?[part]
        }
        return node
    }

    func string(_ path: String, default value: String) throws -> String {
        guard let raw = lookup(path) else { return value }
        if let s = raw as? String { return s }
        if let i = raw as? Int { return String(i) }
        throw ConfigError(key: path, message: "must be a string")
    }

    func int(_ path: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = lookup(path) else { return value }
        guard let i = raw as? Int, !(raw is Bool) else { throw ConfigError(key: path, message: "must be an integer") }
        guard range.contains(i) else { throw ConfigError(key: path, message: "must be between \(range.lowerBound) and \(range.upperBound)") }
        return i
    }

    func bool(_ path: String, default value: Bool) throws -> Bool {
        guard let raw = lookup(path) else { return value }
        guard let b = raw as? Bool else { throw ConfigError(key: path, message: "must be true or false") }
        return b
    }

    func list(_ path: String) throws -> [[String: Any]]? {
        guard let raw = lookup(path) else { return nil }
        guard let items = raw as? [Any] else { throw ConfigError(key: path, message: "must be a list") }
        return try items.enumerated().map { index, item in
            guard let map = item as? [String: Any] else { throw ConfigError(key: "\(path)[\(index)]", message: "must be a mapping") }
            return map
        }
    }

    /// Every key present in the file or environment that no getter asked for.
    func unknownKeys() -> [String] {
        var unknown: [String] = []
        for (section, value) in root {
            guard consumed.contains(section) else { unknown.append(section); continue }
            if let map = value as? [String: Any] {
                unknown += map.keys.map { "\(section).\($0)" }.filter { !consumed.contains($0) }
            }
        }
        return unknown.sorted()
    }
}
