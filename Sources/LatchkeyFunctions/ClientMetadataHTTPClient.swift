import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOPosix
import NIOSSL

/// Fetches client metadata documents with async-http-client. The URL comes from whoever sends a sign-in link, so
/// before each request (and each redirect, followed by hand and only on the same host) every address the host
/// resolves to is looked at: a private, loopback, link-local or otherwise special one is refused unless the operator
/// named the host for development. A document is at most 5 KB and answers within three seconds.
public final class ClientMetadataHTTPClient: ClientMetadataFetcher {
    static let timeout = TimeAmount.seconds(3)
    static let maxRedirects = 3

    /// One client for the life of the process (async-http-client refuses to be released without a shutdown).
    private static let client: HTTPClient = {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: timeout, read: timeout)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init() {}

    public func fetchClientMetadata(_ url: URL, policy: MetadataDocumentSettings) async throws -> FetchedDocument {
        var current = url
        for _ in 0...Self.maxRedirects {
            try await Self.checkAddresses(of: current, policy: policy)
            var request = HTTPClientRequest(url: current.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response: HTTPClientResponse
            do { response = try await Self.client.execute(request, timeout: Self.timeout) } catch let error as HTTPClientError {
                throw [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) ? MetadataFetchProblem.timedOut
                    : MetadataFetchProblem.unreachable(String(describing: error))
            } catch { throw MetadataFetchProblem.unreachable(String(describing: error)) }
            if [301, 302, 303, 307, 308].contains(response.status.code) {
                guard let location = response.headers.first(name: "Location"), let next = URL(string: location, relativeTo: current)?.absoluteURL,
                      let nextHost = next.host else { throw MetadataFetchProblem.status(Int(response.status.code)) }
                // The address first, so a redirect towards an internal service is named as that.
                try await Self.checkAddresses(of: next, policy: policy)
                guard nextHost.lowercased() == current.host?.lowercased(), next.scheme == current.scheme, next.port == current.port else {
                    throw MetadataFetchProblem.redirectedAway(next.absoluteString)
                }
                current = next
                continue
            }
            guard response.status == .ok else { throw MetadataFetchProblem.status(Int(response.status.code)) }
            let body: ByteBuffer
            do { body = try await response.body.collect(upTo: MetadataDocumentSettings.maxBytes) } catch is NIOTooManyBytesError {
                throw MetadataFetchProblem.tooLarge(limit: MetadataDocumentSettings.maxBytes)
            } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout].contains(error) { throw MetadataFetchProblem.timedOut }
            return FetchedDocument(body: Array(buffer: body),
                                   maxAgeSeconds: IssuerHTTPClient.maxAge(response.headers["Cache-Control"].joined(separator: ",")))
        }
        throw MetadataFetchProblem.tooManyRedirects
    }

    /// Refuses a host any of whose addresses is not a public unicast one (unless named for development).
    static func checkAddresses(of url: URL, policy: MetadataDocumentSettings) async throws {
        guard let host = url.host else { throw MetadataFetchProblem.unresolvable(url.absoluteString) }
        guard policy.admits(host: host) else { throw MetadataFetchProblem.redirectedAway(url.absoluteString) }
        if policy.mayBePrivate(host: host) { return }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let addresses = try await NIOThreadPool.singleton.runIfActive { NetworkAddresses.resolve(bare) }
        guard !addresses.isEmpty else { throw MetadataFetchProblem.unresolvable(host) }
        if let special = addresses.first(where: { !$0.isPublic }) {
            throw MetadataFetchProblem.forbiddenAddress(host: host, address: special.text)
        }
    }
}
