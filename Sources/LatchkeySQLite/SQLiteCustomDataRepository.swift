import Foundation
import GRDB
import LatchkeyCore

// MARK: CustomDataRepository
extension SQLiteRepositories {
    func customDocument(userId: String, appId: String) async throws -> [String: JSONValue]? {
        let text = try await lookup { db in
            try String.fetchOne(db, sql: "SELECT document FROM custom_data WHERE user_id = ? AND app_id = ?", arguments: [userId, appId])
        }
        return try text.map(CustomDataRecord.decode)
    }

    func setCustomDocument(_ document: [String: JSONValue]?, userId: String, appId: String, at: Date) async throws {
        let text = try document.map(CustomDataRecord.encode)
        try await write { db in
            if let text {
                try db.execute(sql: """
                    INSERT INTO custom_data (user_id, app_id, document, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id, app_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                    """, arguments: [userId, appId, text, at])
            } else {
                try db.execute(sql: "DELETE FROM custom_data WHERE user_id = ? AND app_id = ?", arguments: [userId, appId])
            }
        }
    }

    func customDocuments(userIds: [String]) async throws -> [CustomDataRecord] {
        let ids = String(decoding: try JSONEncoder().encode(userIds), as: UTF8.self)
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM custom_data WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id, app_id",
                             arguments: [ids]).map { row in
                CustomDataRecord(userId: row["user_id"], appId: row["app_id"], document: try CustomDataRecord.decode(row["document"]),
                                 updatedAt: row["updated_at"])
            }
        }
    }
}
