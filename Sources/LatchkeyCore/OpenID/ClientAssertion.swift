import Foundation
import JWTKit
import Synchronization

/// A client that proves itself with a JWT signed by a key it publishes (private_key_jwt: RFC 7523 §2.2, OpenID Connect
/// Core §9), as a metadata-document client may. The assertion names the client (`iss` = `sub` = its id), this server
/// (`aud`: the token endpoint or the issuer), lives at most ten minutes and is used once.
extension Tokens {
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    public static let assertionAlgorithms = ["ES256": "EC", "RS256": "RSA", "PS256": "RSA", "EdDSA": "OKP"]
    static let maxAssertionSeconds = 600.0

    public func authenticateClient(assertion: String, type: String?, clientId: String?) async throws -> ClientApplication {
        func refuse(_ text: String) -> LatchkeyError { .openID(.invalidClient(text)) }
        guard type == Self.assertionType else { throw refuse("client_assertion_type must be \(Self.assertionType).") }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard assertion.utf8.count <= 8192, parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(AssertionHeader.self, from: Data(headerBytes)),
              let payloadBytes = Base64URL.decode(parts[1]),
              let unverified = try? JSONDecoder().decode(AssertionClaims.self, from: Data(payloadBytes)) else {
            throw refuse("The client_assertion is not a JWT.")
        }
        guard let client = engine.client(id: unverified.iss), let jwksURI = client.jwksURI else {
            throw refuse("The client_assertion names no client that authenticates with private_key_jwt.")
        }
        if let clientId, !ClientApplication.sameID(clientId, client.id) { throw refuse("client_id differs from the client_assertion's issuer.") }
        guard let keyType = Self.assertionAlgorithms[header.alg], let kid = header.kid, !kid.isEmpty else {
            throw refuse("The client_assertion must be signed with ES256, RS256, PS256 or EdDSA and name its key (kid).")
        }
        let cache = engine.clientKeySets.cache(for: client.id, url: jwksURI) { url in
            KeySetCache(name: client.id, url: url, caFile: nil, fetcher: engine.metadataFetcher.map {
                DocumentKeySetFetcher(fetcher: $0, policy: settings.openID.metadataDocuments)
            } ?? DocumentKeySetFetcher.unavailable, time: time, logger: engine.logger)
        }
        let (keys, type, algorithm): (JWTKeyCollection, String, String?)
        do { (keys, type, algorithm) = try await cache.key(kid) } catch {
            throw refuse("The client's keys at its jwks_uri do not hold the key the client_assertion names.")
        }
        guard type == keyType, algorithm == nil || algorithm == header.alg else {
            throw refuse("The client_assertion's algorithm does not match its key.")
        }
        let claims: AssertionClaims
        do { claims = try await keys.verify(assertion, as: AssertionClaims.self) } catch {
            throw refuse("The client_assertion's signature is invalid.")
        }
        let now = time.now()
        let endpoint = settings.issuer + "/oauth2/v2.0/token"
        guard claims.sub == claims.iss else { throw refuse("The client_assertion's sub must be its iss, the client_id.") }
        guard claims.aud.value.contains(where: { $0 == endpoint || $0 == settings.issuer }) else {
            throw refuse("The client_assertion's aud must be this server's token endpoint or issuer.")
        }
        let expires = Date(timeIntervalSince1970: claims.exp)
        guard expires > now, expires.timeIntervalSince(now) <= Self.maxAssertionSeconds else {
            throw refuse("The client_assertion has expired, or lives longer than ten minutes.")
        }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else { throw refuse("The client_assertion has no jti.") }
        let idHash = Data(Digest.sha256(Array((client.id + "\u{0}" + jti).utf8)))
        guard try await transaction({ tx in try await tx.clients.useClientAssertion(idHash: idHash, expiresAt: expires) }) else {
            throw refuse("This client_assertion was used already.")
        }
        return client
    }

    private struct AssertionHeader: Decodable {
        var alg: String
        var kid: String?
    }

    private struct AssertionClaims: JWTPayload {
        var iss: String
        var sub: String
        var aud: AudienceClaim
        var exp: Double
        var jti: String?

        /// Checked against the engine's clock above, not jwt-kit's.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}

/// The key-set caches of the clients that sign assertions, one per client and keys URL, bounded.
final class ClientKeySets: Sendable {
    private let caches = Mutex<[String: KeySetCache]>([:])
    static let limit = 1000

    func cache(for clientId: String, url: String, make: (String) -> KeySetCache) -> KeySetCache {
        caches.withLock { caches in
            let key = clientId + " " + url
            if let cache = caches[key] { return cache }
            if caches.count >= Self.limit { caches.removeAll() }
            let made = make(url)
            caches[key] = made
            return made
        }
    }
}

/// A client's published keys fetched under the metadata documents' rules (the same addresses refused, the same bounds).
struct DocumentKeySetFetcher: KeySetFetcher {
    let fetcher: (any ClientMetadataFetcher)?
    let policy: MetadataDocumentSettings

    init(fetcher: any ClientMetadataFetcher, policy: MetadataDocumentSettings) { self.fetcher = fetcher; self.policy = policy }
    private init() { fetcher = nil; policy = MetadataDocumentSettings() }
    static let unavailable = DocumentKeySetFetcher()

    func fetch(_ url: String, caFile: String?) async throws -> FetchedKeySet {
        guard let fetcher, let address = URL(string: url) else { throw MetadataFetchProblem.unreachable("no HTTP client") }
        let document = try await fetcher.fetchClientMetadata(address, policy: policy)
        return FetchedKeySet(body: document.body, maxAgeSeconds: document.maxAgeSeconds)
    }
}
