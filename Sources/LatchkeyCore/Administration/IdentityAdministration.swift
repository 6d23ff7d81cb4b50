import Foundation

/// The operator's view of identities and API keys: a user's identities, unlinking one, finding a user by
/// `(provider, subject)`, and the keys.
extension OperatorService {
    public func adminIdentities(_ key: String) async throws -> (UserRecord, [IdentityRecord]) {
        let user = try await adminFindUser(key)
        return (user, try await engine.identity.identities(of: user))
    }

    /// Unlinks the user's identity of `provider`; the last way in stays (`.lastWayIn`).
    public func adminUnlink(_ key: String, provider: String, caller: CallerInfo) async throws {
        let found = try await adminFindUser(key)
        try await transaction { tx in
            guard let user = try await tx.users.find(id: found.id) else { throw AdminError.userNotFound }
            guard try await self.engine.identity.unlink(provider: provider, from: user, caller: caller, in: tx) else { throw AdminError.identityNotFound }
            try await self.audit(tx, "admin.identity_unlinked", caller: caller, userId: user.id, email: user.email, detail: provider)
        }
    }

    public func adminFindUser(provider: String, subject: String) async throws -> UserRecord {
        guard let identity = try await reader.identities.identity(provider: provider, subject: subject),
              let user = try await reader.users.find(id: identity.userId) else { throw AdminError.userNotFound }
        return user
    }

    public func adminApiKeys(_ key: String) async throws -> [ApiKey] {
        try await engine.identity.apiKeys(of: try await adminFindUser(key))
    }
}
