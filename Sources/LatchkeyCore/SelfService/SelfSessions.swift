import Foundation

/// Where the account is signed in (browser sessions at the hosted pages, app sessions of every dialect) and which
/// apps it allowed: end one, end all others, withdraw a consent (the app's tokens end with it). Ending a session
/// takes nothing away, so no step-up is asked.
extension SelfService {
    public func endBrowserSession(_ holder: AccountHolder, id: String, caller: CallerInfo) async throws {
        guard let session = try await reader.openID.browserSessions(userId: holder.user.id, now: time.now()).first(where: { $0.id == id }) else {
            throw AccountPageRefusal.notFound
        }
        try await engine.tokens.endBrowserSession(session, caller: .selfService(caller))
    }

    public func endAppSession(_ holder: AccountHolder, familyId: String, caller: CallerInfo) async throws {
        let now = time.now()
        guard let session = try await reader.sessions.live(userId: holder.user.id, now: now).first(where: { $0.familyId == familyId }) else {
            throw AccountPageRefusal.notFound
        }
        try await transaction { tx in
            try await tx.sessions.revoke(familyId: familyId, at: now)
            try await self.audit(tx, "sign_out", caller: .selfService(caller), userId: holder.user.id, email: holder.user.email,
                                 detail: "app session of \(session.audience) (\(session.kind.rawValue))")
        }
    }

    /// Ends every session but this browser's: the other browsers and every app.
    public func endOtherSessions(_ holder: AccountHolder, caller: CallerInfo) async throws {
        let now = time.now()
        let browsers = try await reader.openID.browserSessions(userId: holder.user.id, now: now).filter { $0.id != holder.session.id }
        try await transaction { tx in
            try await tx.sessions.revoke(userId: holder.user.id, at: now)
            for session in browsers { _ = try await tx.openID.revokeBrowserSession(id: session.id, at: now) }
            try await self.audit(tx, "sessions_revoked", caller: .selfService(caller), userId: holder.user.id, email: holder.user.email,
                                 detail: "every session but this browser's")
        }
    }

    public func withdrawConsent(_ holder: AccountHolder, clientId: String, caller: CallerInfo) async throws {
        let now = time.now()
        let held = try await reader.sessions.live(userId: holder.user.id, kind: .native, audience: clientId, now: now)
        try await transaction { tx in
            guard try await tx.openID.deleteConsent(userId: holder.user.id, clientId: clientId) else { throw AccountPageRefusal.notFound }
            for family in Set(held.map(\.familyId)) { try await tx.sessions.revoke(familyId: family, at: now) }
            try await self.audit(tx, "consent_revoked", caller: .selfService(caller), userId: holder.user.id, email: holder.user.email, detail: clientId)
        }
    }
}
