import Foundation

/// A client whose `client_id` is the https URL of its own metadata (draft-ietf-oauth-client-id-metadata-document), as
/// MCP clients register with a server they have never met. The document is fetched outside any transaction, checked
/// as a dynamic registration is (and stricter: its `client_id` is its URL, no shared secret), and kept as a stored
/// client until its caching time runs out, so the token endpoint and every replica know it without fetching again.
/// Such a client is always third-party: consent, consented claims only, the browser grants only.
extension Tokens {
    static let metadataOrigin = "metadata_document"

    /// Whether `id` names a metadata document rather than a registered client.
    public static func namesMetadataDocument(_ id: String) -> Bool {
        let lowered = id.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// The client `url` describes, from its stored copy while that is fresh, else fetched now. Refusals are
    /// `invalidClientMetadata` with the cause in words the error page shows.
    public func metadataDocumentClient(_ url: String, caller: CallerInfo) async throws -> ClientApplication {
        let policy = settings.openID.metadataDocuments
        func refuse(_ text: String) -> LatchkeyError { .openID(.invalidClientMetadata("The application's metadata document at \(url) \(text).")) }
        guard policy.enabled else { throw refuse("cannot be used: this server does not accept client metadata documents") }
        let address = try Self.checkDocumentURL(url, policy: policy, refuse: refuse)
        if let known = engine.client(id: url) {
            guard known.metadataDocumentHost != nil else { return known }
            if let until = known.metadataRefreshAfter, until > time.now() { return known }
        } else {
            try await limit(.registrationPerIP, caller.ip, caller: caller)
            guard engine.clientRegistry.clients.count(where: { $0.metadataDocumentHost != nil }) < MetadataDocumentSettings.maxClients else {
                throw refuse("cannot be used now: this server holds as many metadata-document clients as it keeps")
            }
        }
        guard let fetcher = engine.metadataFetcher else { throw refuse("cannot be fetched: this server has no HTTP client") }
        let fetched: FetchedDocument
        do { fetched = try await fetcher.fetchClientMetadata(address, policy: policy) } catch let problem as MetadataFetchProblem {
            throw refuse("cannot be used: \(problem)")
        } catch { throw refuse("cannot be used: it could not be fetched") }
        guard case .object(var metadata)? = JSONValue.decodeUntrusted(JSONValue.self, from: Data(fetched.body)) else {
            throw refuse("is not one JSON object")
        }
        guard metadata["client_id"]?.stringValue == url else { throw refuse("names another client_id than its own address") }
        for secret in ["client_secret", "client_secret_expires_at"] where metadata[secret] != nil {
            throw refuse("holds a \(secret): a public document cannot carry a secret")
        }
        var jwksURI: String?
        switch metadata["token_endpoint_auth_method"]?.stringValue ?? "none" {
        case "none": break
        case "private_key_jwt":
            guard let keys = metadata["jwks_uri"]?.stringValue else { throw refuse("asks for private_key_jwt without a jwks_uri") }
            _ = try Self.checkDocumentURL(keys, policy: policy) { _ in
                refuse("names a jwks_uri that is not an https URL on a host this server accepts")
            }
            jwksURI = keys
        default: throw refuse("must use token_endpoint_auth_method none or private_key_jwt")
        }
        // The registration rules know shared secrets, not assertions: the method is checked here, the rest there.
        metadata["token_endpoint_auth_method"] = .string("none")
        let checked: (name: String, redirectURIs: [String], grants: Set<GrantType>, method: String)
        do { checked = try Self.checkMetadata(metadata, resourceScopes: settings.resources.flatMap(\.scopes)) } catch LatchkeyError.openID(let problem) {
            throw refuse("is refused: \(problem.description)")
        }
        let host = address.host ?? url
        let maxAge = min(max(fetched.maxAgeSeconds ?? MetadataDocumentSettings.defaultCacheSeconds, MetadataDocumentSettings.cacheSeconds.lowerBound),
                         MetadataDocumentSettings.cacheSeconds.upperBound)
        let now = time.now()
        let document = ClientDocument(scopes: [], mfa: MFAPolicy.off.rawValue, redirectURIs: checked.redirectURIs, postLogoutRedirectURIs: [],
                                      firstParty: false, origin: Self.metadataOrigin, grantTypes: checked.grants.map(\.rawValue).sorted(),
                                      refreshAfter: now.addingTimeInterval(TimeInterval(maxAge)), host: host, jwksURI: jwksURI)
        let record = ClientRecord(id: url, name: metadata["client_name"] == nil ? host : checked.name,
                                  document: String(decoding: try JSONEncoder().encode(document), as: UTF8.self), secretHash: nil, createdAt: now)
        try await transaction { tx in
            _ = try await tx.clients.deleteClient(id: url)
            guard try await tx.clients.insertClient(record) else { throw LatchkeyError.storeFailure }
            try await self.audit(tx, "client_metadata_fetched", caller: caller, detail: url)
        }
        try await engine.reloadClients()
        guard let client = LatchkeyEngine.application(record) else { throw LatchkeyError.storeFailure }
        return client
    }

    /// The URL a document may be fetched from: https (http only to a development host), a host the policy admits, a
    /// path, no fragment, no credentials, no dot segments (the draft's §3).
    static func checkDocumentURL(_ url: String, policy: MetadataDocumentSettings, refuse: (String) -> LatchkeyError) throws -> URL {
        guard url.utf8.count <= 2000, let parts = URLComponents(string: url), let host = parts.host, !host.isEmpty, let address = parts.url else {
            throw refuse("is not a URL")
        }
        let scheme = parts.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && policy.mayBePrivate(host: host)) else { throw refuse("must be an https URL") }
        guard parts.fragment == nil, parts.user == nil, parts.password == nil, !parts.path.isEmpty, parts.path != "/",
              !parts.path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw refuse("must be an https URL with a path, and no fragment, credentials or dot segments")
        }
        guard policy.admits(host: host) else { throw refuse("is on a host this server does not accept (\(host))") }
        return address
    }
}

extension PagesService {
    /// Before `/authorize` is checked: a `client_id` that is a metadata document's URL is fetched (or its fresh copy
    /// used). Nil when there was nothing to fetch or it worked; else the error page's text (never a redirect: the
    /// redirect URI is not trusted yet).
    public func loadMetadataDocumentClient(_ parameters: [(String, String)], caller: CallerInfo) async -> String? {
        guard settings.openID.metadataDocuments.enabled, let id = parameters.first(where: { $0.0 == "client_id" })?.1,
              Tokens.namesMetadataDocument(id) else { return nil }
        do {
            _ = try await engine.tokens.metadataDocumentClient(id, caller: caller)
            return nil
        } catch LatchkeyError.openID(let problem) {
            return problem.description
        } catch LatchkeyError.rateLimited(let seconds, let rule) {
            return "Too many \(rule.counts): try again in \(seconds) seconds."
        } catch {
            engine.logger.error("metadata document client failed", metadata: ["error": "\(error)"])
            return "The application's metadata document could not be used just now."
        }
    }
}
