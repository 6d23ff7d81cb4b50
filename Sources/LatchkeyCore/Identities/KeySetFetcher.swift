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
