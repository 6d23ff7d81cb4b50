import Foundation

/// Compact JWS (RFC 7515) signing and verification of JSON claim sets with ES256.
public enum JWT {
    public static func sign(claims: [String: JSONValue], key: SigningKey) throws -> String {
        let header: [String: JSONValue] = ["alg": .string(key.algorithm), "typ": .string("JWT"), "kid": .string(key.kid)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims of a token signed by one of `keys`, or nil. Expiry is the caller's to check.
    public static func verify(_ token: String, keys: [SigningKey]) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(String(parts[0])),
              let header = try? JSONDecoder().decode([String: JSONValue].self, from: Data(headerBytes)),
              header["alg"] == .string("ES256"), let kid = header["kid"]?.stringValue,
              let key = keys.first(where: { $0.kid == kid }),
              let signature = Base64URL.decode(String(parts[2])),
              key.verify(Array("\(parts[0]).\(parts[1])".utf8), signature: signature),
              let payload = Base64URL.decode(String(parts[1]))
        else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: Data(payload))
    }
}
