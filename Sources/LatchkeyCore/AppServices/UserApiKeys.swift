import Foundation

extension AppServicesService {
    public func createUserApiKey(refreshToken: String?, name: String?, caller: CallerInfo) async throws -> NewApiKey {
        let (session, user) = try await liveAppSession(refreshToken)
        let name = try engine.identity.requireApiKeyName(name)
        try await engine.accounts.requireAssurance(.add(.apiKey), for: user, proved: appSessionProof(session, refreshToken), in: reader)
        return try await transaction { tx in
            let identities = try await tx.identities.identities(userId: user.id)
            guard user.passwordHash != nil || user.email != nil || identities.contains(where: { $0.provider != VerifiedIdentity.anonymousProvider }) else {
                throw LatchkeyError.apiKeyRefused("anonymous users cannot have API keys")
            }
            let existing = try await tx.apiKeys.apiKeys(userId: user.id)
            guard existing.count < Identities.maxUserApiKeys else { throw LatchkeyError.apiKeyRefused("a user has at most \(Identities.maxUserApiKeys) API keys") }
            guard !existing.contains(where: { $0.name == name }) else { throw LatchkeyError.apiKeyRefused("an API key named \(name) exists") }
            let created = try await engine.identity.newApiKey(userId: user.id, kind: .user, appId: session.audience, name: name, in: tx)
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
        let (session, user) = try await liveAppSession(refreshToken)
        try await engine.accounts.requireAssurance(.remove(.apiKey), for: user, proved: appSessionProof(session, refreshToken), in: reader)
        let key = try await ownApiKey(id, of: user)
        try await transaction { tx in
            _ = try await tx.apiKeys.deleteApiKey(id: key.id)
            try await self.audit(tx, "api_key_deleted", caller: caller, userId: user.id, email: user.email, detail: key.id)
        }
    }

    public func setUserApiKeyDisabled(refreshToken: String?, id: String, disabled: Bool, caller: CallerInfo) async throws {
        let (session, user) = try await liveAppSession(refreshToken)
        try await engine.accounts.requireAssurance(disabled ? .remove(.apiKey) : .add(.apiKey), for: user,
                                                   proved: appSessionProof(session, refreshToken), in: reader)
        let key = try await ownApiKey(id, of: user)
        try await transaction { tx in
            _ = try await tx.apiKeys.setDisabled(apiKeyId: key.id, disabled: disabled)
            try await self.audit(tx, disabled ? "api_key_disabled" : "api_key_enabled", caller: caller, userId: user.id,
                                 email: user.email, detail: key.id)
        }
    }

    /// What an App Services session's sign-in proved: the methods its refresh token carries, at its login.
    private func appSessionProof(_ session: SessionRecord, _ refreshToken: String?) -> SessionProof {
        SessionProof(amr: refreshToken.flatMap(keys.appRefreshTokens.amr(of:)) ?? [], authTime: session.createdAt)
    }

    /// Another user's key, or a server key, is "not found" to this user.
    private func ownApiKey(_ id: String, of user: UserRecord) async throws -> ApiKeyRecord {
        guard let key = try await reader.apiKeys.apiKey(id: id), key.userId == user.id, key.kind == .user else {
            throw LatchkeyError.apiKeyNotFound
        }
        return key
    }

    /// The account an API key signs in as, if the key is live and belongs to `app`.
    func apiKeyAccount(_ key: String?, app: AppServicesApp, caller: CallerInfo) async throws -> (ApiKeyRecord, UserRecord) {
        try await limit(.credentialPerIP, caller.ip, caller: caller)
        guard let key, !key.isEmpty, key.utf8.count <= 256, let record = try await reader.apiKeys.apiKey(keyHash: engine.secretHash(key)),
              record.appId == app.id, !record.disabled, let user = try await reader.users.find(id: record.userId), user.status == .active
        else { throw LatchkeyError.identityRefused("API key invalid or disabled") }
        return (record, user)
    }
}
