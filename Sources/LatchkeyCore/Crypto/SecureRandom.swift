#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cryptographically secure randomness, all from the kernel's CSPRNG (`getrandom`, one system call a draw). OpenSSL's
/// generator set up a cipher context and checked the process id on every draw, and its first draw on each thread
/// left about 0.9 MiB resident.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        // glibc's arc4random_buf reads getrandom and aborts rather than hand back weak bytes.
        out.withUnsafeMutableBytes { if let base = $0.baseAddress { arc4random_buf(base, $0.count) } }
        return out
    }

    /// A URL-safe token carrying `byteCount` random bytes (256 bits by default).
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }

    /// A random (version 4) UUID, lower case, for identifiers (request ids, `jti`), never for secrets.
    /// Foundation's `UUID()` opens and reads /dev/urandom on every call on Linux, a system call triple per token
    /// issued and per request logged.
    public static func uuidString() -> String {
        var b = bytes(16)
        b[6] = 0x40 | (b[6] & 0x0F)  // version 4
        b[8] = 0x80 | (b[8] & 0x3F)  // RFC 9562 variant
        return uuidString(b)
    }

    /// The canonical 8-4-4-4-12 lower-case form of 16 bytes.
    static func uuidString(_ b: [UInt8]) -> String {
        var hex = Array(b.hex.utf8)
        for dash in [8, 13, 18, 23] { hex.insert(UInt8(ascii: "-"), at: dash) }
        return String(decoding: hex, as: UTF8.self)
    }

    /// A uniformly distributed integer in 0..<upperBound, by rejection sampling (no modulo bias).
    public static func uniform(_ upperBound: UInt32) -> UInt32 {
        precondition(upperBound > 0)
        let limit = UInt32.max - (UInt32.max % upperBound)  // largest multiple of upperBound
        while true {
            let b = bytes(4)
            let v = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
            if v < limit { return v % upperBound }
        }
    }

    /// A string of `length` characters from [A-Za-z0-9], each drawn uniformly (Parse's objectId alphabet).
    public static func alphanumeric(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<length).map { _ in alphabet[Int(uniform(UInt32(alphabet.count)))] })
    }

    /// A string of `length` decimal digits, each drawn uniformly.
    public static func digits(_ length: Int) -> String {
        String((0..<length).map { _ in Character(String(uniform(10))) })
    }
}
