import Hummingbird

/// `Authorization: Bearer <token>`, as every token-taking endpoint reads it. Nil when absent, empty or oversized
/// (none of our tokens comes near 8 KiB, so a bigger one is refused before any parsing).
enum BearerToken {
    static let maxLength = 8 * 1024

    static func read(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.count <= maxLength + 7,
              header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
