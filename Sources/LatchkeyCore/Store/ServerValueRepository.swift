import Foundation

/// Values made once for the whole deployment (token key, tenant id) and the JWT signing keys.
public protocol ServerValueRepository: Sendable {
    /// Stores `value` under `name` unless a value is there already; returns the stored one. Two processes starting
    /// at once agree on one value.
    func insertIfAbsent(name: String, value: Data) async throws -> Data
    /// The value stored under `name`, if any.
    func value(name: String) async throws -> Data?
    /// Newest first.
    func signingKeys() async throws -> [SigningKeyRecord]
    func insert(signingKey: SigningKeyRecord) async throws
    /// Deletes a signing key (revoked: it neither signs nor verifies again). False when there was none by that kid.
    func deleteSigningKey(kid: String) async throws -> Bool
}
