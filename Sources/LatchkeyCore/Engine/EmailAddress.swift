import Foundation

/// Email addresses as account keys: one account per address, matched case-insensitively.
public enum EmailAddress {
    /// The stored form: trimmed and lowercased. Nil when it is not a plausible address.
    public static func normalize(_ raw: String) -> String? {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard email.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline }) else { return nil }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return nil }
        let domainLabels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard domainLabels.count >= 2, domainLabels.allSatisfy({ !$0.isEmpty && $0.count <= 63 }) else { return nil }
        return email
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
