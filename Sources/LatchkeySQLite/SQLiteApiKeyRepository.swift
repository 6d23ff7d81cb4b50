import Foundation
import GRDB
import LatchkeyCore

extension ApiKeyRecord: FetchableRecord, PersistableRecord, SnakeCaseColumns {
    public static let databaseTableName = "api_keys"
}

// MARK: ApiKeyRepository
extension SQLiteRepositories {
    func insert(_ key: ApiKeyRecord) async throws { try await write { try key.insert($0) } }

    func apiKey(id: String) async throws -> ApiKeyRecord? { try await lookup { try ApiKeyRecord.fetchOne($0, key: id) } }

    func apiKey(keyHash: Data) async throws -> ApiKeyRecord? {
        try await lookup { try ApiKeyRecord.filter(Column("key_hash") == keyHash).fetchOne($0) }
    }

    func apiKeys(userId: String) async throws -> [ApiKeyRecord] {
        try await read { try ApiKeyRecord.filter(Column("user_id") == userId).order(Column("created_at"), Column("id")).fetchAll($0) }
    }

    func serverApiKeys(appId: String?) async throws -> [ApiKeyRecord] {
        try await read { db in
            var request = ApiKeyRecord.filter(Column("kind") == ApiKeyRecord.Kind.server.rawValue)
            if let appId { request = request.filter(Column("app_id") == appId) }
            return try request.order(Column("created_at"), Column("id")).fetchAll(db)
        }
    }

    func setDisabled(apiKeyId: String, disabled: Bool) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE api_keys SET disabled = ? WHERE id = ?", arguments: [disabled, apiKeyId])
            return db.changesCount > 0
        }
    }

    func deleteApiKey(id: String) async throws -> Bool { try await write { try ApiKeyRecord.deleteOne($0, key: id) } }
}
