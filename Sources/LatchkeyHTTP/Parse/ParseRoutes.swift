import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The Parse dialect (specs/parse.md) under `parse.mount`: users, login, the current user, logout and health.
struct ParseRoutes: Sendable {
    let engine: LatchkeyEngine
    let mount: String
    let masterKeyIPs: Set<String>
    let clientAddress: ClientAddress

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group(RouterPath(mount)).add(middleware: ParseErrorMiddleware())
        for method in [HTTPRequest.Method.get, .post] {
            group.on("health", method: method) { _, _ in JSONResponse.ok(["status": "ok"]) }
            group.on("login", method: method) { request, context in
                try await self.call(request, context, body: method == .post, session: .ignored) { call, _ in try await self.login(call, request) }
            }
        }
        group.post("users") { request, context in
            try await self.call(request, context, body: true, session: .checked) { call, _ in try await self.signUp(call) }
        }
        group.get("users/me") { request, context in
            try await self.call(request, context, body: false, session: .required) { _, session in
                let (session, user) = session!
                return JSONResponse.make(.ok, ParseObjects.user(user, showEmail: true, sessionToken: session.token))
            }
        }
        group.post("logout") { request, context in
            try await self.call(request, context, body: false, session: .checked) { call, session in
                if let (live, _) = session { try await engine.parseLogout(live.record, caller: call.caller) }
                return JSONResponse.make(.ok, [:])
            }
        }
    }

    /// How a route treats `X-Parse-Session-Token`: `/login` ignores a stale one; elsewhere a token must be live (209).
    enum SessionUse { case ignored, checked, required }
    typealias LiveSession = (record: SessionRecord, token: String)

    private func call(_ request: Request, _ context: LatchkeyRequestContext, body: Bool, session use: SessionUse,
                      _ handler: (ParseCall, (LiveSession, UserRecord)?) async throws -> Response) async throws -> Response {
        guard let call = try await ParseCall.read(request, context: context, engine: engine, masterKeyIPs: masterKeyIPs,
                                                  clientAddress: clientAddress, withBody: body) else {
            return ParseError.unauthorized
        }
        var session: (LiveSession, UserRecord)?
        if use != .ignored, let token = call.sessionToken {
            let (record, user) = try await engine.parseSession(app: call.app, token: token)
            session = ((record, token), user)
        }
        if use == .required, session == nil { throw ParseError.invalidSession }
        return try await handler(call, session)
    }

    private func signUp(_ call: ParseCall) async throws -> Response {
        if call.body["objectId"] != nil || call.body["id"] != nil { throw ParseError(105, "objectId is an invalid field name.") }
        if call.body["emailVerified"] != nil, !call.isMaster {
            throw ParseError(119, "Clients aren't allowed to manually update email verification.")
        }
        if let authData = call.body["authData"], authData != .null { throw ParseError(252, "This authentication method is unsupported.") }
        let fields = call.body.filter { !["username", "password", "email", "ACL", "emailVerified", "authData"].contains($0.key) }
        let login = try await engine.parseSignUp(app: call.app, username: try call.string("username"), email: try call.string("email"),
                                                 password: try call.string("password"), fields: fields,
                                                 installationId: call.installationId, caller: call.caller)
        let location = "\(engine.settings.publicURL)\(mount)/users/\(login.user.objectId)"
        return JSONResponse.make(.created, ["objectId": .string(login.user.objectId), "createdAt": .string(ParseObjects.date(login.user.createdAt)),
                                             "sessionToken": .string(login.sessionToken)],
                                  headers: [.location: location])
    }

    /// `GET login?username=&password=` or `POST login` with a JSON body; the query fills what the body lacks.
    private func login(_ call: ParseCall, _ request: Request) async throws -> Response {
        let query = ParseRoutes.query(request)
        func credential(_ key: String) throws -> String? {
            if let value = try call.string(key) { return value }
            return query[key]
        }
        let username = try credential("username"), email = try credential("email")
        guard username?.isEmpty == false || email?.isEmpty == false else { throw ParseError(200, "username/email is required.") }
        guard let password = try credential("password"), !password.isEmpty else { throw ParseError(201, "password is required.") }
        let login = try await engine.parseLogin(app: call.app, username: username, email: email, password: password,
                                                installationId: call.installationId, caller: call.caller)
        return JSONResponse.make(.ok, ParseObjects.user(login.user, showEmail: true, sessionToken: login.sessionToken))
    }

    /// The query string as Express reads it: `+` is a space (ParseSwift sends a literal plus as `%2B`).
    static func query(_ request: Request) -> [String: String] {
        var values: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first, values[key] == nil { values[key] = parts.count > 1 ? parts[1] : "" }
        }
        return values
    }

}
