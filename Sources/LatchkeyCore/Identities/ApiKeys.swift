import Foundation

/// A key as its owner sees it; the key itself only in `NewApiKey`, once.
public struct ApiKey: Sendable, Equatable {
    public var id: String
    public var name: String
    public var disabled: Bool
    public var kind: ApiKeyRecord.Kind
    public var appId: String
    public var userId: String
    public var createdAt: Date

    init(_ record: ApiKeyRecord) {
        id = record.id; name = record.name; disabled = record.disabled; kind = record.kind; appId = record.appId
        userId = record.userId; createdAt = record.createdAt
    }
}

public struct NewApiKey: Sendable {
    public var apiKey: ApiKey
    /// Shown once: only its HMAC is stored.
    public var key: String
}

/// API keys: a user's own (at most 20, never for an anonymous account) and server keys the operator makes, each
/// signing in as an account. The key is 64 random letters and digits, stored as an HMAC under the server key.
extension Identities {
    static let maxUserApiKeys = 20
    /// The provider name of the identity a server key's account holds (its subject is the key's id).
    static let serverKeyProvider = "api-key"

    func requireApiKeyName(_ name: String?) throws -> String {
        guard let name, !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw LatchkeyError.apiKeyRefused("name must be 1 to 64 characters") }
        return name
    }

    func newApiKey(userId: String, kind: ApiKeyRecord.Kind, appId: String, name: String, in tx: any Repositories) async throws -> NewApiKey {
        let key = SecureRandom.alphanumeric(64)
        let record = ApiKeyRecord(id: SecureRandom.bytes(12).hex, userId: userId, kind: kind, appId: appId, name: name,
                                  keyHash: engine.secretHash(key), createdAt: time.now())
        try await tx.apiKeys.insert(record)
        return NewApiKey(apiKey: ApiKey(record), key: key)
    }



    /// A user's own keys, for the operator.
    public func apiKeys(of user: UserRecord) async throws -> [ApiKey] {
        try await reader.apiKeys.apiKeys(userId: user.id).filter { $0.kind == .user }.map(ApiKey.init)
    }
}
