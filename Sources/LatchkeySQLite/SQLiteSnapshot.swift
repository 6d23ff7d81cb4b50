import Foundation
import GRDB
import LatchkeyCore

/// Every row a store holds, read in one snapshot: what `latchkey copy` moves to PostgreSQL. Rate buckets are left
/// out (they refill by themselves).
public struct StoreSnapshot: Sendable {
    public var serverValues: [(name: String, value: Data)]
    public var signingKeys: [SigningKeyRecord]
    public var users: [UserRecord]
    public var roles: [UserRole]
    public var identities: [IdentityRecord]
    public var apiKeys: [ApiKeyRecord]
    public var secondFactors: [SecondFactorRecord]
    /// Passkeys (their challenges live minutes and are not carried).
    public var passkeys: [PasskeyRecord]
    public var flows: [FlowRecord]
    public var codes: [OTPRecord]
    public var linkTokens: [ActionTokenRecord]
    public var sessions: [SessionRecord]
    public var outbox: [OutboxRecord]
    public var audit: [AuditEvent]
    /// The OpenID provider's: stored clients, consents, browser sessions and the codes they issued (sign-out revokes
    /// what those codes gave).
    public var clients: [ClientRecord]
    public var consents: [ConsentRecord]
    public var browserSessions: [BrowserSessionRecord]
    public var authorizationCodes: [AuthorizationCodeRecord]

    public var rowCount: Int {
        serverValues.count + signingKeys.count + users.count + roles.count + identities.count + apiKeys.count + secondFactors.count + passkeys.count
            + flows.count
            + codes.count + linkTokens.count + sessions.count + outbox.count + audit.count + clients.count + consents.count
            + browserSessions.count + authorizationCodes.count
    }
}

extension SQLiteStore {
    /// Reads every table inside one read transaction, so the copy is consistent even while a server writes.
    public func snapshot() async throws -> StoreSnapshot {
        try await database.read { db in
            StoreSnapshot(
                serverValues: try Row.fetchAll(db, sql: "SELECT name, value FROM server_values ORDER BY name").map { ($0["name"], $0["value"]) },
                signingKeys: try SigningKeyRecord.order(Column("created_at")).fetchAll(db),
                users: try UserRecord.order(Column("created_at"), Column("id")).fetchAll(db),
                roles: try UserRole.order(Column("granted_at")).fetchAll(db),
                identities: try IdentityRecord.fetchAll(db),
                apiKeys: try ApiKeyRecord.fetchAll(db),
                secondFactors: try SecondFactorRecord.fetchAll(db),
                passkeys: try PasskeyRecord.order(Column("created_at"), Column("id")).fetchAll(db),
                flows: try FlowRecord.fetchAll(db),
                codes: try OTPRecord.fetchAll(db),
                linkTokens: try ActionTokenRecord.fetchAll(db),
                // Parents before children, so a token's lineage reads the same afterwards.
                sessions: try SessionRecord.order(Column("created_at"), Column("id")).fetchAll(db),
                outbox: try OutboxRecord.order(Column("id")).fetchAll(db),
                audit: try AuditEvent.order(Column("id")).fetchAll(db),
                clients: try ClientRecord.order(Column("created_at"), Column("id")).fetchAll(db),
                consents: try ConsentRecord.fetchAll(db),
                browserSessions: try BrowserSessionRecord.fetchAll(db),
                authorizationCodes: try AuthorizationCodeRecord.fetchAll(db))
        }
    }
}
