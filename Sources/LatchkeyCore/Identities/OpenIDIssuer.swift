import Foundation

/// One OpenID issuer: where its keys are, which audiences are ours, and whether its `email` claims are believed.
public struct OpenIDIssuer: Sendable, Equatable {
    public var name: String
    /// The `iss` values it signs with (Google uses two spellings).
    public var issuers: [String]
    public var jwksURL: String
    /// Our client ids at the issuer; a token for any other audience is refused. Never empty.
    public var audiences: [String]
    /// Whether a verified `email` in its tokens is taken as the person's address.
    public var trustsEmail: Bool
    /// A PEM file of extra trust anchors for a private issuer's HTTPS.
    public var caFile: String?
    /// Exchanging authorization codes (Google's `authCode`), when a client secret is configured.
    public var codeExchange: CodeExchange?
    /// The issuer's authorization endpoint: with a code exchange, the hosted sign-in page offers "continue with" it.
    public var authorizationURL: String?

    public init(name: String, issuers: [String], jwksURL: String, audiences: [String], trustsEmail: Bool, caFile: String? = nil) {
        self.name = name; self.issuers = issuers; self.jwksURL = jwksURL; self.audiences = audiences; self.trustsEmail = trustsEmail
        self.caFile = caFile
    }

    /// Apple's and Google's authorization endpoints.
    public static func builtInAuthorizationURL(_ name: String) -> String? {
        switch name {
        case "apple": "https://appleid.apple.com/auth/authorize"
        case "google": "https://accounts.google.com/o/oauth2/v2/auth"
        default: nil
        }
    }

    /// Apple's and Google's issuer and keys, which configuration only has to give audiences for.
    public static func builtIn(_ name: String) -> (issuers: [String], jwksURL: String)? {
        switch name {
        case "apple": (["https://appleid.apple.com"], "https://appleid.apple.com/auth/keys")
        case "google": (["https://accounts.google.com", "accounts.google.com"], "https://www.googleapis.com/oauth2/v3/certs")
        default: nil
        }
    }
}
