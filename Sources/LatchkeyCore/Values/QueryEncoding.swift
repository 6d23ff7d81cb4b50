/// Query names and values (and path segments) percent-encoded byte by byte: only RFC 3986's unreserved characters
/// stay as they are, so `+`, `&`, `=`, `/` and `#` in a value can never be read as anything but themselves, by a form
/// decoder (which reads `+` as a space) or a URL parser.
public enum QueryEncoding {
    public static func encode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%")); out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `uri` with `parameters` (those with a value) added to its query, before any fragment. A query the URI has of
    /// its own is kept byte for byte (RFC 6749 §3.1.2: it must be retained).
    public static func appending(_ parameters: KeyValuePairs<String, String?>, to uri: String) -> String {
        let fragmentStart = uri.utf8.firstIndex(of: UInt8(ascii: "#")) ?? uri.endIndex
        var out = String(uri[..<fragmentStart])
        var separator = "?"
        if out.utf8.contains(UInt8(ascii: "?")) {
            // A registered query ending in `?` or `&` takes the first parameter as it is.
            separator = out.hasSuffix("?") || out.hasSuffix("&") ? "" : "&"
        }
        for (name, value) in parameters {
            guard let value else { continue }
            out += separator + encode(name) + "=" + encode(value)
            separator = "&"
        }
        return out + uri[fragmentStart...]
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
