import Foundation

/// "Download your data": what the account holds, as JSON. Secrets stay out: no password hash, no factor secrets or
/// recovery codes, no passkey public keys, no token hashes.
struct AccountDownload: Encodable {
    struct Profile: Encodable {
        var id, objectId: String
        var email, username: String?
        var emailVerified: Bool
        var attributes: [String: JSONValue]
        var hasPassword: Bool
        var createdAt: Date
        var lastSignInAt: Date?
    }
    struct Identity: Encodable { var provider, subject: String; var linkedAt, lastUsedAt: Date }
    struct Factor: Encodable { var kind: String; var target: String?; var addedAt: Date }
    struct Passkey: Encodable { var name: String; var createdAt: Date; var lastUsedAt: Date?; var synced: Bool; var backedUp: Bool }
    struct BrowserSession: Encodable { var signedInAt, expiresAt: Date; var methods: String; var ip, userAgent: String? }
    struct AppSession: Encodable { var dialect, app: String; var startedAt, lastUsedAt, expiresAt: Date; var ip, userAgent: String? }
    struct Consent: Encodable { var client, scope: String; var grantedAt: Date }
    struct Event: Encodable { var at: Date; var kind: String; var detail, dialect, ip, userAgent, actor: String? }

    var exportedAt: Date
    var profile: Profile
    var identities: [Identity]
    var secondFactors: [Factor]
    var recoveryCodesLeft: Int
    var passkeys: [Passkey]
    var browserSessions: [BrowserSession]
    var appSessions: [AppSession]
    var consents: [Consent]
    var auditEvents: [Event]
}

extension SelfService {
    /// The account's data as a JSON document (its last 1,000 audit events).
    public func download(_ holder: AccountHolder) async throws -> Data {
        try await requireAssurance(.download, holder)
        let view = try await overview(holder), user = view.user, now = time.now()
        let events = try await reader.audit.events(AuditQuery(since: user.createdAt.addingTimeInterval(-1), userId: user.id, newestFirst: true,
                                                              limit: 1000))
        let document = AccountDownload(
            exportedAt: now,
            profile: .init(id: user.id, objectId: user.objectId, email: user.email, username: user.username, emailVerified: user.emailVerified,
                           attributes: user.attributes, hasPassword: view.hasPassword, createdAt: user.createdAt, lastSignInAt: user.lastLoginAt),
            identities: view.identities.map { .init(provider: $0.provider, subject: $0.subject, linkedAt: $0.createdAt, lastUsedAt: $0.lastUsedAt) },
            secondFactors: view.factors.map { .init(kind: $0.kind.rawValue, target: $0.target, addedAt: $0.createdAt) },
            recoveryCodesLeft: view.recoveryCodesLeft,
            passkeys: view.passkeys.map { .init(name: $0.name, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, synced: $0.backupEligible,
                                                backedUp: $0.backedUp) },
            browserSessions: view.browserSessions.map { .init(signedInAt: $0.authTime, expiresAt: $0.expiresAt, methods: $0.amr, ip: $0.ip,
                                                              userAgent: $0.userAgent) },
            appSessions: view.appSessions.map { .init(dialect: $0.kind.rawValue, app: $0.audience, startedAt: $0.startedAt,
                                                      lastUsedAt: $0.lastUsedAt, expiresAt: $0.expiresAt, ip: $0.ip, userAgent: $0.userAgent) },
            consents: view.consents.map { .init(client: $0.clientId, scope: $0.scope, grantedAt: $0.grantedAt) },
            auditEvents: events.map { .init(at: $0.at, kind: $0.kind, detail: $0.detail, dialect: $0.dialect, ip: $0.clientIp,
                                            userAgent: $0.userAgent, actor: $0.actor) })
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
