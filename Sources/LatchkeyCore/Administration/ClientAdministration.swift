import Foundation

extension OperatorService {
    /// Makes a client; a confidential one's secret is in the answer only (the store keeps its SHA-256).
    public func adminCreateClient(_ new: NewClient, caller: CallerInfo) async throws -> (client: ClientApplication, secret: String?) {
        let name = new.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 100 else { throw AdminError.invalidClient("name is required, at most 100 characters") }
        for uri in new.redirectURIs + new.postLogoutRedirectURIs {
            if let problem = ClientApplication.redirectURIProblem(uri) { throw AdminError.invalidClient(problem) }
        }
        guard new.scopes.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { throw AdminError.invalidClient("scopes are names without spaces") }
        let secret = new.confidential ? SecureRandom.token(byteCount: 32) : nil
        let id = SecureRandom.uuidString().lowercased()
        let document = ClientDocument(scopes: new.scopes, mfa: new.mfa.rawValue, redirectURIs: new.redirectURIs,
                                      postLogoutRedirectURIs: new.postLogoutRedirectURIs, firstParty: new.firstParty)
        let record = ClientRecord(id: id, name: name, document: String(decoding: (try? JSONEncoder().encode(document)) ?? Data(), as: UTF8.self),
                                  secretHash: secret.map { Data(Digest.sha256(Array($0.utf8))) }, createdAt: time.now())
        try await transaction { tx in
            guard try await tx.clients.insertClient(record) else { throw AdminError.invalidClient("a client with that id exists") }
            try await self.audit(tx, "admin.client_created", caller: caller, detail: "\(id) \(name)")
        }
        try await engine.reloadClients()
        guard let client = LatchkeyEngine.application(record) else { throw LatchkeyError.storeFailure }
        return (client, secret)
    }

    /// Removes a stored client and revokes its refresh tokens: a metadata-document client comes back under the same id
    /// at its next sign-in, and what it held before must not come back with it.
    public func adminDeleteClient(_ id: String, caller: CallerInfo) async throws {
        guard isStoredClient(id) else { throw engine.client(id: id) == nil ? AdminError.clientNotFound : AdminError.clientInConfiguration }
        let stored = try await reader.clients.clients().first(where: { ClientApplication.sameID($0.id, id) })
        let now = time.now()
        try await transaction { tx in
            guard let stored, try await tx.clients.deleteClient(id: stored.id) else { throw AdminError.clientNotFound }
            try await tx.sessions.revoke(audience: stored.id, at: now)
            try await self.audit(tx, "admin.client_deleted", caller: caller, detail: stored.id)
        }
        try await engine.reloadClients()
    }

    /// A new secret for a stored confidential client; the old one stops working (on every replica within ten seconds).
    public func adminRotateClientSecret(_ id: String, caller: CallerInfo) async throws -> String {
        guard isStoredClient(id) else { throw engine.client(id: id) == nil ? AdminError.clientNotFound : AdminError.clientInConfiguration }
        guard let current = engine.client(id: id), current.isConfidential else { throw AdminError.invalidClient("a public client has no secret") }
        let secret = SecureRandom.token(byteCount: 32)
        try await transaction { tx in
            guard try await tx.clients.setClientSecret(id: current.id, secretHash: Data(Digest.sha256(Array(secret.utf8)))) else {
                throw AdminError.clientNotFound
            }
            try await self.audit(tx, "admin.client_secret_rotated", caller: caller, detail: current.id)
        }
        try await engine.reloadClients()
        return secret
    }
}
