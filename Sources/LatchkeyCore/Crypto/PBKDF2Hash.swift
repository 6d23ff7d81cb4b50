import COpenSSL
import Foundation

/// PBKDF2 with HMAC-SHA1, -SHA256 or -SHA512, as Keycloak stores passwords (`pbkdf2`, `pbkdf2-sha256`,
/// `pbkdf2-sha512`): kept here as `$pbkdf2-sha256$i=<iterations>$<salt>$<hash>` (standard base64, no padding), the
/// derived key as long as the stored one.
public enum PBKDF2Hash {
    public enum PRF: String, Sendable, CaseIterable {
        case sha1 = "pbkdf2", sha256 = "pbkdf2-sha256", sha512 = "pbkdf2-sha512"
        var evp: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        }
    }

    struct Parsed { var prf: PRF; var iterations: Int; var salt: [UInt8]; var hash: [UInt8] }

    /// The stored form; nil when the salt or hash is not base64 or the iterations are out of bounds.
    public static func encode(_ prf: PRF, iterations: Int, salt: String, hash: String) -> String? {
        guard (1...ForeignPasswordHash.maxPBKDF2Iterations).contains(iterations), let salt = Data(base64Encoded: salt),
              let hash = Data(base64Encoded: hash), (16...64).contains(hash.count) else { return nil }
        return "$\(prf.rawValue)$i=\(iterations)$\(PasswordHasher.b64([UInt8](salt)))$\(PasswordHasher.b64([UInt8](hash)))"
    }

    static func parse(_ fields: [Substring]) -> Parsed? {
        guard fields.count == 5, fields[0].isEmpty, let prf = PRF(rawValue: String(fields[1])), fields[2].hasPrefix("i="),
              let iterations = Int(fields[2].dropFirst(2)), (1...ForeignPasswordHash.maxPBKDF2Iterations).contains(iterations),
              let salt = PasswordHasher.unb64(String(fields[3])), (1...128).contains(salt.count),
              let hash = PasswordHasher.unb64(String(fields[4])), (16...64).contains(hash.count)
        else { return nil }
        return Parsed(prf: prf, iterations: iterations, salt: salt, hash: hash)
    }

    static func verify(_ password: String, _ parsed: Parsed) -> Bool {
        derive(password, salt: parsed.salt, iterations: parsed.iterations, digest: parsed.prf.evp, length: parsed.hash.count)
            .map { Digest.constantTimeEqual($0, parsed.hash) } ?? false
    }

    static func derive(_ password: String, salt: [UInt8], iterations: Int, digest: OpaquePointer?, length: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        let ok = PKCS5_PBKDF2_HMAC(password, Int32(password.utf8.count), salt, Int32(salt.count), Int32(iterations), digest,
                                   Int32(length), &out)
        return ok == 1 ? out : nil
    }
}
