import Hummingbird

/// `Authorization: Bearer <token>`, as every token-taking endpoint reads it. Nil when absent, empty or oversized
/// (none of our tokens comes near 8 KiB, so a bigger one is refused before any parsing).
enum BearerToken {
    static let maxLength = 8 * 1024

    static func read(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.utf8.count <= maxLength + 7 else { return nil }
        let bytes = header.utf8
        guard bytes.count > 7, bytes.prefix(6).map({ $0 | 0x20 }) == Array("bearer".utf8),
              bytes[bytes.index(bytes.startIndex, offsetBy: 6)] == UInt8(ascii: " ") else { return nil }
        // Spaces and tabs around the token are not part of it (byte-wise: Foundation's trimming was a visible cost).
        let isBlank = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        let rest = bytes.dropFirst(7)
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) }) else { return nil }
        return String(header[first...last])
    }
}
