import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyCore

/// The Parse dialect (docs/parse.md) under `parse.mount`. Every route goes through `route`, which checks the app
/// and its keys, honours the JS SDK's `_method`, reads the session as the endpoint asks, then runs the handler.
struct ParseRoutes: Sendable {
    let engine: any ParseSurface
    let mount: String
    let masterKeyIPs: Set<String>
    let clientAddress: ClientAddress
    let pages: HTMLPages

    /// How an endpoint treats `X-Parse-Session-Token`: `/login` ignores a stale one; elsewhere a token must be live
    /// (209); some endpoints need one.
    enum SessionUse { case ignored, checked, required }
    typealias Handler = @Sendable (ParseRequest) async throws -> Response

    struct Endpoint: Sendable {
        let session: SessionUse
        let handler: Handler
        init(_ session: SessionUse, _ handler: @escaping Handler) { self.session = session; self.handler = handler }
    }

    func addRoutes(to router: Router<LatchkeyRequestContext>) {
        let group = router.group(RouterPath(mount)).add(middleware: DialectErrorMiddleware(ParseErrors()))
        // Health needs no app id (load balancers call it).
        for method in [HTTPRequest.Method.get, .post] { group.on("health", method: method) { _, _ in JSONResponse.ok(["status": "ok"]) } }
        let login = Endpoint(.ignored) { try await self.login($0) }
        route(group, "login", [.get: login, .post: login])
        route(group, "logout", [.post: Endpoint(.checked) { try await self.logout($0) }])
        addUserRoutes(group)
        addEmailRoutes(group)
        addSessionRoutes(group)
        addFunctionRoutes(group)
        ParseLinkPages(engine: engine, mount: mount, pages: pages, clientAddress: clientAddress).addRoutes(to: router)
    }

    /// Registers `endpoints` on `path`, and a POST that dispatches on `_method` when the path has no POST of its own.
    func route(_ group: RouterGroup<LatchkeyRequestContext>, _ path: String, _ endpoints: [HTTPRequest.Method: Endpoint]) {
        var methods = Array(endpoints.keys)
        if endpoints[.post] == nil { methods.append(.post) }
        for method in methods {
            group.on(RouterPath(path), method: method) { request, context in
                try await self.run(request, context, endpoints, method: method)
            }
        }
    }

    private func run(_ request: Request, _ context: LatchkeyRequestContext, _ endpoints: [HTTPRequest.Method: Endpoint],
                     method: HTTPRequest.Method) async throws -> Response {
        guard let call = try await ParseCall.read(request, context: context, engine: engine, masterKeyIPs: masterKeyIPs,
                                                  clientAddress: clientAddress) else {
            return ParseError.unauthorized
        }
        let method = method == .post ? call.methodOverride ?? .post : method
        guard let endpoint = endpoints[method] else {
            // A POST (or its `_method`) the path does not serve: 405 naming the methods it does, in Parse's body.
            var response = ParseError(107, "cannot route", status: .methodNotAllowed).response
            response.headers[.allow] = endpoints.keys.map(\.rawValue).sorted().joined(separator: ", ")
            return response
        }
        var session: ParseRequest.Session?
        if endpoint.session != .ignored, let token = call.sessionToken {
            let (record, user) = try await engine.parseSession(app: call.app, token: token)
            session = ParseRequest.Session(record: record, token: token, user: user)
        }
        if endpoint.session == .required, session == nil { throw ParseError.invalidSession }
        return try await endpoint.handler(ParseRequest(call: call, session: session, parameters: context.parameters,
                                                       query: Self.query(request), headers: request.headers))
    }

    /// `GET login?username=&password=` or `POST login` with a JSON body.
    private func login(_ request: ParseRequest) async throws -> Response {
        let (username, email, password) = try request.credentials()
        let login = try await engine.parseLogin(app: request.call.app, username: username, email: email, password: password,
                                                secondFactor: try Self.secondFactorEntry(request.call.body),
                                                installationId: request.call.installationId, caller: request.call.caller)
        var body = ParseObjects.user(login.user, showEmail: true, sessionToken: login.sessionToken,
                                     authData: login.secondFactorEnabled ? try await engine.parseAuthData(of: login.user) : [:])
        // As Parse Server after an additional adapter: `authDataResponse`, with recovery codes when one was enrolled now.
        if login.secondFactorEnabled { body["authDataResponse"] = ParseObjects.authDataResponse(recoveryCodes: login.recoveryCodes) }
        return JSONResponse.make(.ok, body)
    }

    /// `logout`: ends the caller's session; without one there is nothing to end.
    private func logout(_ request: ParseRequest) async throws -> Response {
        if let session = request.session { try await engine.parseLogout(session.record, caller: request.call.caller) }
        return JSONResponse.make(.ok, [:])
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
