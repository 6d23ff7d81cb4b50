import Foundation

/// A hosted-page sign-in that ended: who, and how (RFC 8176 `amr`).
public struct BrowserSignIn: Sendable, Equatable {
    public var user: UserRecord
    public var amr: [String]
}

/// The SSO session behind the hosted pages' cookie: opened when a sign-in at the pages ends, found again on the
/// next `/authorize` (so a second app signs in without a second password), ended by sign-out.
extension PagesService {
    /// Opens a browser session for a finished sign-in; returns the cookie value (only its HMAC is stored).
    public func openBrowserSession(_ signIn: BrowserSignIn, caller: CallerInfo) async throws -> (cookie: String, session: BrowserSessionRecord) {
        let (cookie, session) = newBrowserSession(signIn, caller: caller)
        try await engine.standaloneWrite { try await $0.openID.insert(session) }
        return (cookie, session)
    }

    /// A browser session for a finished sign-in and its cookie, not yet stored (a passkey sign-in writes it with its use).
    func newBrowserSession(_ signIn: BrowserSignIn, caller: CallerInfo) -> (cookie: String, session: BrowserSessionRecord) {
        let now = time.now()
        let cookie = SecureRandom.token()
        return (cookie, BrowserSessionRecord(id: TimeOrderedID.make(at: now), userId: signIn.user.id, tokenHash: engine.secretHash(cookie),
                                             amr: signIn.amr.joined(separator: " "), authTime: now,
                                             expiresAt: now + Double(settings.openID.sessionTTLSeconds), ip: caller.ip,
                                             userAgent: caller.userAgent.map { String($0.prefix(256)) }))
    }

    /// The live session behind a cookie, with its (active) user.
    public func browserSession(cookie: String?) async throws -> (session: BrowserSessionRecord, user: UserRecord)? {
        guard let cookie, !cookie.isEmpty, cookie.utf8.count <= SecretToken.maxPresentedBytes,
              let session = try await reader.openID.browserSession(tokenHash: engine.secretHash(cookie)),
              session.revokedAt == nil, session.expiresAt > time.now(),
              let user = try await reader.users.find(id: session.userId), user.status == .active else { return nil }
        return (session, user)
    }
}
