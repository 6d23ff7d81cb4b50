import Foundation
import LatchkeyCore
import PostgresNIO

// MARK: CustomDataRepository
extension PostgresRepositories {
    func customDocument(userId: String, appId: String) async throws -> [String: JSONValue]? {
        guard let row = try await rows("SELECT document FROM custom_data WHERE user_id = \(userId) AND app_id = \(appId)").first else { return nil }
        return try CustomDataRecord.decode(try row.decode(String.self))
    }

    func setCustomDocument(_ document: [String: JSONValue]?, userId: String, appId: String, at: Date) async throws {
        if let document {
            let text = try CustomDataRecord.encode(document)
            try await rows("""
                INSERT INTO custom_data (user_id, app_id, document, updated_at) VALUES (\(userId), \(appId), \(text), \(at))
                ON CONFLICT (user_id, app_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """)
        } else {
            try await rows("DELETE FROM custom_data WHERE user_id = \(userId) AND app_id = \(appId)")
        }
    }

    func customDocuments(userIds: [String]) async throws -> [CustomDataRecord] {
        try await rows("SELECT user_id, app_id, document, updated_at FROM custom_data WHERE user_id = ANY(\(userIds)) ORDER BY user_id, app_id")
            .map { row in
                let (userId, appId, document, updatedAt) = try row.decode((String, String, String, Date).self)
                return CustomDataRecord(userId: userId, appId: appId, document: try CustomDataRecord.decode(document), updatedAt: updatedAt)
            }
    }
}
