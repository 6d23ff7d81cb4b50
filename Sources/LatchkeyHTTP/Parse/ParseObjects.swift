import Foundation
import LatchkeyCore

/// How Parse objects look on the wire: dates exactly `yyyy-MM-ddTHH:mm:ss.SSSZ` (ParseSwift refuses any other form),
/// users without internal fields, the owner's ACL.
enum ParseObjects {
    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return formatter
    }()

    static func date(_ date: Date) -> String { formatter.string(from: date) }

    /// A user as its owner (or master) sees it; others do not see `email`. Custom fields come first so that no stored
    /// field can shadow the server's own keys.
    static func user(_ user: UserRecord, showEmail: Bool, sessionToken: String? = nil) -> [String: JSONValue] {
        var body = user.attributes.filter { name, _ in LatchkeyEngine.isCustomFieldName(name) }
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
        return body
    }
}
