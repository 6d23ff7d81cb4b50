import Foundation

/// An API of the operator's that takes this server's access tokens (RFC 8707), named by its URL (`resources:`). A
/// token asked for it carries that URL, and only that, as its `aud`: a token for one resource is refused by another.
public struct ProtectedResource: Sendable, Equatable {
    /// The resource indicator: an absolute URL without a fragment, matched exactly.
    public var uri: String
    /// The scopes it understands, which any client asking for it may be granted (with the user's consent).
    public var scopes: [String]
    /// Its access tokens' lifetime; nil: `tokens.access_token_seconds`.
    public var accessTTLSeconds: Int?
    /// Whether a first-party client's sign-in counts as consent for it, as for the client's own scopes; false: the
    /// user is asked once for it whichever client asks.
    public var firstPartyConsent: Bool

    public init(uri: String, scopes: [String] = [], accessTTLSeconds: Int? = nil, firstPartyConsent: Bool = true) {
        self.uri = uri; self.scopes = scopes; self.accessTTLSeconds = accessTTLSeconds; self.firstPartyConsent = firstPartyConsent
    }

    /// Why `uri` cannot name a resource (RFC 8707 §2: absolute, no fragment), or nil.
    public static func identifierProblem(_ uri: String) -> String? {
        guard let parts = URLComponents(string: uri), let scheme = parts.scheme, ["https", "http"].contains(scheme),
              parts.host?.isEmpty == false else { return "must be an absolute http(s) URL" }
        if parts.fragment != nil { return "must not have a fragment" }
        if uri.contains(" ") { return "must not contain spaces" }
        return nil
    }

    /// What a consent to this resource is recorded as, beside the scopes consented to.
    var consentItem: String { "resource:" + uri }
}

extension OpenIDProblem {
    static let unknownResource = OpenIDProblem.invalidTarget("The resource is not one this server issues tokens for.")
}

extension LatchkeyEngine {
    func resource(uri: String) -> ProtectedResource? { settings.resources.first { $0.uri == uri } }

    /// The configured resource a request names, nil when it names none; an unknown one is `invalid_target`.
    func protectedResource(_ requested: String?) throws -> ProtectedResource? {
        guard let requested, !requested.isEmpty else { return nil }
        guard let resource = resource(uri: requested) else { throw LatchkeyError.openID(.unknownResource) }
        return resource
    }
}
