/// How a sign-in was proven, as RFC 8176 `amr` values, and the `acr` they make: decided here once for every token and
/// browser session (native ID tokens, the provider's ID tokens through the browser session, the pages' SSO, App
/// Services access tokens) and for the `sign_in` audit of every path (Parse's sessions included).
enum AuthenticationMethods {
    /// First factors: a password, a code mailed to the account's address, an issuer that vouched for the person.
    static let password = ["pwd"]
    static let mailedCode = ["otp"]
    static let federated = ["fed"]
    /// An API key is a secret held by software, a bearer secret and no proof of possession (so not `swk`): RFC 8176
    /// leaves such values to the parties, and this is ours.
    static let apiKey = ["api_key"]
    /// An anonymous identity proves nobody: no method, `acr` "0".
    static let anonymous: [String] = []

    /// A passkey with user verification: two factors at once (the device and its own check), `hwk` for a device-bound
    /// key, `swk` for one synced between devices (backup eligible).
    static func passkey(synced: Bool) -> [String] { [synced ? "swk" : "hwk", "mfa"] }

    /// The first factor's methods once a passkey passed as the second: its own (`hwk` or `swk`) and `mfa`, each once.
    static func afterPasskey(_ first: [String], passkey: [String]) -> [String] {
        var methods = first.isEmpty ? password : first
        for method in passkey where !methods.contains(method) { methods.append(method) }
        return methods
    }

    /// The methods of a sign-in through an identity of `provider`.
    static func identity(_ provider: String) -> [String] {
        switch provider {
        case VerifiedIdentity.anonymousProvider: anonymous
        case Identities.serverKeyProvider: apiKey
        default: federated
        }
    }

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

    /// `acr`: "2" for two factors of different kinds (`mfa`), "0" for a sign-in that proved nobody (anonymous), else "1".
    static func acr(_ amr: [String]) -> String { amr.contains("mfa") ? "2" : amr.isEmpty ? "0" : "1" }

    /// How the `sign_in` audit event names a sign-in: its path and its methods.
    static func auditDetail(_ method: String, _ amr: [String]) -> String { "\(method); amr [\(amr.joined(separator: " "))]" }

    static func isMultiFactor(_ amr: some Sequence<Substring>) -> Bool { amr.contains("mfa") }
}
