import Foundation

/// How accounts are reached through identities other than their own email and password.
public struct IdentitySettings: Sendable {
    /// Anonymous accounts not signed into for this long are removed with their data.
    public var anonymousIdleDays = 90
    /// OpenID issuers whose ID tokens sign users in, by the name apps and `authData` use (`apple`, `google`, ...).
    public var providers: [String: OpenIDIssuer] = [:]
    /// Whether a first sign-in through a provider joins the existing account holding the same address, when both the
    /// provider (trusted for addresses) and the account have verified it. Off: the new identity gets an account of
    /// its own without the address.
    public var linkByVerifiedEmail = false
    /// The operator's own JWT issuers (App Services `custom-token`), by name.
    public var customJWT: [String: CustomJWTIssuer] = [:]

    public init() {}
}
