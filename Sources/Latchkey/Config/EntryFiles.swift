import Foundation

/// Files named inside list entries (`parse.apps[].master_key_file`, `identities.providers.<name>.ca_file`, ...): a
/// relative path is taken from the configuration file's folder, as `SectionReader.path` takes a key's.
enum EntryFiles {
    static func path(_ file: String, folder: String?) -> String {
        file.hasPrefix("/") || folder == nil ? file : (folder! as NSString).appendingPathComponent(file)
    }

    /// The path when it names a readable file; nil when not given.
    static func readable(_ file: String?, key: String, folder: String?) throws -> String? {
        guard let file else { return nil }
        let path = path(file, folder: folder)
        guard FileManager.default.isReadableFile(atPath: path) else { throw ConfigError(key: key, message: "cannot read \(path)") }
        return path
    }

    /// A secret file's first line (a trailing newline is the editor's, not the secret's); nil when not given.
    static func secret(_ file: String?, key: String, folder: String?) throws -> String? {
        guard let path = try readable(file, key: key, folder: folder) else { return nil }
        return (try? String(contentsOfFile: path, encoding: .utf8))?.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }
}
