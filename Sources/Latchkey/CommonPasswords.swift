import Foundation
import Logging

/// The shipped list of common passwords (config/common-passwords.txt: one per line, `#` comments).
enum CommonPasswords {
    static func load(_ path: String, logger: Logger) -> Set<String> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            logger.warning("common password list \(path) not found: only a built-in handful of passwords is refused")
            return []
        }
        let entries = text.split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        logger.info("loaded \(entries.count) common passwords from \(path)")
        return Set(entries)
    }
}
