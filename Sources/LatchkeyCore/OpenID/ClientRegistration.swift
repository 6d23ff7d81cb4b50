import Foundation

/// What dynamic client registration answers (RFC 7591 §3.2.1): the client, and the secrets shown only now.
public struct ClientRegistration: Sendable {
    static let origin = "dynamic"

    public var client: ClientApplication
    public var issuedAt: Date
    /// A confidential client's secret.
    public var secret: String?
    /// What the client shows to read or delete its registration (RFC 7592).
    public var registrationToken: String?
    public var tokenEndpointAuthMethod: String
}

/// `openid.registration_*`: dynamic client registration, off unless the operator turns it on.
public struct RegistrationSettings: Sendable, Equatable {
    public var enabled = false
    /// SHA-256 of the initial access token registrations must show (`openid.registration_token_file`); nil: none.
    public var initialTokenDigest: [UInt8]?
    /// A self-registered or metadata-document client no session has used for this long is removed.
    public var unusedDays = 30
    public init() {}
}

/// Dynamic client registration (RFC 7591) and its read and delete for the registering client (RFC 7592), as MCP
/// clients use it when they meet a server they have never seen. A registered client is always third-party: it gets
/// the browser sign-in with consent (consented claims only), never the native API's grants; its redirect URIs are
/// loopback `http` or `https` (RFC 8252), and each registration counts against the caller's network.
extension Tokens {
    public static let registrationPath = "/oauth2/register"
    static let registrableGrants: Set<GrantType> = [.authorizationCode, .refreshToken]
    static let authMethods = ["none", "client_secret_basic", "client_secret_post"]

    public func registerClient(_ metadata: [String: JSONValue], initialToken: String?, caller: CallerInfo) async throws -> ClientRegistration {
        let settings = self.settings.openID.registration
        guard settings.enabled else { throw LatchkeyError.openID(.unauthorizedClient("Dynamic client registration is not enabled.")) }
        if let digest = settings.initialTokenDigest {
            guard let initialToken, Digest.constantTimeEqual(Digest.sha256(Array(initialToken.utf8)), digest) else {
                throw LatchkeyError.accessTokenInvalid
            }
        }
        try await limit(.registrationPerIP, caller.ip, caller: caller)
        let checked = try Self.checkMetadata(metadata, resourceScopes: self.settings.resources.flatMap(\.scopes))
        let secret = checked.method == "none" ? nil : SecureRandom.token()
        let registrationToken = SecureRandom.token()
        let id = SecureRandom.uuidString(), now = time.now()
        let document = ClientDocument(scopes: [], mfa: MFAPolicy.off.rawValue, redirectURIs: checked.redirectURIs, postLogoutRedirectURIs: [],
                                      firstParty: false, origin: ClientRegistration.origin, grantTypes: checked.grants.map(\.rawValue).sorted(),
                                      registrationTokenHash: Base64URL.encode(Digest.sha256(Array(registrationToken.utf8))))
        let record = ClientRecord(id: id, name: checked.name, document: String(decoding: try JSONEncoder().encode(document), as: UTF8.self),
                                  secretHash: secret.map { Data(Digest.sha256(Array($0.utf8))) }, createdAt: now)
        try await transaction { tx in
            guard try await tx.clients.insertClient(record) else { throw LatchkeyError.storeFailure }
            try await self.audit(tx, "client_registered", caller: caller, detail: "\(id) \(checked.name)")
        }
        try await engine.reloadClients()
        guard let client = LatchkeyEngine.application(record) else { throw LatchkeyError.storeFailure }
        return ClientRegistration(client: client, issuedAt: now, secret: secret, registrationToken: registrationToken,
                                  tokenEndpointAuthMethod: checked.method)
    }

    /// The registration `registrationToken` is for (RFC 7592 §2.1); a wrong token and an unknown id read the same.
    public func registeredClient(id: String, registrationToken: String?) async throws -> ClientRegistration {
        // Only a self-registered client has a registration to read: anything else is refused before the store is asked.
        guard let registrationToken, engine.client(id: id)?.selfRegistered == true,
              let record = try await reader.clients.clients().first(where: { ClientApplication.sameID($0.id, id) }),
              let document = try? JSONDecoder().decode(ClientDocument.self, from: Data(record.document.utf8)),
              let stored = document.registrationTokenHash,
              Digest.constantTimeEqual(Array(Base64URL.encode(Digest.sha256(Array(registrationToken.utf8))).utf8), Array(stored.utf8)),
              let client = LatchkeyEngine.application(record) else { throw LatchkeyError.accessTokenInvalid }
        return ClientRegistration(client: client, issuedAt: record.createdAt, secret: nil, registrationToken: nil,
                                  tokenEndpointAuthMethod: client.isConfidential ? "client_secret_basic" : "none")
    }

    /// Deletes a registration at its client's request (RFC 7592 §2.3): its refresh tokens stop working with it.
    public func deleteRegisteredClient(id: String, registrationToken: String?, caller: CallerInfo) async throws {
        let registration = try await registeredClient(id: id, registrationToken: registrationToken)
        try await transaction { tx in
            guard try await tx.clients.deleteClient(id: registration.client.id) else { throw LatchkeyError.accessTokenInvalid }
            try await tx.sessions.revoke(audience: registration.client.id, at: self.time.now())
            try await self.audit(tx, "client_registration_deleted", caller: caller, detail: registration.client.id)
        }
        try await engine.reloadClients()
    }

    /// The metadata a registration may carry, checked (RFC 7591 §2); what it does not know it ignores.
    /// `resourceScopes`: the configured resources' scopes, which a client may name beside the standard ones.
    static func checkMetadata(_ metadata: [String: JSONValue], resourceScopes: [String]) throws
        -> (name: String, redirectURIs: [String], grants: Set<GrantType>, method: String) {
        func refuse(_ text: String) -> LatchkeyError { .openID(.invalidClientMetadata(text)) }
        func strings(_ key: String) throws -> [String]? {
            guard let value = metadata[key] else { return nil }
            guard case .array(let items) = value else { throw refuse("\(key) must be an array of strings.") }
            return try items.map { item in
                guard case .string(let text) = item, !text.isEmpty, text.utf8.count <= 2000 else { throw refuse("\(key) must be an array of strings.") }
                return text
            }
        }
        func string(_ key: String) throws -> String? {
            guard let value = metadata[key] else { return nil }
            guard case .string(let text) = value else { throw refuse("\(key) must be a string.") }
            return text
        }
        let grants = try Set((strings("grant_types") ?? ["authorization_code"]).map { name in
            guard let grant = GrantType(name: name), registrableGrants.contains(grant) else {
                throw refuse("grant_types may hold authorization_code and refresh_token, not \(name).")
            }
            return grant
        })
        guard grants.contains(.authorizationCode) else { throw refuse("grant_types must include authorization_code.") }
        guard try (strings("response_types") ?? ["code"]) == ["code"] else { throw refuse("response_types must be [\"code\"].") }
        let method = try string("token_endpoint_auth_method") ?? "client_secret_basic"
        guard authMethods.contains(method) else { throw refuse("token_endpoint_auth_method must be one of \(authMethods.joined(separator: ", ")).") }
        guard let uris = try strings("redirect_uris"), !uris.isEmpty, uris.count <= 10 else {
            throw LatchkeyError.openID(.invalidRedirectURI("redirect_uris must list one to ten redirect URIs."))
        }
        for uri in uris {
            if let problem = ClientApplication.redirectURIProblem(uri) { throw LatchkeyError.openID(.invalidRedirectURI(problem)) }
            let scheme = URLComponents(string: uri)?.scheme?.lowercased()
            guard scheme == "https" || scheme == "http" else {
                throw LatchkeyError.openID(.invalidRedirectURI("\(uri) must use https, or http to a loopback address (RFC 8252)."))
            }
        }
        let known = standardScopes + resourceScopes
        if let scope = try string("scope"), let unknown = parseScopes(scope).first(where: { !known.contains($0) }) {
            throw refuse("scope may hold \(known.joined(separator: ", ")), not \(unknown).")
        }
        let name = try (string("client_name") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= 100 else { throw refuse("client_name is longer than 100 characters.") }
        return (name.isEmpty ? "Unnamed application" : name, uris, grants, method)
    }
}
