import Foundation

/// Test mode's stand-in for Apple, Google or any OpenID issuer, at `/testing/v1/issuer/{name}`: discovery, a JWKS, an
/// authorize page whose form says who signs in, a token endpoint for the code it hands back, and ID tokens signed on
/// request for any claims. In test mode the Apple and Google providers trust it, so "Sign in with Apple" is tested
/// without Apple. One ES256 key, made at start, kept in memory.
public final class FakeIssuers: @unchecked Sendable {
    public let key: SigningKey
    public let publicURL: String
    let time: any TimeSource
    private let lock = NSLock()
    private var codes: [String: (claims: [String: JSONValue], expiresAt: Date)] = [:]

    /// The audience each built-in name's tokens carry (the ready App Services app and the pages trust these).
    public static let audiences = ["apple": "com.example.test", "google": "test.apps.googleusercontent.com"]
    public static let clientSecret = "test-issuer-secret"

    public init(publicURL: String, time: any TimeSource) throws {
        key = try SigningKey.generate()
        self.publicURL = publicURL
        self.time = time
    }

    public func issuer(_ name: String) -> String { publicURL + "/testing/v1/issuer/" + name }
    public static func audience(_ name: String) -> String { audiences[name] ?? "test-client" }

    /// A name as it may appear in a path and an issuer URL.
    public static func isName(_ name: String) -> Bool {
        (1...40).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    public func discovery(_ name: String) -> JSONValue {
        let base = issuer(name)
        return .object(["issuer": .string(base), "authorization_endpoint": .string(base + "/authorize"), "token_endpoint": .string(base + "/token"),
                        "jwks_uri": .string(base + "/jwks"), "response_types_supported": .array([.string("code")]), "subject_types_supported": .array([.string("public")]),
                        "id_token_signing_alg_values_supported": .array([.string("ES256")]), "code_challenge_methods_supported": .array([.string("S256")])])
    }

    public var jwks: JSONValue { .object(["keys": .array([.object(key.publicJWK.mapValues(JSONValue.string))])]) }

    /// An ID token of `name` for `claims`; `iss`, `aud` (the name's), `iat`, `exp` (ten minutes) and a `sub` are filled
    /// in where the claims leave them out.
    public func idToken(_ name: String, claims given: [String: JSONValue]) throws -> String {
        let now = Int(time.now().timeIntervalSince1970)
        var claims = given
        claims["iss"] = claims["iss"] ?? .string(issuer(name))
        claims["aud"] = claims["aud"] ?? .string(Self.audience(name))
        claims["iat"] = claims["iat"] ?? .int(now)
        claims["exp"] = claims["exp"] ?? .int(now + 600)
        claims["sub"] = claims["sub"] ?? .string(SecureRandom.token(byteCount: 12))
        return try JWT.sign(claims: claims, key: key)
    }

    /// A one-time code for a sign-in at the authorize page (the claims its token will carry), for two minutes.
    public func newCode(_ claims: [String: JSONValue]) -> String {
        let code = SecureRandom.token()
        lock.withLock {
            let now = time.now()
            codes = codes.filter { $0.value.expiresAt > now }
            codes[code] = (claims, now + 120)
        }
        return code
    }

    /// The claims of a live code, once.
    public func redeem(_ code: String) -> [String: JSONValue]? {
        lock.withLock {
            guard let entry = codes.removeValue(forKey: code), entry.expiresAt > time.now() else { return nil }
            return entry.claims
        }
    }
}
