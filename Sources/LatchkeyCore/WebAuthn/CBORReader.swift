import Foundation

/// Reads CBOR from untrusted bytes: definite lengths only, tags refused, bounded nesting, item count and size, maps
/// with unique keys. Every malformed input is a `WebAuthnRefusal.malformedCBOR` naming what was wrong, never a trap.
public struct CBORReader {
    public struct Limits: Sendable {
        public var maxDepth = 8
        public var maxItems = 512
        public var maxBytes = 16 * 1024
        public init() {}
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private(set) var offset: Int
    private var items = 0

    private init(_ bytes: [UInt8], limits: Limits) { self.bytes = bytes; self.limits = limits; offset = 0 }

    /// Exactly one value filling `bytes`.
    public static func decode(_ bytes: [UInt8], limits: Limits = Limits()) throws -> CBOR {
        let (value, used) = try decodePrefix(bytes, limits: limits)
        guard used == bytes.count else { throw WebAuthnRefusal.malformedCBOR("\(bytes.count - used) bytes after the value") }
        return value
    }

    /// One value at the start of `bytes` and how many bytes it took (authenticator data holds a COSE key followed by
    /// extensions).
    public static func decodePrefix(_ bytes: [UInt8], limits: Limits = Limits()) throws -> (CBOR, Int) {
        guard bytes.count <= limits.maxBytes else { throw WebAuthnRefusal.malformedCBOR("longer than \(limits.maxBytes) bytes") }
        var reader = CBORReader(bytes, limits: limits)
        let value = try reader.value(depth: 0)
        return (value, reader.offset)
    }

    private mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw WebAuthnRefusal.malformedCBOR("ends inside a value") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else { throw WebAuthnRefusal.malformedCBOR("a length runs past the end") }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    private mutating func argument(_ info: UInt8) throws -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return UInt64(try byte())
        case 25, 26, 27:
            let width = 1 << (info - 24)
            return try take(UInt64(width)).reduce(0) { $0 << 8 | UInt64($1) }
        case 31: throw WebAuthnRefusal.malformedCBOR("indefinite lengths are not accepted")
        default: throw WebAuthnRefusal.malformedCBOR("reserved additional information \(info)")
        }
    }

    private mutating func count(_ argument: UInt64) throws -> Int {
        guard argument <= UInt64(limits.maxItems) else { throw WebAuthnRefusal.malformedCBOR("more than \(limits.maxItems) items") }
        return Int(argument)
    }

    private mutating func value(depth: Int) throws -> CBOR {
        guard depth <= limits.maxDepth else { throw WebAuthnRefusal.malformedCBOR("nested deeper than \(limits.maxDepth)") }
        items += 1
        guard items <= limits.maxItems else { throw WebAuthnRefusal.malformedCBOR("more than \(limits.maxItems) items") }
        let initial = try byte()
        let major = initial >> 5, info = initial & 0x1f
        switch major {
        case 0: return .unsigned(try argument(info))
        case 1: return .negative(try argument(info))
        case 2: return .bytes(Array(try take(try argument(info))))
        case 3:
            guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else {
                throw WebAuthnRefusal.malformedCBOR("a text string is not UTF-8")
            }
            return .text(text)
        case 4:
            let n = try count(try argument(info))
            var elements: [CBOR] = []
            for _ in 0..<n { elements.append(try value(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let n = try count(try argument(info))
            var entries: [CBOREntry] = []
            for _ in 0..<n {
                let key = try value(depth: depth + 1)
                guard !entries.contains(where: { $0.key == key }) else { throw WebAuthnRefusal.malformedCBOR("a map repeats a key") }
                entries.append(CBOREntry(key: key, value: try value(depth: depth + 1)))
            }
            return .map(entries)
        case 6: throw WebAuthnRefusal.malformedCBOR("tags are not accepted")
        default: return try simple(info)
        }
    }

    private mutating func simple(_ info: UInt8) throws -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 24:
            let value = try byte()
            guard value >= 32 else { throw WebAuthnRefusal.malformedCBOR("a simple value below 32 in two bytes") }
            return .simple(value)
        case 25: return .float(Double(Float16(bitPattern: UInt16(try argument(info)))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try argument(info)))))
        case 27: return .float(Double(bitPattern: try argument(info)))
        case 31: throw WebAuthnRefusal.malformedCBOR("a break outside an indefinite length")
        case 0..<20: return .simple(info)
        default: throw WebAuthnRefusal.malformedCBOR("reserved simple value \(info)")
        }
    }
}
