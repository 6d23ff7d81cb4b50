import Foundation

/// Email addresses as account keys: one account per address, matched case-insensitively.
public enum EmailAddress {
    /// RFC 5322 "atext" plus the dot: what an unquoted local part may hold.
    private static let localBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-/=?^_`{|}~.".utf8)
    private static let domainBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-".utf8)

    /// The stored form: trimmed and lowercased. Nil unless it is a plain ASCII address (no control characters,
    /// no NUL, no quoting, no IDN) within the SMTP length limits, counted in bytes.
    public static func normalize(_ raw: String) -> String? { try? check(raw).get() }

    /// The stored form, or the first rule the address breaks: the one set of rules, so that what is refused and
    /// the reason given for it cannot drift apart.
    public static func check(_ raw: String) -> Result<String, EmailProblem> {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let bytes = Array(email.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return .failure(.notASCII) }
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1 else { return .failure(.noAt) }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard bytes.count <= 254, local.count <= 64, labels.allSatisfy({ $0.count <= 63 }) else { return .failure(.tooLong) }
        guard local.allSatisfy(localBytes.contains), local.first != UInt8(ascii: "."), local.last != UInt8(ascii: "."),
              !zip(local, local.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") })
        else { return .failure(.localPart) }
        guard labels.count >= 2, labels.allSatisfy({ label in
            !label.isEmpty && label.allSatisfy(domainBytes.contains) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
        }) else { return .failure(.domain) }
        return .success(email)
    }

    /// "c***r@co**o**o.com"-style label: enough for the user to recognise, too little to harvest.
    public static func mask(_ email: String) -> String {
        let parts = email.split(separator: "@")
        guard parts.count == 2 else { return "***" }
        func maskPart(_ s: Substring) -> String {
            guard s.count > 2 else { return String(s.prefix(1)) + "*" }
            return String(s.first!) + String(repeating: "*", count: min(s.count - 2, 6)) + String(s.last!)
        }
        let domain = parts[1]
        guard let dot = domain.lastIndex(of: ".") else { return maskPart(parts[0]) + "@" + maskPart(domain) }
        return maskPart(parts[0]) + "@" + maskPart(domain[..<dot]) + String(domain[dot...])
    }
}

/// Text from the outside shown on an operator's terminal: control characters (ESC sequences, NUL, CR) escaped.
public enum TerminalText {
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += String(format: "\\x%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
