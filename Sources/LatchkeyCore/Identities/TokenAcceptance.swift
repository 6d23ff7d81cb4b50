/// What a token must say to be accepted, for one verifier.
struct TokenAcceptance: Sendable {
    var name: String
    /// Accepted `iss` values; empty accepts any (a custom JWT without a configured issuer).
    var issuers: [String]
    var audiences: [String]
    var trustsEmail: Bool
    var claims: [String: String] = [:]
}
