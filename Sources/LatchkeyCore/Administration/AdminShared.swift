import Foundation

/// What the engine and the operator's surface share about administration: the refusals an operator's action meets,
/// how an operator names a user, and reading the signing keys again.
extension LatchkeyEngine {
    public enum AdminError: ServiceRefusal, Sendable, Equatable {
        case userNotFound
        /// The account is waiting for its sign-up to finish: there is nothing to enable or disable yet.
        case userPending
        /// The user has no identity of that provider.
        case identityNotFound
        /// The user has no passkey with that id.
        case passkeyNotFound
        /// No live browser session of the user has that id.
        case browserSessionNotFound
        /// The user gave that client no consent.
        case consentNotFound
        /// No client has that id.
        case clientNotFound
        /// The client is in the configuration file: change it there.
        case clientInConfiguration
        /// A new client's settings are refused; the text says why.
        case invalidClient(String)

        public var errorClass: ErrorClass {
            switch self {
            case .userNotFound, .identityNotFound, .passkeyNotFound, .browserSessionNotFound, .consentNotFound, .clientNotFound:
                .notFound
            case .userPending, .clientInConfiguration: .conflict
            case .invalidClient: .invalid
            }
        }
    }

    /// One user by id, objectId, email or username: whatever the operator has at hand.
    public func adminFindUser(_ key: String) async throws -> UserRecord {
        let users = reader.users
        if let user = try await users.find(id: key) { return user }
        if key.count == 10, let user = try await users.find(objectId: key) { return user }
        if key.contains("@"), let email = EmailAddress.normalize(key), let user = try await users.find(email: email) { return user }
        if let user = try await users.find(username: key) { return user }
        throw AdminError.userNotFound
    }

    /// Reads the keys again: picks up a key rotated elsewhere and drops keys whose tokens have all expired.
    /// True when the published set changed.
    @discardableResult
    public func reloadSigningKeys() async throws -> Bool {
        try keyRing.replace(with: try await reader.serverValues.signingKeys(), now: time.now())
    }

    /// Sets the outbox gauges from the store (the worker calls this every few seconds).
    public func refreshOutboxGauges() async {
        guard let pending = try? await reader.outbox.count(status: .pending),
              let failed = try? await reader.outbox.count(status: .failed) else { return }
        EngineMetrics.outboxPending.record(pending)
        EngineMetrics.outboxFailed.record(failed)
    }
}
