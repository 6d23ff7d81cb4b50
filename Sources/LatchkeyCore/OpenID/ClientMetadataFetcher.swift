import Foundation

/// Fetches a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): the executable supplies one
/// on async-http-client that never reaches an address the policy keeps out, follows redirects only on the same host,
/// and stops at a time and size bound.
public protocol ClientMetadataFetcher: Sendable {
    func fetchClientMetadata(_ url: URL, policy: MetadataDocumentSettings) async throws -> FetchedDocument
}

public struct FetchedDocument: Sendable {
    public var body: [UInt8]
    /// `Cache-Control: max-age` (0 for `no-store` or `no-cache`); nil when absent.
    public var maxAgeSeconds: Int?
    public init(body: [UInt8], maxAgeSeconds: Int?) { self.body = body; self.maxAgeSeconds = maxAgeSeconds }
}

/// Why a metadata document could not be fetched, in words the error page shows.
public enum MetadataFetchProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case forbiddenAddress(host: String, address: String)
    case unresolvable(String)
    case redirectedAway(String)
    case tooManyRedirects
    case tooLarge(limit: Int)
    case timedOut
    case status(Int)
    case unreachable(String)

    public var description: String {
        switch self {
        case .forbiddenAddress(let host, let address): "\(host) is at \(address), a private, loopback or link-local address"
        case .unresolvable(let host): "\(host) does not resolve"
        case .redirectedAway(let location): "it redirects to another host (\(location))"
        case .tooManyRedirects: "it redirects more than three times"
        case .tooLarge(let limit): "it is larger than \(limit / 1024) KB"
        case .timedOut: "it did not answer in time"
        case .status(let status): "it answered HTTP \(status)"
        case .unreachable(let reason): "it could not be reached (\(reason))"
        }
    }
}

/// `openid.metadata_documents_*`: whether an https `client_id` is fetched as its own registration, and where from.
public struct MetadataDocumentSettings: Sendable, Equatable {
    public var enabled = false
    /// Hosts a document may come from (a leading `*.` takes subdomains); empty: any public host.
    public var allowedHosts: [String] = []
    public var deniedHosts: [String] = []
    /// Hosts that may be at private or loopback addresses and serve over plain http: development only.
    public var privateHosts: [String] = []
    public init() {}

    public static let maxBytes = 5 * 1024
    /// How long a fetched document is used before it is fetched again, whatever its caching headers say.
    static let cacheSeconds = 0...86_400
    static let defaultCacheSeconds = 3600
    /// A bound on the documents kept at once; unused ones expire with the dynamic registrations.
    static let maxClients = 10_000

    /// Whether `host` may serve a document at all (before any address is looked at).
    public func admits(host: String) -> Bool {
        let host = host.lowercased()
        func matches(_ pattern: String) -> Bool {
            let pattern = pattern.lowercased()
            return pattern.hasPrefix("*.") ? host.hasSuffix(pattern.dropFirst(1)) : host == pattern
        }
        if deniedHosts.contains(where: matches) { return false }
        return allowedHosts.isEmpty || allowedHosts.contains(where: matches) || privateHosts.contains(where: matches)
    }

    public func mayBePrivate(host: String) -> Bool { privateHosts.contains { $0.lowercased() == host.lowercased() } }
}
