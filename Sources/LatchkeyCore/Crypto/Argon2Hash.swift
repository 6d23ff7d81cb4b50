import CArgon2
import Foundation

/// Argon2 (id, i or d) in its PHC string, `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>`, checked by
/// the reference implementation. Keycloak's stored form is turned into this string at import.
public enum Argon2Hash {
    /// Bounds in the spirit of scrypt's memory budget: at most 256 MiB, and memory × passes at most what 64 MiB at 16
    /// passes costs (Keycloak's default is 7 MiB at 5 passes; RFC 9106's second choice 64 MiB at 3).
    static let maxMemoryKiB = 262_144
    static let maxMemoryPasses = 65_536 * 16
    static let maxLanes = 16

    struct Parsed { var type: Argon2_type; var memoryKiB: Int; var passes: Int; var lanes: Int }

    /// The PHC string of a raw hash and salt, as Keycloak's `argon2` credential stores them; nil when a part is not
    /// base64, the type is unknown or the cost is over the bounds.
    public static func encode(type: String, version: String, memoryKiB: Int, passes: Int, lanes: Int, salt: String,
                              hash: String) -> String? {
        guard ["id", "i", "d"].contains(type), let salt = Data(base64Encoded: salt), let hash = Data(base64Encoded: hash),
              let number = ["1.3": 19, "1.0": 16][version] else { return nil }
        let encoded = "$argon2\(type)$v=\(number)$m=\(memoryKiB),t=\(passes),p=\(lanes)$"
            + "\(PasswordHasher.b64([UInt8](salt)))$\(PasswordHasher.b64([UInt8](hash)))"
        return parse(encoded.split(separator: "$", omittingEmptySubsequences: false)) != nil ? encoded : nil
    }

    static func parse(_ fields: [Substring]) -> Parsed? {
        let types: [Substring: Argon2_type] = ["argon2id": Argon2_id, "argon2i": Argon2_i, "argon2d": Argon2_d]
        guard fields.count == 6, fields[0].isEmpty, let type = types[fields[1]], fields[2] == "v=19" || fields[2] == "v=16"
        else { return nil }
        var values: [String: Int] = [:]
        for pair in fields[3].split(separator: ",") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let value = Int(kv[1]), value > 0 else { return nil }
            values[String(kv[0])] = value
        }
        guard values.count == 3, let memory = values["m"], let passes = values["t"], let lanes = values["p"],
              memory <= maxMemoryKiB, memory * passes <= maxMemoryPasses, lanes <= maxLanes, memory >= 8 * lanes,
              let salt = PasswordHasher.unb64(String(fields[4])), (8...64).contains(salt.count),
              let hash = PasswordHasher.unb64(String(fields[5])), (16...64).contains(hash.count)
        else { return nil }
        return Parsed(type: type, memoryKiB: memory, passes: passes, lanes: lanes)
    }

    static func verify(_ password: String, encoded: String, _ parsed: Parsed) -> Bool {
        let bytes = Array(password.utf8)
        return bytes.withUnsafeBytes { argon2_verify(encoded, $0.baseAddress, bytes.count, parsed.type) } == ARGON2_OK.rawValue
    }
}
