import HTTPTypes
import Hummingbird
import LatchkeyCore

/// One Parse request after its app and keys were checked: the call, the caller's live session if any, the path
/// parameters and the query (the JS SDK sends in the body what ParseSwift sends in the query).
struct ParseRequest: Sendable {
    struct Session: Sendable {
        let record: SessionRecord
        let token: String
        let user: UserRecord
    }

    let call: ParseCall
    let session: Session?
    let parameters: Parameters
    let query: [String: String]
    let headers: HTTPFields

    /// The master key wins over a session, as in Parse Server.
    var actor: ParseActor {
        if call.isMaster { return .master }
        if let session { return .user(session.user, session: session.record) }
        return .anonymous
    }

    func parameter(_ name: String) -> String { parameters.get(name) ?? "" }

    /// A string from the body, else from the query.
    func value(_ key: String) throws -> String? { try call.string(key) ?? query[key] }

    /// `username` / `email` and `password` for `login` and `verifyPassword`, with Parse's 200 and 201.
    func credentials() throws -> (username: String?, email: String?, password: String) {
        let username = try value("username"), email = try value("email")
        guard username?.isEmpty == false || email?.isEmpty == false else { throw ParseError(200, "username/email is required.") }
        guard let password = try value("password"), !password.isEmpty else { throw ParseError(201, "password is required.") }
        return (username, email, password)
    }
}
