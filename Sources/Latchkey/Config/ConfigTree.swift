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
    /// Keys set by the environment: their paths are relative to the working directory, not the file's.
    private var fromEnvironment = Set<String>()
    /// The folder of the configuration file; relative paths in the file are relative to it.
    let fileDirectory: String?

    init(yaml: String?, fileDirectory: String? = nil, environment: [String: String], knownSections: [String: [String]]) throws {
        self.fileDirectory = fileDirectory
        if let yaml, !yaml.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            guard let parsed = try Yams.load(yaml: yaml) else { root = [:]; return }
            guard let map = parsed as? [String: Any] else { throw ConfigError(key: "(file)", message: "the top level must be a mapping") }
            root = map
        } else {
            root = [:]
        }
        try applyEnvironment(environment, knownSections: knownSections)
    }

    /// LATCHKEY_SERVER_PORT=9000 overrides server.port (LATCHKEY_SERVER_TLS_KEY: server.tls.key);
    /// LATCHKEY_CLIENTS='[...]' replaces a whole list. Values are read as YAML scalars or flow collections,
    /// so numbers and booleans keep their types.
    private func applyEnvironment(_ env: [String: String], knownSections: [String: [String]]) throws {
        var known = Set<String>()
        for (section, keys) in knownSections {
            for key in keys.isEmpty ? [""] : keys {
                let path = key.isEmpty ? [section] : [section] + key.split(separator: ".").map(String.init)
                let name = "LATCHKEY_" + path.joined(separator: "_").uppercased()
                known.insert(name)
                guard let raw = env[name] else { continue }
                root = Self.setting(try parseEnvValue(raw, name: name), at: path[...], in: root)
                fromEnvironment.insert(path.joined(separator: "."))
            }
        }
        // A misspelt variable would otherwise be ignored without a word, like an unknown YAML key must not be.
        if let unknown = env.keys.filter({ $0.hasPrefix("LATCHKEY_") && !known.contains($0) }).sorted().first {
            throw ConfigError(key: unknown, message: "names no configuration key")
        }
    }

    /// A file path: relative paths written in the file are taken from the file's folder, the environment's and
    /// the defaults' from the working directory. Nil when not set and no default.
    func path(_ key: String, default value: String?) throws -> String? {
        guard lookup(key) != nil else { return value }
        let raw = try string(key, default: "")
        guard !raw.isEmpty else { throw ConfigError(key: key, message: "must not be empty") }
        guard !raw.hasPrefix("/"), !fromEnvironment.contains(key), let base = fileDirectory else { return raw }
        return (base as NSString).appendingPathComponent(raw)
    }

    private static func setting(_ value: Any, at path: ArraySlice<String>, in map: [String: Any]) -> [String: Any] {
        var map = map
        guard let head = path.first else { return map }
        if path.count == 1 { map[head] = value } else {
            map[head] = setting(value, at: path.dropFirst(), in: map[head] as? [String: Any] ?? [:])
        }
        return map
    }

    private func parseEnvValue(_ raw: String, name: String) throws -> Any {
        do { return try Yams.load(yaml: raw) ?? "" } catch { throw ConfigError(key: name, message: "not a valid value") }
    }

    private func lookup(_ path: String) -> Any? {
        let parts = path.split(separator: ".").map(String.init)
        for end in 1...parts.count { consumed.insert(parts[0..<end].joined(separator: ".")) }
        var node: Any? = root
        for part in parts { node = (node as? [String: Any])?[part] }
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

    /// A whole subtree read as is (e.g. `functions`, whose keys are the operator's names).
    func rawMap(_ path: String) throws -> [String: Any]? {
        guard let raw = lookup(path) else { return nil }
        guard let map = raw as? [String: Any] else { throw ConfigError(key: path, message: "must be a mapping") }
        func consume(_ node: [String: Any], _ prefix: String) {
            for (key, value) in node {
                consumed.insert("\(prefix).\(key)")
                if let child = value as? [String: Any] { consume(child, "\(prefix).\(key)") }
            }
        }
        consume(map, path)
        return map
    }

    func stringList(_ path: String, default value: [String]) throws -> [String] {
        guard let raw = lookup(path) else { return value }
        guard let items = raw as? [Any] else { throw ConfigError(key: path, message: "must be a list") }
        return try items.enumerated().map { index, item in
            guard let s = item as? String else { throw ConfigError(key: "\(path)[\(index)]", message: "must be a string") }
            return s
        }
    }

    /// Every key present in the file or environment that no getter asked for.
    func unknownKeys() -> [String] {
        func walk(_ node: [String: Any], prefix: String) -> [String] {
            node.flatMap { key, value -> [String] in
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                guard consumed.contains(path) else { return [path] }
                if let child = value as? [String: Any] { return walk(child, prefix: path) }
                return []
            }
        }
        return walk(root, prefix: "").sorted()
    }
}
