import Foundation

/// Compact JWS (RFC 7515) signing and verification of JSON claim sets with ES256.
public enum JWT {
    /// Far above any token we issue; anything longer is refused before it is looked at.
    public static let maxLength = 8 * 1024

    public static func sign(claims: [String: JSONValue], key: SigningKey) throws -> String {
        let header: [String: JSONValue] = ["alg": .string(key.algorithm), "typ": .string("JWT"), "kid": .string(key.kid)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The claims of a token signed by one of `keys`, or nil. Expiry is the caller's to check.
    /// The signature is checked over the raw bytes first: no JSON of an unauthenticated token is parsed.
    public static func verify(_ token: String, keys: [SigningKey]) -> [String: JSONValue]? {
        guard token.utf8.count <= maxLength else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(String(parts[2])) else { return nil }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard let key = keys.first(where: { $0.verify(signingInput, signature: signature) }),
              let headerBytes = Base64URL.decode(String(parts[0])),
              let header = JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(headerBytes), limits: .token),
              header["alg"] == .string(key.algorithm), header["kid"] == .string(key.kid),
              let payload = Base64URL.decode(String(parts[1]))
        else { return nil }
        return JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(payload), limits: .token)
    }
}
