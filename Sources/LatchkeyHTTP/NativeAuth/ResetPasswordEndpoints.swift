import Hummingbird
import LatchkeyCore

/// resetpassword/v1.0/start | challenge | continue | submit | poll_completion
extension NativeAuthRoutes {
    func resetStart(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        switch try await engine.resetStart(username: form.username, challengeTypes: form.challengeTypes, caller: caller) {
        case .started(let token): return Self.started(token)
        case .redirect: return Self.redirect("Password reset needs email verification by code (challenge type oob).")
        }
    }

    func resetChallenge(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        Self.challenge(try await engine.resetChallenge(continuationToken: form.continuationToken,
                                                       challengeTypes: form.challengeTypes, caller: caller))
    }

    func resetContinue(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        switch form.grantType {
        case "oob": break
        case nil, "": throw MalformedRequest(what: "grant_type")
        default: return NativeAuthError.body("unsupported_grant_type", "grant_type must be oob.", [70003])
        }
        let (token, expiresIn) = try await engine.resetContinue(continuationToken: form.continuationToken, code: form.oob, caller: caller)
        return JSONResponse.ok(["continuation_token": .string(token), "expires_in": .int(expiresIn)])
    }

    func resetSubmit(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let (token, interval) = try await engine.resetSubmit(continuationToken: form.continuationToken,
                                                             newPassword: form.newPassword, caller: caller)
        return JSONResponse.ok(["continuation_token": .string(token), "poll_interval": .int(interval)])
    }

    func resetPoll(_ form: NativeAuthForm, _ caller: CallerInfo) async throws -> Response {
        let (status, token) = try await engine.resetPoll(continuationToken: form.continuationToken, caller: caller)
        var body: [String: JSONValue] = ["status": .string(status.rawValue)]
        if let token {
            body["continuation_token"] = .string(token)
            body["expires_in"] = .int(engine.settings.tokens.flowTTLSeconds)
        }
        return JSONResponse.ok(body)
    }
}
