import Foundation

/// Whether an app asks for a second factor (`clients[].mfa`, `parse.apps[].mfa`).
public enum MFAPolicy: String, Sendable, CaseIterable {
    /// Never: the app signs in with the first factor alone and offers no enrolment.
    case off
    /// Users may enrol; whoever has a factor must use it.
    case optional
    /// Every user must have one: a user without one enrols at the next sign-in.
    case required
}

/// `mfa.*`: the factors users may enrol, the authenticator apps' issuer name, and the operator function that sends
/// text messages (Latchkey makes and checks the codes; the function only delivers them).
public struct MFASettings: Sendable, Equatable {
    public enum Method: String, Sendable, CaseIterable { case email, totp, sms }
    public var methods: Set<Method> = [.email, .totp]
    public var totpIssuer = "Latchkey"
    /// The name under `functions:` that delivers `{"to", "code", "valid_minutes", "purpose"}` as a text message.
    public var smsFunction: String?
    /// Enrolling a factor needs a sign-in this recent (an access token alone, refreshed for weeks, is not enough).
    public var recentSignInSeconds = 600
    public init() {}
}

extension SecondFactorRecord.Kind {
    /// The configured method a factor of this kind belongs to (recovery codes come with an authenticator).
    var method: MFASettings.Method {
        switch self {
        case .email: .email
        case .sms: .sms
        case .totp, .recovery: .totp
        }
    }
}
