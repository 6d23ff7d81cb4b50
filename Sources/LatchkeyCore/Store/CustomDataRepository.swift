import Foundation

/// Custom user data: one JSON document per account and App Services app, which that app's access tokens carry as
/// `user_data` (realm-core's `user.customData`). Removed with its account.
public protocol CustomDataRepository: Sendable {
    func customDocument(userId: String, appId: String) async throws -> [String: JSONValue]?
    /// Replaces the document; nil removes it.
    func setCustomDocument(_ document: [String: JSONValue]?, userId: String, appId: String, at: Date) async throws
    /// Every document of these accounts (a page of an export), by account and app.
    func customDocuments(userIds: [String]) async throws -> [CustomDataRecord]
}

public struct CustomDataRecord: Sendable, Equatable {
    public var userId: String
    public var appId: String
    public var document: [String: JSONValue]
    public var updatedAt: Date

    public init(userId: String, appId: String, document: [String: JSONValue], updatedAt: Date) {
        self.userId = userId; self.appId = appId; self.document = document; self.updatedAt = updatedAt
    }

    /// The stored text of a document: compact, keys sorted (so a document that did not change stores the same).
    public static func encode(_ document: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }

    public static func decode(_ text: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
    }
}
