import COpenSSL
import Foundation

/// Firebase Auth's modified scrypt, as `firebase auth:export` users carry it: scrypt(password, salt ‖ separator,
/// N = 2^mem_cost, r = rounds, p = 1) keys AES-256-CTR (zero IV), which encrypts the project's signer key; the
/// result is the stored hash. Stored here self-contained, as
/// `$firebase-scrypt$ln=<mem_cost>,r=<rounds>$<salt>$<separator>$<signer key>$<hash>` (standard base64, no
/// padding), so one row verifies without the project's configuration.
public enum FirebaseScryptHash {
    struct Parsed {
        var parameters: ScryptParameters
        var salt: [UInt8], separator: [UInt8], signerKey: [UInt8], hash: [UInt8]
    }

    /// The stored form of one exported user's hash under the project's parameters; nil when a part is not base64 or
    /// the cost is over the scrypt memory budget.
    public static func encode(hash: String, salt: String, signerKey: String, saltSeparator: String, rounds: Int,
                              memCost: Int) -> String? {
        let parts = [salt, saltSeparator, signerKey, hash].map { Data(base64Encoded: $0) }
        guard parts.allSatisfy({ $0 != nil }), ScryptParameters(logN: memCost, r: rounds, p: 1).isWithinMemoryBudget else { return nil }
        let fields = parts.map { PasswordHasher.b64([UInt8]($0!)) }
        return "$firebase-scrypt$ln=\(memCost),r=\(rounds)$" + fields.joined(separator: "$")
    }

    static func parse(_ fields: [Substring]) -> Parsed? {
        guard fields.count == 7, fields[0].isEmpty, fields[1] == "firebase-scrypt" else { return nil }
        var values: [String: Int] = [:]
        for pair in fields[2].split(separator: ",") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let value = Int(kv[1]) else { return nil }
            values[String(kv[0])] = value
        }
        guard let logN = values["ln"], let r = values["r"], case let parameters = ScryptParameters(logN: logN, r: r, p: 1),
              parameters.isWithinMemoryBudget,
              let salt = PasswordHasher.unb64(String(fields[3])), salt.count <= 64,
              let separator = PasswordHasher.unb64(String(fields[4])), separator.count <= 16,
              let signerKey = PasswordHasher.unb64(String(fields[5])), (16...128).contains(signerKey.count),
              let hash = PasswordHasher.unb64(String(fields[6])), hash.count == signerKey.count
        else { return nil }
        return Parsed(parameters: parameters, salt: salt, separator: separator, signerKey: signerKey, hash: hash)
    }

    static func verify(_ password: String, _ parsed: Parsed) -> Bool {
        guard let derived = PasswordHasher.scrypt(password: Array(password.utf8), salt: parsed.salt + parsed.separator,
                                                  parameters: parsed.parameters, length: 64),
              let encrypted = aes256CTR(key: Array(derived.prefix(32)), parsed.signerKey)
        else { return false }
        return Digest.constantTimeEqual(encrypted, parsed.hash)
    }

    private static func aes256CTR(key: [UInt8], _ input: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let iv = [UInt8](repeating: 0, count: 16)
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0, final: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv) == 1,
              EVP_EncryptUpdate(context, &out, &written, input, Int32(input.count)) == 1,
              EVP_EncryptFinal_ex(context, &out[Int(written)], &final) == 1
        else { return nil }
        return Array(out.prefix(Int(written + final)))
    }
}
