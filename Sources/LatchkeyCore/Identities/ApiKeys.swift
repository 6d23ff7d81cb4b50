import Foundation

/// A key as its owner sees it; the key itself only in `NewApiKey`, once.
public struct ApiKey: Sendable, Equatable {
    public var id: String
    public var name: String
    public var disabled: Bool
    public var kind: ApiKeyRecord.Kind
    public var appId: String
    public var userId: String
    public var createdAt: Date

    init(_ record: ApiKeyRecord) {
        id = record.id; name = record.name; disabled = record.disabled; kind = record.kind; appId = record.appId
        userId = record.userId; createdAt = record.createdAt
    }
}

public struct NewApiKey: Sendable {
    public var apiKey: ApiKey
    /// Shown once: only its HMAC is stored.
    public var key: String
}

/// API keys: a user's own (at most 20, never for an anonymous account) and server keys the operator makes, each
/// signing in as an account. The key is 64 random letters and digits, stored as an HMAC under the server key.
extension LatchkeyEngine {
    static let maxUserApiKeys = 20
    /// The provider name of the identity a server key's account holds (its subject is the key's id).
    static let serverKeyProvider = "api-key"

    /// The account an API key signs in as, if the key is live and belongs to `app`.
    func apiKeyAccount(_ key: String?, app: AppServicesApp, caller: CallerInfo) async throws -> (ApiKeyRecord, UserRecord) {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let key, !key.isEmpty, key.utf8.count <= 256, let record = try await reader.apiKeys.apiKey(keyHash: secretHash(key)),
              record.appId == app.id, !record.disabled, let user = try await reader.users.find(id: record.userId), user.status == .active
        else { throw LatchkeyError.identityRefused("API key invalid or disabled") }
        return (record, user)
    }

    func requireApiKeyName(_ name: String?) throws -> String {
        guard let name, !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw LatchkeyError.apiKeyRefused("name must be 1 to 64 characters") }
        return name
    }

    func newApiKey(userId: String, kind: ApiKeyRecord.Kind, appId: String, name: String, in tx: any Repositories) async throws -> NewApiKey {
        let key = SecureRandom.alphanumeric(64)
        let record = ApiKeyRecord(id: SecureRandom.bytes(12).hex, userId: userId, kind: kind, appId: appId, name: name,
                                  keyHash: secretHash(key), createdAt: time.now())
        try await tx.apiKeys.insert(record)
        return NewApiKey(apiKey: ApiKey(record), key: key)
    }

    // MARK: A user's own keys (App Services `auth/api_keys`, with the session's refresh token)

    public func createUserApiKey(refreshToken: String?, name: String?, caller: CallerInfo) async throws -> NewApiKey {
        let (session, user) = try await liveAppSession(refreshToken)
        let name = try requireApiKeyName(name)
        return try await transaction { tx in
            let identities = try await tx.identities.identities(userId: user.id)
            guard user.passwordHash != nil || user.email != nil || identities.contains(where: { $0.provider != VerifiedIdentity.anonymousProvider }) else {
                throw LatchkeyError.apiKeyRefused("anonymous users cannot have API keys")
            }
            let existing = try await tx.apiKeys.apiKeys(userId: user.id)
            guard existing.count < Self.maxUserApiKeys else { throw LatchkeyError.apiKeyRefused("a user has at most \(Self.maxUserApiKeys) API keys") }
            guard !existing.contains(where: { $0.name == name }) else { throw LatchkeyError.apiKeyRefused("an API key named \(name) exists") }
            let created = try await self.newApiKey(userId: user.id, kind: .user, appId: session.audience, name: name, in: tx)
            try await self.audit(tx, "api_key_created", caller: caller, userId: user.id, email: user.email, detail: created.apiKey.id)
            return created
        }
    }

    public func userApiKeys(refreshToken: String?) async throws -> [ApiKey] {
        let (_, user) = try await liveAppSession(refreshToken)
        return try await reader.apiKeys.apiKeys(userId: user.id).map(ApiKey.init)
    }

    public func userApiKey(refreshToken: String?, id: String) async throws -> ApiKey {
        let (_, user) = try await liveAppSession(refreshToken)
        return ApiKey(try await ownApiKey(id, of: user))
    }

    public func deleteUserApiKey(refreshToken: String?, id: String, caller: CallerInfo) async throws {
        let (_, user) = try await liveAppSession(refreshToken)
        let key = try await ownApiKey(id, of: user)
        try await transaction { tx in
            _ = try await tx.apiKeys.deleteApiKey(id: key.id)
            try await self.audit(tx, "api_key_deleted", caller: caller, userId: user.id, email: user.email, detail: key.id)
        }
    }

    public func setUserApiKeyDisabled(refreshToken: String?, id: String, disabled: Bool, caller: CallerInfo) async throws {
        let (_, user) = try await liveAppSession(refreshToken)
        let key = try await ownApiKey(id, of: user)
        try await transaction { tx in
            _ = try await tx.apiKeys.setDisabled(apiKeyId: key.id, disabled: disabled)
            try await self.audit(tx, disabled ? "api_key_disabled" : "api_key_enabled", caller: caller, userId: user.id,
                                 email: user.email, detail: key.id)
        }
    }

    /// Another user's key, or a server key, is "not found" to this user.
    private func ownApiKey(_ id: String, of user: UserRecord) async throws -> ApiKeyRecord {
        guard let key = try await reader.apiKeys.apiKey(id: id), key.userId == user.id, key.kind == .user else {
            throw LatchkeyError.apiKeyNotFound
        }
        return key
    }

    // MARK: Server keys (admin API and CLI)

    /// A server key for `appId` and the account it signs in as (named after the key, known by no address).
    public func createServerApiKey(appId: String, name: String?, caller: CallerInfo) async throws -> NewApiKey {
        let app = try requireApp(appId)
        let name = try requireApiKeyName(name)
        return try await transaction { tx in
            guard try await !tx.apiKeys.serverApiKeys(appId: app.id).contains(where: { $0.name == name }) else {
                throw LatchkeyError.apiKeyRefused("a server API key named \(name) exists for \(app.id)")
            }
            let account = try await self.createAccount(NewAccount(email: nil, username: SecureRandom.alphanumeric(25), passwordHash: nil,
                                                                  attributes: ["name": .string(name)], emailVerified: false, status: .active),
                                                       detail: "server api key", caller: caller, in: tx)
            let created = try await self.newApiKey(userId: account.id, kind: .server, appId: app.id, name: name, in: tx)
            try await tx.identities.link(IdentityRecord(provider: Self.serverKeyProvider, subject: created.apiKey.id, userId: account.id,
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

    /// A user's own keys, for the operator.
    public func apiKeys(of user: UserRecord) async throws -> [ApiKey] {
        try await reader.apiKeys.apiKeys(userId: user.id).filter { $0.kind == .user }.map(ApiKey.init)
    }
}
