import Foundation

/// A hosted-page sign-in that ended: who, and how (RFC 8176 `amr`).
public struct BrowserSignIn: Sendable, Equatable {
    public var user: UserRecord
    public var amr: [String]
}

/// The SSO session behind the hosted pages' cookie: opened when a sign-in at the pages ends, found again on the
/// next `/authorize` (so a second app signs in without a second password), ended by sign-out.
extension LatchkeyEngine {
    /// Opens a browser session for a finished sign-in; returns the cookie value (only its HMAC is stored).
    public func openBrowserSession(_ signIn: BrowserSignIn, caller: CallerInfo) async throws -> (cookie: String, session: BrowserSessionRecord) {
        let now = time.now()
        let cookie = SecureRandom.token()
        let session = BrowserSessionRecord(id: TimeOrderedID.make(at: now), userId: signIn.user.id, tokenHash: secretHash(cookie),
                                           amr: signIn.amr.joined(separator: " "), authTime: now,
                                           expiresAt: now + Double(settings.openID.sessionTTLSeconds), ip: caller.ip,
                                           userAgent: caller.userAgent.map { String($0.prefix(256)) })
        try await standaloneWrite { try await $0.openID.insert(session) }
        return (cookie, session)
    }

    /// The live session behind a cookie, with its (active) user.
    public func browserSession(cookie: String?) async throws -> (session: BrowserSessionRecord, user: UserRecord)? {
        guard let cookie, !cookie.isEmpty, cookie.utf8.count <= SecretToken.maxPresentedBytes,
              let session = try await reader.openID.browserSession(tokenHash: secretHash(cookie)),
              session.revokedAt == nil, session.expiresAt > time.now(),
              let user = try await reader.users.find(id: session.userId), user.status == .active else { return nil }
        return (session, user)
    }

    /// Every session of the account, in every dialect, and its browser sessions at the hosted pages: what a new password,
    /// a disabled account or the operator's "revoke sessions" ends.
    func revokeEverySession(userId: String, at now: Date, in tx: any Repositories) async throws {
        try await tx.sessions.revoke(userId: userId, at: now)
        try await tx.openID.revokeBrowserSessions(userId: userId, at: now)
    }

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
        try await endBrowserSession(session, caller: caller)
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

    /// Ends a browser session and revokes the refresh tokens its codes gave every app (single logout).
    public func endBrowserSession(_ session: BrowserSessionRecord, caller: CallerInfo) async throws {
        let now = time.now()
        try await transaction { tx in
            guard try await tx.openID.revokeBrowserSession(id: session.id, at: now) else { return }
            let families = try await tx.openID.tokenFamilies(browserSessionId: session.id)
            for family in families { try await tx.sessions.revoke(familyId: family, at: now) }
            try await self.audit(tx, "sign_out", caller: caller, userId: session.userId, detail: "browser session; \(families.count) token families")
        }
    }
}
