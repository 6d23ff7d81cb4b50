import Foundation

/// The ways into accounts other than the account's own email and password: `(provider, subject)` pairs, each unique
/// across the deployment (a store guarantee: two replicas linking one identity at once, one wins), and at most one
/// per provider on an account.
public protocol IdentityRepository: Sendable {
    func identity(provider: String, subject: String) async throws -> IdentityRecord?
    /// The identity and its account in one read (every sign-in through a known identity needs both).
    func identityWithUser(provider: String, subject: String) async throws -> (identity: IdentityRecord, user: UserRecord)?
    /// The account's identities in the order they were linked.
    func identities(userId: String) async throws -> [IdentityRecord]
    /// The identities of all these accounts in one trip (an export's page), each account's in link order.
    func identities(userIds: [String]) async throws -> [IdentityRecord]
    /// Throws `StoreConflict.identityTaken` when any account holds `(provider, subject)`, and
    /// `.providerAlreadyLinked` when this account already has an identity of that provider.
    func link(_ identity: IdentityRecord) async throws
    /// Inserts all of them in one trip (an import's batch); the same conflicts as `link`.
    func link(contentsOf identities: [IdentityRecord]) async throws
    /// Removes the account's identity of `provider`; false when it had none.
    func unlink(provider: String, userId: String) async throws -> Bool
    /// Notes a sign-in through the identity (what idle anonymous accounts are measured by).
    func touch(provider: String, subject: String, at: Date) async throws
}

/// One identity of an account. Only the provider's stable subject is kept: never the token that proved it.
public struct IdentityRecord: Codable, Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var userId: String
    public var createdAt: Date
    public var lastUsedAt: Date
    /// The address (normalized) the issuer said it verified when this identity was linked; nil when it vouched for none.
    public var verifiedEmail: String?

    public init(provider: String, subject: String, userId: String, createdAt: Date, lastUsedAt: Date? = nil, verifiedEmail: String? = nil) {
        self.provider = provider; self.subject = subject; self.userId = userId; self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt ?? createdAt
        self.verifiedEmail = verifiedEmail
    }
}
