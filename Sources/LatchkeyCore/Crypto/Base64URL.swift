import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and tokens use it. Encoding is a table walk straight into
/// the string's bytes: going through Foundation's base64, then swapping the alphabet and dropping the padding,
/// cost 3-4 % of a refresh (two tokens, a signature and a refresh token each). Decoding stays with Foundation.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode<D: Collection>(_ bytes: D) -> String where D.Element == UInt8 {
        let count = bytes.count
        return String(unsafeUninitializedCapacity: (count * 4 + 2) / 3) { out in
            var written = 0
            var index = bytes.startIndex
            var remaining = count
            while remaining > 0 {
                let b0 = UInt32(bytes[index]); index = bytes.index(after: index)
                let b1 = remaining > 1 ? UInt32(bytes[index]) : 0
                if remaining > 1 { index = bytes.index(after: index) }
                let b2 = remaining > 2 ? UInt32(bytes[index]) : 0
                if remaining > 2 { index = bytes.index(after: index) }
                let group = b0 << 16 | b1 << 8 | b2
                let produced = min(remaining, 3) + 1
                for k in 0..<produced { out[written + k] = alphabet[Int(group >> (18 - 6 * UInt32(k)) & 0x3F)] }
                written += produced
                remaining -= 3
            }
            return written
        }
    }

    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="): return nil
            default: bytes.append(byte)
            }
        }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        guard let d = Data(base64Encoded: Data(bytes)) else { return nil }
        return [UInt8](d)
    }
}
