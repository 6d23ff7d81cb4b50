/// One Parse app (`X-Parse-Application-Id`): its keys, whether it verifies emails, and the cloud functions it may call.
public struct ParseApp: Sendable, Equatable {
    public var id: String
    /// When set, `X-Parse-Client-Key` must match it.
    public var clientKey: String?
    /// When set, `X-Parse-Master-Key` with this value (from an allowed IP) makes the caller master.
    public var masterKey: String?
    public var verifyUserEmails = false
    public var preventLoginWithUnverifiedEmail = false
    /// Names from `functions:` that `POST functions/<name>` may run.
    public var cloudFunctions: [String] = []
    /// The `authData` providers its users sign in with: `anonymous` (on by default, as in Parse Server) and the names
    /// of configured OpenID issuers (`apple`, `google`, ...).
    public var authProviders: Set<String> = [VerifiedIdentity.anonymousProvider]
    /// Whether its logins ask for `authData.mfa` (`parse.apps[].mfa`).
    public var mfa = MFAPolicy.off

    public init(id: String, clientKey: String? = nil, masterKey: String? = nil) {
        self.id = id; self.clientKey = clientKey; self.masterKey = masterKey
    }
}
