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

    static func parse(_ text: String) -> Set<String> {
        Set(text.split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty })
    }
}
