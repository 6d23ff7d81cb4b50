import Foundation

/// A linear pre-check of untrusted JSON text before any decoder sees it: nesting depth and element count.
/// Decoding costs grow faster than the input with depth, and nothing Latchkey accepts nests more than a few
/// levels, so a body that nests deeper is refused before it costs anything.
public enum JSONShape {
    public struct Limits: Sendable {
        public var maxDepth: Int
        public var maxElements: Int
        public init(maxDepth: Int, maxElements: Int) { self.maxDepth = maxDepth; self.maxElements = maxElements }
        /// Request bodies and attribute maps: objects of scalars, with an argument list a few levels deep.
        public static let request = Limits(maxDepth: 8, maxElements: 2_000)
        /// Headers and claim sets of our own tokens.
        public static let token = Limits(maxDepth: 3, maxElements: 100)
    }

    /// The same over a body's bytes in place: iterating `Data` itself goes through its iterator byte by byte.
    public static func isWithin(_ data: Data, _ limits: Limits) -> Bool {
        data.withUnsafeBytes { isWithin($0, limits) }
    }

    /// True when `bytes` nests no deeper than the limits allow (the text may still be invalid JSON).
    public static func isWithin<Bytes: Sequence>(_ bytes: Bytes, _ limits: Limits) -> Bool where Bytes.Element == UInt8 {
        var depth = 0, elements = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                elements += 1
                if depth > limits.maxDepth { return false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ","):
                elements += 1
                if elements > limits.maxElements { return false }
            default: break
            }
        }
        return true
    }
}
