import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// `users`, `users/me`, `users/:id`, `verifyPassword` and `loginAs`.
extension ParseRoutes {
    /// Keys a user body may carry that are the server's own: ignored on writes (ParseSwift sends back what it read).
    static let serverOwnedKeys: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL", "sessionToken", "className", "__type"]
    /// The user keys with a meaning of their own; every other key of a user body is a custom field.
    static let accountKeys: Set<String> = ["username", "password", "email", "emailVerified", "authData"]
    /// Query parameters Parse accepts on `GET users/:id`; anything else is 102.
    static let userReadOptions: Set<String> = ["keys", "include", "excludeKeys", "readPreference", "includeReadPreference",
                                               "subqueryReadPreference"]

    func addUserRoutes(_ group: RouterGroup<LatchkeyRequestContext>) {
        route(group, "users", [.post: Endpoint(.checked) { try await self.signUp($0) },
                               .get: Endpoint(.checked) { try await self.listUsers($0) }])
        route(group, "users/me", [.get: Endpoint(.required) { request in
            let session = request.session!
            return JSONResponse.make(.ok, ParseObjects.user(session.user, showEmail: true, sessionToken: session.token,
                                                            authData: try await engine.parseAuthData(of: session.user)))
        }])
        route(group, "users/:id", [.get: Endpoint(.checked) { try await self.readUser($0) },
                                   .put: Endpoint(.checked) { try await self.updateUser($0) },
                                   .delete: Endpoint(.checked) { try await self.deleteUser($0) }])
        let verify = Endpoint(.ignored) { request in
            let (username, email, password) = try request.credentials()
            let user = try await engine.parseVerifyPassword(app: request.call.app, username: username, email: email, password: password,
                                                            caller: request.call.caller)
            return JSONResponse.make(.ok, ParseObjects.user(user, showEmail: true))
        }
        route(group, "verifyPassword", [.get: verify, .post: verify])
        route(group, "loginAs", [.post: Endpoint(.checked) { try await self.loginAs($0) }])
    }

    private func signUp(_ request: ParseRequest) async throws -> Response {
        let call = request.call
        if call.body["objectId"] != nil || call.body["id"] != nil { throw ParseError(105, "objectId is an invalid field name.") }
        if let authData = call.body["authData"] { return try await authDataLogin(authData, request) }
        let fields = call.body.filter { !Self.accountKeys.contains($0.key) && $0.key != "ACL" }
        let login = try await engine.parseSignUp(app: call.app, username: try call.string("username"), email: try call.string("email"),
                                                 password: try call.string("password"), fields: fields,
                                                 emailVerified: try Self.emailVerified(call.body), actor: request.actor,
                                                 installationId: call.installationId, caller: call.caller)
        let location = "\(engine.settings.publicURL)\(mount)/users/\(login.user.objectId)"
        var answer: [String: JSONValue] = ["objectId": .string(login.user.objectId), "createdAt": .string(ParseObjects.date(login.user.createdAt))]
        // As Parse Server: an app that keeps unverified users out answers the sign-up without a session.
        if let token = login.sessionToken { answer["sessionToken"] = .string(token) }
        return JSONResponse.make(.created, answer, headers: [.location: location])
    }

    private func readUser(_ request: ParseRequest) async throws -> Response {
        if let unknown = request.query.keys.sorted().first(where: { !Self.userReadOptions.contains($0) }) {
            throw ParseError(102, "Improper encode of parameter: \(unknown).")
        }
        let user = try await engine.parseUser(objectId: request.parameter("id"), actor: request.actor)
        let token = request.session.flatMap { $0.user.id == user.id ? $0.token : nil }
        return JSONResponse.make(.ok, ParseObjects.user(user, showEmail: true, sessionToken: token, authData: try await engine.parseAuthData(of: user)))
    }

    /// Parse's field operations: `{"__op": "Delete"}` and `{"__op": "Increment", "amount": n}` (`amount` absent is
    /// not a number); any other `__op` reaches the engine as unsupported; anything else is a value.
    static func fieldChange(_ value: JSONValue) -> FieldChange {
        guard case .object(let map) = value, case .string(let op)? = map["__op"] else { return .set(value) }
        switch op {
        case "Delete": return .remove
        case "Increment": return map["amount"].map(FieldChange.increment) ?? .unsupported(op)
        default: return .unsupported(op)
        }
    }

    private func updateUser(_ request: ParseRequest) async throws -> Response {
        let id = request.parameter("id"), body = request.call.body
        guard request.session != nil || request.call.isMaster else { throw ParseError(206, "Cannot modify user \(id).") }
        var changes = ParseUserChanges(username: try request.call.string("username"), password: try request.call.string("password"),
                                       emailVerified: try Self.emailVerified(body))
        switch body["email"] {
        case nil: break
        case .null?: changes.email = .some(nil)
        case .string(let email)?: changes.email = email
        default: throw ParseError(125, "you must provide a valid email string")
        }
        changes.fields = body.filter { !Self.serverOwnedKeys.contains($0.key) && !Self.accountKeys.contains($0.key) }.mapValues(Self.fieldChange)
        do {
            if let authData = body["authData"] {
                try Self.requireStringSecondFactor(authData)
                var entries = try Self.authDataEntries(authData)
                // Checks first, writes none: the identities' tokens (the issuers' keys may be fetched), then the second
                // factor's proof; the update then writes all of it in one transaction, or nothing.
                let secondFactor = entries.removeValue(forKey: Self.secondFactorKey)
                changes.identities = try await engine.parseVerifyAuthData(app: request.call.app, objectId: id, authData: entries,
                                                                         actor: request.actor)
                if let secondFactor {
                    changes.secondFactor = try await engine.parsePrepareSecondFactor(app: request.call.app, objectId: id, fields: secondFactor,
                                                                                     actor: request.actor, caller: request.call.caller)
                }
            }
            let (user, token, recoveryCodes) = try await engine.parseUpdateUser(
                app: request.call.app, objectId: id, changes: changes, actor: request.actor, installationId: request.call.installationId,
                caller: request.call.caller)
            var answer: [String: JSONValue] = ["updatedAt": .string(ParseObjects.date(user.updatedAt))]
            if let token { answer["sessionToken"] = .string(token) }
            if recoveryCodes != nil { answer["authDataResponse"] = ParseObjects.authDataResponse(recoveryCodes: recoveryCodes) }
            return JSONResponse.make(.ok, answer)
        } catch LatchkeyError.notPermitted, LatchkeyError.identityRefused {
            // As Parse Server: on an update, every "object not found" (an auth adapter's refusal included) is 206.
            throw ParseError(206, "Insufficient auth.")
        }
    }

    private func deleteUser(_ request: ParseRequest) async throws -> Response {
        guard request.session != nil || request.call.isMaster else { throw ParseError(206, "Insufficient auth to delete user") }
        do {
            try await engine.parseDeleteUser(objectId: request.parameter("id"), actor: request.actor, caller: request.call.caller)
        } catch LatchkeyError.notPermitted {
            throw ParseError(206, "Insufficient auth to delete user")
        }
        return JSONResponse.make(.ok, [:])
    }

    /// `GET users` (master key): `where` on `username` and `email` (exact values), `limit` (100 by default, at most
    /// 1000), `skip`, `count`.
    private func listUsers(_ request: ParseRequest) async throws -> Response {
        guard request.call.isMaster else { throw ParseError(119, "master key is required") }
        var query = UserQuery()
        for (key, value) in try Self.whereClause(request) {
            guard case .string(let text) = value else { throw ParseError(102, "Only exact string values can be queried on _User.") }
            switch key {
            case "username": query.username = text
            case "email": query.email = text
            default: throw ParseError(102, "Only username and email can be queried on _User.")
            }
        }
        query.limit = try Self.number(request, "limit", default: 100, in: 0...1000)
        query.skip = try Self.number(request, "skip", default: 0, in: 0...1_000_000)
        let wantsCount = try Self.number(request, "count", default: 0, in: 0...1) == 1
        let (users, total) = try await engine.parseListUsers(query, count: wantsCount)
        var answer: [String: JSONValue] = ["results": .array(users.map { .object(ParseObjects.user($0, showEmail: true)) })]
        if let total { answer["count"] = .int(total) }
        return JSONResponse.make(.ok, answer)
    }

    /// `loginAs` (master key): a session for the user named by `userId`, in the body or the query.
    private func loginAs(_ request: ParseRequest) async throws -> Response {
        guard request.call.isMaster else { throw ParseError(119, "master key is required") }
        guard let userId = try? request.value("userId"), !userId.isEmpty else {
            throw ParseError(162, "userId must not be empty, null, or undefined")
        }
        do {
            let login = try await engine.parseLoginAs(app: request.call.app, objectId: userId, installationId: request.call.installationId,
                                                      caller: request.call.caller)
            return JSONResponse.make(.ok, ParseObjects.user(login.user, showEmail: true, sessionToken: login.sessionToken))
        } catch LatchkeyError.objectNotFound {
            throw ParseError(101, "user not found")
        }
    }

    private static func emailVerified(_ body: [String: JSONValue]) throws -> Bool? {
        switch body["emailVerified"] {
        case nil, .null?: return nil
        case .bool(let verified)?: return verified
        default: throw ParseError(111, "schema mismatch for _User.emailVerified; expected Boolean")
        }
    }

    /// `where` as a JSON string (query) or object (the JS SDK's body).
    private static func whereClause(_ request: ParseRequest) throws -> [String: JSONValue] {
        if case .object(let clause)? = request.call.body["where"] { return clause }
        guard let text = request.query["where"] else { return [:] }
        guard let clause = JSONValue.decodeUntrusted([String: JSONValue].self, from: Data(text.utf8)) else {
            throw ParseError(107, "Invalid JSON.")
        }
        return clause
    }

    /// A whole number from the body or the query, in `range`.
    private static func number(_ request: ParseRequest, _ key: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        let given: Int?
        switch request.call.body[key] {
        case .int(let number)?: given = number
        case .bool(let flag)?: given = flag ? 1 : 0
        case nil: given = request.query[key].map { Int($0) ?? -1 }
        default: given = -1
        }
        guard let given else { return value }
        guard range.contains(given) else { throw ParseError(102, "Invalid \(key) value.") }
        return given
    }
}
