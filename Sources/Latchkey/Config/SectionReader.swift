import Configuration
import Foundation
import Yams

/// One component's part of the configuration: where it lives and which keys it reads. The loader refuses any
/// key in the file or `LATCHKEY_*` variable that no section declares (a test checks that each declared key is read).
protocol ConfigSection: Sendable {
    /// The section's path ("mail.smtp"); "" for top-level keys.
    static var section: String { get }
    /// Keys relative to the section; each is also `LATCHKEY_<SECTION>_<KEY>`.
    static var keys: [String] { get }
    /// Lists of mappings relative to the section, decoded whole (`LATCHKEY_CLIENTS` replaces the whole list).
    static var lists: [String] { get }
}

extension ConfigSection {
    static var lists: [String] { [] }
}

/// Typed reads of one section through swift-configuration, turning every mistake into a `ConfigError` that names
/// the full key. Values come from the environment first, then the file, then the default given here.
struct SectionReader {
    let path: String
    let source: ConfigSource

    func key(_ name: String) -> String { ConfigSource.join(path, name) }
    func error(_ name: String, _ message: String) -> ConfigError { ConfigError(key: key(name), message: message) }

    /// Nil when the key is not set; else `read` with swift-configuration's throwing getter, any failure naming the key.
    private func present<Value>(_ name: String, _ expected: String, _ read: (ConfigKey) throws -> Value) throws -> Value? {
        let full = key(name)
        source.noteRead(full)
        guard source.isSet(full) else { return nil }
        do { return try read(ConfigKey(full)) } catch { throw ConfigError(key: full, message: "must be \(expected)") }
    }

    func string(_ name: String, default value: String, secret: Bool = false) throws -> String {
        try present(name, "a string") { try source.reader.requiredString(forKey: $0, isSecret: secret) } ?? value
    }

    func int(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let number = try present(name, "an integer", { try source.reader.requiredInt(forKey: $0) }) else { return value }
        guard range.contains(number) else { throw error(name, "must be between \(range.lowerBound) and \(range.upperBound)") }
        return number
    }

    func bool(_ name: String, default value: Bool) throws -> Bool {
        try present(name, "true or false") { try source.reader.requiredBool(forKey: $0) } ?? value
    }

    /// A list of strings: a YAML sequence in the file; `a,b` or `[a, b]` in the environment.
    func stringList(_ name: String, default value: [String]) throws -> [String] {
        let full = key(name)
        if source.isFromEnvironment(full), let text = source.environmentText(full),
           text.hasPrefix("["), let node = try? Yams.compose(yaml: text), let items = node.sequence {
            source.noteRead(full)
            return try items.enumerated().map { index, item in
                guard let text = item.string else { throw ConfigError(key: "\(full)[\(index)]", message: "must be a string") }
                return text
            }
        }
        return try present(name, "a list of strings") { try source.reader.requiredStringArray(forKey: $0) } ?? value
    }

    /// A file path: relative paths written in the file are taken from the file's folder, the environment's and
    /// the defaults' from the working directory. Nil when not set and no default.
    func path(_ name: String, default value: String?) throws -> String? {
        guard let raw = try present(name, "a string", { try source.reader.requiredString(forKey: $0) }) else { return value }
        guard !raw.isEmpty else { throw error(name, "must not be empty") }
        guard !raw.hasPrefix("/"), !source.isFromEnvironment(key(name)), let base = source.fileDirectory else { return raw }
        return (base as NSString).appendingPathComponent(raw)
    }

    /// A file path that must name a readable file when set.
    func readableFile(_ name: String) throws -> String? {
        guard let file = try path(name, default: nil) else { return nil }
        guard FileManager.default.isReadableFile(atPath: file) else { throw error(name, "cannot read \(file)") }
        return file
    }

    /// A list of mappings decoded into `Entry` (see `ConfigList`); nil when neither file nor environment sets it.
    func list<Entry: Decodable>(_ name: String, of type: Entry.Type) throws -> Entry? {
        guard let node = source.list(key(name)) else { return nil }
        return try ConfigList.decode(type, from: node, key: key(name))
    }
}
