import Foundation
import NIOCore

/// The fields of an `application/x-www-form-urlencoded` body (WHATWG URL §5.1), read flat: every form Latchkey
/// takes is a handful of named strings. Hummingbird's form decoder builds a tree for `a[b][c]` keys and then runs
/// Decodable over it, which cost 16 µs of a 285 µs refresh grant; reading the pairs straight into a dictionary
/// costs a fraction of that. Keys are taken literally, so `a[b]` is simply a field nobody asked for.
struct FormFields: Sendable {
    private var values: [String: String] = [:]

    /// Refuses a body with an undecodable escape (`%zz`, or bytes that are not UTF-8 once decoded) or a field sent
    /// twice: either is a client bug that a first-one-wins or last-one-wins rule would hide.
    init(_ buffer: ByteBuffer) throws(MalformedRequest) {
        for pair in buffer.readableBytesView.split(separator: UInt8(ascii: "&")) {
            // A pair without "=" carries no value; browsers never send one and the old decoder skipped it too.
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            guard let key = Self.decoded(pair[pair.startIndex..<equals], plusIsSpace: false),
                  let value = Self.decoded(pair[(equals + 1)...], plusIsSpace: true),
                  values.updateValue(value, forKey: key) == nil
            else { throw MalformedRequest(what: "body") }
        }
    }

    subscript(_ name: String) -> String? { values[name] }

    /// Every field, for a form whose names are not fixed (`/authorize` by POST, a sign-up's attributes).
    var pairs: [(String, String)] { values.map { ($0.key, $0.value) } }

    /// Percent-decodes one key or value; nil for a malformed escape or for bytes that are not UTF-8. Done on the
    /// bytes: Foundation's `removingPercentEncoding` and `replacingOccurrences` go through CFString on Linux and
    /// cost more than the rest of the form put together.
    private static func decoded(_ bytes: ByteBufferView.SubSequence, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - index >= 3, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    return nil
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
