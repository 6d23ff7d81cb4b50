import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and tokens use it. Foundation does the base64; the alphabet
/// swap and padding are done on bytes because NSString's replacingOccurrences was a tenth of a userinfo call.
public enum Base64URL {
    public static func encode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        var out = Data(bytes).base64EncodedData()
        while out.last == UInt8(ascii: "=") { out.removeLast() }
        for i in out.indices {
            switch out[i] {
            case UInt8(ascii: "+"): out[i] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): out[i] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: out, as: UTF8.self)
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
