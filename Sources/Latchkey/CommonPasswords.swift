import Foundation
import Logging

/// The list of common passwords refused at sign-up and reset: the one built into the binary
/// (config/common-passwords.txt at build time), or `passwords.common_list`. One per line, `#` comments.
enum CommonPasswords {
    static func load(_ path: String?) throws -> Set<String> {
        guard let path else { return parse(EmbeddedDefaults.commonPasswords) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            // Running without the list would silently weaken the policy: refuse to start instead.
            throw StartupError(key: "passwords.common_list", message: "cannot read \(path)", exitCode: .config)
        }
        let entries = parse(text)
        guard !entries.isEmpty else {
            throw StartupError(key: "passwords.common_list", message: "\(path) lists no passwords", exitCode: .config)
        }
        return entries
    }

    /// Split on bytes, not Characters: the built-in list is parsed at every start, and walking its megabyte by grapheme
    /// cluster (with Foundation's trimming) was an eighth of the time from start to ready.
    static func parse(_ text: String) -> Set<String> {
        var entries = Set<String>()
        for line in text.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) where line.first != UInt8(ascii: "#") {
            var start = line.startIndex, end = line.endIndex
            while start < end, isBlank(line[start]) { start = line.index(after: start) }
            while end > start, isBlank(line[line.index(before: end)]) { end = line.index(before: end) }
            guard start < end else { continue }
            let entry = String(decoding: line[start..<end], as: UTF8.self)
            entries.insert(entry.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }) ? entry.lowercased() : entry)
        }
        return entries
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
