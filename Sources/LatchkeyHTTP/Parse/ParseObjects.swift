import Foundation
import LatchkeyCore

/// How Parse objects look on the wire: dates exactly `yyyy-MM-ddTHH:mm:ss.SSSZ` (ParseSwift refuses any other form),
/// users without internal fields, the owner's ACL.
enum ParseObjects {
    static func date(_ date: Date) -> String { ParseDate.string(date) }

    /// A user as its owner (or master) sees it; others do not see `email`. Custom fields come first so that no stored
    /// field can shadow the server's own keys.
    static func user(_ user: UserRecord, showEmail: Bool, sessionToken: String? = nil,
                     authData: [String: [String: String]] = [:]) -> [String: JSONValue] {
        var body = user.attributes.filter { name, _ in AccountRules.isCustomFieldName(name) }
        body["objectId"] = .string(user.objectId)
        // Accounts made through the other dialects have no username: Parse's lookup takes their email in its place.
        body["username"] = .string(user.username ?? user.email ?? user.objectId)
        if showEmail, let email = user.email {
            body["email"] = .string(email)
            body["emailVerified"] = .bool(user.emailVerified)
        }
        body["createdAt"] = .string(date(user.createdAt))
        body["updatedAt"] = .string(date(user.updatedAt))
        body["ACL"] = .object([user.objectId: .object(["read": .bool(true), "write": .bool(true)])])
        if let sessionToken { body["sessionToken"] = .string(sessionToken) }
        // String maps only: ParseSwift decodes `authData` as [String: [String: String]?].
        if !authData.isEmpty { body["authData"] = .object(authData.mapValues { .object($0.mapValues(JSONValue.string)) }) }
        return body
    }

    /// `authDataResponse`: `{mfa: {recovery: "c1, c2, ..."}}` when recovery codes were just made (one string, as
    /// Parse Server joins them), else `{}`.
    static func authDataResponse(recoveryCodes: [String]?) -> JSONValue {
        guard let codes = recoveryCodes else { return .object([:]) }
        return .object(["mfa": .object(["recovery": .string(codes.joined(separator: ", "))])])
    }

    /// A `_Session`. Only hashes are stored, so only the caller's own session carries its token; the others carry an
    /// empty `sessionToken` (ParseSwift's `ParseSession` requires the key) and `installationId` is empty when none was
    /// sent (it is required too).
    static func session(_ session: SessionRecord, of user: UserRecord, token: String?) -> [String: JSONValue] {
        let createdWith = session.scope.split(separator: ":", maxSplits: 1).map(String.init)
        return [
            "objectId": .string(session.id),
            "sessionToken": .string(token ?? ""),
            "user": .object(["__type": "Pointer", "className": "_User", "objectId": .string(user.objectId)]),
            "createdWith": .object(["action": .string(createdWith.first ?? "login"), "authProvider": .string(createdWith.last ?? "password")]),
            "restricted": .bool(false),
            "installationId": .string(session.deviceId ?? ""),
            "expiresAt": .object(["__type": "Date", "iso": .string(date(session.expiresAt))]),
            "createdAt": .string(date(session.createdAt)),
            "updatedAt": .string(date(session.createdAt)),
        ]
    }
}
