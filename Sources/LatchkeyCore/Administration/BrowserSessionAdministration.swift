import Foundation

extension OperatorService {
    /// The operator's view of a user's live browser sessions, newest first.
    public func adminBrowserSessions(_ key: String) async throws -> [BrowserSessionRecord] {
        try await reader.openID.browserSessions(userId: try await adminFindUser(key).id, now: time.now())
    }

    /// The consents a user gave third-party clients.
    public func adminConsents(_ key: String) async throws -> [ConsentRecord] {
        try await reader.openID.consents(userId: try await adminFindUser(key).id)
    }

    /// Ends one live browser session of the user, and the refresh tokens it gave.
    public func adminEndBrowserSession(_ key: String, sessionId: String, caller: CallerInfo) async throws {
        guard let session = try await adminBrowserSessions(key).first(where: { $0.id == sessionId }) else { throw AdminError.browserSessionNotFound }
        try await engine.tokens.endBrowserSession(session, caller: caller)
    }

    /// Withdraws the user's consent to a client, with the refresh tokens the client holds for them: its next sign-in
    /// asks again.
    public func adminRevokeConsent(_ key: String, clientId: String, caller: CallerInfo) async throws {
        let user = try await adminFindUser(key)
        let now = time.now()
        let held = try await reader.sessions.live(userId: user.id, kind: .native, audience: clientId, now: now)
        try await transaction { tx in
            guard try await tx.openID.deleteConsent(userId: user.id, clientId: clientId) else { throw AdminError.consentNotFound }
            for family in Set(held.map(\.familyId)) { try await tx.sessions.revoke(familyId: family, at: now) }
            try await self.audit(tx, "admin.consent_revoked", caller: caller, userId: user.id, email: user.email, detail: clientId)
        }
    }
}
