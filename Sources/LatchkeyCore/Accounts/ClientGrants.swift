/// The ways a client may obtain tokens (RFC 6749 §4, and the native API's own grants). A client gets only the grants
/// it was registered for: a web app that signs users in through the browser cannot run the native API's password
/// or code grants and so skip consent and the pages (RFC 9700 §2.4), and no third-party client ever gets them.
public enum GrantType: String, Sendable, CaseIterable {
    /// The native API's sign-in by password.
    case password
    /// The native API's mailed codes (sign-in, sign-up and reset, and the second factor's `mfa_oob`).
    case oob
    /// The native API's sign-in right after a sign-up, a reset or an enrolment.
    case continuationToken = "continuation_token"
    case refreshToken = "refresh_token"
    case authorizationCode = "authorization_code"
    /// A device without a browser: the person approves at `/ui/device` on another one (RFC 8628).
    case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"

    /// The name a configuration file or a registration may give it: the URN, or its last word for the device grant.
    public init?(name: String) {
        self.init(rawValue: name == "device_code" ? GrantType.deviceCode.rawValue : name)
    }

    /// What a client registered without `grant_types` gets: a native app (no redirect URI) the native API's grants,
    /// a browser client the authorization code; refresh tokens either way. A third-party client never gets the
    /// password or code grants.
    public static func defaults(redirectURIs: [String], firstParty: Bool) -> Set<GrantType> {
        let grants: Set<GrantType> = redirectURIs.isEmpty ? [.password, .oob, .continuationToken, .refreshToken] : [.authorizationCode, .refreshToken]
        return firstParty ? grants : grants.subtracting(Self.firstPartyOnly)
    }

    /// Grants that hand an app the user's credentials (or skip the consent a third party needs).
    public static let firstPartyOnly: Set<GrantType> = [.password, .oob, .continuationToken]
}

extension AccountRules {
    /// `unauthorized_client` unless `client` was registered for `grant`.
    func requireGrant(_ grant: GrantType, for client: ClientApplication) throws {
        guard client.grantTypes.contains(grant) else {
            throw LatchkeyError.openID(.unauthorizedClient("The client \(client.id) is not registered for the \(grant.rawValue) grant "
                                                           + "(its grant_types: \(client.grantTypes.map(\.rawValue).sorted().joined(separator: ", ")))."))
        }
    }
}
