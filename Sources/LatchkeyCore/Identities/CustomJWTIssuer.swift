/// The operator's own JWTs: their key (an HS256 secret, a PEM public key, or a JWKS URL), audiences, optional
/// issuer, and the claims mapped into the profile.
public struct CustomJWTIssuer: Sendable, Equatable {
    public enum Keys: Sendable, Equatable {
        case hs256(secret: [UInt8])
        case publicKeyPEM(String)
        case jwks(url: String, caFile: String?)
    }

    public var name: String
    public var keys: Keys
    public var audiences: [String]
    public var issuer: String?
    /// Profile field ← claim path (`name: user_data.name`).
    public var claims: [String: String]
    public var trustsEmail: Bool

    public init(name: String, keys: Keys, audiences: [String], issuer: String? = nil, claims: [String: String] = [:], trustsEmail: Bool = false) {
        self.name = name; self.keys = keys; self.audiences = audiences; self.issuer = issuer; self.claims = claims; self.trustsEmail = trustsEmail
    }
}
