import Foundation

/// Fetches an issuer's published keys (JWKS) over HTTPS. The engine knows no HTTP; the executable supplies one built on
/// async-http-client, with a timeout and a size cap.
public protocol KeySetFetcher: Sendable {
    func fetch(_ url: String, caFile: String?) async throws -> FetchedKeySet
}

public struct FetchedKeySet: Sendable {
    public var body: [UInt8]
    /// `Cache-Control: max-age`, when the issuer sent one.
    public var maxAgeSeconds: Int?
    public init(body: [UInt8], maxAgeSeconds: Int?) { self.body = body; self.maxAgeSeconds = maxAgeSeconds }
}

/// Exchanges an authorization code at an issuer's token endpoint (Google's server auth code from App Services'
/// `oauth2-google` `authCode`), outside any transaction.
public protocol CodeExchanger: Sendable {
    /// `verifier` is the PKCE code verifier when the code was asked for with a challenge; `redirectURI` overrides the
    /// exchange's own (the hosted pages' callback).
    func exchange(code: String, with exchange: CodeExchange, verifier: String?, redirectURI: String?) async throws -> CodeExchangeAnswer
}

extension CodeExchanger {
    func exchange(code: String, with exchange: CodeExchange) async throws -> CodeExchangeAnswer {
        try await self.exchange(code: code, with: exchange, verifier: nil, redirectURI: nil)
    }
}

public enum CodeExchangeAnswer: Sendable, Equatable {
    case idToken(String)
    /// The issuer refused the code (used, expired, for another client).
    case refused
}

/// Where and as whom a code is exchanged.
public struct CodeExchange: Sendable, Equatable {
    public var tokenURL: String
    public var clientId: String
    public var clientSecret: String
    public var redirectURI: String?
    public init(tokenURL: String, clientId: String, clientSecret: String, redirectURI: String? = nil) {
        self.tokenURL = tokenURL; self.clientId = clientId; self.clientSecret = clientSecret; self.redirectURI = redirectURI
    }
}
