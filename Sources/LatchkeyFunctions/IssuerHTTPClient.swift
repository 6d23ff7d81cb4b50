import AsyncHTTPClient
import Foundation
import LatchkeyCore
import NIOCore
import NIOSSL
import Synchronization

/// Talks to OpenID issuers with async-http-client: fetches their keys (JWKS) and exchanges authorization codes at
/// their token endpoint. TLS 1.2 or later, no redirects, a bounded time and size, and the operator's extra trust
/// anchor for a private issuer.
public final class IssuerHTTPClient: KeySetFetcher, CodeExchanger {
    static let timeout = TimeAmount.seconds(5)
    static let maxBytes = 256 * 1024

    /// One client per trust anchor, for the life of the process: async-http-client refuses to be released without a
    /// shutdown (a crash at exit), and a static is never released, as `WebhookFunction.client`.
    private static let clients = Mutex<[String: HTTPClient]>([:])

    public init() {}

    public func fetch(_ url: String, caFile: String?) async throws -> FetchedKeySet {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client(caFile: caFile).execute(request, timeout: Self.timeout)
        guard response.status == .ok else { throw FetchFailed(status: Int(response.status.code)) }
        let body = try await response.body.collect(upTo: Self.maxBytes)
        return FetchedKeySet(body: Array(buffer: body), maxAgeSeconds: Self.maxAge(response.headers["Cache-Control"].joined(separator: ",")))
    }

    public func exchange(code: String, with exchange: CodeExchange, verifier: String?, redirectURI: String?) async throws
        -> CodeExchangeAnswer {
        var form = URLComponents()
        form.queryItems = [URLQueryItem(name: "grant_type", value: "authorization_code"), URLQueryItem(name: "code", value: code),
                           URLQueryItem(name: "client_id", value: exchange.clientId),
                           URLQueryItem(name: "client_secret", value: exchange.clientSecret)]
        if let redirect = redirectURI ?? exchange.redirectURI { form.queryItems?.append(URLQueryItem(name: "redirect_uri", value: redirect)) }
        if let verifier { form.queryItems?.append(URLQueryItem(name: "code_verifier", value: verifier)) }
        // URLComponents leaves + and & alone inside values; a form body must escape them.
        let body = (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        var request = HTTPClientRequest(url: exchange.tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client(caFile: nil).execute(request, timeout: Self.timeout)
        let answer = try await response.body.collect(upTo: Self.maxBytes)
        guard response.status == .ok else {
            // 4xx: the issuer refused the code (used, expired, for another client); anything else is the issuer's trouble.
            if (400..<500).contains(response.status.code) { return .refused }
            throw FetchFailed(status: Int(response.status.code))
        }
        guard case .object(let fields)? = JSONValue.decodeUntrusted(JSONValue.self, from: Data(buffer: answer)),
              let idToken = fields["id_token"]?.stringValue else { return .refused }
        return .idToken(idToken)
    }

    /// `max-age=N` of a Cache-Control header; nil when absent, or when the response may not be cached.
    static func maxAge(_ header: String) -> Int? {
        let directives = header.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains(where: { $0 == "no-store" || $0 == "no-cache" }) { return 0 }
        return directives.lazy.compactMap { $0.hasPrefix("max-age=") ? Int($0.dropFirst(8)) : nil }.first
    }

    private func client(caFile: String?) -> HTTPClient {
        // Made under the lock (making one starts nothing), so two first callers never make two: a spare could only
        // be released through a blocking shutdown.
        Self.clients.withLock { clients in
            let key = caFile ?? ""
            if let client = clients[key] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
            configuration.timeout = .init(connect: Self.timeout, read: Self.timeout)
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = made
            return made
        }
    }

    struct FetchFailed: Error, CustomStringConvertible {
        let status: Int
        var description: String { "the key set answered HTTP \(status)" }
    }
}
