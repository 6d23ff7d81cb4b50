import CCrypt
import COpenSSL
import Foundation

/// Password hashes other systems wrote, which imported users bring along: modular-crypt strings (bcrypt as Parse
/// Server, Auth0 and Supabase write them, sha512/sha256-crypt, yescrypt) verified by libxcrypt; Django's
/// `pbkdf2_sha256$…`, Keycloak's PBKDF2 and Firebase's modified scrypt by OpenSSL; Argon2 by its reference library.
/// A match is always `.matchNeedsRehash`, so the first sign-in replaces the hash with Latchkey's scrypt.
///
/// Every scheme's cost is bounded like scrypt's memory budget: a hash whose parameters would make each check take
/// seconds or gigabytes is refused at import, and again (as a mismatch) if such a row turns up in the database.
public enum ForeignPasswordHash {
    public enum Scheme: String, Sendable, CaseIterable {
        case bcrypt, sha512Crypt = "sha512-crypt", sha256Crypt = "sha256-crypt", yescrypt, djangoPBKDF2 = "pbkdf2_sha256"
        case pbkdf2SHA1 = "pbkdf2", pbkdf2SHA256 = "pbkdf2-sha256", pbkdf2SHA512 = "pbkdf2-sha512"
        case argon2id, argon2i, argon2d, firebaseScrypt = "firebase-scrypt"
    }

    /// Why a hash cannot come along; `scheme` names it for the import summary.
    public struct Refusal: Error, Sendable, Equatable {
        public var scheme: String
        public var reason: String
    }

    /// Bounds chosen so one check costs at most about what bcrypt cost 14 does (~0.7 s on one core).
    public static let maxBcryptCost = 14
    public static let maxShaCryptRounds = 4_000_000
    public static let maxPBKDF2Iterations = 2_000_000

    /// The scheme of a hash Latchkey can verify within its cost bounds, or why not.
    public static func check(_ hash: String) -> Result<Scheme, Refusal> {
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        if hash.hasPrefix("pbkdf2_sha256$") {
            guard djangoPBKDF2(fields) != nil else {
                return .failure(Refusal(scheme: "pbkdf2_sha256", reason: "malformed, or more than \(maxPBKDF2Iterations) iterations"))
            }
            return .success(.djangoPBKDF2)
        }
        guard fields.count >= 4, fields[0].isEmpty else { return .failure(Refusal(scheme: "unknown", reason: "not a recognised hash format")) }
        let id = String(fields[1])
        switch id {
        case "2a", "2b", "2y":
            guard fields.count == 4, let cost = Int(fields[2]), fields[2].count == 2, (4...maxBcryptCost).contains(cost),
                  fields[3].utf8.count == 53, cryptSettingIsValid(hash) else {
                return .failure(Refusal(scheme: "bcrypt", reason: "malformed, or cost above \(maxBcryptCost)"))
            }
            return .success(.bcrypt)
        case "5", "6":
            let scheme = id == "6" ? "sha512-crypt" : "sha256-crypt"
            guard shaCryptRounds(fields).map({ $0 <= maxShaCryptRounds }) == true, cryptSettingIsValid(hash) else {
                return .failure(Refusal(scheme: scheme, reason: "malformed, or more than \(maxShaCryptRounds) rounds"))
            }
            return .success(id == "6" ? .sha512Crypt : .sha256Crypt)
        case "y":
            guard fields.count == 5, yescryptMemory(String(fields[2])).map({ $0 <= ScryptParameters.memoryBudget }) == true,
                  cryptSettingIsValid(hash) else {
                return .failure(Refusal(scheme: "yescrypt", reason: "malformed, extra parameters, or more than 256 MiB per check"))
            }
            return .success(.yescrypt)
        case "argon2id", "argon2i", "argon2d":
            guard Argon2Hash.parse(fields) != nil else {
                return .failure(Refusal(scheme: id, reason: "malformed, or over 256 MiB or 64 MiB × 16 passes per check"))
            }
            return .success(Scheme(rawValue: id)!)
        case "pbkdf2", "pbkdf2-sha256", "pbkdf2-sha512":
            guard PBKDF2Hash.parse(fields) != nil else {
                return .failure(Refusal(scheme: id, reason: "malformed, or more than \(maxPBKDF2Iterations) iterations"))
            }
            return .success(Scheme(rawValue: id)!)
        case "firebase-scrypt":
            guard FirebaseScryptHash.parse(fields) != nil else {
                return .failure(Refusal(scheme: id, reason: "malformed, or over the scrypt memory budget"))
            }
            return .success(.firebaseScrypt)
        case "scrypt":
            return .failure(Refusal(scheme: "scrypt", reason: "malformed, or over the scrypt memory budget"))
        default:
            return .failure(Refusal(scheme: "$\(id)$", reason: "scheme not supported (legacy or unknown)"))
        }
    }

    /// Whether `password` matches; false for anything `check` refuses.
    public static func verify(_ password: String, against hash: String) -> Bool {
        guard case .success(let scheme) = check(hash) else { return false }
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        switch scheme {
        case .pbkdf2SHA1, .pbkdf2SHA256, .pbkdf2SHA512: return PBKDF2Hash.parse(fields).map { PBKDF2Hash.verify(password, $0) } ?? false
        case .argon2id, .argon2i, .argon2d: return Argon2Hash.parse(fields).map { Argon2Hash.verify(password, encoded: hash, $0) } ?? false
        case .firebaseScrypt: return FirebaseScryptHash.parse(fields).map { FirebaseScryptHash.verify(password, $0) } ?? false
        case .bcrypt, .sha512Crypt, .sha256Crypt, .yescrypt, .djangoPBKDF2: break
        }
        if scheme == .djangoPBKDF2 {
            guard let parsed = djangoPBKDF2(fields) else { return false }
            return PBKDF2Hash.derive(password, salt: parsed.salt, iterations: parsed.iterations, digest: EVP_sha256(), length: parsed.hash.count)
                .map { Digest.constantTimeEqual($0, parsed.hash) } ?? false
        }
        // A C string ends at NUL: a password holding one would be checked cut short.
        guard !password.utf8.contains(0), let computed = crypt(password, setting: hash) else { return false }
        return Digest.constantTimeEqual(Array(computed.utf8), Array(hash.utf8))
    }

    /// libxcrypt's `crypt_rn` with a zeroed work area of its own (it holds the password's state; wiped after).
    static func crypt(_ password: String, setting: String) -> String? {
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        memset(data, 0, size)
        defer {
            memset(data, 0, size)
            data.deallocate()
        }
        guard let out = crypt_rn(password, setting, data, Int32(size)) else { return nil }
        return String(cString: out)
    }

    /// libxcrypt's own reading of the setting. sha256-crypt counts as legacy there, which is still verifiable.
    private static func cryptSettingIsValid(_ hash: String) -> Bool {
        let verdict = crypt_checksalt(hash)
        return verdict == CRYPT_SALT_OK || verdict == CRYPT_SALT_METHOD_LEGACY
    }

    /// `$5$`/`$6$`: `rounds=N` when present (5000 otherwise), then salt and hash.
    private static func shaCryptRounds(_ fields: [Substring]) -> Int? {
        if fields.count == 4 { return 5000 }
        guard fields.count == 5, fields[2].hasPrefix("rounds="), let rounds = Int(fields[2].dropFirst(7)), rounds > 0 else { return nil }
        return rounds
    }

    /// yescrypt's parameter field as libxcrypt writes it by default: flavor, log2(N) − 1 and r − 1, one character
    /// each. Anything longer carries parameters (p, t, ROM) whose cost this does not bound, so it is refused.
    static func yescryptMemory(_ params: String) -> UInt64? {
        let alphabet = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        let values = params.utf8.map { byte in alphabet.firstIndex(of: byte) }
        guard values.count == 3, values.allSatisfy({ $0 != nil && $0! <= 47 }) else { return nil }
        let logN = values[1]! + 1, r = values[2]! + 1
        guard logN < 40 else { return nil }
        return UInt64(128 * r) << UInt64(logN)
    }

    /// Django: `pbkdf2_sha256$<iterations>$<salt>$<base64 of 32 bytes>`; the salt is used as its UTF-8 bytes.
    private static func djangoPBKDF2(_ fields: [Substring]) -> (iterations: Int, salt: [UInt8], hash: [UInt8])? {
        guard fields.count == 4, let iterations = Int(fields[1]), (1...maxPBKDF2Iterations).contains(iterations),
              !fields[2].isEmpty, fields[2].utf8.count <= 128,
              let hash = Data(base64Encoded: String(fields[3])), hash.count == 32 else { return nil }
        return (iterations, Array(fields[2].utf8), [UInt8](hash))
    }
}
