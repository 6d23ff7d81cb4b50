import Foundation

/// The OpenID provider's lifetimes (`openid.*`).
public struct OpenIDSettings: Sendable, Equatable {
    /// How long a browser stays signed in at the hosted pages (the SSO cookie), from its sign-in.
    public var sessionTTLSeconds = 14 * 86_400
    /// How long one visit to the hosted pages (from `/authorize` to the redirect back) may take.
    public var interactionTTLSeconds = 1800
    /// Authorization codes: single use, this short (RFC 6749 §4.1.2 recommends at most ten minutes).
    public var codeTTLSeconds = 60
    /// A device's request (RFC 8628): how long its user code may be typed, and the least time between its polls.
    public var deviceCodeTTLSeconds = 600
    public var devicePollSeconds = 5
    public var registration = RegistrationSettings()
    public var metadataDocuments = MetadataDocumentSettings()
    public init() {}
}

/// Why the OpenID provider refused a request, as OAuth 2.0 and OpenID Connect name it.
public enum OpenIDProblem: Sendable, Hashable {
    /// `invalid_request`: a parameter is missing, repeated or malformed; the text names it.
    case invalidRequest(String)
    /// `invalid_client`: unknown client, or its authentication failed (401).
    case invalidClient(String)
    /// `invalid_grant`: the code or refresh token is unknown, used, expired, or bound to something else.
    case invalidGrant(String)
    /// `unauthorized_client`: the client may not use this grant or flow.
    case unauthorizedClient(String)
    case unsupportedGrantType
    case unsupportedResponseType
    /// `login_required`, `consent_required`: `prompt=none` and the user would have to act.
    case loginRequired
    case consentRequired
    /// `access_denied`: the user refused.
    case accessDenied
    /// The device grant's answers to a poll (RFC 8628 §3.5): not yet decided, too soon, too late.
    case authorizationPending
    case slowDown
    case expiredToken
    /// Dynamic registration's refusals (RFC 7591 §3.2.2).
    case invalidRedirectURI(String)
    case invalidClientMetadata(String)
    /// `invalid_target` (RFC 8707 §2): the resource asked for is unknown, or wider than the grant.
    case invalidTarget(String)

    /// The OAuth `error` value.
    public var code: String {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidClient: "invalid_client"
        case .invalidGrant: "invalid_grant"
        case .unauthorizedClient: "unauthorized_client"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .unsupportedResponseType: "unsupported_response_type"
        case .loginRequired: "login_required"
        case .consentRequired: "consent_required"
        case .accessDenied: "access_denied"
        case .authorizationPending: "authorization_pending"
        case .slowDown: "slow_down"
        case .expiredToken: "expired_token"
        case .invalidRedirectURI: "invalid_redirect_uri"
        case .invalidClientMetadata: "invalid_client_metadata"
        case .invalidTarget: "invalid_target"
        }
    }

    /// The `error_description`: what was wrong, never the value that was sent.
    public var description: String {
        switch self {
        case .invalidRequest(let text), .invalidClient(let text), .invalidGrant(let text), .unauthorizedClient(let text),
             .invalidRedirectURI(let text), .invalidClientMetadata(let text), .invalidTarget(let text): text
        case .unsupportedGrantType: "This grant_type is not supported."
        case .unsupportedResponseType: "Only response_type=code is supported."
        case .loginRequired: "The user is not signed in and prompt=none was asked."
        case .consentRequired: "The user has not consented to this client and prompt=none was asked."
        case .accessDenied: "The user declined."
        case .authorizationPending: "The user has not yet entered the code and approved the sign-in; poll again after the interval."
        case .slowDown: "Polling too fast: wait five seconds longer between polls from now on."
        case .expiredToken: "The device code has expired: start again with a new one."
        }
    }
}
