// Writes EmbeddedDefaults.swift for the EmbedDefaults build plugin: usage EmbedDefaultsTool PACKAGE_ROOT OUTPUT.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: EmbedDefaultsTool PACKAGE_ROOT OUTPUT\n".utf8))
    exit(64)
}
let root = URL(fileURLWithPath: arguments[1])

func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

/// A raw multi-line literal that holds `text` exactly, whatever quotes or backslashes it contains.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    // A multi-line literal drops the newline before its closing delimiter: one more keeps the text exact.
    return "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)"
}

/// Relative path without the suffix -> text, sorted by path.
func tree(_ folder: String, _ suffix: String) throws -> [(String, String)] {
    let base = root.appending(path: folder)
    var entries: [(String, String)] = []
    let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
    while let url = walker?.nextObject() as? URL {
        guard url.lastPathComponent.hasSuffix(suffix) else { continue }
        let relative = url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1)
        entries.append((String(relative.dropLast(suffix.count)), try read(url)))
    }
    return entries.sorted { $0.0 < $1.0 }
}

var out = ["// Generated at build time by the EmbedDefaults plugin from Migrations/, config/ and openapi/.", "",
           "/// What the binary needs by default, carried inside it. Configuration may point at files instead.",
           "enum EmbeddedDefaults {"]
func table(_ name: String, _ doc: String, _ entries: [(String, String)]) -> [String] {
    ["    /// \(doc)", "    static let \(name): [(name: String, text: String)] = ["]
        + entries.map { key, text in "        (\"\(key)\", \(literal(text)))," } + ["    ]"]
}
out += table("migrations", "Migrations/sqlite/*.sql, in order.", try tree("Migrations/sqlite", ".sql"))
out += table("postgresMigrations", "Migrations/postgres/*.sql, in order.", try tree("Migrations/postgres", ".sql"))
out += table("mailTemplates", "config/templates/<locale>/<kind>.<part>.mustache", try tree("config/templates", ".mustache"))
out += table("pages", "config/pages/*.mustache", try tree("config/pages", ".mustache"))
out += table("pageStrings", "config/pages/<locale>.strings: the pages' words in each language", try tree("config/pages", ".strings"))
out += table("consolePages", "config/console/*.mustache", try tree("config/console", ".mustache"))
out += table("consoleStrings", "config/console/<locale>.strings: the console's words in each language", try tree("config/console", ".strings"))
out.append("    /// config/console/style.css")
out.append("    static let consoleStyle = \(literal(try read(root.appending(path: "config/console/style.css"))))")
out.append("    /// config/pages/style.css")
out.append("    static let pageStyle = \(literal(try read(root.appending(path: "config/pages/style.css"))))")
out.append("    /// config/pages/passkeys.js")
out.append("    static let passkeyScript = \(literal(try read(root.appending(path: "config/pages/passkeys.js"))))")
out.append("    /// config/common-passwords.txt")
out.append("    static let commonPasswords = \(literal(try read(root.appending(path: "config/common-passwords.txt"))))")
// Compacted, with its keys sorted: what the server serves (after adjusting it to the deployment).
let document = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appending(path: "openapi/openapi.json")))
let compact = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
out.append("    /// openapi/openapi.json (written by scripts/openapi.py), compacted")
out.append("    static let openAPIDocument = \(literal(String(decoding: compact, as: UTF8.self)))")
out.append("}")
try (out.joined(separator: "\n") + "\n").write(to: URL(fileURLWithPath: arguments[2]), atomically: true, encoding: .utf8)
