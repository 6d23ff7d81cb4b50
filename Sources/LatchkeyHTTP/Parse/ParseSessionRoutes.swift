import Hummingbird
import LatchkeyCore

/// `sessions/me`, `sessions` and `sessions/:id`: the caller's own sessions of the app.
extension ParseRoutes {
    func addSessionRoutes(_ group: RouterGroup<LatchkeyRequestContext>) {
        route(group, "sessions/me", [.get: Endpoint(.required) { request in
            let session = request.session!
            return JSONResponse.make(.ok, ParseObjects.session(session.record, of: session.user, token: session.token))
        }])
        route(group, "sessions", [.get: Endpoint(.required) { request in
            let session = request.session!
            let sessions = try await engine.parseSessions(app: request.call.app, of: session.user)
            return JSONResponse.make(.ok, ["results": .array(sessions.map {
                .object(ParseObjects.session($0, of: session.user, token: $0.id == session.record.id ? session.token : nil))
            })])
        }])
        route(group, "sessions/:id", [.get: Endpoint(.required) { request in
            let session = request.session!
            // Listed as the session's own user even with the master key: the answer names that user.
            let found = try await engine.parseSession(app: request.call.app, id: request.parameter("id"),
                                                      actor: .user(session.user, session: session.record))
            return JSONResponse.make(.ok, ParseObjects.session(found, of: session.user, token: found.id == session.record.id ? session.token : nil))
        }, .delete: Endpoint(.checked) { request in
            guard request.session != nil || request.call.isMaster else { throw ParseError.invalidSession }
            try await engine.parseEndSession(app: request.call.app, id: request.parameter("id"), actor: request.actor,
                                             caller: request.call.caller)
            return JSONResponse.make(.ok, [:])
        }])
    }
}
