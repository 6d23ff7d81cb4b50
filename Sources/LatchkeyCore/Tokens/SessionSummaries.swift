import Foundation

/// One signed-in app: a refresh-token family (native), an App Services or Parse session, with its last use.
public struct SessionSummary: Sendable, Equatable {
    public var familyId: String
    public var kind: SessionRecord.Kind
    /// The native client id, or the App Services or Parse app id.
    public var audience: String
    public var startedAt: Date
    /// When the family last minted a token (a refresh), or the session began.
    public var lastUsedAt: Date
    public var expiresAt: Date
    public var deviceId: String?
    /// Where the family's newest token was asked for from.
    public var ip: String?
    public var userAgent: String?
}

/// The sessions an account's apps hold, summarised for the console and the account page.
extension Tokens {
    /// The user's live sessions, one per family, most recently used first.
    func sessionSummaries(userId: String) async throws -> [SessionSummary] {
        var families: [String: SessionSummary] = [:]
        for session in try await reader.sessions.live(userId: userId, now: time.now()) {
            let used = max(session.createdAt, session.rotatedAt ?? session.createdAt)
            if var summary = families[session.familyId] {
                summary.startedAt = min(summary.startedAt, session.createdAt)
                if session.createdAt >= summary.lastUsedAt { summary.ip = session.ip; summary.userAgent = session.userAgent }
                summary.lastUsedAt = max(summary.lastUsedAt, used)
                summary.expiresAt = max(summary.expiresAt, session.expiresAt)
                families[session.familyId] = summary
            } else {
                families[session.familyId] = SessionSummary(familyId: session.familyId, kind: session.kind, audience: session.audience,
                                                            startedAt: session.createdAt, lastUsedAt: used, expiresAt: session.expiresAt,
                                                            deviceId: session.deviceId, ip: session.ip, userAgent: session.userAgent)
            }
        }
        return families.values.sorted { ($0.lastUsedAt, $0.familyId) > ($1.lastUsedAt, $1.familyId) }
    }
}
