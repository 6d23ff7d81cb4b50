import Foundation

/// Everything the account page shows: the profile, the ways in, and where the account is signed in and what it allowed.
public struct AccountOverview: Sendable {
    public var user: UserRecord
    public var hasPassword: Bool
    public var factors: [SecondFactorRecord]
    public var recoveryCodesLeft: Int
    public var passkeys: [PasskeyRecord]
    public var identities: [IdentityRecord]
    /// Issuers the account could link by redirect (configured, not linked yet).
    public var linkable: [String]
    public var browserSessions: [BrowserSessionRecord]
    public var currentSessionId: String
    public var appSessions: [SessionSummary]
    public var consents: [ConsentRecord]
    /// Whether the session's sign-in is recent enough to change a way in without signing in again.
    public var recentSignIn: Bool
}

extension SelfService {
    public func overview(_ holder: AccountHolder) async throws -> AccountOverview {
        let user = holder.user, now = time.now()
        let factors = try await reader.secondFactors.secondFactors(userId: user.id)
        let identities = try await reader.identities.identities(userId: user.id)
        let linked = Set(identities.map(\.provider))
        return AccountOverview(
            user: user, hasPassword: user.passwordHash != nil, factors: factors.filter { $0.kind != .recovery },
            recoveryCodesLeft: factors.filter { $0.kind == .recovery }.count,
            passkeys: try await reader.passkeys.passkeys(userId: user.id), identities: identities,
            linkable: PagesService(engine: engine).upstreamProviders.filter { !linked.contains($0) },
            browserSessions: try await reader.openID.browserSessions(userId: user.id, now: now), currentSessionId: holder.session.id,
            appSessions: try await engine.tokens.sessionSummaries(userId: user.id),
            consents: try await reader.openID.consents(userId: user.id),
            recentSignIn: (try? await requireAssurance(.add(.secondFactor), holder)) != nil)
    }
}
