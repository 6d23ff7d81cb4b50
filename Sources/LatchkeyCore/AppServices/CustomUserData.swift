import Foundation

/// Custom user data's one rule, wherever a document comes from (an app function's answer, the admin API, an import):
/// a JSON object of at most `maxBytes` when stored, for an App Services app this deployment serves. Each access token
/// of that app carries it whole, so the cap keeps tokens inside the 8 KiB bearer limit.
public enum CustomUserData {
    public static let maxBytes = 4096

    public enum Refusal: ClassifiedError, Sendable, Equatable {
        case tooLarge(bytes: Int)
        case unknownApp(String)

        public var errorClass: ErrorClass {
            switch self {
            case .tooLarge: .invalid
            case .unknownApp: .notFound
            }
        }
    }

    /// The document as it is stored (nil: none), or why it cannot be.
    static func checked(_ document: [String: JSONValue]?, appId: String, apps: [AppServicesApp]) throws -> [String: JSONValue]? {
        guard apps.contains(where: { $0.id == appId }) else { throw Refusal.unknownApp(appId) }
        guard let document else { return nil }
        let size = try CustomDataRecord.encode(document).utf8.count
        guard size <= maxBytes else { throw Refusal.tooLarge(bytes: size) }
        return document
    }
}

extension EngineKernel {
    /// Replaces (nil: removes) the account's custom data for `appId`, audited `custom_data_set` with who set it.
    func setCustomData(_ document: [String: JSONValue]?, userId: String, appId: String, caller: CallerInfo, by source: String) async throws {
        let checked = try CustomUserData.checked(document, appId: appId, apps: engine.settings.apps)
        try await transaction { tx in
            try await tx.customData.setCustomDocument(checked, userId: userId, appId: appId, at: self.time.now())
            try await self.audit(tx, "custom_data_set", caller: caller, userId: userId, detail: "\(appId) by \(source)\(checked == nil ? ", removed" : "")")
        }
    }
}

extension OperatorService {
    /// The account's custom data for each app that has some.
    public func adminCustomData(_ key: String) async throws -> [CustomDataRecord] {
        let user = try await adminFindUser(key)
        return try await reader.customData.customDocuments(userIds: [user.id])
    }

    /// `PUT /admin/v1/users/{user}/custom-data/{app}` (a document) and `DELETE` (nil).
    public func adminSetCustomData(_ key: String, appId: String, document: [String: JSONValue]?, caller: CallerInfo) async throws {
        let user = try await adminFindUser(key)
        try await setCustomData(document, userId: user.id, appId: appId, caller: caller, by: "admin")
    }
}
