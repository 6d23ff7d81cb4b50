import Crypto
import Foundation
import COpenSSL

/// SHA-256 and HMAC-SHA256 through swift-crypto, constant-time comparison through OpenSSL.
public enum Digest {
    /// Through swift-crypto (BoringSSL), as the HMACs: OpenSSL 3's one-shot `SHA256()` and `HMAC()` fetch the digest
    /// from its provider and make and free a context on every call.
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        Array(Crypto.SHA256.hash(data: data))
    }

    /// Under a key used once; a key used for many MACs is a `MACKey`.
    public static func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        Array(Crypto.HMAC<Crypto.SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// Equal in constant time for equal lengths; length itself is not secret here.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 } }
    }
}

extension Digest {
    /// Whether a presented secret (a key, a token) is the expected one: their SHA-256 digests compared in constant
    /// time, so neither the secret's bytes nor its length leak through timing.
    public static func sameSecret(_ presented: String, _ expected: String) -> Bool {
        constantTimeEqual(sha256(Array(presented.utf8)), sha256(Array(expected.utf8)))
    }
}

public extension Array where Element == UInt8 {
    /// Lower-case hex, two digits a byte (written directly: `String(format:)` per byte went through printf).
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: count * 2) { out in
            for (i, byte) in enumerated() { out[2 * i] = digits[Int(byte >> 4)]; out[2 * i + 1] = digits[Int(byte & 0x0F)] }
            return count * 2
        }
    }
}
