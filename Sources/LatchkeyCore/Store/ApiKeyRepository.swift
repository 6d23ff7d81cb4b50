import Foundation

/// API keys: found by the HMAC of the key a client presents, listed per owner, enabled, disabled and deleted.
public protocol ApiKeyRepository: Sendable {
    func insert(_ key: ApiKeyRecord) async throws
    func apiKey(id: String) async throws -> ApiKeyRecord?
    func apiKey(keyHash: Data) async throws -> ApiKeyRecord?
    /// The account's keys, oldest first.
    func apiKeys(userId: String) async throws -> [ApiKeyRecord]
    /// Server keys, oldest first; of one app when `appId` is given.
    func serverApiKeys(appId: String?) async throws -> [ApiKeyRecord]
    /// False when there is no such key.
    func setDisabled(apiKeyId: String, disabled: Bool) async throws -> Bool
    func deleteApiKey(id: String) async throws -> Bool
}

/// One API key. `userId` is the account it signs in as: its owner's for a user key, the account made with it for
/// a server key.
public struct ApiKeyRecord: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case user, server }
    public var id: String
    public var userId: String
    public var kind: Kind
    public var appId: String
    public var name: String
    public var keyHash: Data
    public var disabled: Bool
    public var createdAt: Date

    public init(id: String, userId: String, kind: Kind, appId: String, name: String, keyHash: Data, disabled: Bool = false, createdAt: Date) {
        self.id = id; self.userId = userId; self.kind = kind; self.appId = appId; self.name = name; self.keyHash = keyHash
        self.disabled = disabled; self.createdAt = createdAt
    }
}
