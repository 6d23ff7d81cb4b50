import Foundation

extension OperatorService {
    /// A server key for `appId` and the account it signs in as (named after the key, known by no address).
    public func createServerApiKey(appId: String, name: String?, caller: CallerInfo) async throws -> NewApiKey {
        let app = try engine.requireApp(appId)
        let name = try engine.identity.requireApiKeyName(name)
        return try await transaction { tx in
            guard try await !tx.apiKeys.serverApiKeys(appId: app.id).contains(where: { $0.name == name }) else {
                throw LatchkeyError.apiKeyRefused("a server API key named \(name) exists for \(app.id)")
            }
            let account = try await engine.accounts.createAccount(NewAccount(email: nil, username: SecureRandom.alphanumeric(25), passwordHash: nil,
                                                                  attributes: ["name": .string(name)], emailVerified: false, status: .active),
                                                       detail: "server api key", caller: caller, in: tx)
            let created = try await engine.identity.newApiKey(userId: account.id, kind: .server, appId: app.id, name: name, in: tx)
            try await tx.identities.link(IdentityRecord(provider: Identities.serverKeyProvider, subject: created.apiKey.id, userId: account.id,
                                                        createdAt: self.time.now()))
            try await self.audit(tx, "api_key_created", caller: caller, userId: account.id, detail: "server \(created.apiKey.id)")
            return created
        }
    }

    public func serverApiKeys(appId: String?) async throws -> [ApiKey] {
        try await reader.apiKeys.serverApiKeys(appId: appId).map(ApiKey.init)
    }

    /// Any key by id: a server key goes with its account; a user key only itself.
    public func revokeApiKey(id: String, caller: CallerInfo) async throws {
        try await transaction { tx in
            guard let key = try await tx.apiKeys.apiKey(id: id) else { throw LatchkeyError.apiKeyNotFound }
            if key.kind == .server { try await tx.users.delete(id: key.userId) } else { _ = try await tx.apiKeys.deleteApiKey(id: id) }
            try await self.audit(tx, "api_key_revoked", caller: caller, userId: key.kind == .user ? key.userId : nil, detail: key.id)
        }
    }
}
