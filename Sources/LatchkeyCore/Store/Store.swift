import Foundation

/// The storage the engine needs. Each `write` runs in one transaction: all of it lands, or none.
public protocol Store: Sendable {
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreReading) throws -> T) async throws -> T
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreWriting) throws -> T) async throws -> T
    /// True when the database answers and every migration is applied.
    func isReady() async -> Bool
}

public protocol StoreReading {
    func user(email: String) throws -> UserRecord?
    func user(id: String) throws -> UserRecord?
    func flow(tokenHash: Data) throws -> FlowRecord?
    func otp(flowId: String) throws -> OTPRecord?
    func refreshToken(tokenHash: Data) throws -> RefreshTokenRecord?
    func actionToken(tokenId: String) throws -> ActionTokenRecord?
    func serverValue(name: String) throws -> Data?
    func signingKeys() throws -> [SigningKeyRecord]
    func pendingMail(dueBy: Date, limit: Int) throws -> [OutboxRecord]
    /// The newest outbox rows with `status`, newest first.
    func mail(status: OutboxRecord.Status, limit: Int) throws -> [OutboxRecord]
    func auditEvents(since: Date, limit: Int) throws -> [AuditEvent]
}

public protocol StoreWriting: StoreReading {
    /// Throws `LatchkeyError.userAlreadyExists` when the email is taken (also under a race).
    func insert(user: UserRecord) throws
    func update(user: UserRecord) throws
    func save(flow: FlowRecord) throws
    func deleteFlow(id: String) throws
    func save(otp: OTPRecord) throws
    func deleteOTP(flowId: String) throws
    func insert(refreshToken: RefreshTokenRecord) throws
    /// Stores a link token, deleting the user's earlier tokens of the same kind.
    func replace(actionToken: ActionTokenRecord) throws
    func update(actionToken: ActionTokenRecord) throws
    func deleteUser(id: String) throws
    func update(refreshToken: RefreshTokenRecord) throws
    func revokeRefreshTokens(familyId: String, at: Date) throws
    func revokeRefreshTokens(userId: String, at: Date) throws
    /// Revokes the live tokens minted from `parentId`.
    func revokeRefreshTokens(parentId: String, at: Date) throws
    /// Takes up to `limit` due pending mails and moves their next attempt to `leaseUntil` in the same write, so a
    /// failure to record the outcome cannot resend them in a tight loop (and, later, two workers never share one).
    func claimPendingMail(dueBy: Date, limit: Int, leaseUntil: Date) throws -> [OutboxRecord]
    func enqueue(mail: OutboxRecord) throws
    func update(mail: OutboxRecord) throws
    /// Puts failed mails back in the queue (attempts reset); returns how many.
    func retryFailedMail(now: Date) throws -> Int
    func append(audit: AuditEvent) throws
    func setServerValue(name: String, value: Data) throws
    func insert(signingKey: SigningKeyRecord) throws
    /// Drops what has outlived its use; returns how many rows went.
    func purge(_ cutoffs: PurgeCutoffs) throws -> Int
}
