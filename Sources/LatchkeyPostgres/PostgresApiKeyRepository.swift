import Foundation
import LatchkeyCore
import PostgresNIO

extension ApiKeyRecord: PostgresRowDecodable {
    init(row: Columns) throws {
        self.init(id: try row.value("id"), userId: try row.value("user_id"), kind: try row.value("kind"), appId: try row.value("app_id"),
                  name: try row.value("name"), keyHash: try row.value("key_hash"), disabled: try row.value("disabled"),
                  createdAt: try row.value("created_at"))
    }
}

// MARK: ApiKeyRepository
extension PostgresRepositories {
    func insert(_ key: ApiKeyRecord) async throws {
        try await rows("""
            INSERT INTO api_keys (id, user_id, kind, app_id, name, key_hash, disabled, created_at)
            VALUES (\(key.id), \(key.userId), \(key.kind.rawValue), \(key.appId), \(key.name), \(key.keyHash), \(key.disabled), \(key.createdAt))
            """)
    }

    func apiKey(id: String) async throws -> ApiKeyRecord? {
        try ApiKeyRecord.decodeFirst(try await rows("SELECT * FROM api_keys WHERE id = \(id)"))
    }

    func apiKey(keyHash: Data) async throws -> ApiKeyRecord? {
        try ApiKeyRecord.decodeFirst(try await rows("SELECT * FROM api_keys WHERE key_hash = \(keyHash)"))
    }

    func apiKeys(userId: String) async throws -> [ApiKeyRecord] {
        try ApiKeyRecord.decode(try await rows("SELECT * FROM api_keys WHERE user_id = \(userId) ORDER BY created_at, id"))
    }

    func serverApiKeys(appId: String?) async throws -> [ApiKeyRecord] {
        try ApiKeyRecord.decode(try await rows("""
            SELECT * FROM api_keys WHERE kind = 'server' AND (\(appId)::text IS NULL OR app_id = \(appId)) ORDER BY created_at, id
            """))
    }

    func setDisabled(apiKeyId: String, disabled: Bool) async throws -> Bool {
        !(try await rows("UPDATE api_keys SET disabled = \(disabled) WHERE id = \(apiKeyId) RETURNING 1")).isEmpty
    }

    func deleteApiKey(id: String) async throws -> Bool {
        !(try await rows("DELETE FROM api_keys WHERE id = \(id) RETURNING 1")).isEmpty
    }
}
