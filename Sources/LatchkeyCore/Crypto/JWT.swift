import Foundation

/// Compact JWS (RFC 7515) signing and verification of JSON claim sets with ES256.
public enum JWT {
    /// Far above any token we issue; anything longer is refused before it is looked at.
    public static let maxLength = 8 * 1024

    public static func sign(claims: [String: JSONValue], key: SigningKey, accessToken: Bool = false) throws -> String {
        let header = accessToken ? key.accessTokenHeaderSegment : key.jwtHeaderSegment
        let signingInput = header + "." + Base64URL.encode(JSONWriter.bytes(claims))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The encoded protected header for `key`: `{"alg":…,"kid":…,"typ":"JWT"}` (or `at+jwt`), sorted keys, as `sign`
    /// writes it.
    static func headerSegment(algorithm: String, kid: String, type: String = "JWT") -> String {
        let header: [String: JSONValue] = ["alg": .string(algorithm), "typ": .string(type), "kid": .string(kid)]
        return Base64URL.encode(JSONWriter.bytes(header))
    }

    /// The claims of a token signed by one of `keys`, or nil. Expiry is the caller's to check.
    /// The signature is checked over the raw bytes first: no JSON of an unauthenticated token is parsed.
    public static func verify(_ token: String, keys: [SigningKey]) -> [String: JSONValue]? {
        verify(token, keys: keys, as: [String: JSONValue].self)
    }

    /// Whether `token` carries an access token's header (`typ: at+jwt`) of one of `keys`.
    public static func isAccessToken(_ token: String, keys: [SigningKey]) -> Bool {
        let header = token.utf8.prefix { $0 != UInt8(ascii: ".") }
        return keys.contains { header.elementsEqual($0.accessTokenHeaderSegment.utf8) }
    }

    /// The claims decoded straight into `T`: a struct of the claims a caller checks decodes several times faster
    /// than a dictionary of JSON values.
    public static func verify<T: Decodable>(_ token: String, keys: [SigningKey], as type: T.Type) -> T? {
        guard token.utf8.count <= maxLength else { return nil }
        // Split on bytes: splitting the String walks grapheme clusters, which cost more than the signature check.
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Substring($0) }
        guard parts.count == 3, let signature = Base64URL.decode(parts[2]) else { return nil }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        // Our own tokens name their key in a header we wrote byte for byte: one verification, not one per key.
        let named = keys.first(where: { parts[0] == $0.jwtHeaderSegment || parts[0] == $0.accessTokenHeaderSegment })
        guard let key = named.flatMap({ $0.verify(signingInput, signature: signature) ? $0 : nil })
                ?? keys.first(where: { $0 !== named && $0.verify(signingInput, signature: signature) }),
              parts[0] == key.jwtHeaderSegment || parts[0] == key.accessTokenHeaderSegment || Self.headerNames(parts[0], key),
              let payload = Base64URL.decode(parts[1])
        else { return nil }
        return JSONValue.decodeUntrusted(type, from: Data(payload), limits: .token)
    }

    /// A header we did not write byte for byte (another encoder's key order) must still name this key's alg and kid.
    private static func headerNames(_ segment: Substring, _ key: SigningKey) -> Bool {
        guard let bytes = Base64URL.decode(segment),
              let header = JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(bytes), limits: .token) else { return false }
        return header["alg"] == .string(key.algorithm) && header["kid"] == .string(key.kid)
    }
}
