import Foundation

/// App Services refresh tokens as the Realm SDKs need them: JWTs.
///
/// realm-core stores a user only when its refresh token parses as a JWT (three dot-separated parts, a non-empty
/// signature, a base64url JSON payload with integer `exp` and `iat`); an opaque token fails every login with
/// "malformed JWT". So the token carries the claims the hosted service puts there: `sub`, `iat`, `exp`,
/// `typ: "refresh"`, the session as `baas_id`, the device and the deployment.
///
/// It stays a bearer secret the server revokes. Its `jti` is a session token of the usual shape (issue time in
/// milliseconds, then 256 random bits); the session row is stored under that time and the HMAC of the whole JWT, so
/// logout, revocation and deletion end it as they end any session. The HS256 signature, under a key derived from the
/// server key and never published, refuses an altered or forged token before any read. It is never signed with the
/// published keys: a resource server checking signatures against the JWKS must not take it for an access token, and
/// a rotated signing key must not end 60-day sessions.
struct AppRefreshTokens: Sendable {
    private let key: [UInt8]
    /// `{"alg":"HS256","typ":"JWT"}`, the only header these tokens have.
    private static let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    init(serverKey: [UInt8]) {
        key = Digest.hmacSHA256(key: serverKey, data: Array("latchkey app services refresh jwt".utf8))
    }

    struct Claims {
        var sessionId: String
        var userId: String
        var deviceId: String
        var domainId: String
        /// The session token (time prefix and random bytes) the stored key is made from.
        var jti: String
        var issuedAt: Date
        var expiresAt: Date
        /// How the session's sign-in was proven (RFC 8176), for every access token the session is refreshed into.
        var amr: [String]
    }

    func mint(_ claims: Claims) -> String {
        let payload: [String: JSONValue] = [
            "sub": .string(claims.userId), "typ": "refresh", "baas_id": .string(claims.sessionId),
            "baas_device_id": .string(claims.deviceId), "baas_domain_id": .string(claims.domainId), "jti": .string(claims.jti),
            // Whole seconds: realm-core reads both as 64-bit integers and asserts on anything else.
            "iat": .int(Int(claims.issuedAt.timeIntervalSince1970)), "exp": .int(Int(claims.expiresAt.timeIntervalSince1970)),
            "amr": .array(claims.amr.map { .string($0) }),
        ]
        let signingInput = Self.header + "." + Base64URL.encode(JSONWriter.bytes(payload))
        return signingInput + "." + Base64URL.encode(Digest.hmacSHA256(key: key, data: Array(signingInput.utf8)))
    }

    /// The `jti` of a token this server signed; nil for anything else (opaque tokens included).
    func jti(of token: String) -> String? { verifiedPayload(token)?.jti }

    /// The sign-in methods of a token this server signed; nil for anything else and for tokens minted before sessions
    /// carried them.
    func amr(of token: String) -> [String]? { verifiedPayload(token)?.amr }

    private func verifiedPayload(_ token: String) -> Payload? {
        guard token.utf8.count <= SecretToken.maxPresentedBytes else { return nil }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, Substring(parts[0]) == Self.header, let signature = Base64URL.decode(Substring(parts[2])) else { return nil }
        let signingInput = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        guard Digest.constantTimeEqual(Digest.hmacSHA256(key: key, data: signingInput), signature),
              let payload = Base64URL.decode(Substring(parts[1])) else { return nil }
        return JSONValue.decodeUntrusted(Payload.self, from: Data(payload), limits: .token)
    }

    private struct Payload: Decodable {
        let jti: String
        let amr: [String]?
    }
}
