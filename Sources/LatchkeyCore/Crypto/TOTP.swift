import COpenSSL
import Foundation

/// RFC 6238 time-based codes (HMAC-SHA1, 6 digits, 30-second steps) over the secret's raw bytes.
///
/// Why not HummingbirdOTP: its `TOTP(secret: String)` keys the HMAC with the string's UTF-8 bytes, so it can only
/// check secrets that are printable text. Authenticator apps, pyotp and Parse clients share a base32 secret that
/// decodes to arbitrary bytes (Parse's own test secrets do), and a Swift `String` cannot hold those bytes.
public enum TOTP {
    public static let digits = 6
    public static let period = 30

    /// The time step `date` falls in.
    public static func step(at date: Date) -> Int { Int(floor(date.timeIntervalSince1970 / Double(period))) }

    /// The code for `step` (RFC 4226 dynamic truncation), zero-padded.
    public static func code(key: [UInt8], step: Int) -> String {
        var counter = UInt64(max(step, 0)).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        var mac = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in HMAC(EVP_sha1(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &mac, &length) }
        }
        let offset = Int(mac[19] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let text = String(value % 1_000_000)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step (current, one before or one after, for clock drift) whose code is `code`; nil when none is.
    public static func matchingStep(key: [UInt8], code: String, at date: Date) -> Int? {
        guard code.count == digits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        return [now, now - 1, now + 1].first { Digest.constantTimeEqual(Array(Self.code(key: key, step: $0).utf8), Array(code.utf8)) }
    }

    /// The `otpauth://` URI authenticator apps read (and QR codes carry).
    public static func provisioningURI(secret: String, account: String, issuer: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: allowed) ?? account
        let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
        return "otpauth://totp/\(label)?secret=\(secret)&issuer=\(issuerParameter)&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}

/// RFC 4648 base32, as authenticator secrets are written: upper or lower case, padding and spaces ignored.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [], buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil when a character is outside the alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = [], buffer = 0, bits = 0
        for char in text.uppercased().utf8 where char != UInt8(ascii: "=") && char != UInt8(ascii: " ") {
            guard let index = alphabet.firstIndex(of: char) else { return nil }
            buffer = ((buffer << 5) | index) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
