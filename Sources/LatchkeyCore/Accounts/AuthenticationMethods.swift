/// How a sign-in was proven, as RFC 8176 `amr` values, and the `acr` they make: decided here once for every token and
/// browser session (native ID tokens, the provider's ID tokens through the browser session, the pages' SSO).
enum AuthenticationMethods {
    /// First factors: a password, a code mailed to the account's address, an issuer that vouched for the person.
    static let password = ["pwd"]
    static let mailedCode = ["otp"]
    static let federated = ["fed"]

    /// The first factor's methods once a second factor of `kind` passed: that factor's own value (`sms` for a texted
    /// code, `otp` for a mailed or authenticator code or a recovery code) and `mfa`, each once. The journey already
    /// made sure the second is of another kind than the first (`FactorKinds`).
    static func afterSecondFactor(_ first: [String]?, kind: SecondFactorRecord.Kind) -> [String] {
        var methods = first ?? password
        let proof = switch kind {
        case .sms: "sms"
        case .email, .totp, .recovery: "otp"
        }
        for method in [proof, "mfa"] where !methods.contains(method) { methods.append(method) }
        return methods
    }

    /// `acr`: "2" for two factors of different kinds (`mfa`), else "1".
    static func acr(_ amr: [String]) -> String { amr.contains("mfa") ? "2" : "1" }

    static func isMultiFactor(_ amr: some Sequence<Substring>) -> Bool { amr.contains("mfa") }
}
