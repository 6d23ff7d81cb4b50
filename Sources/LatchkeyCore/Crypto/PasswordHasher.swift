import COpenSSL
import Foundation

/// scrypt cost parameters, as the PHC string records them.
public struct ScryptParameters: Sendable, Equatable {
    public var logN: Int
    public var r: Int
    public var p: Int
    public init(logN: Int = 17, r: Int = 8, p: Int = 1) { self.logN = logN; self.r = r; self.p = p }

    /// The most one hash may cost, stored or configured: 128·N·r·p bytes. A tampered row or a careless
    /// setting cannot turn each verification into gigabytes.
    public static let memoryBudget: UInt64 = 256 << 20
    public var isWithinMemoryBudget: Bool {
        (1...20).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
            && UInt64(128 * r * p) * (UInt64(1) << UInt64(logN)) <= Self.memoryBudget
    }

    /// Memory scrypt needs: 128 * r * N bytes, plus slack for OpenSSL's own buffers.
    var maxMemory: UInt64 { UInt64(128 * r) * (UInt64(1) << UInt64(logN)) + UInt64(128 * r * p) + 1 << 20 }
}

/// Password hashes as PHC strings: `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (standard base64, no padding).
public struct PasswordHasher: Sendable {
    public let parameters: ScryptParameters
    static let saltLength = 16
    static let keyLength = 32

    public init(parameters: ScryptParameters) { self.parameters = parameters }

    public func hash(_ password: String) -> String {
        let salt = SecureRandom.bytes(Self.saltLength)
        let key = Self.scrypt(password: Array(password.utf8), salt: salt, parameters: parameters, length: Self.keyLength)!
        return "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$\(Self.b64(salt))$\(Self.b64(key))"
    }

    public enum Verdict: Sendable, Equatable { case mismatch, match, matchNeedsRehash }

    /// Latchkey's own scrypt strings, or a hash an import brought along (`ForeignPasswordHash`), which always
    /// needs a rehash after a match.
    public func verify(_ password: String, against phc: String) -> Verdict {
        guard phc.hasPrefix("$scrypt$") else {
            return ForeignPasswordHash.verify(password, against: phc) ? .matchNeedsRehash : .mismatch
        }
        guard let parsed = Self.parse(phc),
              let key = Self.scrypt(password: Array(password.utf8), salt: parsed.salt, parameters: parsed.parameters, length: parsed.hash.count)
        else { return .mismatch }
        guard Digest.constantTimeEqual(key, parsed.hash) else { return .mismatch }
        return parsed.parameters == parameters ? .match : .matchNeedsRehash
    }

    /// The scheme name of a hash an import may store (one `verify` can check within the cost bounds), or why not.
    public static func importableScheme(_ hash: String) -> Result<String, ForeignPasswordHash.Refusal> {
        // The old system's password, checked by the legacy-password function at the first sign-in.
        if let source = LegacyPassword.source(of: hash) {
            return !source.isEmpty && source.utf8.count <= 32 && source.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "$") })
                ? .success("legacy") : .failure(ForeignPasswordHash.Refusal(scheme: "legacy", reason: "malformed"))
        }
        if hash.hasPrefix("$scrypt$") {
            return parse(hash) != nil ? .success("scrypt")
                : .failure(ForeignPasswordHash.Refusal(scheme: "scrypt", reason: "malformed, or over the scrypt memory budget"))
        }
        return ForeignPasswordHash.check(hash).map(\.rawValue)
    }

    /// Raw scrypt (RFC 7914). Nil when OpenSSL rejects the parameters.
    public static func scrypt(password: [UInt8], salt: [UInt8], parameters: ScryptParameters, length: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: length)
        let n = UInt64(1) << UInt64(parameters.logN)
        let passwordChars = password.map { CChar(bitPattern: $0) } + [0]  // trailing NUL keeps the pointer valid when empty
        let ok = EVP_PBE_scrypt(passwordChars, password.count, salt, salt.count,
                                n, UInt64(parameters.r), UInt64(parameters.p), parameters.maxMemory, &out, length)
        return ok == 1 ? out : nil
    }

    struct Parsed { var parameters: ScryptParameters; var salt: [UInt8]; var hash: [UInt8] }

    static func parse(_ phc: String) -> Parsed? {
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let v = Int(kv[1]) else { return nil }
            values[String(kv[0])] = v
        }
        // Bounds keep a tampered row from turning verification into a memory bomb.
        guard let ln = values["ln"], let r = values["r"], let p = values["p"],
              case let parameters = ScryptParameters(logN: ln, r: r, p: p), parameters.isWithinMemoryBudget,
              let salt = unb64(String(parts[3])), (8...64).contains(salt.count),
              let hash = unb64(String(parts[4])), hash.count == keyLength
        else { return nil }
        return Parsed(parameters: parameters, salt: salt, hash: hash)
    }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func unb64(_ s: String) -> [UInt8]? {
        var padded = s
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }
}
