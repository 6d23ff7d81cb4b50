import Foundation

/// The storage the engine needs, split by aggregate (the way Kratos composes small persisters). Every call is
/// async, so a store on a network database (PostgreSQL) never blocks a thread.
///
/// Two ways in: `direct`, where each call stands alone (reads may run side by side), and `transaction`, where
/// every call made through the repositories it hands out lands together or not at all. Rules that must hold
/// across replicas are single statements in the store (insert-if-absent, conditional single-use redemption,
/// claiming due mail), so they never depend on read-then-write.
public protocol Store: Sendable {
    var direct: any Repositories { get }
    /// Runs `body` in one transaction; a throw rolls every write of it back. Not reentrant: inside `body`, use the
    /// repositories it is given, never `direct` writes or a nested `transaction` (on SQLite both wait for this one).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T
    /// True when the database answers and every migration is applied.
    func isReady() async -> Bool
    /// True when `error` says another process held the database longer than the store waits (SQLite's busy timeout):
    /// worth trying again, where waiting is right (a start beside another one).
    func isContention(_ error: any Error) -> Bool
    /// How many reads and writes this process has run on the store so far, for background work that gives way while
    /// requests use the store (the purge, which on SQLite takes the one writer and shares the disk and the cores);
    /// nil where the store does not count them (PostgreSQL).
    var callsSoFar: UInt64? { get }
}

extension Store {
    public func isContention(_ error: any Error) -> Bool { false }
    public var callsSoFar: UInt64? { nil }
}

/// One aggregate per property; a store may answer all of them with one object.
public protocol Repositories: Sendable {
    var users: any UserRepository { get }
    var identities: any IdentityRepository { get }
    var apiKeys: any ApiKeyRepository { get }
    var secondFactors: any SecondFactorRepository { get }
    var passkeys: any PasskeyRepository { get }
    var customData: any CustomDataRepository { get }
    var openID: any OpenIDRepository { get }
    var devices: any DeviceAuthorizationRepository { get }
    var clients: any ClientRepository { get }
    var flows: any FlowRepository { get }
    var linkTokens: any LinkTokenRepository { get }
    var sessions: any SessionRepository { get }
    var outbox: any OutboxRepository { get }
    var audit: any AuditRepository { get }
    var serverValues: any ServerValueRepository { get }
    var rateBuckets: any RateBucketRepository { get }
    var maintenance: any MaintenanceRepository { get }
}

/// A store that answers every aggregate with one object (both stores do): the properties come for free.
public protocol SingleObjectRepositories: Repositories, UserRepository, IdentityRepository, ApiKeyRepository, SecondFactorRepository, PasskeyRepository, CustomDataRepository, OpenIDRepository, DeviceAuthorizationRepository, ClientRepository, FlowRepository, LinkTokenRepository, SessionRepository,
    OutboxRepository, AuditRepository, ServerValueRepository, RateBucketRepository, MaintenanceRepository {}

extension SingleObjectRepositories {
    public var users: any UserRepository { self }
    public var identities: any IdentityRepository { self }
    public var apiKeys: any ApiKeyRepository { self }
    public var secondFactors: any SecondFactorRepository { self }
    public var passkeys: any PasskeyRepository { self }
    public var customData: any CustomDataRepository { self }
    public var openID: any OpenIDRepository { self }
    public var devices: any DeviceAuthorizationRepository { self }
    public var clients: any ClientRepository { self }
    public var flows: any FlowRepository { self }
    public var linkTokens: any LinkTokenRepository { self }
    public var sessions: any SessionRepository { self }
    public var outbox: any OutboxRepository { self }
    public var audit: any AuditRepository { self }
    public var serverValues: any ServerValueRepository { self }
    public var rateBuckets: any RateBucketRepository { self }
    public var maintenance: any MaintenanceRepository { self }
}

/// Why a write was refused by a uniqueness rule.
public enum StoreConflict: Error, Sendable, Equatable {
    case emailTaken, usernameTaken
    /// The `(provider, subject)` belongs to an account already.
    case identityTaken
    /// The account already has an identity of that provider.
    case providerAlreadyLinked
    /// The WebAuthn credential id is registered already.
    case credentialTaken
}
